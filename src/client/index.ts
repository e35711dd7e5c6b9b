/**
 * The typed client of the Read API v1, as a library:
 *
 * ```ts
 * import { createClient, networkTransport, ApiClientError } from 'brand-ai-visibility-edge/client';
 * const api = createClient({ apiKey, baseUrl: 'https://edge.example.com/api/v1', transport: networkTransport });
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
  type Lenient,
  type LenientOptions,
  createClient,
  DEFAULT_TIMEOUT_MS,
  defaultRetry,
  operationUrl,
  type ParamsOf,
  type ResponseMeta,
  type RetryPolicy,
  type Transport,
  type WithMeta,
} from './client';
export { ApiClientError, type ClientErrorCode, type ClientErrorKind, toApiError } from './errors';
export { DEFAULT_MAX_BYTES, networkTransport } from './transport';
export { parseRetryAfter } from '../lib/time';
export type { OperationId, PathOf, QueryOf, ResponseOf } from '../contract/operations';
