/**
 * The proxy's upstream: `UPSTREAM_URL` over the network, or the embedded
 * origin in-process (the client's transport), with the per-request timeout
 * and the timer that runs it, and the size bound of an answer.
 */
import { networkTransport, type Transport } from '../client/transport';
import { EMBEDDED_BASE_URL, originTransport } from '../origin/transport';
import type { ProxyEnv } from './env';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, upstreamMaxBytes } from './policy';

/**
 * Starts the per-request timeout: `expire` runs after `ms` unless the returned
 * function stops it first. A seam, like `transport`: the tests expire it at
 * the moment they choose (an upstream that hangs, a body that stalls) instead
 * of waiting for a real timer.
 */
export type StartTimeout = (ms: number, expire: () => void) => () => void;

/** The real clock's timeout. */
export const realTimeout: StartTimeout = (ms, expire) => {
  const timer = setTimeout(expire, ms);
  return () => clearTimeout(timer);
};

export interface UpstreamConfig {
  transport: Transport;
  /** Base address including `/api/v1`. */
  baseUrl: string;
  timeoutMs: number;
  /** The largest answer read, in bytes: a longer body is abandoned at this size. */
  maxBytes: number;
  startTimeout: StartTimeout;
}

export interface Upstream {
  transport: Transport;
  /** Base address including `/api/v1`. */
  baseUrl: string;
}

/** `UPSTREAM_URL` as read: trimmed, without a trailing slash; '' for the embedded origin. */
export const upstreamUrlOf = (env: Pick<ProxyEnv, 'UPSTREAM_URL'>): string => env.UPSTREAM_URL?.trim().replace(/\/+$/, '') ?? '';

/** Which service the proxy reads, in words that differ when it does: what the cache's entry names are partitioned by. */
export const upstreamIdentity = (env: Pick<ProxyEnv, 'UPSTREAM_URL'>): string => upstreamUrlOf(env) || 'embedded origin';

/** The upstream of this deployment: `UPSTREAM_URL` over the network, else the embedded origin in-process. */
export function upstreamFromEnv(env: Pick<ProxyEnv, 'UPSTREAM_URL' | 'DB'>, waitUntil?: (work: Promise<unknown>) => void): Upstream {
  const url = upstreamUrlOf(env);
  if (url) return { transport: networkTransport, baseUrl: url };
  // The env schema refuses this pair (src/proxy/env.ts); a caller with a hand-made env gets the same words.
  if (!env.DB) throw new Error('UPSTREAM_URL is unset and DB is not bound: the embedded origin needs D1.');
  return { transport: originTransport(env.DB, waitUntil), baseUrl: EMBEDDED_BASE_URL };
}

export function upstreamConfig(env: ProxyEnv, waitUntil?: (work: Promise<unknown>) => void): UpstreamConfig {
  return {
    ...upstreamFromEnv(env, waitUntil),
    timeoutMs: env.UPSTREAM_TIMEOUT_MS ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
    maxBytes: upstreamMaxBytes(env),
    startTimeout: realTimeout,
  };
}
