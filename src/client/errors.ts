/**
 * The one error the client throws. Every failure, whatever its cause, is an
 * `ApiClientError` whose `kind` says where it came from:
 *
 * - `http`: the API answered with an error status; `code` is its error code.
 * - `network`: the transport threw (DNS, connection reset, ...).
 * - `timeout`: no answer within the per-request timeout.
 * - `parse`: the body was not JSON, was larger than the client reads
 *   (`maxBytes`), or failed the operation's schema; `field` names the first
 *   field at fault.
 */
import { ApiError, type ErrorCode, isApiErrorCode } from '../contract/errors';

export type ClientErrorKind = 'http' | 'network' | 'timeout' | 'parse';

/** The API's error codes, plus the client's own for failures that have no API answer. */
export type ClientErrorCode = ErrorCode | 'network_error' | 'timeout' | 'invalid_response';

export class ApiClientError extends Error {
  override readonly name = 'ApiClientError';
  readonly kind: ClientErrorKind;
  readonly code: ClientErrorCode;
  /** HTTP status of the answer; 0 when there was none (network, timeout). */
  readonly status: number;
  /** Seconds from the `Retry-After` header, when the API sent one. */
  readonly retryAfter?: number;
  /** The parameter at fault (`invalid_parameter`), as the API named it. */
  readonly param?: string;
  /** For `parse` errors: the path of the first response field that failed its schema, e.g. `history.3.score`. */
  readonly field?: string;
  /** For `parse` errors at an enumeration: the value there that is none of the contract's and that no rule or map entry reads as one. */
  readonly unmapped?: string;
  /** The operation that was called. */
  readonly operation: string;
  /** How many requests were made, retries included. */
  readonly attempts: number;

  constructor(o: {
    kind: ClientErrorKind;
    code: ClientErrorCode;
    status: number;
    message: string;
    operation: string;
    attempts?: number;
    retryAfter?: number;
    param?: string;
    field?: string;
    unmapped?: string;
    cause?: unknown;
  }) {
    super(o.message, o.cause === undefined ? undefined : { cause: o.cause });
    this.kind = o.kind;
    this.code = o.code;
    this.status = o.status;
    this.operation = o.operation;
    this.attempts = o.attempts ?? 1;
    if (o.retryAfter !== undefined) this.retryAfter = o.retryAfter;
    if (o.param !== undefined) this.param = o.param;
    if (o.field !== undefined) this.field = o.field;
    if (o.unmapped !== undefined) this.unmapped = o.unmapped;
  }
}

/**
 * A client error as the error a product route answers with (one translation
 * for every route that reads the API): the API's own 4xx pass through with
 * their code, parameter and `Retry-After`; anything else (a 5xx, a network
 * failure, a timeout) is 502 `upstream_error`, and a body that breaks the
 * contract a 502 naming the operation and the field.
 */
export function toApiError(error: ApiClientError): ApiError {
  if (error.kind === 'parse') return new ApiError('upstream_error', `The Read API answered with a body this product cannot read: ${error.message}`);
  if (error.kind === 'http' && error.status < 500 && isApiErrorCode(error.code)) {
    return new ApiError(error.code, error.message.replace(/^\w+: /, ''), {
      ...(error.param ? { param: error.param } : {}),
      ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    });
  }
  return new ApiError('upstream_error', 'The Read API is unavailable right now. Try again in a few minutes.');
}
