/**
 * The Queue consumer: one message is one brand + market + key group for one
 * ISO week. It reads `/visibility`, `/answers/history` and `/topics` once for
 * the group, builds the report, renders each recipient's digest and sends
 * them through the mailer in batches of at most 100.
 *
 * One window per digest. `/visibility` and `/answers/history` have a fixed
 * window (the trailing 7 days ending on the day they are read; the API takes
 * no dates for them), so `/topics` is read for exactly those days, and the
 * digest names them. The three bodies are stored as the group's snapshot for
 * that week at the first successful read (`digest_snapshots`): every retry
 * and redelivery renders from it, never from a second read. A first read
 * after the planned ISO week is over would only repeat the next week's
 * digest, so nothing is sent and the records say `too late: ...`.
 *
 * At most once per subscription and week, whatever is retried or replayed:
 * - the send record (unique per subscription and week) is the source of truth:
 *   only records still `planned` or `sending` are worked on, so a redelivered
 *   message finds nothing to do, and a retry after a partial failure sends only
 *   the batches that failed;
 * - each record gets its batch's Resend `Idempotency-Key` before the call and
 *   keeps it, and a batch's request is the same bytes on every attempt (the
 *   snapshot's figures, links signed at the record's planned time), so a batch
 *   whose outcome is unknown (timeout, crash, a D1 write failing after the
 *   send) goes again under the same key and Resend answers it from the first
 *   request instead of sending it twice.
 */
import { type ApiClient, ApiClientError } from '../client';
import type { ResponseOf } from '../contract/operations';
import { addDays, toDay } from '../contract/window';
import { buildReport, type DigestKind, formatPeriod, type Report } from '../reports/model';
import { sha256Hex } from '../hash';
import type { DigestDeps, DigestJob } from './deps';
import { BATCH_LIMIT, MIN_CALL_SPACING_MS, type OutgoingEmail } from './mailer';
import { digestEmails, renderPausedNotice } from './render';
import { unseal } from './sealed';
import { digestIdempotencyKey, type SubscriptionRow, unsubscribeHeaders, unsubscribeUrl } from './store';

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

/** The three bodies one group's digest is built from, as first read for that week. */
export interface Snapshot {
  read_at: string;
  visibility: ResponseOf<'getVisibility'>;
  history: ResponseOf<'getAnswerHistory'>;
  topics: ResponseOf<'listTopics'>;
}

/** The first day after the planned ISO week (its next Monday, UTC): a first read from then on is too late. */
export const weekOver = (job: Pick<DigestJob, 'week_monday'>) => addDays(job.week_monday, 7);

export async function loadSnapshot(db: D1Database, job: Pick<DigestJob, 'group_key' | 'iso_week'>): Promise<Snapshot | null> {
  const row = await db
    .prepare('SELECT read_at, visibility, history, topics FROM digest_snapshots WHERE group_key = ? AND iso_week = ?')
    .bind(job.group_key, job.iso_week)
    .first<{ read_at: string; visibility: string; history: string; topics: string }>();
  // Stored by this module from bodies the client checked against the contract.
  return row ? { read_at: row.read_at, visibility: JSON.parse(row.visibility), history: JSON.parse(row.history), topics: JSON.parse(row.topics) } : null;
}

/** Stores the snapshot unless one is there already (a concurrent delivery), and returns the one stored. */
async function storeSnapshot(db: D1Database, job: DigestJob, snapshot: Snapshot): Promise<Snapshot> {
  const { visibility, history, topics } = snapshot;
  await db
    .prepare(
      `INSERT INTO digest_snapshots (group_key, iso_week, read_at, period_from, period_to, visibility, history, topics) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (group_key, iso_week) DO NOTHING`,
    )
    .bind(job.group_key, job.iso_week, snapshot.read_at, visibility.period.from, visibility.period.to, JSON.stringify(visibility), JSON.stringify(history), JSON.stringify(topics))
    .run();
  return (await loadSnapshot(db, job))!;
}

const samePeriod = (a: { from: string; to: string }, b: { from: string; to: string }) => a.from === b.from && a.to === b.to;

/** The fixed-window reads disagreed on their days twice (each pair of reads straddled midnight UTC): retried by the Queue. */
class WindowMismatch extends Error {}

/**
 * Reads the group's three bodies for one window: the two fixed-window reads,
 * then `/topics` for the days they cover.
 */
async function readGroup(client: ApiClient, job: DigestJob, now: () => Date): Promise<Snapshot> {
  const params = { brand_id: job.brand_id, market: String(job.market_id) };
  const fixed = () => Promise.all([client.getVisibility(params), client.getAnswerHistory(params)]);
  let [visibility, history] = await fixed();
  // The two reads straddled midnight UTC: read both again, now on the same day.
  if (!samePeriod(visibility.period, history.period)) [visibility, history] = await fixed();
  if (!samePeriod(visibility.period, history.period)) throw new WindowMismatch(`/visibility covers ${formatPeriod(visibility.period)}, /answers/history ${formatPeriod(history.period)}`);
  const topics = await client.listTopics({ ...params, from: visibility.period.from, to: visibility.period.to });
  return { read_at: now().toISOString(), visibility, history, topics };
}

/** Backoff of a failed group, by the Queue's attempt count: 1 min, 2, 4, 8, 16 ... capped at 1 h. */
export const retryDelaySeconds = (attempt: number) => Math.min(3600, 60 * 2 ** Math.max(0, attempt - 1));

/**
 * The Idempotency-Key of one batch. Resend keys a whole request, so a batch's
 * key names its members: a batch of one is exactly `digest/<subscription>/<iso-week>`,
 * a larger one `digest/<first>+<n more>.<hash of all>/<iso-week>`.
 */
export async function batchKeyOf(subscriptionIds: string[], isoWeek: string): Promise<string> {
  const ids = [...subscriptionIds].sort();
  if (ids.length === 1) return digestIdempotencyKey(ids[0]!, isoWeek);
  const hash = (await sha256Hex(ids.join(','))).slice(0, 16);
  return `digest/${ids[0]}+${ids.length - 1}.${hash}/${isoWeek}`;
}


async function mark(deps: DigestDeps, rows: { send_id: number }[], status: 'sent' | 'skipped' | 'failed', reason: string | null, ids?: string[]): Promise<void> {
  if (rows.length === 0) return;
  const at = deps.now().toISOString();
  const statement = deps.db.prepare(
    `UPDATE digest_sends SET status = ?, reason = ?, provider_id = COALESCE(?, provider_id), sent_at = CASE WHEN ? = 'sent' THEN ? ELSE sent_at END, updated_at = ?
      WHERE id = ? AND status IN ('planned', 'sending')`,
  );
  await deps.db.batch(rows.map((r, i) => statement.bind(status, reason, ids?.[i] ?? null, status, at, at, r.send_id)));
}

async function noteRetry(deps: DigestDeps, rows: { send_id: number }[], reason: string): Promise<void> {
  if (rows.length === 0) return;
  const at = deps.now().toISOString();
  const statement = deps.db.prepare(`UPDATE digest_sends SET reason = ?, updated_at = ? WHERE id = ? AND status IN ('planned', 'sending')`);
  await deps.db.batch(rows.map((r) => statement.bind(`retrying: ${reason}`, at, r.send_id)));
}

interface NoticeRow extends SubscriptionRow {
  paused_at: string;
  notice_key: string | null;
}

/**
 * The Idempotency-Key of one batch of pause notices, named by its members and
 * the time each was paused (a later pause of the same subscription is a new notice).
 */
async function noticeKeyOf(rows: Pick<NoticeRow, 'id' | 'paused_at'>[]): Promise<string> {
  const sorted = [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
  if (sorted.length === 1) return `paused/${sorted[0]!.id}/${sorted[0]!.paused_at}`;
  const hash = (await sha256Hex(sorted.map((r) => `${r.id}@${r.paused_at}`).join(','))).slice(0, 16);
  return `paused/${sorted[0]!.id}+${sorted.length - 1}.${hash}`;
}

/**
 * Sends the group's owed pause notices: each paused subscription gets one,
 * once. A notice is owed from the pause until sent (`notice_sent_at`); a
 * failed call leaves it owed and asks for a retry, and the hourly cron also
 * enqueues groups that still owe one, so a lost notice is sent later, never
 * twice: its batch key is fixed before the first call and its links are
 * signed at the pause time, so a retry is the same request under the same key.
 */
async function sendOwedNotices(deps: DigestDeps, job: DigestJob, result: JobResult, attempt: number): Promise<void> {
  const [brandId, marketId, keyPrefix] = job.group_key.split(':');
  const owed = () =>
    deps.db
      .prepare(
        `SELECT * FROM digest_subscriptions
          WHERE notice_status = 'owed' AND status = 'paused' AND brand_id = ? AND market_id = ? AND substr(key_hash, 1, 24) = ?
          ORDER BY id`,
      )
      .bind(Number(brandId), Number(marketId), keyPrefix)
      .all<NoticeRow>()
      .then((r) => r.results);
  let rows = await owed();
  if (rows.length === 0) return;
  const unassigned = rows.filter((r) => !r.notice_key);
  if (unassigned.length > 0) {
    const assign = deps.db.prepare(`UPDATE digest_subscriptions SET notice_key = ? WHERE id = ? AND notice_status = 'owed' AND notice_key IS NULL`);
    const statements: D1PreparedStatement[] = [];
    for (let i = 0; i < unassigned.length; i += BATCH_LIMIT) {
      const chunk = unassigned.slice(i, i + BATCH_LIMIT);
      const key = await noticeKeyOf(chunk);
      for (const row of chunk) statements.push(assign.bind(key, row.id));
    }
    await deps.db.batch(statements);
    // A concurrent delivery may have assigned first: its keys are the ones to use.
    rows = await owed();
  }
  const batches = new Map<string, NoticeRow[]>();
  for (const row of rows) batches.set(row.notice_key!, [...(batches.get(row.notice_key!) ?? []), row]);
  for (const [key, members] of batches) {
    const emails: OutgoingEmail[] = [];
    for (const row of members) {
      const unsubscribe = await unsubscribeUrl(deps, row.id, new Date(row.paused_at));
      const mail = await renderPausedNotice({
        brandName: row.brand_name,
        market: row.market_code,
        reason: row.paused_reason ?? 'invalid_api_key',
        resubscribeHint: `Subscribe again with POST ${deps.publicUrl}/digests/subscriptions and a current API key.`,
        unsubscribeUrl: unsubscribe,
      });
      emails.push({ kind: 'paused', from: deps.from, to: row.email, ...mail, headers: unsubscribeHeaders(unsubscribe, deps.from) });
    }
    // Every call of a job after its first waits: Resend takes about 5 requests per second.
    if (result.calls > 0) await deps.sleep(MIN_CALL_SPACING_MS);
    const outcome = await deps.mailer.sendBatch(emails, key);
    result.calls++;
    const at = deps.now().toISOString();
    const update = (status: 'owed' | 'sent' | 'failed', reason: string | null) => {
      const statement = deps.db.prepare(
        `UPDATE digest_subscriptions SET notice_status = ?, notice_reason = ?, notice_sent_at = CASE WHEN ? = 'sent' THEN ? ELSE notice_sent_at END WHERE id = ? AND notice_status = 'owed'`,
      );
      return deps.db.batch(members.map((r) => statement.bind(status, reason, status, at, r.id)));
    };
    if (outcome.ok) {
      await update('sent', outcome.replayed ? 'already sent: Resend answered 409 for this key' : null);
      result.notices += members.length;
    } else if (outcome.retryable) {
      const reason = `notice: mail ${outcome.status ?? 'network'} ${outcome.code}`;
      await update('owed', `retrying: ${reason}`);
      result.retry ??= { delaySeconds: outcome.retryAfter ?? retryDelaySeconds(attempt), reason };
      if (outcome.status === 429) break;
    } else {
      await update('failed', `mail ${outcome.status} ${outcome.code}: ${outcome.message}`.slice(0, 500));
    }
  }
}

/**
 * Pauses the group's active subscriptions (the API refused their key) and
 * owes each one notice; then sends the notices the group owes.
 */
async function pauseGroup(deps: DigestDeps, job: DigestJob, rows: PendingRow[], code: string, result: JobResult, attempt: number): Promise<void> {
  const at = deps.now().toISOString();
  const statement = deps.db.prepare(
    `UPDATE digest_subscriptions
        SET status = 'paused', paused_reason = ?, paused_at = ?, notice_status = 'owed', notice_key = NULL, notice_sent_at = NULL, notice_reason = NULL, updated_at = ?
      WHERE id = ? AND status = 'active' RETURNING id`,
  );
  const moved = (await deps.db.batch<{ id: string }>(rows.map((r) => statement.bind(code, at, at, r.id)))).flatMap((r) => r.results);
  await mark(deps, rows, 'skipped', `paused: ${code}`);
  result.skipped += rows.length;
  result.paused += moved.length;
  // Unless the owed notices just failed at the start of this job: the retry it asked for sends them all.
  if (!result.retry) await sendOwedNotices(deps, job, result, attempt);
}

/** Processes one group; never sends a record twice. `attempt` is the Queue's delivery count (1-based). */
export async function processDigestJob(job: DigestJob, deps: DigestDeps, attempt = 1): Promise<JobResult> {
  const result: JobResult = { sent: 0, skipped: 0, failed: 0, paused: 0, notices: 0, calls: 0, reads: 0 };
  // Notices owed by earlier pauses of this group first: their sending is independent of this week's digest.
  await sendOwedNotices(deps, job, result, attempt);
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

  let snapshot = await loadSnapshot(deps.db, job);
  if (!snapshot) {
    const today = toDay(deps.now());
    if (today >= weekOver(job)) {
      // A read now covers the days of the next digest, planned by now: this one is not sent.
      await mark(deps, rows, 'skipped', `too late: not read before ISO week ${job.iso_week} ended (${addDays(weekOver(job), -1)}); on ${today} its data would repeat the next digest`);
      result.skipped += rows.length;
      return result;
    }
    const keyRow = rows.find((r) => r.key_sealed);
    const apiKey = keyRow ? await unseal(deps.encryptionKey, keyRow.key_sealed!, keyRow.id) : null;
    if (!apiKey) {
      await mark(deps, rows, 'failed', 'the stored API key cannot be decrypted (was ENCRYPTION_KEY rotated?)');
      result.failed += rows.length;
      return result;
    }
    // One read of each body for the whole group.
    try {
      result.reads += 3;
      snapshot = await storeSnapshot(deps.db, job, await readGroup(deps.client(apiKey), job, deps.now));
    } catch (error) {
      if (error instanceof WindowMismatch) {
        const reason = `reads straddled midnight: ${error.message}`;
        await noteRetry(deps, rows, reason);
        result.retry = { delaySeconds: retryDelaySeconds(attempt), reason };
        return result;
      }
      if (!(error instanceof ApiClientError)) throw error;
      if (error.status === 401 || error.status === 403) {
        await pauseGroup(deps, job, rows, error.code, result, attempt);
        return result;
      }
      if (error.status === 404 || error.status === 400 || error.code === 'quota_exceeded' || error.code === 'integration_not_connected') {
        // Will not get better by retrying this week: no digest, and the reason recorded.
        await mark(deps, rows, 'skipped', `upstream ${error.status} ${error.code}`);
        result.skipped += rows.length;
        return result;
      }
      const reason = `upstream ${error.status || error.kind} ${error.code}`;
      await noteRetry(deps, rows, reason);
      result.retry = { delaySeconds: error.retryAfter ?? retryDelaySeconds(attempt), reason };
      return result;
    }
  }

  const { visibility, history, topics } = snapshot;
  const reports = new Map<string, Report>();
  const reportFor = (kinds: DigestKind[]) => {
    const id = kinds.join(',');
    let report = reports.get(id);
    if (!report) {
      report = buildReport({ brand: { id: job.brand_id, name: rows[0]!.brand_name }, week: { isoWeek: job.iso_week, monday: job.week_monday }, kinds, visibility, history, topics });
      reports.set(id, report);
    }
    return report;
  };
  if (reportFor(['visibility', 'won_lost']).empty === 'nothing_measured') {
    await mark(deps, rows, 'skipped', `nothing measured: no answered run in ${formatPeriod(visibility.period)} or the 7 days before`);
    result.skipped += rows.length;
    return result;
  }

  // Batch keys are fixed before any call and kept across retries (see the module comment).
  const unassigned = rows.filter((r) => !r.batch_key);
  const assign = deps.db.prepare(`UPDATE digest_sends SET status = 'sending', batch_key = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND batch_key IS NULL`);
  const at = deps.now().toISOString();
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < unassigned.length; i += BATCH_LIMIT) {
    const chunk = unassigned.slice(i, i + BATCH_LIMIT);
    const key = await batchKeyOf(
      chunk.map((r) => r.id),
      job.iso_week,
    );
    for (const row of chunk) {
      row.batch_key = key;
      statements.push(assign.bind(key, at, row.send_id));
    }
  }
  for (let i = 0; i < statements.length; i += 500) await deps.db.batch(statements.slice(i, i + 500));
  if (unassigned.length > 0) {
    // A concurrent delivery of the same group (a duplicate message) may have assigned first: its keys win.
    const { results: assigned } = await deps.db
      .prepare(`SELECT id, batch_key FROM digest_sends WHERE group_key = ? AND iso_week = ? AND status IN ('planned', 'sending')`)
      .bind(job.group_key, job.iso_week)
      .all<{ id: number; batch_key: string | null }>();
    const keys = new Map(assigned.map((r) => [r.id, r.batch_key]));
    for (const row of rows) row.batch_key = keys.get(row.send_id) ?? null;
  }

  const batches = new Map<string, PendingRow[]>();
  for (const row of rows) if (row.batch_key) batches.set(row.batch_key, [...(batches.get(row.batch_key) ?? []), row]);

  const emailFor = digestEmails(deps, reportFor);
  let retry: JobResult['retry'];
  for (const [batchKey, members] of batches) {
    const emails: OutgoingEmail[] = [];
    for (const row of members) emails.push(await emailFor(row, digestIdempotencyKey(row.id, job.iso_week), new Date(row.planned_at)));
    if (result.calls > 0) await deps.sleep(MIN_CALL_SPACING_MS);
    const outcome = await deps.mailer.sendBatch(emails, batchKey);
    result.calls++;
    if (outcome.ok) {
      await mark(deps, members, 'sent', outcome.replayed ? 'already sent: Resend answered 409, this Idempotency-Key was used by an earlier request with another body' : null, outcome.ids);
      result.sent += members.length;
    } else if (outcome.retryable) {
      const reason = `mail ${outcome.status ?? 'network'} ${outcome.code}`;
      await noteRetry(deps, members, reason);
      retry = { delaySeconds: outcome.retryAfter ?? retryDelaySeconds(attempt), reason };
      // Over the rate limit, every further call would fail too.
      if (outcome.status === 429) break;
    } else {
      await mark(deps, members, 'failed', `mail ${outcome.status} ${outcome.code}: ${outcome.message}`.slice(0, 500));
      result.failed += members.length;
    }
  }
  if (retry) result.retry = retry;
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
