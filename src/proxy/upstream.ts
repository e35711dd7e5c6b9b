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

let override: Partial<UpstreamConfig> | undefined;

/**
 * Test seam: replaces the upstream of every proxy in this isolate (the tests
 * run in the Worker's isolate), e.g. with a counting, fault-injecting origin.
 * Call with no argument to restore the configured one.
 */
export function useUpstreamForTests(upstream?: Partial<UpstreamConfig>): void {
  override = upstream;
}

export function upstreamConfig(env: AppEnv, waitUntil?: (work: Promise<unknown>) => void): UpstreamConfig {
  return { ...upstreamFromEnv(env, waitUntil), timeoutMs: env.UPSTREAM_TIMEOUT_MS ?? DEFAULT_UPSTREAM_TIMEOUT_MS, ...override };
}
