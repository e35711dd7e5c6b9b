/**
 * `sendInBatches`: the one loop that sends mail to many recipients, used by
 * the weekly run, send-now, pause notices and confirmations. It guards the
 * riskiest promise of the product: at most once per recipient.
 *
 * - Batches hold at most `BATCH_LIMIT` emails (Resend's batch limit), each
 *   under an idempotency key fixed by the caller before the first call and
 *   kept across retries (`batchKey`), so a batch whose outcome is unknown
 *   goes again under the same key and Resend answers it from the first
 *   request instead of sending it twice.
 * - Calls are spaced by `MIN_CALL_SPACING_MS` (about 5 requests per second
 *   per team), through the caller's `sleep`, so tests never wait.
 * - Each batch's outcome is recorded (`record`) before the next call; a
 *   retryable failure asks the caller for a retry, and a 429 stops the loop
 *   (every further call would fail too).
 */
import { sha256Hex } from '../lib/hash';
import { BATCH_LIMIT, type Mailer, MIN_CALL_SPACING_MS, type OutgoingEmail, type SendOutcome } from './mailer';

/** One batch: its idempotency key and its members, at most `BATCH_LIMIT`. */
export interface Batch<Row> {
  key: string;
  rows: Row[];
}

export interface BatchRun<Row> {
  batches: Batch<Row>[];
  emailFor: (row: Row) => Promise<OutgoingEmail>;
  /** Records one batch's outcome; awaited before the next call. */
  record: (batch: Batch<Row>, outcome: SendOutcome) => Promise<void>;
  /** Calls this job made already: the first call of this run waits too when there were. */
  callsBefore?: number;
}

export interface BatchesResult {
  calls: number;
  /** Recipients in batches that were accepted. */
  sent: number;
  /** Recipients in batches refused for good. */
  failed: number;
  /** Set when a batch failed in a way worth retrying: the reason, and Resend's `Retry-After` when it gave one. */
  retry?: { reason: string; retryAfter?: number };
}

/** How a failed call is recorded: status (or `network`), code, message; short enough for a D1 column. */
export const failureReason = (outcome: Extract<SendOutcome, { ok: false }>) => `mail ${outcome.status ?? 'network'} ${outcome.code}: ${outcome.message}`.slice(0, 500);

export async function sendInBatches<Row>(deps: { mailer: Mailer; sleep: (ms: number) => Promise<void> }, run: BatchRun<Row>): Promise<BatchesResult> {
  const result: BatchesResult = { calls: 0, sent: 0, failed: 0 };
  for (const batch of run.batches) {
    if (batch.rows.length > BATCH_LIMIT) throw new RangeError(`A batch holds at most ${BATCH_LIMIT} emails, got ${batch.rows.length}.`);
    const emails: OutgoingEmail[] = [];
    for (const row of batch.rows) emails.push(await run.emailFor(row));
    if (result.calls + (run.callsBefore ?? 0) > 0) await deps.sleep(MIN_CALL_SPACING_MS);
    const outcome = await deps.mailer.sendBatch(emails, batch.key);
    result.calls++;
    await run.record(batch, outcome);
    if (outcome.ok) {
      result.sent += batch.rows.length;
    } else if (outcome.retryable) {
      result.retry ??= { reason: `mail ${outcome.status ?? 'network'} ${outcome.code}`, ...(outcome.retryAfter !== undefined ? { retryAfter: outcome.retryAfter } : {}) };
      if (outcome.status === 429) break;
    } else {
      result.failed += batch.rows.length;
    }
  }
  return result;
}

/**
 * The idempotency key of one batch, named by its members: Resend keys a whole
 * request, so a batch of one is exactly `<kind>/<member>/<scope>`, a larger
 * one `<kind>/<first>+<n more>.<hash of all>/<scope>`.
 */
export async function batchKey(kind: string, memberIds: readonly string[], scope: string): Promise<string> {
  const ids = [...memberIds].sort();
  if (ids.length === 1) return `${kind}/${ids[0]}/${scope}`;
  const hash = (await sha256Hex(ids.join(','))).slice(0, 16);
  return `${kind}/${ids[0]}+${ids.length - 1}.${hash}/${scope}`;
}

/** Rows in chunks of `BATCH_LIMIT`, in order. */
export function chunks<Row>(rows: readonly Row[]): Row[][] {
  const out: Row[][] = [];
  for (let i = 0; i < rows.length; i += BATCH_LIMIT) out.push(rows.slice(i, i + BATCH_LIMIT));
  return out;
}

/** Groups rows by the batch key stored with each (rows without one are left out). */
export function batchesByKey<Row>(rows: readonly Row[], keyOf: (row: Row) => string | null): Batch<Row>[] {
  const batches = new Map<string, Row[]>();
  for (const row of rows) {
    const key = keyOf(row);
    if (key) batches.set(key, [...(batches.get(key) ?? []), row]);
  }
  return [...batches].map(([key, members]) => ({ key, rows: members }));
}
