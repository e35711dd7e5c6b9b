/**
 * The seams of the report routes: the digests' (storage, mailer, signing and
 * encryption secrets, public URL, clock, waiting), with the API client reading
 * through the cached edge proxy in-process, so a report can say whether its
 * data came from the cache. Tests replace any of them with
 * `useReportOverridesForTests`.
 */
import { type ApiClient, createClient } from '../client';
import type { AppEnv } from '../config/env';
import { API_BASE } from '../contract/operations';
import { type DigestDeps, digestDeps } from '../digests/deps';
import { clientAddressOf, proxyTransport } from '../proxy';

export interface ReportDeps extends DigestDeps {
  /**
   * A client that reads with `apiKey` on behalf of the client at
   * `clientAddress` (its CF-Connecting-IP): through the proxy, a key not yet
   * verified counts against that address as on /api/v1, so a flood of random
   * keys through the reports is held like one through the API.
   */
  client: (apiKey: string, clientAddress?: string | null) => ApiClient;
}

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
    client: (apiKey, clientAddress) =>
      createClient({ apiKey, transport: proxyTransport(env, ctx, { clientAddress }), baseUrl: PROXY_BASE_URL, retry: { attempts: 2, totalMs: 12_000 }, sleep: (ms) => deps.sleep(ms), now: () => deps.now().getTime() }),
    ...overrides,
  };
  return deps;
}

/** The deps of one request: every read is made on behalf of its caller's address. */
export function forCaller(deps: ReportDeps, request: Request): ReportDeps {
  const address = clientAddressOf(request);
  return { ...deps, client: (apiKey) => deps.client(apiKey, address) };
}
