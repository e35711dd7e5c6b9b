/**
 * The request parser (`readParams`, plain code) and the parameters' zod
 * schemas (what the OpenAPI documents, the MCP tools and the typed client
 * read) are made from the same declarations; these tests hold them to the
 * same answer for every parameter of every operation of the table: the same
 * values, or the same first error (parameter and message).
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ApiError } from '../src/contract/errors';
import { operationList, operations } from '../src/contract/operations';
import { intParam, type Param, type ParamRule, type Params, PARAM_MESSAGES, readParams, type Strictness, WORD } from '../src/contract/params';
import { paramSchema, paramsObject } from '../src/contract/schemas/params';
import { windowHint } from '../src/contract/window';
import { WEEKLY_QUERY } from '../src/reports/routes';

/** What a parse says: the values, or the first problem. */
type Verdict = { ok: true; values: Record<string, unknown> } | { ok: false; param: string; message: string };

function plainVerdict(params: Params, input: Record<string, string>, strictness: Strictness, hint?: (param: string) => string | undefined): Verdict {
  try {
    return { ok: true, values: { ...readParams(params, input, { strictness, ...(hint ? { hint } : {}) }) } };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'invalid_parameter') throw error;
    return { ok: false, param: error.param!, message: error.message };
  }
}

/** zod's answer in the API's words: its first issue, as the parser before this one turned it into `invalid_parameter`. */
function zodVerdict(schema: z.ZodType, input: Record<string, string>, hint?: (param: string) => string | undefined): Verdict {
  const result = schema.safeParse({ ...input });
  if (result.success) return { ok: true, values: Object.fromEntries(Object.entries(result.data as object).filter(([, v]) => v !== undefined)) };
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const param = String(issue.keys[0]);
    return { ok: false, param, message: hint?.(param) ?? `\`${param}\` is not a parameter of this operation.` };
  }
  const param = String(issue.path[0]);
  if (issue.code === 'invalid_type' && issue.input === undefined) return { ok: false, param, message: `\`${param}\` is required.` };
  return { ok: false, param, message: `\`${param}\` ${issue.message}.` };
}

/** The edge's rules as zod, for the comparison: an open enumeration takes any word, `limit` any count up to `edgeMax`. */
function edgeSchema(params: Params): z.ZodType {
  const atEdge = (param: Param): z.ZodType => {
    const { rule } = param;
    let base: z.ZodType | undefined;
    if (rule.kind === 'enum' && rule.open) base = z.string().regex(WORD, { error: PARAM_MESSAGES.word });
    if (rule.kind === 'int' && rule.edgeMax !== undefined) base = paramSchema(intParam({ min: rule.min, max: rule.edgeMax, description: '' }));
    if (!base) return paramSchema(param);
    return param.presence === 'optional' ? base.optional() : param.presence === 'default' ? base.default(param.fallback as never) : base;
  };
  return z.strictObject(Object.fromEntries(Object.entries(params).map(([name, param]) => [name, atEdge(param)])));
}

/** Texts worth trying for a rule: good ones, edges, and near misses. */
function candidates(rule: ParamRule): string[] {
  const junk = ['', ' ', 'abc', '__proto__', 'constructor', '%', 'a b'];
  switch (rule.kind) {
    case 'int':
      return [...junk, '1', '0', '-1', '1.5', '01', '015', ' 1', '1e3', '0x10', '１', String(rule.min), String(rule.min - 1), String(rule.max), String(rule.max + 1), '2147483647', '2147483648', '9999999999', '99999999999'];
    case 'date':
      return [...junk, '2026-11-25', '2024-02-29', '2023-02-29', '2000-02-29', '1900-02-29', '2026-02-30', '2026-04-31', '2026-13-01', '2026-00-10', '2026-1-01', '0000-02-29', '0001-01-01', '9999-12-31', '2026-11-25T00:00:00Z', '20261125'];
    case 'enum':
      return [...junk, ...rule.values, ...rule.values.map((v) => v.toUpperCase()), 'other_value', 'x'.repeat(64), 'x'.repeat(65), 'a.b-c_d'];
    case 'text':
      return [...junk, 'a', 'x'.repeat(rule.max), 'x'.repeat(rule.max + 1), 'What is the best help desk software this year?', '😀'];
    case 'market':
      return [...junk, 'us', 'US', 'ch-fr', 'CH-FR', 'ch_fr', 'usa', 'u', '11', '12345678901', 'c1', 'de-'];
  }
}

/** A small deterministic generator (mulberry32): the same inputs on every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Inputs for a set of parameters: each one alone with every candidate, then random mixes with absent and unknown ones, in any order. */
function inputsFor(params: Params, seed: number): Record<string, string>[] {
  const names = Object.keys(params);
  const inputs: Record<string, string>[] = [{}];
  for (const name of names) for (const text of candidates(params[name]!.rule)) inputs.push({ [name]: text });
  const next = random(seed);
  const pick = <T,>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const unknown = ['limt', 'days', 'from', 'to', 'brand', 'constructor', 'toString', 'BRAND_ID'];
  for (let i = 0; i < 300; i++) {
    const entries: [string, string][] = [];
    for (const name of names) if (next() < 0.6) entries.push([name, pick(candidates(params[name]!.rule))]);
    if (next() < 0.3) entries.push([pick(unknown), pick(['1', '', 'x'])]);
    if (next() < 0.1) entries.push([pick(unknown), '2']);
    entries.sort(() => next() - 0.5);
    const input: Record<string, string> = Object.create(null);
    for (const [name, text] of entries) input[name] = text;
    inputs.push(input);
  }
  return inputs;
}

/** Every set of parameters of the contract, named: each operation's query and path, and a product route's. */
const PARAMETER_SETS = [
  ...operationList.flatMap((op, i) => [
    { name: `${op.id} query`, params: op.params.query, schema: () => op.query, hint: windowHint(op.window), seed: 2 * i + 1 },
    { name: `${op.id} path`, params: op.params.path, schema: () => op.pathParams, hint: undefined, seed: 2 * i + 2 },
  ]),
  { name: 'GET /reports/weekly query', params: WEEKLY_QUERY, schema: () => paramsObject(WEEKLY_QUERY), hint: undefined, seed: 99 },
];

describe('the request parser and the zod schemas', () => {
  it.each(PARAMETER_SETS)('give the same answer for every input: $name', ({ params, schema, hint, seed }) => {
    for (const input of inputsFor(params, seed)) {
      expect(plainVerdict(params, input, 'origin', hint), JSON.stringify(input)).toEqual(zodVerdict(schema(), input, hint));
      expect(plainVerdict(params, input, 'edge', hint), `edge: ${JSON.stringify(input)}`).toEqual(zodVerdict(edgeSchema(params), input, hint));
    }
  });

  it('build the schemas the table reads from the same declarations, once each', () => {
    const op = operations.listTasks;
    expect(Object.keys(op.query.shape)).toEqual(Object.keys(op.params.query));
    expect(op.query.shape.status).toBe(paramSchema(op.params.query.status));
    expect(op.query.shape.brand_id).toBe(operations.getVisibility.query.shape.brand_id);
  });
});

describe('the request parser', () => {
  const tasks = operations.listTasks.params.query;
  it('takes any word for an enumeration the spec leaves open at the edge, and only ours at the origin', () => {
    expect(readParams(tasks, { layer: 'schema_markup' }, { strictness: 'edge' })).toMatchObject({ layer: 'schema_markup' });
    expect(() => readParams(tasks, { layer: 'schema_markup' })).toThrow(/must be one of: content, technical, authority, brand/);
  });
  it('leaves the maximum of `limit` to the upstream at the edge', () => {
    expect(readParams(tasks, { limit: '5000' }, { strictness: 'edge' })).toMatchObject({ limit: 5000 });
    expect(() => readParams(tasks, { limit: '5000' })).toThrow('`limit` must be at most 100.');
  });
  it('keeps a closed enumeration closed at the edge', () => {
    expect(() => readParams(operations.getSearchPerformance.params.query, { dimension: 'country' }, { strictness: 'edge' })).toThrow('`dimension` must be one of: query, page.');
  });
  it('names `__proto__` as a parameter it does not take', () => {
    const input: Record<string, string> = Object.create(null);
    input.__proto__ = '1';
    expect(() => readParams(tasks, input)).toThrow('`__proto__` is not a parameter of this operation.');
  });
});
