/**
 * Probes (DESIGN section 13): a second read of an operation, asked so that
 * its answer differs from the first in a way the contract predicts, settles
 * what one read cannot. An answer echoes the enumerations its request names
 * (`engine`; `layer` as `filter.layer`): read without them, the echo is null
 * and nothing tells which key holds it. Read with one, the key that held
 * nothing and now holds the value asked is the echo, and only that key.
 *
 * ```ts
 * echoesOf('listTasks', contractPaths(zs, 'listTasks')); // [{ param: 'layer', path: 'filter.layer', values: [...] }, …]
 * provenEcho(echo, 'content', candidates, before, after); // 'Couche': null before, `content` now
 * ```
 */
import { type AnyOperation, type OperationId, operations } from '../contract/operations';
import { fieldOf, valueAtPath } from '../contract/paths';

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
 * Of the keys a probe's answer may hold the echo in, the one proven: read with each, the first answer (`before`,
 * on the contract's names with that key) held anything but the value asked, and the probe's (`after`) holds it.
 * Undefined when none or several are.
 */
export function provenEcho(echo: Echo, asked: string, candidates: readonly string[], before: (key: string) => unknown, after: (key: string) => unknown): string | undefined {
  const proven = [...new Set(candidates)].filter((key) => valueAtPath(after(key), echo.path) === asked && valueAtPath(before(key), echo.path) !== asked);
  return proven.length === 1 ? proven[0] : undefined;
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
