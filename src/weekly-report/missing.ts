/**
 * An operation a feature cannot do without, which the service does not have
 * (DESIGN section 13: a missing operation is named where it shows). Said in
 * the medium of each route: the report page as a page, its JSON and
 * `weekly_report` as an error naming the operation, the digest as the
 * reason on its send record, which the account sees on its subscription.
 *
 * A 404 `not_found` alone does not say which: an unknown market answers it
 * too, on every operation. An operation is missing when it answers 404 while
 * another read of the same brand and market, made with it, answers 200.
 *
 * ```ts
 * throw new OperationMissing('getAnswerHistory', '404 not_found', NEEDS.digest);
 * // .message: "The Read API has no getAnswerHistory operation (GET /answers/history answered 404 not_found), which the weekly report needs for the won and lost questions."
 * ```
 */
import { ApiClientError } from '../client';
import { ApiError } from '../contract/errors';
import { type OperationId, operations } from '../contract/operations';
import { type Needs, PART_IDS, PARTS } from './parts';

export class OperationMissing extends Error {
  override readonly name = 'OperationMissing';
  /** The operation's path below `/api/v1` (`/answers/history`). */
  readonly path: string;
  /** What the feature needs it for, in words: the parts it requires of it. */
  readonly neededFor: string;

  constructor(
    readonly operation: OperationId,
    /** What the service answered instead (`404 not_found`). */
    readonly answer: string,
    needs: Needs,
    what = 'the weekly report',
  ) {
    const neededFor =
      PART_IDS.filter((part) => PARTS[part].operation === operation && needs[part] === 'required')
        .map((part) => PARTS[part].words)
        .join(' and ') || 'its figures';
    const path = operations[operation].path;
    super(`The Read API has no ${operation} operation (GET ${path} answered ${answer}), which ${what} needs for ${neededFor}.`);
    this.path = path;
    this.neededFor = neededFor;
  }

  /** As a route answers it: 502 `operation_missing`, naming the operation. */
  toApiError(): ApiError {
    return new ApiError('operation_missing', this.message, { operation: this.operation });
  }
}

/** A 404 that may say the service lacks the operation (not `brand_not_found`, which names the brand). */
const maybeMissing = (error: unknown): error is ApiClientError => error instanceof ApiClientError && error.kind === 'http' && error.status === 404 && error.code !== 'brand_not_found';

/**
 * Of reads of the same brand and market made together (readParts), the first
 * failure: an `OperationMissing` when it is a 404 and another of them
 * answered with a body, the read's own error otherwise. Undefined when none failed.
 */
export function firstFailure(settled: readonly { id: OperationId; result: PromiseSettledResult<{ data: unknown }> }[], needs: Needs): unknown {
  const failed = settled.find((s) => s.result.status === 'rejected');
  if (!failed) return undefined;
  const reason = (failed.result as PromiseRejectedResult).reason;
  // An optional operation read as not provided (no body) says nothing about the others.
  const answered = settled.some((s) => s.result.status === 'fulfilled' && s.result.value.data !== null);
  return answered && maybeMissing(reason) ? new OperationMissing(failed.id, `${reason.status} ${reason.code}`, needs) : reason;
}
