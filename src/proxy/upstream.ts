/**
 * The proxy's upstream: `UPSTREAM_URL` over the network, or the embedded
 * origin in-process (the client's transport), with the per-request timeout.
 */
import { type Transport } from '../client/client';
import { upstreamFromEnv } from '../client/transport';
import { type AppEnv } from '../config/env';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from './policy';

export interface UpstreamConfig {
  transport: Transport;
  /** Base address including `/api/v1`. */
  baseUrl: string;
  timeoutMs: number;
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
  const configured: UpstreamConfig = { ...upstreamFromEnv(env, waitUntil), timeoutMs: env.UPSTREAM_TIMEOUT_MS ?? DEFAULT_UPSTREAM_TIMEOUT_MS };
  if (!override) return configured;
  return { ...configured, ...(typeof override === 'function' ? override(configured) : override) };
}
