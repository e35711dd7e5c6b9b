/**
 * Bodies of another implementation of the spec, read with no configuration:
 * every operation's example body from our origin, respelled in camelCase,
 * PascalCase and kebab-case at every depth and wrapped in an envelope, reads
 * as exactly the same typed data as the original.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { checkResponseBody } from '../src/contract/body';
import { conformBody } from '../src/contract/conform';
import { API_BASE, examplePath, operationList } from '../src/contract/operations';
import { convertValue } from '../src/contract/upstream-map';
import { upstreamMapSchemas } from '../src/contract/schemas/upstream-map';

const { OperationMap, UpstreamMapInput } = upstreamMapSchemas();
import { originTransport } from '../src/origin/transport';
import { KEYS } from './helpers';
import { CASES, type CaseName, envelope, renameFields } from './reshape';
import { zodSide } from '../src/contract/zod-side';

/** The contract's zod side: the response schemas the bodies are checked with. */
const zs = await zodSide();

const origin = originTransport(env.DB);

async function exampleBody(path: string): Promise<Record<string, unknown>> {
  const response = await origin(new Request(`http://origin.internal${API_BASE}${path}`, { headers: { authorization: `Bearer ${KEYS.pro}` } }));
  expect(response.status, path).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe.each(operationList)('$id', (op) => {
  it('reads its body in every case convention and in an envelope as the body itself', async () => {
    const body = await exampleBody(examplePath(op));
    const own = checkResponseBody(zs, op.id, JSON.stringify(body));
    expect(own.ok).toBe(true);
    for (const name of Object.keys(CASES) as CaseName[]) {
      const respelled = renameFields(body, CASES[name]);
      for (const [shape, foreign] of [
        [name, respelled],
        [`${name} in an envelope`, envelope(respelled as Record<string, unknown>, '/x')],
      ] as const) {
        const read = checkResponseBody(zs, op.id, JSON.stringify(foreign));
        expect({ shape, ok: read.ok, ...(read.ok ? {} : { error: read.message }) }).toEqual({ shape, ok: true });
        if (read.ok && own.ok) expect(read.data).toEqual(own.data);
      }
    }
  });
});

describe('conformBody', () => {
  const schema = zs.response('getVisibility');
  it('takes one envelope off and finds what it lacks beside it', () => {
    const out = conformBody(schema, { result: { brandId: 1, Score: 50 }, meta: { generated_at: 'g' }, links: { next: null } }) as Record<string, unknown>;
    expect(out).toEqual({ brand_id: 1, score: 50, generated_at: 'g' });
  });
  it("leaves a body with the contract's names as it is, and drops fields the contract does not know", () => {
    expect(conformBody(schema, { brand_id: 1, vendor_extra: true })).toEqual({ brand_id: 1 });
  });
  it("keeps the error naming the contract's field when a renamed body still lacks one", () => {
    const read = checkResponseBody(zs, 'getVisibility', JSON.stringify({ data: { brandId: 1 } }));
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.field).toBe('market');
  });
  it("reads what a partial map says of a part in one of several shapes (the overview's perception, a field of it unmapped)", () => {
    const overview = zs.response('getOverview');
    const perception = { on: true, measured: 6, knowing: 4, recommending: 1, rate: 16.7, rows: [{ engine: 'chatgpt', knows: true }] };
    const map = OperationMap.parse({
      fields: {
        perception: 'p',
        'perception.included': 'on',
        'perception.engines_measured': 'measured',
        'perception.engines_knowing': 'knowing',
        'perception.engines_recommending': 'recommending',
        'perception.recommend_rate': 'rate',
        'perception.engines': 'rows',
      },
    });
    // `recommends` is not mapped, so no shape reads it whole; what the map says is read all the same.
    expect((conformBody(overview, { p: perception }, map) as Record<string, unknown>).perception).toEqual({
      included: true,
      engines_measured: 6,
      engines_knowing: 4,
      engines_recommending: 1,
      recommend_rate: 16.7,
      engines: [{ engine: 'chatgpt' }],
    });
    expect(conformBody(overview, { perception: 'none' }, map)).toEqual({});
  });
  it('does not unwrap a body that is already the body, however its objects look', () => {
    const body = { brand_id: 1, market: { id: 11, code: 'us' }, generated_at: 'g' };
    expect(conformBody(schema, body)).toEqual(body);
  });
});

describe('the upstream map', () => {
  const schema = zs.response('getVisibility');
  const map = OperationMap.parse({
    envelope: 'payload.result',
    fields: { score: 'visibility', history: 'weeks', 'history[].week_start': 'span.from', market: '.', 'market.id': 'marketId', 'market.code': 'marketCode' },
    convert: { score: 'percent', 'history[].score': 'number', 'history[].week_start': 'date', generated_at: 'date-time' },
  });
  it('renames at any depth, reads a flat object, converts values, and takes the envelope it names', () => {
    const body = {
      payload: {
        result: {
          brandId: 1,
          marketId: 11,
          marketCode: 'us',
          visibility: 0.524,
          generatedAt: '2026-11-25 08:00:00',
          weeks: [{ span: { from: '2026-11-16T00:00:00Z' }, score: '51.5' }],
        },
      },
    };
    expect(conformBody(schema, body, map)).toEqual({
      brand_id: 1,
      market: { id: 11, code: 'us' },
      score: 52.4,
      generated_at: '2026-11-25T08:00:00.000Z',
      history: [{ week_start: '2026-11-16', score: 51.5 }],
    });
  });

  it('reads what the envelope it names lacks from beside it, as with an envelope found', () => {
    const out = conformBody(schema, { result: { brandId: 1, visibility: 52.4 }, meta: { generatedAt: 'g' }, brand_id: 2 }, OperationMap.parse({ envelope: 'result', fields: { score: 'visibility' } }));
    expect(out).toEqual({ brand_id: 1, score: 52.4, generated_at: 'g' });
  });

  it('maps enumeration values and keeps a value it does not list under its own name', () => {
    const engineMap = OperationMap.parse({ values: { 'prompts[].engines[].engine': { openai: 'chatgpt' } } });
    const out = conformBody(zs.response('getPromptMatrix'), { prompts: [{ engines: [{ engine: 'openai' }, { engine: 'grok' }] }] }, engineMap);
    expect(out).toEqual({ prompts: [{ engines: [{ engine: 'chatgpt' }, { engine: 'grok' }] }] });
  });

  it('is refused when it names a field the operation does not have, naming it', () => {
    const parsed = UpstreamMapInput.safeParse({ operations: { getVisibility: { fields: { scroe: 'visibility', 'history[].week_start': 'from' } } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['operations.getVisibility.fields.scroe']);
    expect(UpstreamMapInput.safeParse({ operations: { getVisibilty: {} } }).success).toBe(false);
    expect(UpstreamMapInput.safeParse({ operations: { getVisibility: { convert: { score: 'float' } } } }).success).toBe(false);
  });

  it.each([
    ['number', '52.4', 52.4],
    ['number', 'n/a', 'n/a'],
    ['integer', '12', 12],
    ['integer', '12.5', '12.5'],
    ['percent', 0.5, 50],
    ['percent', '0.1234', 12.3],
    // A day written as a date-time is the day written before its time, whatever the offset: local midnight at +01:00
    // is that day, not the UTC day before it.
    ['date', '2026-11-23T22:00:00-05:00', '2026-11-23'],
    ['date', '2026-12-02T00:00:00+01:00', '2026-12-02'],
    ['date-time', 1_764_000_000, '2025-11-24T16:00:00.000Z'],
    ['date-time', '2026-11-23 08:00:00', '2026-11-23T08:00:00.000Z'],
    ['boolean', 'false', false],
    ['string', 42, '42'],
  ] as const)('converts %s: %j to %j', (kind, value, expected) => {
    expect(convertValue(kind, value)).toEqual(expected);
  });
});
