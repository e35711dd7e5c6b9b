/**
 * The hourly planner (Cron Trigger `0 * * * *`). For every timezone that has
 * active subscriptions and is in its due window (Monday 08:00 local, see
 * schedule.ts), it inserts one send record per subscription for that ISO week
 * and enqueues one message per brand + market + key group.
 *
 * The send record is unique per subscription and week, so a second cron run
 * (a retried or duplicated trigger) inserts nothing and enqueues nothing.
 *
 * Each run also enqueues the groups that still owe a pause notice (a send that
 * failed), so the one notice of a pause is sent once, late rather than never.
 */
import { type DigestDeps, type DigestJob } from './deps';
import { dueWeek, utcWeek } from './schedule';

/** Queues' sendBatch takes at most 100 messages. */
const QUEUE_BATCH = 100;
/** Work older than this without its outcome is picked up again: longer than one delivery normally takes. */
export const STALE_AFTER_MS = 5 * 60_000;
/** An owed pause notice is retried by the cron for this long after the pause, then left (it stays recorded as owed). */
export const NOTICE_RETRY_DAYS = 7;

export interface PlanResult {
  /** Send records created. */
  planned: number;
  /** Queue messages sent for them, one per group. */
  groups: number;
  /** Queue messages sent for groups that still owe a pause notice. */
  notices: number;
  jobs: DigestJob[];
}

const DAY_MS = 86_400_000;

const jobOf = (groupKey: string, week: { isoWeek: string; monday: string }): DigestJob => {
  const [brand, market] = groupKey.split(':');
  return { v: 1, iso_week: week.isoWeek, week_monday: week.monday, group_key: groupKey, brand_id: Number(brand), market_id: Number(market) };
};

export async function planDigests(deps: Pick<DigestDeps, 'db' | 'queue' | 'now'>): Promise<PlanResult> {
  const now = deps.now();
  const at = now.toISOString();
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
             FROM digest_subscriptions WHERE status = 'active' AND timezone = ?4
           ON CONFLICT DO NOTHING
           RETURNING id, group_key, iso_week, week_monday`,
        )
        .bind(due.isoWeek, due.monday, at, timezone),
    );
  }
  const inserted = statements.length === 0 ? [] : (await deps.db.batch<{ id: number; group_key: string; iso_week: string; week_monday: string }>(statements)).flatMap((r) => r.results);

  const jobs = new Map<string, DigestJob>();
  for (const row of inserted) {
    const id = `${row.group_key}|${row.iso_week}`;
    if (!jobs.has(id)) jobs.set(id, jobOf(row.group_key, { isoWeek: row.iso_week, monday: row.week_monday }));
  }
  const planned = jobs.size;

  // Groups owing a pause notice that a delivery failed to send (not those paused just now: their delivery is running).
  const { results: owing } = await deps.db
    .prepare(
      `SELECT DISTINCT brand_id || ':' || market_id || ':' || substr(key_hash, 1, 24) AS group_key FROM digest_subscriptions
        WHERE notice_status = 'owed' AND status = 'paused' AND paused_at <= ? AND paused_at > ?`,
    )
    .bind(new Date(now.getTime() - STALE_AFTER_MS).toISOString(), new Date(now.getTime() - NOTICE_RETRY_DAYS * DAY_MS).toISOString())
    .all<{ group_key: string }>();
  const week = utcWeek(now);
  for (const { group_key } of owing) {
    const id = `${group_key}|${week.isoWeek}`;
    if (!jobs.has(id)) jobs.set(id, jobOf(group_key, week));
  }

  const list = [...jobs.values()];
  if (list.length === 0) return { planned: inserted.length, groups: 0, notices: 0, jobs: [] };
  if (!deps.queue) throw new Error('DIGEST_QUEUE is not bound: cannot enqueue the planned digests.');
  try {
    for (let i = 0; i < list.length; i += QUEUE_BATCH) await deps.queue.sendBatch(list.slice(i, i + QUEUE_BATCH).map((body) => ({ body, contentType: 'json' })));
  } catch (error) {
    // Undo what was not enqueued, so the next hourly run (still in the catch-up window) plans it again.
    const ids = inserted.map((r) => r.id);
    for (let i = 0; i < ids.length; i += 90) {
      const chunk = ids.slice(i, i + 90);
      await deps.db.prepare(`DELETE FROM digest_sends WHERE status = 'planned' AND id IN (${chunk.map(() => '?').join(',')})`).bind(...chunk).run();
    }
    throw error;
  }
  return { planned: inserted.length, groups: planned, notices: list.length - planned, jobs: list };
}
