/**
 * One error model for the whole API: every code the spec names, its status,
 * and the one function that shapes the body (DESIGN section 3).
 */
import { JSON_CONTENT_TYPE, JSON_HEADERS } from '../lib/http';

export { JSON_CONTENT_TYPE, JSON_HEADERS };

/** The Read API's error codes and their statuses (spec, Errors; DESIGN section 3). */
export const API_ERROR_STATUS = {
  invalid_parameter: 400,
  brand_required: 400,
  invalid_api_key: 401,
  feature_not_in_plan: 403,
  plan_inactive: 403,
  brand_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  integration_not_connected: 409,
  quota_exceeded: 429,
  rate_limited: 429,
  internal_error: 500,
  upstream_error: 502,
} as const;

/**
 * The product's own codes, for its routes beside the API (subscriptions,
 * reports): never part of the Read API, nor of its OpenAPI error schema.
 */
export const PRODUCT_ERROR_STATUS = {
  /** `POST /reports/weekly/send` within 10 minutes of the last send. */
  recently_sent: 409,
  /** `POST /reports/links` by a key that has 100 live links already: a cap, lifted by revoking one or its expiry. */
  too_many_links: 409,
  /** `PUT /admin/upstream/map` naming a version that is no longer the stored one. */
  map_version_conflict: 409,
  /** `POST /admin/upstream/discover` with `apply`, when reads were refused for want of a brand discovery could not read: nothing stored. */
  discovery_incomplete: 409,
  /** A feature needs an operation the service behind the Worker does not have (it answered 404); `operation` names it. */
  operation_missing: 502,
  /** A write whose key the Read API could not confirm now (the key's budget spent, the service slow or down): nothing written; `Retry-After` says when to try again. */
  key_unconfirmed: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;
export type ErrorCode = ApiErrorCode | keyof typeof PRODUCT_ERROR_STATUS;
const ERROR_STATUS: Record<ErrorCode, number> = { ...API_ERROR_STATUS, ...PRODUCT_ERROR_STATUS };
/** Whether a code from elsewhere (an upstream's body) is one of the Read API's. */
export const isApiErrorCode = (code: string): code is ApiErrorCode => Object.hasOwn(API_ERROR_STATUS, code);

/** The error body (its schema: schemas/errors.ts). */
export interface ErrorBody {
  error: { code: ApiErrorCode; message: string; param?: string };
}

/** Thrown anywhere in a request; the single error handler turns it into a response. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: { param?: string; retryAfter?: number; headers?: Record<string, string>; operation?: string } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }

  get param(): string | undefined {
    return this.options.param;
  }

  /** The API's error shape; a product route's code (`recently_sent`) rides in the same shape, `operation_missing` with the operation. */
  get body(): { error: { code: ErrorCode; message: string; param?: string; operation?: string } } {
    const { operation } = this.options;
    return { error: { code: this.code, message: this.message, ...(this.param !== undefined ? { param: this.param } : {}), ...(operation !== undefined ? { operation } : {}) } };
  }
}

export const invalidParameter = (param: string, message: string) => new ApiError('invalid_parameter', message, { param });

/** The response for any error; a non-ApiError is a bug and becomes a 500 that reveals nothing. */
export function errorResponse(error: unknown, headers: Record<string, string> = {}): Response {
  const apiError = error instanceof ApiError ? error : new ApiError('internal_error', 'Something went wrong on our side. Quote the request id when reporting it.');
  const extra: Record<string, string> = { ...apiError.options.headers };
  if (apiError.options.retryAfter !== undefined) extra['retry-after'] = String(apiError.options.retryAfter);
  // The API's operations are all GET; a product route names its own methods.
  if (apiError.status === 405) extra.allow ??= 'GET, HEAD';
  return new Response(JSON.stringify(apiError.body), {
    status: apiError.status,
    // An error is about this request, now: no cache keeps it (a 404 kept would outlive the brand's creation).
    headers: { ...JSON_HEADERS, 'cache-control': 'no-store', ...headers, ...extra },
  });
}
