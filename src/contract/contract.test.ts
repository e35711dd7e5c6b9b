// The contract table: the 23 operations; parameter bounds, defaults, strictness, real calendar dates; window rules; the OpenAPI document.
import { describe, expect, it } from 'vitest';
import { API_ERROR_STATUS, ApiError } from './errors';
import { openApiDocument } from './openapi';
import { API_BASE, BRAND_ID_FROM, documentedErrors, examplePath, operationList, operations, type OperationId, type ParamSource } from './operations';
import { contractPaths } from './upstream-map';
import { queryObject, readParams } from './params';
import { rateHeaders, readRateFields } from './rate-limit';
import { matchOperation, parseRequest } from './request';
import { resolvePeriod } from './window';
import { zodSide } from './zod-side';

/** The contract's zod side: the response schemas the bodies are checked with. */
const zs = await zodSide();

const paramError = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return { code: (error as ApiError).code, param: (error as ApiError).param, message: (error as ApiError).message };
  }
  throw new Error('expected an ApiError');
};

describe('the operations table', () => {
  it('has the 20 operations of the spec plus brands, markets and answers, each at a distinct path', () => {
    expect(operationList).toHaveLength(23);
    expect(new Set(operationList.map((o) => o.path)).size).toBe(23);
  });
  it('marks the Pro and Growth operations and the integrations the spec names', () => {
    const pro = operationList
      .filter((o) => o.plan === 'pro_or_growth')
      .map((o) => o.path)
      .sort();
    expect(pro).toEqual(['/ai-crawlers', '/ai-visitors', '/brand-perception', '/brand-perception/transcript', '/forum', '/tasks', '/tasks/{id}']);
    expect(operations.getSearchPerformance.integration).toBe('search_performance');
    expect(operations.getAiCrawlers.integration).toBe('crawler_data');
  });
  it('keeps fixed-window reads fresh for an hour and dated ones for 5 minutes (DESIGN section 6)', () => {
    for (const o of operationList.filter((o) => o.window.kind === 'fixed')) expect([o.path, o.ttl]).toEqual([o.path, 3600]);
    for (const o of operationList.filter((o) => o.window.kind === 'dated' || o.window.kind === 'trailing')) expect([o.path, o.ttl]).toEqual([o.path, 300]);
  });
  it('gives every operation an example request that its own path matches and its schemas accept', () => {
    for (const o of operationList) {
      const url = new URL(`https://api.test${API_BASE}${examplePath(o)}`);
      const match = matchOperation(url.pathname);
      expect({ path: examplePath(o), matched: match?.op.id }).toEqual({ path: examplePath(o), matched: o.id });
      expect(() => parseRequest(match!, url.searchParams, '2026-11-21'), examplePath(o)).not.toThrow();
    }
  });
  it('holds no schema: an entry is data, and its response schema comes from the awaited zod side, built once', () => {
    for (const o of operationList) expect([o.id, ['response', 'query', 'pathParams'].filter((field) => field in o)]).toEqual([o.id, []]);
    // @ts-expect-error a schema is reached through the zod side's value only: `(await zodSide()).response(id)`
    void operations.getVisibility.response;
    for (const id of Object.keys(operations) as OperationId[]) expect(zs.response(id), id).toBe(zs.response(id));
    expect(zs.response('getVisibility').safeParse({}).success).toBe(false);
  });
  it('writes an example request as a path and query under the API base, percent-encoded', () => {
    expect(examplePath(operations.getVisibility)).toBe('/visibility');
    expect(examplePath(operations.getTopic)).toBe('/topics/1101');
    expect(examplePath(operations.getAnswerRuns)).toBe('/answers/runs?prompt=What%20is%20the%20best%20help%20desk%20software%20this%20year%3F');
    expect(examplePath({ path: '/competitors/{name}', example: { path: { name: 'Clearbooks Pro' }, query: { limit: 5, engine: 'a&b' } } })).toBe('/competitors/Clearbooks%20Pro?limit=5&engine=a%26b');
  });
  it('says where every required parameter comes from: an operation that needs none, and a path of its body', () => {
    const sources: [string, ParamSource][] = [['brand_id', BRAND_ID_FROM]];
    for (const op of operationList) {
      const required = [
        ...Object.keys(op.params.path),
        ...Object.entries(op.params.query)
          .filter(([, param]) => param.presence === 'required')
          .map(([name]) => name),
      ];
      expect(Object.keys(op.paramsFrom ?? {}).sort(), op.id).toEqual(required.sort());
      sources.push(...Object.entries(op.paramsFrom ?? {}));
    }
    for (const [param, source] of sources) {
      const from = operationList.find((o) => o.id === source.operation);
      expect(from, `${param}: ${source.operation}`).toBeDefined();
      expect(from!.paramsFrom, `${source.operation} needs no parameter`).toBeUndefined();
      expect(contractPaths(zs, source.operation as OperationId).has(source.path), `${source.operation} has ${source.path}`).toBe(true);
    }
  });
  it('documents the errors every operation shares, and the brand, plan and integration ones where the table says so', () => {
    for (const o of operationList) {
      const codes = documentedErrors(o);
      expect(new Set(codes).size).toBe(codes.length);
      expect(codes).toEqual(
        expect.arrayContaining(['invalid_parameter', 'invalid_api_key', 'plan_inactive', 'not_found', 'method_not_allowed', 'rate_limited', 'quota_exceeded', 'internal_error', 'upstream_error']),
      );
      expect({ id: o.id, brand: codes.includes('brand_required') && codes.includes('brand_not_found') }).toEqual({ id: o.id, brand: o.scope !== 'account' });
      expect({ id: o.id, plan: codes.includes('feature_not_in_plan') }).toEqual({ id: o.id, plan: o.plan === 'pro_or_growth' });
      expect({ id: o.id, integration: codes.includes('integration_not_connected') }).toEqual({ id: o.id, integration: o.integration !== undefined });
    }
  });
});

describe('parameters', () => {
  const sources = operations.listSources.params.query;
  it('apply defaults and bounds', () => {
    expect(readParams(sources, {}).limit).toBe(15);
    expect(readParams(sources, { limit: '100' }).limit).toBe(100);
    expect(paramError(() => readParams(sources, { limit: '101' }))).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
    expect(paramError(() => readParams(sources, { limit: '0' }))).toMatchObject({ param: 'limit' });
    expect(paramError(() => readParams(sources, { limit: '-1' }))).toMatchObject({ param: 'limit' });
    expect(paramError(() => readParams(sources, { limit: '1.5' }))).toMatchObject({ param: 'limit' });
  });
  it('refuse unknown parameters by name', () => {
    expect(paramError(() => readParams(sources, { limt: '5' }))).toMatchObject({ param: 'limt' });
  });
  it('refuse a parameter given twice', () => {
    expect(paramError(() => queryObject(new URLSearchParams('limit=1&limit=2')))).toMatchObject({ param: 'limit' });
  });
  it('accept only real calendar dates', () => {
    const topics = operations.listTopics.params.query;
    expect(paramError(() => readParams(topics, { from: '2026-02-30' }))).toMatchObject({ param: 'from' });
    expect(paramError(() => readParams(topics, { to: '2026-13-01' }))).toMatchObject({ param: 'to' });
    expect(readParams(topics, { from: '2024-02-29' }).from).toBe('2024-02-29');
  });
  it('accept market codes case-insensitively and numeric ids', () => {
    const q = operations.getVisibility.params.query;
    expect(readParams(q, { market: 'CH-FR' }).market).toBe('ch-fr');
    expect(readParams(q, { market: '11' }).market).toBe('11');
    expect(paramError(() => readParams(q, { market: 'usa!' }))).toMatchObject({ param: 'market' });
  });
});

describe('the rate-limit fields', () => {
  const from = (headers: Record<string, string>) => readRateFields((name) => headers[name] ?? null);

  it("sends only the draft's current fields, and reads them back", () => {
    const sent = rateHeaders({ used: 3, resetAtMs: 42_500 }, 0, 'upstream');
    expect(sent).toEqual({ 'ratelimit-policy': '"upstream";q=60;w=60', ratelimit: '"upstream";r=57;t=43' });
    expect(from(sent)).toEqual({ limit: 60, remaining: 57, resetSeconds: 43 });
  });

  it("reads an upstream that sends the draft's older names, and prefers the current ones when both are there", () => {
    expect(from({ 'ratelimit-limit': '100', 'ratelimit-remaining': '7', 'ratelimit-reset': '12' })).toEqual({ limit: 100, remaining: 7, resetSeconds: 12 });
    expect(from({ ratelimit: '"api";r=5;t=9', 'ratelimit-remaining': '7', 'ratelimit-reset': '12' })).toEqual({ limit: 60, remaining: 5, resetSeconds: 9 });
  });

  it('says nothing when no field says what is left', () => {
    expect(from({})).toBeUndefined();
    expect(from({ ratelimit: 'garbage', 'ratelimit-remaining': 'many' })).toBeUndefined();
  });
});

describe('windows', () => {
  const dated = { kind: 'dated', defaultDays: 7 } as const;
  it('read `days` as the N days ending today, today included', () => {
    expect(resolvePeriod(dated, { days: 7 }, '2026-11-21')).toEqual({ from: '2026-11-15', to: '2026-11-21' });
    expect(resolvePeriod(dated, { days: 1 }, '2026-11-21')).toEqual({ from: '2026-11-21', to: '2026-11-21' });
  });
  it('let `from` win over `days`, and end on `to`', () => {
    expect(resolvePeriod(dated, { days: 30, from: '2026-11-01', to: '2026-11-10' }, '2026-11-21')).toEqual({ from: '2026-11-01', to: '2026-11-10' });
  });
  it('allow `from` exactly 90 days before `to`, not 91', () => {
    expect(resolvePeriod(dated, { from: '2026-08-23' }, '2026-11-21')).toEqual({ from: '2026-08-23', to: '2026-11-21' });
    expect(paramError(() => resolvePeriod(dated, { from: '2026-08-22' }, '2026-11-21'))).toMatchObject({ param: 'from' });
  });
  it('refuse `from` after `to` and `to` after today', () => {
    expect(paramError(() => resolvePeriod(dated, { from: '2026-11-10', to: '2026-11-09' }, '2026-11-21'))).toMatchObject({ param: 'from' });
    expect(paramError(() => resolvePeriod(dated, { to: '2026-11-22' }, '2026-11-21'))).toMatchObject({ param: 'to' });
  });
  it('fix the window of fixed-window operations', () => {
    expect(resolvePeriod({ kind: 'fixed', days: 7 }, {}, '2026-03-01')).toEqual({ from: '2026-02-23', to: '2026-03-01' });
  });
});

describe('the OpenAPI document', () => {
  const doc = openApiDocument() as {
    openapi: string;
    paths: Record<
      string,
      {
        get: {
          operationId: string;
          parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown>; example?: unknown }[];
          responses: Record<string, { description: string; content?: { 'application/json': { schema: { $ref: string } } } }>;
        };
      }
    >;
    components: { schemas: Record<string, unknown> };
  };
  it('is OpenAPI 3.1 with every operation of the table', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(
      Object.values(doc.paths)
        .map((p) => p.get.operationId)
        .sort(),
    ).toEqual(operationList.map((o) => o.id).sort());
  });
  it('documents parameters with their types, bounds and defaults', () => {
    const limit = doc.paths['/sources']!.get.parameters.find((p) => p.name === 'limit')!;
    expect(limit.required).toBe(false);
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 15 });
    const prompt = doc.paths['/answers/runs']!.get.parameters.find((p) => p.name === 'prompt')!;
    expect(prompt.required).toBe(true);
    expect(doc.paths['/visibility']!.get.parameters.map((p) => p.name)).toEqual(['brand_id', 'market']);
  });
  it('gives each parameter of an example request its value as `example`, and no other parameter one', () => {
    for (const o of operationList) {
      const examples = doc.paths[o.path]!.get.parameters.filter((p) => p.example !== undefined).map((p) => [p.in, p.name, p.example]);
      const expected = [...Object.entries(o.example.path ?? {}).map(([name, value]) => ['path', name, value]), ...Object.entries(o.example.query ?? {}).map(([name, value]) => ['query', name, value])];
      expect({ id: o.id, examples }).toEqual({ id: o.id, examples: expected });
    }
    expect(doc.paths['/topics/{id}']!.get.parameters.find((p) => p.name === 'id')!.example).toBe(1101);
  });
  it("lists each operation's documented errors under their statuses", () => {
    for (const o of operationList) {
      const listed = Object.entries(doc.paths[o.path]!.get.responses)
        .filter(([status]) => Number(status) >= 400)
        .flatMap(([status, { description }]) => [...description.matchAll(/`(\w+)`/g)].map((m) => `${status} ${m[1]}`));
      expect({ id: o.id, listed: listed.sort() }).toEqual({
        id: o.id,
        listed: documentedErrors(o)
          .map((code) => `${API_ERROR_STATUS[code]} ${code}`)
          .sort(),
      });
    }
  });
  it('references a response schema for each operation and the shared error body', () => {
    for (const item of Object.values(doc.paths)) {
      const ref = item.get.responses['200']!.content!['application/json'].schema.$ref;
      expect(doc.components.schemas[ref.split('/').at(-1)!]).toBeDefined();
      expect(item.get.responses['401']!.content!['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    }
  });
});
