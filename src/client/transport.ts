/** The network transport of the typed client, and what any transport is. */

/** Anything shaped like `fetch` for one request: the network, or an in-process handler. */
export type Transport = (request: Request) => Promise<Response>;

/**
 * The largest answer read, in bytes: the edge proxy's own default bound on its upstream (UPSTREAM_MAX_BYTES; why
 * 4 MiB: src/proxy/policy.ts). Here, not in client.ts, so that the proxy reads it without loading the client.
 */
export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/** The network. `fetch` is looked up per call, so a test's mock of it applies. */
export const networkTransport: Transport = (request) => fetch(request);
