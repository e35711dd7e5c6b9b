/**
 * Query and path parameters: how each kind is written on the wire, parsed,
 * bounded and documented. Every parameter of the contract is declared here
 * as plain data (`Param`), so a rule such as "a date is a real calendar day"
 * lives in one place, and is read by one interpreter, `readParams`: the
 * parser every request goes through (origin and edge), written without zod
 * (a fresh isolate's first `/api/v1` answer never loads zod, issue 24). What
 * describes parameters (the OpenAPI documents, the MCP tools' input schemas)
 * reads their JSON Schema (`paramJsonSchema`, param-json-schema.ts, which
 * only lazily loaded parts import); the typed client's types read their
 * declared types (`ParamsInput`, `ParsedParams`).
 * src/contract/params.test.ts holds the JSON Schema to what `readParams` takes.
 */
import { ACTIVITY_CATEGORIES, ENGINES, TASK_LAYERS, TASK_STATUSES } from './enums';
import { invalidParameter } from './errors';

/** What a parameter accepts, as data. */
export type ParamRule =
  /** A whole number written in decimal, within [min, max]. `edgeMax`: the bound the edge applies where the spec leaves it open (`limit`). */
  | { kind: 'int'; min: number; max: number; edgeMax?: number /** The answer's list a `limit` cuts (`sources`, `topics[].threads`). */; list?: string }
  /** A `YYYY-MM-DD` date that exists in the calendar. */
  | { kind: 'date' }
  /** One of `values`; `open`: the spec shows the values only by example, so the edge takes any word (DESIGN section 6). */
  | { kind: 'enum'; values: readonly [string, ...string[]]; open: boolean }
  /** Text of 1 to `max` characters. */
  | { kind: 'text'; max: number }
  /** A market code (`us`, `ch-fr`, case-insensitive, read lower-cased) or a numeric market id. */
  | { kind: 'market' };

/** Whether a parameter may be absent: `required`, `optional` (absent: no value), or `default` (absent: `fallback`). */
export type Presence = 'required' | 'optional' | 'default';

/**
 * A parameter: its rule, its description, and whether it may be absent.
 * `Out` is its parsed value, `In` how a caller writes it (the typed client's
 * and the examples' types); both are types only.
 */
export class Param<Out = unknown, In = unknown, P extends Presence = Presence> {
  declare readonly types?: { out: Out; in: In };
  constructor(
    readonly rule: ParamRule,
    readonly description: string,
    readonly presence: P,
    readonly fallback?: Out,
  ) {}

  optional(): Param<Out, In, 'optional'> {
    return new Param(this.rule, this.description, 'optional');
  }

  default(value: Out): Param<Out, In, 'default'> {
    return new Param(this.rule, this.description, 'default', value);
  }
}

/** Parameters by name, in the order they are checked. */
export type Params = Readonly<Record<string, Param>>;

/** A whole number written in decimal, within [min, max]. */
export const intParam = (o: { min: number; max: number; description: string }) => new Param<number, string, 'required'>({ kind: 'int', min: o.min, max: o.max }, o.description, 'required');

/** `limit`, with the per-operation default and maximum of DESIGN section 3; the edge leaves the maximum to the upstream. */
export const limitParam = (defaultLimit: number, max: number, what: string, list: string) =>
  new Param<number, string, 'required'>({ kind: 'int', min: 1, max, edgeMax: MAX_ID, list }, `Maximum number of ${what} (1 to ${max}, default ${defaultLimit}).`, 'required').default(defaultLimit);

/** A `YYYY-MM-DD` date that exists in the calendar (2026-02-30 does not). */
export const dateParam = (description: string) => new Param<string, string, 'required'>({ kind: 'date' }, description, 'required');

/** The enumerations the spec shows only by example (`engine`, `layer`, `status`, `category`): open at the edge. */
const OPEN_ENUMS: ReadonlySet<readonly string[]> = new Set<readonly string[]>([ENGINES, TASK_LAYERS, TASK_STATUSES, ACTIVITY_CATEGORIES]);

export const enumParam = <const T extends readonly [string, ...string[]]>(values: T, description: string) =>
  new Param<T[number], T[number], 'required'>({ kind: 'enum', values, open: OPEN_ENUMS.has(values) }, description, 'required');

export const textParam = (o: { max: number; description: string }) => new Param<string, string, 'required'>({ kind: 'text', max: o.max }, o.description, 'required');

/** Integer ids: brands, topics, tasks. Upper bound keeps them inside SQLite's and JSON's safe range. */
const MAX_ID = 2_147_483_647;
export const idParam = (description: string) => intParam({ min: 1, max: MAX_ID, description });

export const brandIdParam = idParam('The brand to read, an id from `GET /brands`. Required when the account has more than one brand.').optional();

/** A market code (`us`, `de`, `ch-fr`, case-insensitive) or a numeric market id. */
export const marketParam = new Param<string, string, 'optional'>(
  { kind: 'market' },
  'Market code (case-insensitive, e.g. `us`, `de`, `ch-fr`) or numeric id from `GET /markets`. Default: the primary market.',
  'optional',
);

/** What every brand-scoped read takes (spec, Shared request inputs): the brand, and the market. */
export const BRAND_MARKET_PARAMS = { brand_id: brandIdParam, market: marketParam } as const;

/** The messages of each rule, written once. */
const PARAM_MESSAGES = {
  wholeNumber: 'must be a whole number',
  atLeast: (min: number) => `must be at least ${min}`,
  atMost: (max: number) => `must be at most ${max}`,
  date: 'must be a real calendar date written YYYY-MM-DD',
  oneOf: (values: readonly string[]) => `must be one of: ${values.join(', ')}`,
  word: 'must be a word of letters, digits, `_`, `.` or `-`',
  notEmpty: 'must not be empty',
  longest: (max: number) => `must be at most ${max} characters`,
  market: 'must be a market code such as `us` or `ch-fr`, or a market id',
} as const;

export const WHOLE_NUMBER = /^\d{1,10}$/;
export const MARKET = /^(?:[A-Za-z]{2}(?:-[A-Za-z]{2})?|\d{1,10})$/;
/** An open value at the edge: a word, as any of the spec's values is written. */
export const WORD = /^[A-Za-z0-9_.-]{1,64}$/;
const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/** A day of the calendar: written `YYYY-MM-DD`, and the day it names is that day (no 2026-02-30). */
export function isCalendarDate(text: string): boolean {
  if (!DATE_SHAPE.test(text)) return false;
  const time = Date.parse(`${text}T00:00:00Z`);
  // Years before 100 are read as written by the ISO form; toISOString writes them back with four digits.
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === text;
}

/** What the rule says of one value written as text (a JSON body's `2` or `"us"`), or undefined when it takes it. */
export function paramProblem(param: Param, name: string, text: string): string | undefined {
  const read = readValue(param.rule, text, 'origin');
  return 'problem' in read ? `\`${name}\` ${read.problem}.` : undefined;
}

/** Where a request is checked: the origin applies every rule; the edge leaves the values the spec leaves open to the upstream (DESIGN section 6). */
export type Strictness = 'origin' | 'edge';

/** One value read by its rule: the value, or the rule's message. */
function readValue(rule: ParamRule, text: string, strictness: Strictness): { value: unknown } | { problem: string } {
  switch (rule.kind) {
    case 'int': {
      if (!WHOLE_NUMBER.test(text)) return { problem: PARAM_MESSAGES.wholeNumber };
      const n = Number(text);
      const max = strictness === 'edge' && rule.edgeMax !== undefined ? rule.edgeMax : rule.max;
      if (n < rule.min) return { problem: PARAM_MESSAGES.atLeast(rule.min) };
      if (n > max) return { problem: PARAM_MESSAGES.atMost(max) };
      return { value: n };
    }
    case 'date':
      return isCalendarDate(text) ? { value: text } : { problem: PARAM_MESSAGES.date };
    case 'enum':
      if (strictness === 'edge' && rule.open) return WORD.test(text) ? { value: text } : { problem: PARAM_MESSAGES.word };
      return rule.values.includes(text) ? { value: text } : { problem: PARAM_MESSAGES.oneOf(rule.values) };
    case 'text':
      if (text.length < 1) return { problem: PARAM_MESSAGES.notEmpty };
      return text.length > rule.max ? { problem: PARAM_MESSAGES.longest(rule.max) } : { value: text };
    case 'market':
      return MARKET.test(text) ? { value: text.toLowerCase() } : { problem: PARAM_MESSAGES.market };
  }
}

/** The parsed values of a set of parameters: each `Param`'s `Out`, absent ones left out unless they have a default. */
export type ParsedParams<S extends Params> = {
  [K in keyof S as S[K] extends Param<unknown, unknown, 'optional'> ? never : K]: S[K] extends Param<infer O> ? O : never;
} & {
  [K in keyof S as S[K] extends Param<unknown, unknown, 'optional'> ? K : never]?: S[K] extends Param<infer O> ? O : never;
};

/** What a caller gives for a set of parameters (the typed client): each `Param`'s `Out`, the required ones required. */
export type ParamsInput<S extends Params> = {
  -readonly [K in keyof S as S[K] extends Param<unknown, unknown, 'required'> ? K : never]: S[K] extends Param<infer O> ? O : never;
} & {
  -readonly [K in keyof S as S[K] extends Param<unknown, unknown, 'required'> ? never : K]?: S[K] extends Param<infer O> ? O : never;
};

/**
 * Parses raw parameters (`queryObject`, `decodePathParams`) and turns the
 * first problem into 400 `invalid_parameter` naming the parameter: each
 * declared parameter in order, then the first one not declared (`hint` may
 * say why it is not taken).
 */
export function readParams<S extends Params>(params: S, input: Readonly<Record<string, string>>, o: { strictness?: Strictness; hint?: (param: string) => string | undefined } = {}): ParsedParams<S> {
  const out: Record<string, unknown> = {};
  for (const name in params) {
    const param = params[name]!;
    const text = Object.hasOwn(input, name) ? input[name] : undefined;
    if (text === undefined) {
      if (param.presence === 'required') throw invalidParameter(name, `\`${name}\` is required.`);
      if (param.presence === 'default') out[name] = param.fallback;
      continue;
    }
    const read = readValue(param.rule, text, o.strictness ?? 'origin');
    if ('problem' in read) throw invalidParameter(name, `\`${name}\` ${read.problem}.`);
    out[name] = read.value;
  }
  for (const name in input) if (!Object.hasOwn(params, name)) throw invalidParameter(name, o.hint?.(name) ?? `\`${name}\` is not a parameter of this operation.`);
  return out as ParsedParams<S>;
}

/**
 * Reads the query string into a plain object. A parameter given twice is an
 * error rather than a silent choice between its values.
 */
export function queryObject(searchParams: URLSearchParams): Record<string, string> {
  // No prototype: `__proto__` is a name like any other (and not a parameter of any operation).
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of searchParams) {
    if (Object.hasOwn(out, name)) throw invalidParameter(name, `\`${name}\` is given more than once.`);
    out[name] = value;
  }
  return out;
}

/** Path parameters arrive percent-encoded; malformed encoding is the parameter's error, not a 500. */
export function decodePathParams(raw: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      throw invalidParameter(name, `\`${name}\` is not valid percent-encoding.`);
    }
  }
  return out;
}

/**
 * The `at` query parameter of the dev routes that run a cron step as if it
 * fired then (`POST /dev/digests/plan?at=`, `POST /dev/alerts/run?at=`): an
 * ISO 8601 time, or `now()` when absent. Anything else is a 400 naming it.
 */
export function asIfAt(url: URL, now: () => Date): Date {
  const at = url.searchParams.get('at');
  const when = at ? new Date(at) : now();
  if (Number.isNaN(when.getTime())) throw invalidParameter('at', '`at` must be an ISO 8601 time, e.g. 2026-11-23T08:00:00Z.');
  return when;
}
