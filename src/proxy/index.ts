/** The edge proxy: /api/v1 (handler.ts), /admin/cache (admin.ts), and the Durable Objects it needs. */
export { handleProxy, proxyTransport } from './handler';
export { ADMIN_BASE, handleAdmin } from './admin';
export { UpstreamGate } from './gate';
export { ProxyStats } from './stats';
export { useUpstreamForTests } from './upstream';
