/**
 * The proxy's upstream: `UPSTREAM_URL` over the network, or the embedded
 * origin in-process (the client's transport), with the per-request timeout
 * and the timer that runs it.
 */
import { type Transport } from '../client/client';
import { upstreamFromEnv } from '../client/transport';
import { type AppEnv } from '../config/env';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from './policy';

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
  startTimeout: StartTimeout;
}

type Override = Partial<UpstreamConfig> | ((configured: UpstreamConfig) => Partial<UpstreamConfig>);
let override: Override | undefined;

/**
 * Seam for the tests and the benchmark (both run in the Worker's isolate):
 * replaces the upstream of every proxy in this isolate, e.g. with a counting,
 * fault-injecting origin, or wraps the configured one (pass a function).
 * Call with no argument to restore the configured one.
 */
export function useUpstreamForTests(upstream?: Override): void {
  override = upstream;
}

export function upstreamConfig(env: AppEnv, waitUntil?: (work: Promise<unknown>) => void): UpstreamConfig {
  const configured: UpstreamConfig = { ...upstreamFromEnv(env, waitUntil), timeoutMs: env.UPSTREAM_TIMEOUT_MS ?? DEFAULT_UPSTREAM_TIMEOUT_MS, startTimeout: realTimeout };
  if (!override) return configured;
  return { ...configured, ...(typeof override === 'function' ? override(configured) : override) };
}
