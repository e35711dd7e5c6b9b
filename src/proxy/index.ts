/**
 * The edge proxy: /api/v1 (handler.ts), /admin/cache (admin.ts), the Durable
 * Objects it needs, and `apiFor()` (api.ts), the one way features read the API.
 */
export { acceptedRecently, ASK_NOW, apiFor, confirmedCaller, confirmKeyNow, keyUnconfirmed, type ReadApi, type ReadOptions } from './api';
export { clientAddressOf, guardOrigin, UNVERIFIED_PER_MINUTE } from './abuse';
export { ADMIN_BASE, type AdminContext, adminRoutes, handleAdmin, UPSTREAM_ADMIN_BASE } from './admin';
export type { ProxyEnv } from './env';
export { callsLeft, UpstreamGate } from './gate';
export { handleProxy, type ProxyCall, type ProxyRuntime } from './handler';
export { ProxyStats } from './stats';
export { type StartTimeout, type UpstreamConfig, upstreamConfig } from './upstream';
