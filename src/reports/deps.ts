/**
 * The seams of the report routes: the digests' (storage, mailer, signing and
 * encryption secrets, public URL, clock, waiting), with the API client reading
 * through the cached edge proxy in-process, so a report can say whether its
 * data came from the cache. Tests replace any of them with
 * `useReportOverridesForTests`.
 */
import { createClient } from '../client';
import type { AppEnv } from '../config/env';
import { API_BASE } from '../contract/operations';
import { type DigestDeps, digestDeps } from '../digests/deps';
import { proxyTransport } from '../proxy';

export type ReportDeps = DigestDeps;

/** Never resolved: the proxy's router only reads the path. */
const PROXY_BASE_URL = `http://proxy.internal${API_BASE}`;

let overrides: Partial<ReportDeps> | undefined;

/** Test seam: a fake clock, mailer or sleep for the routes served by the Worker. Call with nothing to restore. */
export function useReportOverridesForTests(next?: Partial<ReportDeps>): void {
  overrides = next;
}

export function reportDeps(env: AppEnv, ctx: ExecutionContext): ReportDeps {
  const base = digestDeps(env, ctx);
  const deps: ReportDeps = {
    ...base,
    // Two tries within a page view: a reader waits, a retry later is theirs to make (the page says so).
    client: (apiKey) => createClient({ apiKey, transport: proxyTransport(env, ctx), baseUrl: PROXY_BASE_URL, retry: { attempts: 2, totalMs: 12_000 }, sleep: (ms) => deps.sleep(ms), now: () => deps.now().getTime() }),
    ...overrides,
  };
  return deps;
}
