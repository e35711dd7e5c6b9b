/**
 * The Queue consumer: one message is one brand + market + key group for one
 * ISO week. It reads the week once for the group (src/weekly-report, through
 * `apiFor`), keeps it as the group's snapshot (snapshot.ts), renders each
 * recipient's digest and sends them with `sendInBatches` (src/mail).
 *
 * At most once per subscription and week, whatever is retried or replayed:
 * the send record (unique per subscription and week) is the source of truth,
 * so only records still `planned` or `sending` are worked on; each record gets
 * its batch's idempotency key before the first call and keeps it; a batch's
 * request is the same bytes on every attempt (the snapshot's figures, links
 * signed at the record's planned time). A first read after the planned ISO
 * week is over would only repeat the next week's digest, so nothing is sent
 * and the records say `too late: ...`. Nor is a digest whose figures break a
 * rule the spec implies (src/contract/plausibility.ts): its records are
 * `skipped`, saying which rule, fields and values.
 */
import { ApiClientError } from '../client';
import { addDays, toDay } from '../contract/window';
import { runInChunks } from '../lib/d1';
import { batchesByKey, batchKey, chunks, failureReason, sendInBatches } from '../mail/send-batches';
import { digestEmails, groupApiKey, type SubscriptionRow, UNREADABLE_KEY } from '../subscriptions';
import {
  buildReport,
  type DigestKind,
  figuresViolations,
  formatPeriod,
  historyWeekOf,
  implausibleReason,
  keepWeek,
  logImplausible,
  OperationMissing,
  readWeek,
  type Report,
  WEEK_READS,
  WindowMismatch,
} from '../weekly-report';
import type { DigestDeps, DigestJob } from './deps';
import { sendOwedNotices } from './notices';
import { loadSnapshot, type Snapshot, storeSnapshot } from './snapshot';

export interface JobResult {
  sent: number;
  skipped: number;
  failed: number;
  paused: number;
  /** Pause notices sent. */
  notices: number;
  /** Resend (or outbox) calls made. */
  calls: number;
  /** API reads made. */
  reads: number;
  /** Set when the message must be retried, with the delay the consumer asks for. */
  retry?: { delaySeconds: number; reason: string };
}

interface PendingRow extends SubscriptionRow {
  send_id: number;
  send_status: 'planned' | 'sending';
  batch_key: string | null;
  /** When the send record was planned: the issue time of the email's signed links. */
  planned_at: string;
}

/** The first day after the planned ISO week (its next Monday, UTC): a first read from then on is too late. */
export const weekOver = (job: Pick<DigestJob, 'week_monday'>) => addDays(job.week_monday, 7);

/** Backoff of a failed group, by the Queue's attempt count: 1 min, 2, 4, 8, 16 ... capped at 1 h. */
export const retryDelaySeconds = (attempt: number) => Math.min(3600, 60 * 2 ** Math.max(0, attempt - 1));

/** The idempotency key of one batch of a week's digests: `digest/<subscription>/<iso-week>` for one. */
export const digestBatchKey = (subscriptionIds: string[], isoWeek: string) => batchKey('digest', subscriptionIds, isoWeek);

async function mark(deps: DigestDeps, rows: { send_id: number }[], status: 'sent' | 'skipped' | 'failed', reason: string | null, ids?: string[]): Promise<void> {
  if (rows.length === 0) return;
  const at = deps.now().toISOString();
  const statement = deps.db.prepare(
    `UPDATE digest_sends SET status = ?, reason = ?, provider_id = COALESCE(?, provider_id), sent_at = CASE WHEN ? = 'sent' THEN ? ELSE sent_at END, updated_at = ?
      WHERE id = ? AND status IN ('planned', 'sending')`,
  );
  await runInChunks(
    deps.db,
    rows.map((r, i) => statement.bind(status, reason, ids?.[i] ?? null, status, at, at, r.send_id)),
  );
}

async function noteRetry(deps: DigestDeps, rows: { send_id: number }[], reason: string): Promise<void> {
  if (rows.length === 0) return;
  const at = deps.now().toISOString();
  const statement = deps.db.prepare(`UPDATE digest_sends SET reason = ?, updated_at = ? WHERE id = ? AND status IN ('planned', 'sending')`);
  await runInChunks(
    deps.db,
    rows.map((r) => statement.bind(`retrying: ${reason}`, at, r.send_id)),
  );
}

/** Pauses the group's active subscriptions (the API refused their key); each is owed one notice. */
async function pauseGroup(deps: DigestDeps, rows: PendingRow[], code: string): Promise<number> {
  const at = deps.now().toISOString();
  const statement = deps.db.prepare(
    `UPDATE digest_subscriptions
        SET status = 'paused', paused_reason = ?, paused_at = ?, notice_status = 'owed', notice_key = NULL, notice_sent_at = NULL, notice_reason = NULL, updated_at = ?
      WHERE id = ? AND status = 'active' RETURNING id`,
  );
  const moved = (await deps.db.batch<{ id: string }>(rows.map((r) => statement.bind(code, at, at, r.id)))).flatMap((r) => r.results);
  await mark(deps, rows, 'skipped', `paused: ${code}`);
  return moved.length;
}

type ReadOutcome = { kind: 'read'; snapshot: Snapshot } | { kind: 'done' } | { kind: 'retry'; reason: string; retryAfter?: number } | { kind: 'pause'; code: string };

/** The group's snapshot: stored, or read once now with the group's stored key. */
async function snapshotOf(deps: DigestDeps, job: DigestJob, rows: PendingRow[], result: JobResult): Promise<ReadOutcome> {
  const stored = await loadSnapshot(deps.db, job);
  if (stored) return { kind: 'read', snapshot: stored };
  const today = toDay(deps.now());
  if (today >= weekOver(job)) {
    // A read now covers the days of the next digest, planned by now: this one is not sent.
    await mark(deps, rows, 'skipped', `too late: not read before ISO week ${job.iso_week} ended (${addDays(weekOver(job), -1)}); on ${today} its data would repeat the next digest`);
    result.skipped += rows.length;
    return { kind: 'done' };
  }
  const apiKey = await groupApiKey(deps.encryptionKey, rows);
  if (!apiKey) {
    await mark(deps, rows, 'failed', UNREADABLE_KEY);
    result.failed += rows.length;
    return { kind: 'done' };
  }
  try {
    result.reads += WEEK_READS;
    // No client behind the queue: reads are the key's own, with no address to count against.
    const week = { isoWeek: job.iso_week, monday: job.week_monday };
    const { inputs } = await readWeek(deps.api(apiKey, null), { brand_id: job.brand_id, market: String(job.market_id), brandName: rows[0]!.brand_name, week }, deps.now());
    const read = {
      read_at: deps.now().toISOString(),
      visibility: inputs.visibility,
      history: inputs.history,
      topics: inputs.topics,
      matrix: inputs.matrix,
      not_provided: inputs.not_provided,
      plan: inputs.plan ?? null,
    };
    // The week's figures kept for the history (DESIGN section 11); a week kept already stays as it was, so none that breaks a rule.
    if (figuresViolations(inputs).length === 0) await keepWeek(deps.db, historyWeekOf(inputs, 'digest', deps.now()));
    return { kind: 'read', snapshot: await storeSnapshot(deps.db, job, read) };
  } catch (error) {
    if (error instanceof WindowMismatch) return { kind: 'retry', reason: `reads straddled midnight: ${error.message}` };
    if (error instanceof OperationMissing) {
      // The service lacks it all week: no digest, the reason on each record (the account sees it on its subscription).
      await logMissingOnce(deps, error);
      await mark(deps, rows, 'skipped', error.message);
      result.skipped += rows.length;
      return { kind: 'done' };
    }
    if (!(error instanceof ApiClientError)) throw error;
    if (error.kind === 'parse') {
      // The upstream names its fields otherwise than this product reads them: a retry reads the same.
      await mark(deps, rows, 'failed', `the Read API's answer breaks the contract: ${error.message}`.slice(0, 500));
      result.failed += rows.length;
      return { kind: 'done' };
    }
    if (error.status === 401 || error.status === 403) return { kind: 'pause', code: error.code };
    if (error.status === 404 || error.status === 400 || error.code === 'quota_exceeded' || error.code === 'integration_not_connected') {
      // Will not get better by retrying this week: no digest, and the reason recorded.
      await mark(deps, rows, 'skipped', `upstream ${error.status} ${error.code}`);
      result.skipped += rows.length;
      return { kind: 'done' };
    }
    return { kind: 'retry', reason: `upstream ${error.status || error.kind} ${error.code}`, ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}) };
  }
}

/** Logged once a day per operation: unless a record was skipped for the same reason today already (before this group's). */
async function logMissingOnce(deps: DigestDeps, error: OperationMissing): Promise<void> {
  const said = await deps.db.prepare(`SELECT 1 FROM digest_sends WHERE status = 'skipped' AND reason = ? AND updated_at >= ? LIMIT 1`).bind(error.message, toDay(deps.now())).first();
  if (!said) console.warn(JSON.stringify({ msg: 'the Read API lacks an operation the digest needs: no digest is sent', operation: error.operation, answer: error.answer }));
}

/** Fixes a batch key on every record without one, before any call; a concurrent delivery's keys win. */
async function assignBatchKeys(deps: DigestDeps, job: DigestJob, rows: PendingRow[]): Promise<void> {
  const unassigned = rows.filter((r) => !r.batch_key);
  if (unassigned.length === 0) return;
  const assign = deps.db.prepare(`UPDATE digest_sends SET status = 'sending', batch_key = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND batch_key IS NULL`);
  const at = deps.now().toISOString();
  const statements: D1PreparedStatement[] = [];
  for (const chunk of chunks(unassigned)) {
    const key = await digestBatchKey(
      chunk.map((r) => r.id),
      job.iso_week,
    );
    for (const row of chunk) statements.push(assign.bind(key, at, row.send_id));
  }
  await runInChunks(deps.db, statements);
  const { results: assigned } = await deps.db
    .prepare(`SELECT id, batch_key FROM digest_sends WHERE group_key = ? AND iso_week = ? AND status IN ('planned', 'sending')`)
    .bind(job.group_key, job.iso_week)
    .all<{ id: number; batch_key: string | null }>();
  const keys = new Map(assigned.map((r) => [r.id, r.batch_key]));
  for (const row of rows) row.batch_key = keys.get(row.send_id) ?? null;
}

/** Processes one group; never sends a record twice. `attempt` is the Queue's delivery count (1-based). */
export async function processDigestJob(job: DigestJob, deps: DigestDeps, attempt = 1): Promise<JobResult> {
  const result: JobResult = { sent: 0, skipped: 0, failed: 0, paused: 0, notices: 0, calls: 0, reads: 0 };
  const retry = (reason: string, retryAfter?: number) => (result.retry ??= { delaySeconds: retryAfter ?? retryDelaySeconds(attempt), reason });
  const sendNotices = async () => {
    const sent = await sendOwedNotices(deps, job, result.calls);
    result.notices += sent.notices;
    result.calls += sent.calls;
    if (sent.retry) retry(sent.retry.reason, sent.retry.retryAfter);
  };
  // Notices owed by earlier pauses of this group first: their sending is independent of this week's digest.
  await sendNotices();
  const { results: pending } = await deps.db
    .prepare(
      `SELECT s.*, d.id AS send_id, d.status AS send_status, d.batch_key, d.planned_at
         FROM digest_sends d JOIN digest_subscriptions s ON s.id = d.subscription_id
        WHERE d.group_key = ? AND d.iso_week = ? AND d.status IN ('planned', 'sending')
        ORDER BY s.id`,
    )
    .bind(job.group_key, job.iso_week)
    .all<PendingRow>();
  if (pending.length === 0) return result;

  // Unsubscribed or paused since planning: nothing goes to them.
  const gone = pending.filter((r) => r.status !== 'active');
  await mark(deps, gone, 'skipped', 'not active when sending');
  result.skipped += gone.length;
  const rows = pending.filter((r) => r.status === 'active');
  if (rows.length === 0) return result;

  const read = await snapshotOf(deps, job, rows, result);
  if (read.kind === 'done') return result;
  if (read.kind === 'retry') {
    await noteRetry(deps, rows, read.reason);
    retry(read.reason, read.retryAfter);
    return result;
  }
  if (read.kind === 'pause') {
    result.skipped += rows.length;
    result.paused += await pauseGroup(deps, rows, read.code);
    // Unless the owed notices just failed at the start of this job: the retry it asked for sends them all.
    if (!result.retry) await sendNotices();
    return result;
  }

  const { visibility, history, topics, matrix, not_provided, plan } = read.snapshot;
  const reports = new Map<string, Report>();
  const reportFor = (kinds: DigestKind[]) => {
    const id = kinds.join(',');
    let report = reports.get(id);
    if (!report) {
      report = buildReport({
        brand: { id: job.brand_id, name: rows[0]!.brand_name },
        week: { isoWeek: job.iso_week, monday: job.week_monday },
        kinds,
        visibility,
        history,
        topics,
        matrix,
        plan,
        not_provided,
      });
      reports.set(id, report);
    }
    return report;
  };
  if (reportFor(['visibility', 'won_lost']).empty === 'nothing_measured') {
    await mark(deps, rows, 'skipped', `nothing measured: no answered run in ${formatPeriod(visibility.period)} or the 7 days before`);
    result.skipped += rows.length;
    return result;
  }
  // Figures that break a rule the spec implies (the map reads a field from the wrong place or unit) are not sent: the record says why.
  const broken = figuresViolations({ visibility, history, topics, matrix, ...plan }, reportFor(['visibility', 'won_lost']).engines);
  if (broken.length > 0) {
    // Nothing was ever sent from these figures (every render of the snapshot breaks the same rule), so it goes: the
    // planner plans the held records again while the week is due, and that delivery reads afresh through the map.
    await deps.db.prepare('DELETE FROM digest_snapshots WHERE group_key = ? AND iso_week = ?').bind(job.group_key, job.iso_week).run();
    await mark(deps, rows, 'skipped', implausibleReason(broken));
    logImplausible('digest', job.group_key, broken);
    result.skipped += rows.length;
    return result;
  }

  await assignBatchKeys(deps, job, rows);
  const emailFor = digestEmails(deps, reportFor);
  // The digest's own retry reason wins over a notice's: drop the notice's before sending.
  const noticeRetry = result.retry;
  delete result.retry;
  const sent = await sendInBatches(deps, {
    batches: batchesByKey(rows, (r) => r.batch_key),
    callsBefore: result.calls,
    emailFor: (row) => emailFor(row, `digest/${row.id}/${job.iso_week}`, new Date(row.planned_at)),
    record: async ({ rows: members }, outcome) => {
      if (outcome.ok)
        await mark(deps, members, 'sent', outcome.replayed ? 'already sent: Resend answered 409, this Idempotency-Key was used by an earlier request with another body' : null, outcome.ids);
      else if (outcome.retryable) await noteRetry(deps, members, `mail ${outcome.status ?? 'network'} ${outcome.code}`);
      else await mark(deps, members, 'failed', failureReason(outcome));
    },
  });
  result.calls += sent.calls;
  result.sent += sent.sent;
  result.failed += sent.failed;
  if (sent.retry) retry(sent.retry.reason, sent.retry.retryAfter);
  else if (noticeRetry) result.retry = noticeRetry;
  return result;
}

/** After the last retry (the dead-letter queue): no digest this week for what is left, and why. */
export async function giveUp(job: DigestJob, deps: Pick<DigestDeps, 'db' | 'now'>): Promise<number> {
  const at = deps.now().toISOString();
  const { results } = await deps.db
    .prepare(
      `UPDATE digest_sends
          SET status = CASE status WHEN 'planned' THEN 'skipped' ELSE 'failed' END,
              reason = 'gave up after the Queue''s retries' || CASE WHEN reason IS NULL THEN '' ELSE ' (' || reason || ')' END ||
                       CASE status WHEN 'sending' THEN '; delivery of the last attempt unknown' ELSE '' END,
              updated_at = ?
        WHERE group_key = ? AND iso_week = ? AND status IN ('planned', 'sending')
        RETURNING id`,
    )
    .bind(at, job.group_key, job.iso_week)
    .all<{ id: number }>();
  return results.length;
}
