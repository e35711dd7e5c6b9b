/**
 * The hourly planner (Cron Trigger `0 * * * *`). For every timezone that has
 * active subscriptions and is in its due window (Monday 08:00 local, see
 * src/weekly-report/week.ts), it inserts one send record per subscription for that ISO week
 * and enqueues one message per brand + market + key group.
 *
 * The send record is unique per subscription and week, so a second cron run
 * (a retried or duplicated trigger) inserts nothing and enqueues nothing.
 *
 * Within the due window, a run also plans again the records of the week that
 * were held for implausible figures (src/contract/plausibility.ts): fixed by
 * then, the digest goes out that week, once.
 *
 * Each run also enqueues the groups that still owe a pause notice (a send that
 * failed), so the one notice of a pause is sent once, late rather than never.
 *
 * Nothing planned is lost between the two steps: the Queue binding is checked
 * before any record is inserted, each record notes when its group's message
 * was sent (`enqueued_at`), and each run enqueues again the groups whose
 * records are still `planned` without it a few minutes after planning (the
 * run that planned them stopped before enqueueing). The consumer is
 * idempotent, so a group enqueued twice is still sent once.
 */
import { runInChunks } from '../lib/d1';
import { DAY_MS, MINUTE_MS } from '../lib/time';
import { GETS_DIGEST_SQL } from '../subscriptions';
import { dueWeek, HELD_PREFIX, utcWeek } from '../weekly-report';
import type { DigestDeps, DigestJob } from './deps';

/** Queues' sendBatch takes at most 100 messages. */
const QUEUE_BATCH = 100;
/** Work older than this without its outcome is picked up again: longer than one delivery normally takes. */
export const STALE_AFTER_MS = 5 * MINUTE_MS;
/** An owed pause notice is retried by the cron for this long after the pause, then left (it stays recorded as owed). */
export const NOTICE_RETRY_DAYS = 7;
/**
 * Planned records never enqueued are enqueued again for this long: past the
 * planned ISO week (the consumer then records them `too late`), so none stays
 * `planned` for ever.
 */
export const REQUEUE_DAYS = 8;
/** Snapshots are kept past any retry or redelivery of their week (Resend keeps keys 24 h; the Queue retries for under an hour). */
export const SNAPSHOT_KEEP_DAYS = 14;

export interface PlanResult {
  /** Send records created. */
  planned: number;
  /** Queue messages sent for them, one per group. */
  groups: number;
  /** Queue messages sent again for planned records that never reached the Queue. */
  requeued: number;
  /** Send records held for implausible figures this week, planned again (the week still due). */
  replanned: number;
  /** Queue messages sent for groups that still owe a pause notice. */
  notices: number;
  jobs: DigestJob[];
}

const jobOf = (groupKey: string, week: { isoWeek: string; monday: string }): DigestJob => {
  const [brand, market] = groupKey.split(':');
  return { v: 1, iso_week: week.isoWeek, week_monday: week.monday, group_key: groupKey, brand_id: Number(brand), market_id: Number(market) };
};

export async function planDigests(deps: Pick<DigestDeps, 'db' | 'queue' | 'now'>): Promise<PlanResult> {
  const queue = deps.queue;
  const now = deps.now();
  const at = now.toISOString();
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
  const { results: zones } = await deps.db.prepare(`SELECT DISTINCT timezone FROM digest_subscriptions WHERE status = 'active'`).all<{ timezone: string }>();
  const statements: D1PreparedStatement[] = [];
  for (const { timezone } of zones) {
    const due = dueWeek(now, timezone);
    if (!due) continue;
    statements.push(
      deps.db
        .prepare(
          `INSERT INTO digest_sends (subscription_id, iso_week, week_monday, group_key, idempotency_key, status, planned_at, updated_at)
           SELECT id, ?1, ?2, brand_id || ':' || market_id || ':' || substr(key_hash, 1, 24), 'digest/' || id || '/' || ?1, 'planned', ?3, ?3
             FROM digest_subscriptions WHERE status = 'active' AND timezone = ?4 AND ${GETS_DIGEST_SQL}
           ON CONFLICT DO NOTHING
           RETURNING id, group_key, iso_week, week_monday`,
        )
        .bind(due.isoWeek, due.monday, at, timezone),
      // A digest held this week for implausible figures (consumer.ts) is planned again while the week is still due:
      // once the map (or the service) is fixed, the next hourly run sends it. Only a record still `skipped` so: one
      // sent since (a send-now) is never sent again. Each run re-reads at most once per held group, through the cache.
      deps.db
        .prepare(
          `UPDATE digest_sends SET status = 'planned', reason = 'retrying: ' || reason, enqueued_at = NULL, batch_key = NULL, planned_at = ?2, updated_at = ?2
            WHERE iso_week = ?1 AND status = 'skipped' AND reason LIKE ?4
              AND subscription_id IN (SELECT id FROM digest_subscriptions WHERE status = 'active' AND timezone = ?3 AND ${GETS_DIGEST_SQL})
           RETURNING id, group_key, iso_week, week_monday`,
        )
        .bind(due.isoWeek, at, timezone, `${HELD_PREFIX}%`),
    );
  }
  const planned_ = statements.length === 0 ? [] : await deps.db.batch<{ id: number; group_key: string; iso_week: string; week_monday: string }>(statements);
  // Even statements insert, odd ones plan held records again.
  const inserted = planned_.filter((_, i) => i % 2 === 0).flatMap((r) => r.results);
  const replanned = planned_.filter((_, i) => i % 2 === 1).flatMap((r) => r.results);

  const sends = new Map<string, DigestJob>();
  for (const row of [...inserted, ...replanned]) {
    const id = `${row.group_key}|${row.iso_week}`;
    if (!sends.has(id)) sends.set(id, jobOf(row.group_key, { isoWeek: row.iso_week, monday: row.week_monday }));
  }
  const planned = sends.size;

  // Records a run planned but did not enqueue (it stopped in between); not those of a run still at work.
  const { results: stranded } = await deps.db
    .prepare(
      `SELECT DISTINCT group_key, iso_week, week_monday FROM digest_sends
        WHERE status = 'planned' AND enqueued_at IS NULL AND planned_at <= ? AND planned_at > ?`,
    )
    .bind(ago(STALE_AFTER_MS), ago(REQUEUE_DAYS * DAY_MS))
    .all<{ group_key: string; iso_week: string; week_monday: string }>();
  for (const row of stranded) {
    const id = `${row.group_key}|${row.iso_week}`;
    if (!sends.has(id)) sends.set(id, jobOf(row.group_key, { isoWeek: row.iso_week, monday: row.week_monday }));
  }
  const requeued = sends.size - planned;

  // Groups owing a pause notice that a delivery failed to send (not those paused just now: their delivery is running).
  const { results: owing } = await deps.db
    .prepare(
      `SELECT DISTINCT brand_id || ':' || market_id || ':' || substr(key_hash, 1, 24) AS group_key FROM digest_subscriptions
        WHERE notice_status = 'owed' AND status = 'paused' AND paused_at <= ? AND paused_at > ?`,
    )
    .bind(ago(STALE_AFTER_MS), ago(NOTICE_RETRY_DAYS * DAY_MS))
    .all<{ group_key: string }>();
  const jobs = new Map(sends);
  const week = utcWeek(now);
  for (const { group_key } of owing) {
    const id = `${group_key}|${week.isoWeek}`;
    if (!jobs.has(id)) jobs.set(id, jobOf(group_key, week));
  }

  await deps.db
    .prepare('DELETE FROM digest_snapshots WHERE read_at < ?')
    .bind(ago(SNAPSHOT_KEEP_DAYS * DAY_MS))
    .run();

  const list = [...jobs.values()];
  // A failure here leaves the records planned and not enqueued: a later run enqueues them (see the module comment).
  for (let i = 0; i < list.length; i += QUEUE_BATCH) await queue.sendBatch(list.slice(i, i + QUEUE_BATCH).map((body) => ({ body, contentType: 'json' })));
  if (sends.size > 0) {
    const mark = deps.db.prepare(`UPDATE digest_sends SET enqueued_at = ? WHERE group_key = ? AND iso_week = ? AND status = 'planned' AND enqueued_at IS NULL`);
    const updates = [...sends.values()].map((job) => mark.bind(at, job.group_key, job.iso_week));
    await runInChunks(deps.db, updates);
  }
  return { planned: inserted.length, replanned: replanned.length, groups: planned, requeued, notices: list.length - sends.size, jobs: list };
}
