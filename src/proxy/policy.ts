/**
 * The cache policy of the edge proxy, in one place (DESIGN section 6). The
 * windows follow RFC 5861 (stale-while-revalidate, stale-if-error), as do
 * Varnish grace and nginx `proxy_cache_use_stale` + `proxy_cache_background_update`.
 *
 *   age 0 ........ fresh ........ TTL ... stale-while-revalidate ... 2 x TTL ...... stale-if-error ...... 24 h
 *   HIT                                STALE + refresh in background          refresh first; STALE only if
 *                                                                             upstream fails (5xx, timeout, 429)
 *
 * Key layout (KV key names; the Cache API uses the same name under CACHE_URL_BASE):
 *   v1:<sha256(api key)>:<upstream>:<sha256(api key \n path \n canonical query)>
 * The first hash partitions by credential, so one key can never read another's
 * entry (RFC 9111 section 3.5: a shared cache must not reuse a response to an
 * authenticated request for another credential), and lets a purge or a
 * revocation find all of a key's entries by prefix, whichever upstream they
 * came from. `<upstream>` is the first 12 hex digits of the SHA-256 of the
 * service read (`UPSTREAM_URL`, or "embedded origin"): after a switch the
 * previous service's bodies are never served (cache-key.ts, upstreamTagOf).
 * No API key is stored in plain text anywhere.
 */
import { DEFAULT_MAX_BYTES } from '../client/transport';
import { TTL, type AnyOperation } from '../contract/operations';
import { HOUR_MS, MINUTE_MS, SECOND_MS } from '../lib/time';
import type { ProxyEnv } from './env';

/** After the fresh TTL, serve stale and refresh in the background for one more TTL. */
export const staleWhileRevalidateMs = (ttlMs: number) => ttlMs;
/** On an upstream error, timeout or 429, a stored answer may be served up to this age. */
export const STALE_IF_ERROR_MS = 24 * HOUR_MS;

/** Upstream answers after which a stale copy may be served instead (stale-if-error). */
export const isUpstreamFailure = (status: number) => status >= 500 || status === 429;

/**
 * Cache API copies live at most this long. The Cache API is per location and a
 * purge reaches only the location that runs it; with this cap every location
 * re-reads KV (global) within a minute, so purges and revocations spread.
 */
export const EDGE_TIER_MAX_AGE_S = 60;
/**
 * The isolate's memory copy of an entry lives at most this long, and at most
 * this many are kept: a purge or a revocation reaches other isolates' memory
 * within these seconds.
 */
export const MEMORY_TIER_MAX_AGE_MS = 5 * SECOND_MS;
export const MEMORY_TIER_MAX_ENTRIES = 2000;
/**
 * ... and their bodies hold at most this many characters together (V8 keeps
 * one or two bytes a character): at most a quarter of an isolate's 128 MB,
 * however large the upstream's answers (each up to UPSTREAM_MAX_BYTES).
 */
export const MEMORY_TIER_MAX_CHARS = 16 * 1024 * 1024;
/** KV refuses an `expirationTtl` under 60 s. */
export const KV_MIN_TTL_S = 60;

/** A finished upstream 200 is shared with identical requests arriving this soon after it (KV writes need a moment to be read back). */
export const COALESCE_AFTER_MS = 2 * SECOND_MS;
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10 * SECOND_MS;
/**
 * The largest upstream answer read, in bytes (configurable: UPSTREAM_MAX_BYTES):
 * past it the read is abandoned and the answer is an upstream failure (stale,
 * or 502), never stored. 4 MiB is over 100 times the largest demo answer
 * (docs/deploy.md), and one read's copies of it (the gate's, the RPC's, the
 * parsed check, the stored ones) stay well inside an isolate's 128 MB.
 */
export const DEFAULT_UPSTREAM_MAX_BYTES = DEFAULT_MAX_BYTES;
/**
 * A key served from the cache has its validity read again upstream (its own
 * `GET /brands`, through its gate) once this long has passed since the
 * upstream last accepted it: a revoked key stops being served within it.
 */
export const KEY_RECHECK_MS = 5 * MINUTE_MS;
/** When that read fails (an outage, the budget spent), it is tried again this soon; the key is served meanwhile. */
export const KEY_RECHECK_RETRY_MS = 30 * SECOND_MS;
/**
 * With a stored copy in hand, the proxy waits this long for the upstream
 * before answering STALE; the read goes on in the background and stores its
 * answer (configurable: UPSTREAM_SOFT_DEADLINE_MS).
 */
export const DEFAULT_SOFT_DEADLINE_MS = 1.5 * SECOND_MS;
/** After this many upstream failures in a row (no answer, a timeout, a 5xx), a key's gate stops calling the upstream ... */
export const CIRCUIT_FAILURES = 3;
/** ... for this long: its callers get their stored copy, or 502, at once instead of after a timeout. */
export const CIRCUIT_OPEN_MS = 30 * SECOND_MS;

export const softDeadlineMs = (env: Pick<ProxyEnv, 'UPSTREAM_SOFT_DEADLINE_MS'>) => env.UPSTREAM_SOFT_DEADLINE_MS ?? DEFAULT_SOFT_DEADLINE_MS;
export const upstreamMaxBytes = (env: Pick<ProxyEnv, 'UPSTREAM_MAX_BYTES'>) => env.UPSTREAM_MAX_BYTES ?? DEFAULT_UPSTREAM_MAX_BYTES;

export const CACHE_KEY_VERSION = 'v1';
/** Never resolved: only a key for the Cache API, which wants a URL. */
export const CACHE_URL_BASE = 'https://proxy-cache.internal/';

/** Fresh TTL of an operation in ms: the table's, unless the deployment overrides the class (TTL_WINDOWED, TTL_FIXED). */
export function freshTtlMs(op: Pick<AnyOperation, 'ttl'>, env: Pick<ProxyEnv, 'TTL_WINDOWED' | 'TTL_FIXED'>): number {
  const override = op.ttl === TTL.windowed ? env.TTL_WINDOWED : env.TTL_FIXED;
  return (override ?? op.ttl) * SECOND_MS;
}

/** Freshness of one stored answer, kept in KV metadata and in the Cache API copy's headers. */
export interface Freshness {
  /** When the answer was stored (ms since epoch). */
  storedAt: number;
  /** Until then: HIT. */
  freshUntil: number;
  /** Until then: STALE while refreshing in the background. */
  revalidateUntil: number;
  /** Until then: STALE when the upstream fails. After it the entry is dead. */
  staleUntil: number;
}

export function freshnessFor(storedAt: number, ttlMs: number): Freshness {
  const freshUntil = storedAt + ttlMs;
  return { storedAt, freshUntil, revalidateUntil: freshUntil + staleWhileRevalidateMs(ttlMs), staleUntil: storedAt + STALE_IF_ERROR_MS };
}

/** What the upstream says of its answer's freshness (RFC 9111, sections 5.1 and 5.2.2). */
export interface UpstreamFreshness {
  /** Seconds the answer had aged upstream before it reached the proxy (`Age`). */
  ageS: number;
  /** The upstream's `max-age`, when it gave one. */
  maxAgeS?: number;
  /** `no-store`: never kept. */
  noStore: boolean;
}

export function upstreamFreshness(headers: readonly (readonly [string, string])[]): UpstreamFreshness {
  const field = (name: string) => headers.find(([n]) => n === name)?.[1];
  const age = Number(field('age'));
  const directives = (field('cache-control') ?? '')
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  const maxAge = directives.map((d) => /^max-age=(\d+)$/.exec(d)?.[1]).find((v) => v !== undefined);
  return {
    ageS: Number.isFinite(age) && age > 0 ? Math.floor(age) : 0,
    ...(maxAge !== undefined ? { maxAgeS: Number(maxAge) } : {}),
    noStore: directives.includes('no-store'),
  };
}

/**
 * The entry's freshness for an upstream answer received at `receivedAt`: aged
 * by its upstream `Age` (a body 20 s old upstream is 20 s old here), fresh for
 * the operation's TTL or the upstream's shorter `max-age`.
 */
export function entryFreshness(receivedAt: number, ttlMs: number, upstream: UpstreamFreshness): Freshness {
  const ttl = upstream.maxAgeS === undefined ? ttlMs : Math.min(ttlMs, upstream.maxAgeS * SECOND_MS);
  return freshnessFor(receivedAt - upstream.ageS * SECOND_MS, ttl);
}
