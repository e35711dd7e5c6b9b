/**
 * The typed client of the Read API v1, as a library:
 *
 * ```ts
 * import { createClient, upstreamFromEnv, ApiClientError } from 'brand-ai-visibility-edge/client';
 * const api = createClient({ apiKey, ...upstreamFromEnv(env, (p) => ctx.waitUntil(p)) });
 * try {
 *   const visibility = await api.getVisibility({ brand_id: 2 });
 * } catch (error) {
 *   if (error instanceof ApiClientError && error.code === 'integration_not_connected') ...
 * }
 * ```
 */
export {
  type ApiClient,
  backoffDelay,
  type CacheStatus,
  type CallOptions,
  type ClientOptions,
  createClient,
  DEFAULT_TIMEOUT_MS,
  defaultRetry,
  operationUrl,
  type ParamsOf,
  parseRetryAfter,
  type ResponseMeta,
  type RetryPolicy,
  type Transport,
  type WithMeta,
} from './client';
export { ApiClientError, type ClientErrorCode, type ClientErrorKind } from './errors';
export { EMBEDDED_BASE_URL, networkTransport, originTransport, type Upstream, upstreamFromEnv } from './transport';
export type { OperationId, PathOf, QueryOf, ResponseOf } from '../contract/operations';
