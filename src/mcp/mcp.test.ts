/** The MCP tools' names, output schemas, pages and results, unit by unit (test/mcp.test.ts has them through the Worker). */
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ApiClientError } from '../client';
import { operationList } from '../contract/operations';
import { toolName, toolsOfOperations } from './tools';
import { pageOf, ROW_LIMIT } from './pages';
import { outputSchemaOf, resultSchemaOf } from './schemas';
import { brandNamed, COMPLETION_MAX, matching } from './completions';
import { failureResult } from './results';
import { outline } from './schemas';
import { WindowMismatch } from '../weekly-report';
import { weeklyReportTool } from './weekly';
import { zodSide } from '../contract/zod-side';

/** The contract's zod side: the response schemas the bodies are checked with. */
const zs = await zodSide();

const httpError = (status: number, code: string, retryAfter?: number) =>
  new ApiClientError({ kind: 'http', status, code: code as never, operation: 'getVisibility', message: `getVisibility: the API says ${code}.`, ...(retryAfter !== undefined ? { retryAfter } : {}) });

describe('tool names', () => {
  it('are the operation ids in snake_case, unique, within the characters MCP allows', () => {
    expect(toolName('getAiCrawlers')).toBe('get_ai_crawlers');
    const names = toolsOfOperations().map((tool) => tool.name);
    expect(names).toEqual(operationList.map((op) => toolName(op.id)));
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
  });
});

describe('output schemas', () => {
  const json = (schema: z.ZodType) => z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as Record<string, unknown>;

  it('outline a body: each top-level field typed, null and closed values kept, objects and arrays not opened, named schemas followed', () => {
    const Named = z.object({ id: z.number().int() }).meta({ id: 'Named' });
    const schema = json(
      z.object({
        score: z.number().min(0).max(100).nullable().describe('A share.'),
        state: z.enum(['won', 'lost']).nullable(),
        day: z.iso.date(),
        named: Named,
        other: Named.nullable(),
        rows: z.array(z.object({ a: z.string() })),
        either: z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]),
        engine: z.union([z.enum(['chatgpt', 'claude']), z.string()]).nullable(),
        layer: z.union([z.enum(['content']), z.enum(['brand'])]),
      }),
    );
    expect(outline(schema, schema, 1)).toEqual({
      type: 'object',
      properties: {
        score: { anyOf: [{ type: 'number' }, { type: 'null' }] },
        state: { anyOf: [{ type: 'string', enum: ['won', 'lost'] }, { type: 'null' }] },
        day: { type: 'string' },
        named: { type: 'object' },
        other: { anyOf: [{ type: 'object' }, { type: 'null' }] },
        rows: { type: 'array' },
        either: { type: 'object' },
        engine: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        layer: { type: 'string', enum: ['content', 'brand'] },
      },
    });
    expect(outline(schema, schema, 2).properties).toMatchObject({
      named: { type: 'object', properties: { id: { type: 'integer' } } },
      rows: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
    });
  });

  it("are portable, as the MCP Inspector's schema lint reads them: no `type` array, no schema that constrains nothing", () => {
    /** Each subschema of a JSON Schema, with its path. */
    const walk = (schema: Record<string, unknown>, path: string, visit: (node: Record<string, unknown>, path: string) => void): void => {
      visit(schema, path);
      for (const [name, field] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) walk(field, `${path}.properties.${name}`, visit);
      if (schema.items) walk(schema.items as Record<string, unknown>, `${path}.items`, visit);
      for (const key of ['anyOf', 'oneOf', 'allOf']) for (const [i, member] of ((schema[key] ?? []) as Record<string, unknown>[]).entries()) walk(member, `${path}.${key}[${i}]`, visit);
    };
    const findings: string[] = [];
    for (const tool of [...toolsOfOperations(), weeklyReportTool])
      for (const [kind, schema] of [
        ['inputSchema', tool.inputJson],
        ['outputSchema', tool.outputJson],
      ] as const)
        walk(schema, `${tool.name} ${kind}`, (node, path) => {
          if (Array.isArray(node.type)) findings.push(`${path}: type ${JSON.stringify(node.type)}`);
          if (!['type', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', '$ref'].some((key) => key in node)) findings.push(`${path}: constrains nothing`);
        });
    expect(findings).toEqual([]);
  });

  it('are what every example body of the contract table satisfies, and its listed page too', () => {
    const validator = new CfWorkerJsonSchemaValidator();
    for (const op of operationList) {
      const schema = outputSchemaOf(op);
      // Every field a body of the contract has is in the outline, but the brand scope every body names.
      const fields = Object.keys((json(zs.response(op.id)).properties ?? {}) as object).filter((name) => !['brand_id', 'market', 'generated_at'].includes(name));
      expect([op.id, Object.keys(schema.properties as object)]).toEqual([op.id, [...fields, ...(op.csv ? ['page'] : [])]]);
      expect(validator.getValidator(schema as never)({ page: { total: 1, next_offset: null } }).valid).toBe(true);
    }
    expect(() => resultSchemaOf(z.object({ page: z.number() }), { rows: 'page' })).toThrow(/page/);
  });
});

describe('pages', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ i }));

  it('leave a list of at most ROW_LIMIT rows as it is, and cut a longer one, saying where the next page starts', () => {
    const short = { brand_id: 1, prompts: rows(ROW_LIMIT) };
    expect(pageOf(short, 'prompts')).toBe(short);
    const long = { brand_id: 1, prompts: rows(ROW_LIMIT * 2 + 1) };
    expect(pageOf(long, 'prompts')).toEqual({ brand_id: 1, prompts: rows(ROW_LIMIT), page: { rows: 'prompts', offset: 0, limit: ROW_LIMIT, total: ROW_LIMIT * 2 + 1, next_offset: ROW_LIMIT } });
    const last = pageOf(long, 'prompts', ROW_LIMIT * 2);
    expect(last).toEqual({ brand_id: 1, prompts: [{ i: ROW_LIMIT * 2 }], page: { rows: 'prompts', offset: ROW_LIMIT * 2, limit: ROW_LIMIT, total: ROW_LIMIT * 2 + 1, next_offset: null } });
    expect(pageOf(long, 'prompts', 1000)).toMatchObject({ prompts: [], page: { total: ROW_LIMIT * 2 + 1, next_offset: null } });
    // The body it was given is not changed.
    expect(long.prompts).toHaveLength(ROW_LIMIT * 2 + 1);
  });

  it('page a list inside an object (`competition.daily`), keeping its siblings', () => {
    const body = { competition: { brand: { name: 'B' }, daily: rows(30) } };
    expect(pageOf(body, 'competition.daily')).toEqual({
      competition: { brand: { name: 'B' }, daily: rows(ROW_LIMIT) },
      page: { rows: 'competition.daily', offset: 0, limit: ROW_LIMIT, total: 30, next_offset: ROW_LIMIT },
    });
  });

  it('offer `offset` exactly on the tools whose operation has rows in the table', () => {
    for (const tool of toolsOfOperations()) {
      const op = operationList.find((o) => o.id === tool.operation)!;
      expect([tool.name, tool.rows, Object.hasOwn(tool.inputJson.properties as object, 'offset')]).toEqual([tool.name, op.csv?.rows, Boolean(op.csv)]);
    }
  });
});

describe('completion values', () => {
  it('are the values that start with what was typed, in any case, each once, at most 100', () => {
    expect(matching(['Helpwave', 'helpdesk.io', 'Caseflow', 'Helpwave'], ' HEL')).toEqual(['Helpwave', 'helpdesk.io']);
    expect(matching(['us', 'de'], '')).toEqual(['us', 'de']);
    expect(
      matching(
        Array.from({ length: 150 }, (_, i) => `rival ${i}`),
        'r',
      ),
    ).toHaveLength(COMPLETION_MAX);
    expect(COMPLETION_MAX).toBe(100);
  });

  it("name a brand by its id or its name in any case; none named is the key's only brand", () => {
    const brand = (id: number, name: string) => ({ id, name, domain: `${name}.example`, category: 'x', markets: [] });
    const two = [brand(2, 'Ledgerly'), brand(3, 'Payfold')];
    expect([brandNamed(two, '3')?.name, brandNamed(two, ' payFOLD ')?.name, brandNamed(two, 'Pay'), brandNamed(two, undefined), brandNamed(two, '')]).toEqual([
      'Payfold',
      'Payfold',
      undefined,
      undefined,
      undefined,
    ]);
    expect(brandNamed([brand(1, 'Brightdesk')], undefined)?.name).toBe('Brightdesk');
  });
});

describe('failed reads as tool results', () => {
  it("carries the API's 429 with its code, message and retry_after", () => {
    for (const code of ['rate_limited', 'quota_exceeded']) {
      const result = failureResult(httpError(429, code, 42), 'get_visibility');
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toEqual({ error: { code, message: `the API says ${code}.` }, status: 429, retry_after: 42 });
      expect(result.content).toEqual([{ type: 'text', text: `429 ${code}: the API says ${code}. Retry after 42 s.` }]);
    }
  });

  it('names the parameter of a 400, and makes any 5xx, timeout or broken body a 502 upstream_error', () => {
    const invalid = new ApiClientError({ kind: 'http', status: 400, code: 'invalid_parameter', operation: 'listTopics', message: 'listTopics: `from` is too early.', param: 'from' });
    expect(failureResult(invalid, 'list_topics').structuredContent).toEqual({ error: { code: 'invalid_parameter', message: '`from` is too early.', param: 'from' }, status: 400 });
    const timeout = new ApiClientError({ kind: 'timeout', status: 0, code: 'timeout', operation: 'getVisibility', message: 'no answer' });
    const broken = new ApiClientError({ kind: 'parse', status: 200, code: 'invalid_response', operation: 'getVisibility', message: 'field `score` is invalid' });
    for (const error of [httpError(500, 'internal_error'), httpError(503, 'upstream_error'), timeout, broken]) {
      expect(failureResult(error, 'get_visibility').structuredContent).toMatchObject({ error: { code: 'upstream_error' }, status: 502 });
    }
    expect(failureResult(new WindowMismatch('straddled'), 'weekly_report').structuredContent).toMatchObject({
      error: { code: 'upstream_error', message: expect.stringContaining('again') },
      status: 502,
    });
  });

  it('shows a bug as 500 internal_error without its detail, and logs it', () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const result = failureResult(new TypeError('secret detail'), 'get_visibility');
    expect(result.structuredContent).toEqual({ error: { code: 'internal_error', message: 'Something went wrong on our side.' }, status: 500 });
    expect(JSON.stringify(result)).not.toContain('secret detail');
    expect(logged).toHaveBeenCalledOnce();
    logged.mockRestore();
  });
});
