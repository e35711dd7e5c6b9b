/**
 * The Worker's main module: the handler (src/app/worker.ts) and the Durable
 * Objects of the proxy. Nothing else: workerd takes every export of the main
 * module for an entrypoint (test/worker-exports.unit.test.ts).
 */
import { createWorker } from './app/worker';

export { ProxyStats, UpstreamGate } from './proxy';

export default createWorker();
