/**
 * What the edge learns from a request before any cache or upstream work:
 * which operation, whether its parameters are valid (the same schemas and
 * window rules as the origin, so invalid requests never spend upstream
 * budget), and its cache key.
 */
import { ApiError } from '../contract/errors';
import { API_BASE, type AnyOperation, type OperationId, operationList } from '../contract/operations';
import { decodePathParams, parseParams, queryObject } from '../contract/params';
import { sha256Hex } from '../hash';
import { type Period, resolvePeriod, toDay, windowHint } from '../contract/window';
import { CACHE_KEY_VERSION } from './policy';

type Operation = AnyOperation & { id: OperationId };

/** One pattern per operation, from the table: `/topics/{id}` matches `/api/v1/topics/<one segment>`. */
const routes = operationList.map((op) => {
  const names: string[] = [];
  const source = op.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\{(\w+)\\\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { op, names, pattern: new RegExp(`^${API_BASE}${source}$`) };
});

type Match = { op: Operation; rawPath: Record<string, string> };
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

export interface ValidRequest {
  op: Operation;
  /** The upstream path and query, as the caller wrote them (validated). */
  upstreamPath: string;
  /** Path with parameters normalised, and the canonical query: what the cache key is made of. */
  canonical: string;
  period?: Period;
}

/**
 * Validates like the origin and builds the canonical form of the request:
 * parsed values (so `US` and `us`, `limit=015` and `limit=15` agree), defaults
 * made explicit, relative windows resolved to dates (so `days=7` names a
 * different entry tomorrow: the window rolls over at UTC midnight), sorted.
 * Throws 400 `invalid_parameter` naming the parameter.
 */
export function validate(op: Operation, rawPath: Record<string, string>, url: URL, nowMs: number): ValidRequest {
  const rawQuery = queryObject(url.searchParams);
  const query = parseParams(op.query, rawQuery, windowHint(op.window)) as Record<string, unknown>;
  const path = parseParams(op.pathParams, decodePathParams(rawPath)) as Record<string, unknown>;
  const period = resolvePeriod(op.window, query as { days?: number; from?: string; to?: string }, toDay(new Date(nowMs)));

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
  return {
    op,
    upstreamPath: url.pathname.slice(API_BASE.length) + url.search,
    canonical: `${op.id} ${normalisedPath}?${new URLSearchParams(canonical)}`,
    ...(period ? { period } : {}),
  };
}


/** Hashes of API keys seen by this isolate, so a HIT costs one SHA-256, not two. Bounded; keys are never logged. */
const keyHashes = new Map<string, string>();
const KEY_HASH_MEMO = 1000;

/** The hash when this isolate has computed it already, without a promise. */
export const knownKeyHash = (apiKey: string): string | undefined => keyHashes.get(apiKey);

export async function hashApiKey(apiKey: string): Promise<string> {
  const known = keyHashes.get(apiKey);
  if (known) return known;
  const hash = await sha256Hex(apiKey);
  if (keyHashes.size >= KEY_HASH_MEMO) keyHashes.clear();
  keyHashes.set(apiKey, hash);
  return hash;
}

/** The entry name: see the key layout in policy.ts. */
export async function cacheKeyOf(apiKey: string, keyHash: string, canonical: string): Promise<string> {
  return `${CACHE_KEY_VERSION}:${keyHash}:${await sha256Hex(`${apiKey}\n${canonical}`)}`;
}

export const keyPrefix = (keyHash: string) => `${CACHE_KEY_VERSION}:${keyHash}:`;
