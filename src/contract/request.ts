/**
 * The request pipeline of the spec, as pure code shared by the origin and the
 * proxy: match the path to an operation of the table, parse its path and
 * query parameters with the operation's schemas, resolve its window. The
 * proxy adds the canonical form its cache key is made of.
 */
import { API_BASE, type AnyOperation, type OperationId, operationList } from './operations';
import { decodePathParams, queryObject, readParams, type Strictness } from './params';
import { type Period, resolvePeriod, windowHint } from './window';

export type Operation = AnyOperation & { id: OperationId };

/** A path template as a pattern: `{name}` matches one non-empty segment, everything else itself; `names` in order. */
function pathPattern(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { pattern: new RegExp(`^${source}$`), names };
}

/**
 * One pattern per operation, from the table: `/topics/{id}` matches `/api/v1/topics/<one segment>`.
 * Plain regexes, not the product routes' itty-router: this match runs on every /api/v1 request, in the cache HIT
 * that `npm run bench -- proxy` measures, and stays synchronous.
 */
const routes = operationList.map((op) => ({ op, ...pathPattern(API_BASE + op.path) }));

export interface Match {
  op: Operation;
  /** The path parameters as written (percent-encoded). */
  rawPath: Record<string, string>;
}

/** Paths seen by this isolate and what they matched (a dashboard polls the same few). */
const matched = new Map<string, Match | undefined>();
const MATCH_MEMO = 2000;

export function matchOperation(pathname: string): Match | undefined {
  if (matched.has(pathname)) return matched.get(pathname);
  const match = findOperation(pathname);
  if (matched.size >= MATCH_MEMO) matched.clear();
  matched.set(pathname, match);
  return match;
}

function findOperation(pathname: string): Match | undefined {
  for (const route of routes) {
    const match = route.pattern.exec(pathname);
    if (!match) continue;
    const rawPath: Record<string, string> = {};
    route.names.forEach((name, i) => (rawPath[name] = match[i + 1]!));
    return { op: route.op, rawPath };
  }
  return undefined;
}

/** A request the operation's schemas accept. */
export interface ParsedRequest {
  op: Operation;
  query: Record<string, unknown>;
  path: Record<string, unknown>;
  /** The days the operation reads, for windowed operations. */
  period?: Period;
}

/**
 * Parses the query and path parameters as the operation declares them and
 * resolves its window against `today`. Throws 400 `invalid_parameter` naming
 * the parameter. The origin applies every rule; the edge leaves the values
 * the spec leaves open to the upstream (`Strictness`).
 */
export function parseRequest(match: Match, searchParams: URLSearchParams, today: string, strictness: Strictness = 'origin'): ParsedRequest {
  const { op } = match;
  const query: Record<string, unknown> = readParams(op.params.query, queryObject(searchParams), { strictness, hint: windowHint(op.window) });
  const path: Record<string, unknown> = readParams(op.params.path, decodePathParams(match.rawPath), { strictness });
  const period = resolvePeriod(op.window, query as { days?: number; from?: string; to?: string }, today);
  return { op, query, path, ...(period ? { period } : {}) };
}

/**
 * The canonical form of a parsed request: parsed values (so `US` and `us`,
 * `limit=015` and `limit=15` agree), defaults made explicit, relative windows
 * resolved to dates (so `days=7` names another request tomorrow: the window
 * rolls over at UTC midnight), sorted.
 */
export function canonicalOf({ op, query, path, period }: ParsedRequest): string {
  const canonical: [string, string][] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (period && (name === 'days' || name === 'from' || name === 'to')) continue;
    canonical.push([name, String(value)]);
  }
  // Fixed windows too: `/visibility` read today is not the one read yesterday.
  if (period) canonical.push(['period_from', period.from], ['period_to', period.to]);
  canonical.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const normalisedPath = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(path[name])));
  return `${op.id} ${normalisedPath}?${new URLSearchParams(canonical)}`;
}
