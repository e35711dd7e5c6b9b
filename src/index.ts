/**
 * The Worker's main module: the handler (src/app/worker.ts) and the Durable
 * Objects of the proxy. Nothing else: workerd takes every export of the main
 * module for an entrypoint (test/worker-exports.unit.test.ts).
 */
import { createWorker } from './app/worker';

// From their own files, not the proxy's index: it brings the admin, which /api/v1 loads only at its first use.
export { UpstreamGate } from './proxy/gate';
export { ProxyStats } from './proxy/stats';

export default createWorker();
