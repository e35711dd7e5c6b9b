/**
 * The upstream map (DESIGN section 13): one declarative, versioned document
 * that says, per operation, how another implementation's body maps onto the
 * contract's model where a respelling is not enough. Paths are the
 * contract's: dotted field names, `[]` after an array (`history[].week_start`).
 *
 * ```json
 * { "version": 2, "updated_at": "2026-11-25T10:00:00Z", "operations": {
 *     "getVisibility": {
 *       "envelope": "result",
 *       "fields": { "score": "visibility", "history": "weeks", "history[].week_start": "from", "market": ".", "market.code": "marketCode" },
 *       "convert": { "score": "number", "history[].week_start": "date" },
 *       "values": { "history[].engine": { "openai": "chatgpt" } } } } }
 * ```
 *
 * - `envelope`: where the body is inside the answer (a dotted path); without it one envelope is found as `conformBody` finds it.
 *   Either way, a field the envelope lacks is looked for beside it.
 * - `fields`: the upstream's name for a contract field, relative to the upstream object of the field's parent
 *   (dotted to reach into it); `"."` reads a contract object from its parent itself (an upstream that writes it flat).
 * - `convert`: a value conversion (`CONVERSIONS`).
 * - `values`: an enumeration's upstream values onto the contract's. A value listed nowhere is kept as it is.
 * - `keyed`: a list written as an object keyed by its items' field (`"name"`), or by a value the contract lacks
 *   (`{"extra": "domain"}`: the key kept beside each item). `columns`: a list written as column names and rows.
 *
 * Fields the map does not name are still found under any case convention.
 */
import type * as z from 'zod';
import type { OperationId } from './operations';
import type { ZodSide } from './zod-side';
import { defOf, innerSchema } from './schema-walk';

/** Value conversions a map may ask for: every form a real service was seen to write a value the contract holds. */
export const CONVERSIONS = {
  /** `"52.4"` to `52.4` */
  number: 'a number written as a string',
  /** `"12"` or `12.0` to `12` */
  integer: 'a whole number, maybe written as a string',
  /** `0.524` to `52.4`: a share from 0 to 1 as the contract's percentage */
  percent: 'a share from 0 to 1, as a percentage from 0 to 100 (one decimal)',
  /** `"52.4%"` to `52.4` */
  'percent-text': 'a percentage written as text with a % sign, as a number',
  /** `5240` to `52.4`: hundredths of a percent */
  'basis-points': 'basis points (hundredths of a percent), as a percentage (one decimal)',
  /** `"2026-11-23T00:00:00Z"`, `"2026-11-23T01:30:00+02:00"`, `1795392000` or `1795392000000` to `"2026-11-23"` */
  date: 'a date-time (the day as written, whatever its offset), or epoch seconds or milliseconds (the UTC day), as its date',
  /** `"23/11/2026"`, `"23.11.2026"`, `"23-11-2026 08:00"` to `"2026-11-23"` */
  'date-dmy': 'a date written day first (any separator; a time after it is ignored), as its date',
  /** `"11/23/2026"` to `"2026-11-23"` */
  'date-mdy': 'a date written month first (any separator), as its date',
  /** `"2026/11/23"`, `"2026.11.23"`, `"20261123"` to `"2026-11-23"` */
  'date-ymd': 'a date written year first with another separator or none, as its date',
  /** `"2026-11-23 08:00:00"`, epoch seconds or milliseconds to ISO 8601 */
  'date-time': 'a date-time in another spelling (or epoch seconds or milliseconds), as ISO 8601 UTC',
  /** `"true"`, `1` to `true` */
  boolean: 'a boolean written as a string or number',
  /** `42` to `"42"` */
  string: 'a number or boolean, as text',
} as const;
export type Conversion = keyof typeof CONVERSIONS;
const pathsCache = new Map<OperationId, Set<string>>();

/** Every path of an operation's response body, objects and arrays included: what a map may name. */
export function contractPaths(zs: Pick<ZodSide, 'response'>, id: OperationId): Set<string> {
  let paths = pathsCache.get(id);
  if (!paths) {
    paths = new Set();
    collectPaths(zs.response(id), '', paths);
    pathsCache.set(id, paths);
  }
  return paths;
}

function collectPaths(schema: z.ZodType, path: string, into: Set<string>): void {
  const def = defOf(schema);
  const inner = innerSchema(def);
  if (inner) return collectPaths(inner, path, into);
  if (def.type === 'object')
    for (const [name, field] of Object.entries(def.shape ?? {})) {
      const child = path ? `${path}.${name}` : name;
      into.add(child);
      collectPaths(field, child, into);
    }
  else if (def.type === 'array' && def.element) {
    into.add(`${path}[]`);
    collectPaths(def.element, `${path}[]`, into);
  } else if (def.type === 'union') for (const option of def.options ?? []) collectPaths(option, path, into);
}

const numeric = (value: unknown) => (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value);
/** One decimal, as the contract writes percentages. */
const tenths = (x: number) => Math.round(x * 10) / 10;
/** Epoch milliseconds from 1973 on; seconds below: a date in seconds would have to be after the year 5000 to read as milliseconds. */
const MILLISECONDS_FROM = 1e11;
const MAX_TIME = 8.64e15;

/** A time in ms from a date-time string, epoch seconds or epoch milliseconds (a number or its digits); NaN when it is none. */
export function timeOf(value: unknown): number {
  const epoch = typeof value === 'number' ? value : typeof value === 'string' && /^\d{9,13}$/.test(value) ? Number(value) : undefined;
  const time = epoch !== undefined ? (epoch >= MILLISECONDS_FROM ? epoch : epoch * 1000) : typeof value === 'string' ? Date.parse(value.replace(/^(\d{4}-\d\d-\d\d) /, '$1T')) : NaN;
  // A space for the `T` is a common spelling (above); without a zone it is read as UTC (the runtime's zone).
  // Past ECMAScript's range (±100,000,000 days) a Date is invalid: no time.
  return Math.abs(time) <= MAX_TIME ? time : NaN;
}

/** A converted value, or the value as it was when it does not convert: the schema then refuses it, naming the field. */
const orAsIs = (converted: number | string | undefined, value: unknown) => (converted === undefined || (typeof converted === 'number' && Number.isNaN(converted)) ? value : converted);

/** A value converted as the map asks; a value that does not convert is left for the schema to refuse, naming the field. */
export function convertValue(kind: Conversion, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  switch (kind) {
    case 'number':
      return numeric(value);
    case 'integer': {
      const n = numeric(value);
      return typeof n === 'number' && Number.isInteger(n) ? n : value;
    }
    case 'percent': {
      const n = numeric(value);
      return typeof n === 'number' ? tenths(n * 100) : value;
    }
    case 'percent-text': {
      const match = typeof value === 'string' ? /^\s*(-?\d+(?:\.\d+)?)\s*%\s*$/.exec(value) : null;
      return match ? Number(match[1]) : value;
    }
    case 'basis-points': {
      const n = numeric(value);
      return typeof n === 'number' ? tenths(n / 100) : value;
    }
    case 'date': {
      // The day a date-time names is the one written before its time: `T01:30:00+02:00` is still that day.
      const written = typeof value === 'string' ? /^(\d{4}-\d\d-\d\d)[T ]\d\d:\d\d/.exec(value)?.[1] : undefined;
      if (written !== undefined && Number.isFinite(timeOf(value))) return orAsIs(calendarDate(written), value);
      const time = timeOf(value);
      return orAsIs(Number.isNaN(time) ? undefined : new Date(time).toISOString().slice(0, 10), value);
    }
    case 'date-dmy':
    case 'date-mdy':
    case 'date-ymd':
      return orAsIs(typeof value === 'string' || typeof value === 'number' ? dateInOrder(String(value), kind) : undefined, value);
    case 'date-time': {
      const time = timeOf(value);
      return orAsIs(Number.isNaN(time) ? undefined : new Date(time).toISOString(), value);
    }
    case 'boolean':
      return value === 'true' || value === 1 || value === '1' ? true : value === 'false' || value === 0 || value === '0' ? false : value;
    case 'string':
      return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
  }
}

/** `YYYY-MM-DD` when it is a real calendar day (no 31 November), else undefined. */
function calendarDate(text: string): string | undefined {
  const [y, m, d] = text.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d ? text : undefined;
}

/** Its three parts, by any separator (`/`, `.`, `-`, a space), or eight digits year first; a time after the date is ignored. */
const DATE_PARTS = /^\s*(\d{1,4})[/.\-\s](\d{1,2})[/.\-\s](\d{1,4})(?:[T\s,]+\d{1,2}:\d\d.*)?$/;

/** A date written in the order a map names, as `YYYY-MM-DD`; undefined when it is not one (the 31st of a 30-day month, a month 13). */
export function dateInOrder(text: string, order: 'date-dmy' | 'date-mdy' | 'date-ymd'): string | undefined {
  const compact = order === 'date-ymd' ? /^\s*(\d{4})(\d\d)(\d\d)\s*$/.exec(text) : null;
  const parts = compact ?? DATE_PARTS.exec(text);
  if (!parts) return undefined;
  const [a, b, c] = [parts[1]!, parts[2]!, parts[3]!];
  const [year, month, day] = order === 'date-ymd' ? [a, b, c] : order === 'date-dmy' ? [c, b, a] : [c, a, b];
  // Four digits for the year: a two-digit year says no century.
  if (year.length !== 4 || month.length > 2 || day.length > 2) return undefined;
  return calendarDate(`${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`);
}
