/**
 * The parameters' one interpreter, `readParams`, and the JSON Schema written
 * from the same declarations (`paramJsonSchema`: what the OpenAPI documents
 * and the MCP tools' input schemas say). For every parameter of every
 * operation, and of the product routes that declare theirs, what the JSON
 * Schema accepts is what the origin's parser takes, value for value; the
 * edge takes at least as much; absent means what `required` and `default`
 * say; and every operation's example request parses.
 */
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors';
import { operationList, operations } from './operations';
import { CALENDAR_DATE_PATTERN, paramJsonSchema } from './param-json-schema';
import { isCalendarDate, type Param, type ParamRule, type Params, readParams, type Strictness } from './params';
import { windowHint } from './window';
import { inputSchemaOf } from '../mcp/tools';
import { HISTORY_QUERY } from '../reports/history';
import { LINK_QUERY, SEND_QUERY, WEEKLY_QUERY } from '../reports/routes';

const validator = new CfWorkerJsonSchemaValidator();
const compiled = new Map<string, (value: unknown) => { valid: boolean }>();
/** Whether the JSON Schema accepts `value` (@cfworker/json-schema, as the MCP SDK validates tool arguments here). */
function accepts(schema: Record<string, unknown>, value: unknown): boolean {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) compiled.set(key, (validate = validator.getValidator(schema as never)));
  return validate(value).valid;
}

/** What a parse says: the values, or the first problem. */
type Verdict = { ok: true; values: Record<string, unknown> } | { ok: false; param: string; message: string };

function verdict(params: Params, input: Record<string, string>, strictness: Strictness = 'origin', hint?: (param: string) => string | undefined): Verdict {
  try {
    return { ok: true, values: { ...readParams(params, input, { strictness, ...(hint ? { hint } : {}) }) } };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'invalid_parameter') throw error;
    return { ok: false, param: error.param!, message: error.message };
  }
}

/** Texts worth trying for a rule: good ones, edges, and near misses. */
function candidates(rule: ParamRule): string[] {
  const junk = ['', ' ', 'abc', '__proto__', 'constructor', '%', 'a b'];
  switch (rule.kind) {
    case 'int':
      return [
        ...junk,
        '1',
        '0',
        '-1',
        '1.5',
        '01',
        '015',
        ' 1',
        '1e3',
        '0x10',
        '１',
        String(rule.min),
        String(rule.min - 1),
        String(rule.max),
        String(rule.max + 1),
        '2147483647',
        '2147483648',
        '9999999999',
        '99999999999',
      ];
    case 'date':
      return [
        ...junk,
        '2026-11-25',
        '2024-02-29',
        '2023-02-29',
        '2000-02-29',
        '1900-02-29',
        '2026-02-30',
        '2026-04-31',
        '2026-13-01',
        '2026-00-10',
        '2026-1-01',
        '0000-02-29',
        '0001-01-01',
        '9999-12-31',
        '2026-11-25T00:00:00Z',
        '20261125',
      ];
    case 'enum':
      return [...junk, ...rule.values, ...rule.values.map((v) => v.toUpperCase()), 'other_value', 'x'.repeat(64), 'x'.repeat(65), 'a.b-c_d'];
    case 'text':
      return [...junk, 'a', 'x'.repeat(rule.max), 'x'.repeat(rule.max + 1), 'What is the best help desk software this year?'];
    case 'market':
      return [...junk, 'us', 'US', 'ch-fr', 'CH-FR', 'ch_fr', 'usa', 'u', '11', '12345678901', 'c1', 'de-'];
  }
}

/**
 * A text on the wire as the JSON Schema's value: a client writes an
 * `integer` in decimal, so decimal digits are that number and anything else
 * is not a number at all; every other parameter is its text.
 */
const asJson = (schema: Record<string, unknown>, text: string): unknown => (schema.type === 'integer' && /^\d+$/.test(text) ? Number(text) : text);

/** Every set of declared parameters: each operation's query and path, and the product routes'. */
const PARAMETER_SETS: { name: string; params: Params; hint?: (param: string) => string | undefined }[] = [
  ...operationList.flatMap((op) => [
    { name: `${op.id} query`, params: op.params.query, hint: windowHint(op.window) },
    { name: `${op.id} path`, params: op.params.path },
  ]),
  { name: 'GET /reports/weekly query', params: WEEKLY_QUERY },
  { name: 'POST /reports/send query', params: SEND_QUERY },
  { name: "a report link's query", params: LINK_QUERY },
  { name: 'GET /reports/history query', params: HISTORY_QUERY },
];

const PARAMETERS = PARAMETER_SETS.flatMap(({ name: set, params }) => Object.entries(params).map(([name, param]) => ({ set, name, param })));

describe('the JSON Schema written from a declaration', () => {
  it.each(PARAMETERS)('accepts exactly what the origin parses, as the value it parses to: $set, $name', ({ name, param }) => {
    const schema = paramJsonSchema(param);
    for (const text of candidates(param.rule)) {
      const parsed = verdict({ [name]: param }, { [name]: text });
      const value = asJson(schema, text);
      expect([text, accepts(schema, value)]).toEqual([text, parsed.ok]);
      // The value the parser gives is the value the schema describes (a market is read lower-cased).
      if (parsed.ok) expect(parsed.values[name], text).toEqual(param.rule.kind === 'market' ? text.toLowerCase() : value);
      // The edge takes everything the origin takes (and may take more: DESIGN section 6).
      if (parsed.ok) expect(verdict({ [name]: param }, { [name]: text }, 'edge').ok, `edge: ${text}`).toBe(true);
    }
  });

  it.each(PARAMETERS)('says what absent means: required, or the default the parser fills in: $set, $name', ({ name, param }) => {
    const absent = verdict({ [name]: param }, {});
    const schema = paramJsonSchema(param);
    expect(absent.ok).toBe(param.presence !== 'required');
    expect(inputSchemaOf({ [name]: param }).required ?? []).toEqual(param.presence === 'required' ? [name] : []);
    if (absent.ok) expect(absent.values[name]).toEqual(schema.default);
    if (schema.default !== undefined) expect(accepts(schema, schema.default)).toBe(true);
  });

  it('writes a date as the calendar days `isCalendarDate` takes, leap years included', () => {
    const pattern = new RegExp(CALENDAR_DATE_PATTERN);
    const texts: string[] = [];
    for (const year of ['0000', '0004', '0100', '0400', '1900', '2000', '2023', '2024', '2100', '9996', '9999'])
      for (let month = 0; month <= 13; month++) for (const day of [0, 1, 28, 29, 30, 31, 32]) texts.push(`${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`);
    for (const text of texts) expect([text, pattern.test(text)]).toEqual([text, isCalendarDate(text)]);
  });

  it('is what the OpenAPI document and the MCP tools carry for a declaration', () => {
    const limit = operations.listTasks.params.query.limit as Param;
    expect(paramJsonSchema(limit)).toEqual({ default: 30, type: 'integer', minimum: 1, maximum: 100 });
    expect(paramJsonSchema(operations.listTasks.params.query.status)).toEqual({ default: 'open', type: 'string', enum: ['open', 'in_progress', 'done', 'dismissed'] });
    expect(paramJsonSchema(operations.getAnswerRuns.params.query.prompt)).toEqual({ type: 'string', minLength: 1, maxLength: 1000 });
  });
});

describe('the request parser', () => {
  it.each(operationList)('parses the example request of $id', (op) => {
    const text = (values: Readonly<Record<string, string | number>> = {}) => Object.fromEntries(Object.entries(values).map(([name, value]) => [name, String(value)]));
    expect(verdict(op.params.path, text(op.example.path))).toMatchObject({ ok: true, values: op.example.path ?? {} });
    expect(verdict(op.params.query, text(op.example.query), 'origin', windowHint(op.window))).toMatchObject({ ok: true, values: op.example.query ?? {} });
  });

  it.each(PARAMETER_SETS)('names the first declared parameter at fault, then the first undeclared one: $name', ({ params, hint }) => {
    const names = Object.keys(params);
    const required = names.find((name) => params[name]!.presence === 'required');
    const undeclared = verdict(
      params,
      Object.fromEntries([
        ...names.filter((name) => params[name]!.presence === 'required').map((name) => [name, candidates(params[name]!.rule).find((text) => verdict({ [name]: params[name]! }, { [name]: text }).ok)!]),
        ['limt', '1'],
      ]),
      'origin',
      hint,
    );
    expect(undeclared).toEqual({ ok: false, param: 'limt', message: hint?.('limt') ?? '`limt` is not a parameter of this operation.' });
    if (required) expect(verdict(params, { limt: '1' }, 'origin', hint)).toEqual({ ok: false, param: required, message: `\`${required}\` is required.` });
    if (names.length > 0) {
      const last = names.at(-1)!;
      expect(verdict(params, { [last]: '', limt: '1' }, 'origin', hint)).toMatchObject({ ok: false, param: required ?? last });
    }
  });

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
  it("says each rule's message", () => {
    const q = operations.getOverview.params.query;
    expect(() => readParams(q, { days: '1.5' })).toThrow('`days` must be a whole number.');
    expect(() => readParams(q, { days: '0' })).toThrow('`days` must be at least 1.');
    expect(() => readParams(q, { from: '2026-02-30' })).toThrow('`from` must be a real calendar date written YYYY-MM-DD.');
    expect(() => readParams(q, { market: 'usa' })).toThrow('`market` must be a market code such as `us` or `ch-fr`, or a market id.');
    expect(() => readParams(operations.getAnswerRuns.params.query, { prompt: '' })).toThrow('`prompt` must not be empty.');
    expect(() => readParams(operations.getAnswerRuns.params.query, { prompt: 'x'.repeat(1001) })).toThrow('`prompt` must be at most 1000 characters.');
  });
  it('names `__proto__` as a parameter it does not take', () => {
    const input: Record<string, string> = Object.create(null);
    // biome-ignore lint/suspicious/noProto: the name a hostile query sends, on an object with no prototype.
    input.__proto__ = '1';
    expect(() => readParams(tasks, input)).toThrow('`__proto__` is not a parameter of this operation.');
  });
});
