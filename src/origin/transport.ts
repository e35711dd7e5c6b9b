/** The embedded reference origin as a transport for the typed client: called in-process, like a service binding. */
import { API_BASE } from '../contract/operations';
import { loadWithSchemas } from '../contract/zod-side';

/** The embedded origin's base URL: never resolved, only parsed by its router. */
export const EMBEDDED_BASE_URL = `http://origin.internal${API_BASE}`;

/**
 * The origin, loaded at the first read that reaches it: an isolate answering from the cache, or reading a real
 * upstream, never evaluates it. With the contract's schemas (its OpenAPI document reads them): the key's gate, a
 * Durable Object, calls it, and an object may run in an isolate where nothing else loaded them.
 */
const origin = loadWithSchemas(() => import('./handler'));

export function originTransport(db: D1Database, waitUntil?: (work: Promise<unknown>) => void): (request: Request) => Promise<Response> {
  return async (request) => (await origin()).handleOrigin(request, waitUntil ? { db, waitUntil } : { db });
}
