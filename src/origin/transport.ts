/** The embedded reference origin as a transport for the typed client: called in-process, like a service binding. */
import { API_BASE } from '../contract/operations';
import { loadOnce } from '../lib/lazy';

/** The embedded origin's base URL: never resolved, only parsed by its router. */
export const EMBEDDED_BASE_URL = `http://origin.internal${API_BASE}`;

/**
 * The origin, loaded at the first read that reaches it: an isolate answering from the cache, or reading a real
 * upstream, never evaluates it. It reads none of the contract's schemas (its OpenAPI document is a built asset,
 * src/contract/documents.ts), so the key's gate, which calls it, does not load them for it.
 */
const origin = loadOnce(() => import('./handler'));

export function originTransport(db: D1Database, waitUntil?: (work: Promise<unknown>) => void): (request: Request) => Promise<Response> {
  return async (request) => (await origin()).handleOrigin(request, waitUntil ? { db, waitUntil } : { db });
}
