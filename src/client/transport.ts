/**
 * Where requests go: the network when `UPSTREAM_URL` is set, else the embedded
 * reference origin called in-process, like a service binding. Callers (the
 * proxy, the digest jobs) get a `Transport` and never know which.
 */
import { API_BASE } from '../contract/operations';
import { handleOrigin } from '../origin/handler';
import type { Transport } from './client';

/** The network. `fetch` is looked up per call, so a test's mock of it applies. */
export const networkTransport: Transport = (request) => fetch(request);

/** The embedded reference origin, in-process. */
export function originTransport(db: D1Database, waitUntil?: (work: Promise<unknown>) => void): Transport {
  return (request) => handleOrigin(request, waitUntil ? { db, waitUntil } : { db });
}

export interface Upstream {
  transport: Transport;
  /** Base address including `/api/v1`. */
  baseUrl: string;
}

/** The embedded origin's base URL: never resolved, only parsed by its router. */
export const EMBEDDED_BASE_URL = `http://origin.internal${API_BASE}`;

/**
 * The upstream of this deployment, for `createClient({ apiKey, ...upstreamFromEnv(env) })`.
 */
export function upstreamFromEnv(env: { UPSTREAM_URL?: string | undefined; DB: D1Database }, waitUntil?: (work: Promise<unknown>) => void): Upstream {
  const url = env.UPSTREAM_URL?.trim();
  if (url) return { transport: networkTransport, baseUrl: url.replace(/\/+$/, '') };
  return { transport: originTransport(env.DB, waitUntil), baseUrl: EMBEDDED_BASE_URL };
}
