/**
 * The hourly planner (Cron Trigger `0 * * * *`). For every timezone that has
 * active subscriptions and is in its due window (Monday 08:00 local, see
 * schedule.ts), it inserts one send record per subscription for that ISO week
 * and enqueues one message per brand + market + key group.
 *
 * The send record is unique per subscription and week, so a second cron run
 * (a retried or duplicated trigger) inserts nothing and enqueues nothing.
 */
import type { DigestDeps, DigestJob } from './deps';
import { dueWeek } from './schedule';

/** Queues' sendBatch takes at most 100 messages. */
const QUEUE_BATCH = 100;

export interface PlanResult {
  /** Send records created. */
  planned: number;
  /** Queue messages sent, one per group. */
  groups: number;
  jobs: DigestJob[];
}

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
  if (statements.length === 0) return { planned: 0, groups: 0, jobs: [] };
  const inserted = (await deps.db.batch<{ id: number; group_key: string; iso_week: string; week_monday: string }>(statements)).flatMap((r) => r.results);

  const jobs = new Map<string, DigestJob>();
  for (const row of inserted) {
    const id = `${row.group_key}|${row.iso_week}`;
    if (jobs.has(id)) continue;
    const [brand, market] = row.group_key.split(':');
    jobs.set(id, { v: 1, iso_week: row.iso_week, week_monday: row.week_monday, group_key: row.group_key, brand_id: Number(brand), market_id: Number(market) });
  }
  const list = [...jobs.values()];
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
  return { planned: inserted.length, groups: list.length, jobs: list };
}
