/**
 * The hourly cron's share of the history (DESIGN section 11): every brand and
 * market with an active subscription or a live export link gets its week kept
 * at least weekly, whether or not a digest read it. Each run reads only the
 * pairs whose current UTC week is not kept yet, or kept from the API's 12
 * weeks only (history.ts: this read completes it) (at most
 * `HISTORY_READS_PER_RUN`, the rest next hour), with the key of one of their
 * subscriptions or links, through `deps.api` (the cache and that key's
 * budget). A pair whose read fails 3 times is left until the next week. A
 * pair with a digest planned this week and not yet sent is left to its digest,
 * whose read keeps the week (the Worker runs this after the planner).
 */
import { ApiClientError } from '../client';
import { errorText } from '../lib/log';
import { unseal } from '../lib/sealing';
import { UNREADABLE_KEY } from '../subscriptions';
import { figuresViolations, historyWeekOf, implausibleReason, keepWeek, OperationMissing, readWeek, utcWeek, WindowMismatch } from '../weekly-report';
import type { ExportDeps } from './deps';

/** Pairs read per cron run: each is 3 or 4 reads of the API. */
export const HISTORY_READS_PER_RUN = 20;
/** Failed reads of a pair in one week before it waits for the next. */
export const HISTORY_MAX_TRIES = 3;

interface Candidate {
  brand_id: number;
  market_id: number;
  /** The row the sealed key is bound to (a subscription's or a link's id). */
  id: string;
  key_sealed: string;
}

export interface HistoryRun {
  week: string;
  kept: number;
  failed: number;
}

export async function keepWeeklyHistory(deps: ExportDeps): Promise<HistoryRun> {
  const now = deps.now();
  const week = utcWeek(now);
  // Subscriptions first (their keys are the ones digests read with), then export links; several rows per pair are
  // fine: the first key that reads wins, and a pair is read once.
  const { results } = await deps.db
    .prepare(
      `SELECT brand_id, market_id, id, key_sealed FROM (
         SELECT brand_id, market_id, id, key_sealed, 0 AS rank FROM digest_subscriptions WHERE status = 'active' AND key_sealed IS NOT NULL
         UNION ALL
         SELECT brand_id, market_id, id, key_sealed, 1 AS rank FROM report_links WHERE purpose = 'export' AND brand_id > 0 AND market_id > 0 AND expires_at > ?
       ) AS c
       WHERE NOT EXISTS (SELECT 1 FROM weekly_history h WHERE h.brand_id = c.brand_id AND h.market_id = c.market_id AND h.iso_week = ? AND h.source != 'api')
         AND NOT EXISTS (SELECT 1 FROM weekly_history_misses m WHERE m.brand_id = c.brand_id AND m.market_id = c.market_id AND m.iso_week = ? AND m.tries >= ?)
         AND NOT EXISTS (SELECT 1 FROM digest_sends s JOIN digest_subscriptions d ON d.id = s.subscription_id
                          WHERE d.brand_id = c.brand_id AND d.market_id = c.market_id AND s.iso_week = ? AND s.status IN ('planned', 'sending'))
       ORDER BY rank, brand_id, market_id LIMIT 1000`,
    )
    .bind(now.toISOString(), week.isoWeek, week.isoWeek, HISTORY_MAX_TRIES, week.isoWeek)
    .all<Candidate>();
  const pairs = new Map<string, Candidate>();
  for (const row of results) if (!pairs.has(`${row.brand_id}:${row.market_id}`)) pairs.set(`${row.brand_id}:${row.market_id}`, row);
  const run: HistoryRun = { week: week.isoWeek, kept: 0, failed: 0 };
  for (const pair of [...pairs.values()].slice(0, HISTORY_READS_PER_RUN)) {
    const apiKey = await unseal(deps.encryptionKey, pair.key_sealed, pair.id);
    let miss = apiKey ? null : UNREADABLE_KEY;
    if (apiKey) {
      try {
        // No brand name needed (the history keeps figures only): no /brands read.
        const { inputs } = await readWeek(deps.api(apiKey, null), { brand_id: pair.brand_id, market: String(pair.market_id), brandName: '', week }, now);
        // A week kept stays as it was: figures that break a rule the spec implies are a miss, tried again next hour.
        const broken = figuresViolations(inputs);
        if (broken.length > 0) miss = implausibleReason(broken, 'not kept');
        else if (await keepWeek(deps.db, historyWeekOf(inputs, 'cron', deps.now()))) run.kept += 1;
      } catch (error) {
        // The API's refusals and outages, an operation the service lacks, and windows that straddled midnight twice: tried again next hour. D1 failing is not a miss.
        if (!(error instanceof ApiClientError || error instanceof WindowMismatch || error instanceof OperationMissing)) throw error;
        miss = errorText(error);
      }
    }
    if (miss === null) continue;
    run.failed += 1;
    await deps.db
      .prepare(
        `INSERT INTO weekly_history_misses (brand_id, market_id, iso_week, tries, last_reason) VALUES (?, ?, ?, 1, ?)
         ON CONFLICT (brand_id, market_id, iso_week) DO UPDATE SET tries = tries + 1, last_reason = excluded.last_reason`,
      )
      .bind(pair.brand_id, pair.market_id, week.isoWeek, miss.slice(0, 300))
      .run();
  }
  return run;
}
