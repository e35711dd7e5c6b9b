/** The edge proxy: /api/v1 (handler.ts), /admin/cache (admin.ts), and the Durable Objects it needs. */
export { handleProxy, type ProxyCall, proxyTransport } from './handler';
export { clientAddressOf } from './abuse';
export { ADMIN_BASE, handleAdmin } from './admin';
export { UpstreamGate } from './gate';
export { ProxyStats } from './stats';
export { useUpstreamForTests } from './upstream';
