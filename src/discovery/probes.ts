/**
 * Probes (DESIGN section 13): a second read of an operation, asked so that
 * its answer differs from the first in a way the contract predicts, settles
 * what one read cannot. Each is a `Prediction`: the request, and what the
 * answer must then hold at some of the contract's paths. The key that holds
 * it after the probe, and did not before, is the field, and only that key:
 *
 * - an echo: an answer repeats the enumerations its request names (`engine`;
 *   `layer` as `filter.layer`); read without them the echo is null;
 * - the window: read with `from` and `to` of days over 12, `period` is those
 *   days and `previous_period` the as many days before, in any date form
 *   (a day over 12 also says whether the service writes the day first);
 *   `days` alone where the operation takes no dates;
 * - the window before: read for the first read's `previous_period`, a
 *   count of that window (`previous_hits`) is the probe's own (`total_hits`);
 * - the market: read for another of the key's markets, `market` is its id
 *   and code;
 * - the limit: read with `limit=1`, the list it cuts holds one item.
 *
 * ```ts
 * windowPrediction({ kind: 'dated', defaultDays: 7 }, '2026-12-04'); // { params: { from: '2026-11-17', to: '2026-11-28' }, expect: [...] }
 * provenKey(expected, candidates, before, after); // 'Couche': null before, `content` now
 * ```
 */
import { type AnyOperation, type OperationId, operations } from '../contract/operations';
import { fieldOf, valueAtPath } from '../contract/paths';
import { convertValue } from '../contract/upstream-map';
import { addDays, previousPeriod, resolvePeriod, type WindowKind } from '../contract/window';
import { DATE_ORDERS } from './shapes';

/** A query parameter an answer repeats outside its lists, and the values it takes. */
export interface Echo {
  param: string;
  path: string;
  values: readonly string[];
  /** The value the request takes when it does not name one (`status`: `open`). */
  fallback: string | undefined;
}

/** The enumerated query parameters of `id` whose name is a field of its answer outside any list: what the answer echoes. */
export function echoesOf(id: OperationId, paths: ReadonlySet<string>): Echo[] {
  const { query } = (operations[id] as unknown as AnyOperation).params;
  return Object.entries(query).flatMap(([param, p]) => {
    if (p.rule.kind !== 'enum') return [];
    const { values } = p.rule;
    return [...paths].filter((path) => !path.includes('[]') && fieldOf(path) === param).map((path) => ({ param, path, values, fallback: p.fallback as string | undefined }));
  });
}

/**
 * The value a probe asks for: one the first answer's lists hold for the same field (a task's layer, a transcript's
 * engine), so the answer is not empty, and never the value the request takes by default, which the first read
 * already echoed.
 */
export function probeValue(echo: Echo, read: unknown): string | undefined {
  const listed = [...new Set(valuesOfField(read, echo.param))].filter((v): v is string => typeof v === 'string' && echo.values.includes(v));
  return [...listed, ...echo.values].find((v) => v !== echo.fallback);
}

/** Every value of a field named `name` anywhere in a list of `read` (on the contract's names). */
function valuesOfField(value: unknown, name: string): unknown[] {
  if (Array.isArray(value)) return value.flatMap((item) => valuesOfField(item, name));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) => (key === name && !Array.isArray(v) ? [v] : valuesOfField(v, name)));
}

/**
 * What a probe's answer must hold at one of the contract's paths: a value, or a list of so many items; or, of the
 * first read, what the probe's answer holds at another path it places surely (`previous_hits` then, `total_hits` of
 * the window before).
 */
export type Expected = { path: string; value: unknown } | { path: string; length: number } | { path: string; sameAs: string };
/** A prediction of the probe's answer alone. */
type OfTheProbe = Exclude<Expected, { sameAs: string }>;

/** A probe: what it asks, in words, its request beside the first read's, and what the contract then predicts. */
export interface Prediction {
  purpose: string;
  params: Readonly<Record<string, string | number>>;
  expect: readonly Expected[];
}

/** A date written in any form the map converts (`28/11/2026`, epoch seconds) is the day predicted. */
const sameDay = (predicted: string, raw: unknown) =>
  (['date', 'date-time', ...DATE_ORDERS] as const).some((convert) => {
    const day = convertValue(convert, raw);
    return typeof day === 'string' && day.slice(0, 10) === predicted;
  });

/** Whether `value` (the answer read with the key, on the contract's names) or `raw` (as the service wrote it) holds what is expected. */
export function holds(expected: OfTheProbe, value: unknown, raw: unknown): boolean {
  if ('length' in expected) return Array.isArray(value) && value.length === expected.length;
  if (typeof expected.value === 'string' && /^\d{4}-\d\d-\d\d$/.test(expected.value)) return value === expected.value || sameDay(expected.value, raw);
  return value === expected.value;
}

/**
 * Of the keys a probe's answer may hold a predicted path in, the one proven: read with each, the probe's answer
 * (`after`) holds the prediction and the first (`before`) did not. Undefined when none or several are.
 */
export function provenKey(
  expected: OfTheProbe,
  candidates: readonly string[],
  before: (key: string) => { value: unknown; raw: unknown },
  after: (key: string) => { value: unknown; raw: unknown },
): string | undefined {
  const proven = [...new Set(candidates)].filter((key) => {
    const [a, b] = [after(key), before(key)];
    return holds(expected, a.value, a.raw) && !holds(expected, b.value, b.raw);
  });
  return proven.length === 1 ? proven[0] : undefined;
}

/** A probe's echo of its enumeration: `engine=gemini` and the answer's `engine` says `gemini`. */
export function echoPrediction(id: OperationId, echo: Echo, asked: string): Prediction {
  return { purpose: `the echo of \`${echo.param}\`: ${id} read with \`${echo.param}=${asked}\``, params: { [echo.param]: asked }, expect: [{ path: echo.path, value: asked }] };
}

const dayOfMonth = (day: string) => Number(day.slice(8, 10));

/**
 * The window probe of an operation that takes dates: 12 days ending on the last 25th to 28th of a month before today,
 * so that both ends and the day before the start are over the 12th (a date's order shows), and its length differs
 * from every default window. An operation that takes only `days` is read for a length whose first day is over 12.
 */
export function windowPrediction(window: WindowKind, today: string): Prediction | undefined {
  if (window.kind === 'dated') {
    // Before today: the first read's window ends today, and a key that held the day already proves nothing.
    let to = addDays(today, -1);
    while (dayOfMonth(to) < 25 || dayOfMonth(to) > 28) to = addDays(to, -1);
    const period = { from: addDays(to, -(WINDOW_PROBE_DAYS - 1)), to };
    const before = previousPeriod(period);
    return {
      purpose: `the window: read with \`from=${period.from}&to=${period.to}\``,
      params: period,
      expect: [
        { path: 'period.from', value: period.from },
        { path: 'period.to', value: period.to },
        { path: 'previous_period.from', value: before.from },
        { path: 'previous_period.to', value: before.to },
      ],
    };
  }
  if (window.kind !== 'trailing') return undefined;
  let days = window.defaultDays + 1;
  while (dayOfMonth(addDays(today, -(days - 1))) <= 12) days++;
  return { purpose: `the window: read with \`days=${days}\``, params: { days }, expect: [{ path: 'period.from', value: addDays(today, -(days - 1)) }] };
}
/**
 * The window before's probe: read for the first read's `previous_period`, each figure of the window before in the
 * first answer (`previous_hits`, `ai_traffic.previous_visits`) is the probe's figure of its window (`total_hits`,
 * `ai_traffic.visits`): every contract field named `previous_…` outside a list, beside the `…` or `total_…` it is
 * the earlier of.
 */
export function previousWindowPrediction(window: WindowKind, asked: { days?: number; from?: string; to?: string }, today: string, paths: ReadonlySet<string>): Prediction | undefined {
  if (window.kind !== 'dated') return undefined;
  const expect = [...paths].flatMap((path) => {
    const field = fieldOf(path);
    if (path.includes('[]') || !field.startsWith('previous_') || field === 'previous_period') return [];
    const parent = path.slice(0, path.length - field.length);
    const rest = field.slice('previous_'.length);
    const now = [`${parent}${rest}`, `${parent}total_${rest}`].find((p) => paths.has(p));
    return now ? [{ path, sameAs: now }] : [];
  });
  const period = resolvePeriod(window, asked, today);
  if (expect.length === 0 || !period) return undefined;
  const before = previousPeriod(period);
  return { purpose: `the window before: read with \`from=${before.from}&to=${before.to}\`, the first read's \`previous_period\``, params: { ...before }, expect };
}

/** The window probe's length: no operation's default, and short of the 90 days the spec allows. */
const WINDOW_PROBE_DAYS = 12;

/** The market probe: another market than the first read's (as /markets lists them, on the contract's names), asked by its code. */
export function marketPrediction(markets: readonly { id: unknown; code: unknown }[], read: unknown): Prediction | undefined {
  const other = markets.find((m) => typeof m.code === 'string' && Number.isInteger(m.id) && m.id !== valueAtPath(read, 'market.id') && m.code !== valueAtPath(read, 'market.code'));
  if (!other) return undefined;
  return {
    purpose: `the market: read with \`market=${other.code}\`, another of the key's markets`,
    params: { market: other.code as string },
    expect: [
      { path: 'market.id', value: other.id },
      { path: 'market.code', value: other.code },
    ],
  };
}

/** The limit probe: `limit=1` cuts the list its parameter names (the contract's table) to one item, where it held more. */
export function limitPrediction(id: OperationId, read: unknown): Prediction | undefined {
  const rule = (operations[id] as unknown as AnyOperation).params.query.limit?.rule;
  if (rule?.kind !== 'int' || rule.list === undefined || rule.list.includes('[]')) return undefined;
  const list = valueAtPath(read, rule.list);
  if (!Array.isArray(list) || list.length < 2) return undefined;
  return { purpose: `the limit: read with \`limit=1\`, which cuts \`${rule.list}\``, params: { limit: 1 }, expect: [{ path: rule.list, length: 1 }] };
}

/**
 * A list the request limits is asked for at its most (`limit=100` of /sources), at no extra read: the whole list,
 * where it is shorter than that, is what the counts beside it cover exactly (`domains_cited`, `totals.rows`), so the
 * rules that read them fix them instead of bounding them.
 */
export function wholeLists(id: OperationId): { limit?: number } {
  const limit = (operations[id] as unknown as AnyOperation).params.query.limit;
  return limit?.rule.kind === 'int' ? { limit: limit.rule.max } : {};
}
