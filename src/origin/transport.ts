/** The embedded reference origin as a transport for the typed client: called in-process, like a service binding. */
import { API_BASE } from '../contract/operations';
import { handleOrigin } from './handler';

/** The embedded origin's base URL: never resolved, only parsed by its router. */
export const EMBEDDED_BASE_URL = `http://origin.internal${API_BASE}`;

export function originTransport(db: D1Database, waitUntil?: (work: Promise<unknown>) => void): (request: Request) => Promise<Response> {
  return (request) => handleOrigin(request, waitUntil ? { db, waitUntil } : { db });
}
