/** The network transport of the typed client. */
import type { Transport } from './client';

/** The network. `fetch` is looked up per call, so a test's mock of it applies. */
export const networkTransport: Transport = (request) => fetch(request);
