/**
 * The kept weekly history (DESIGN section 11, migrations/0014): the week's
 * figures of a brand in a market (visibility score, each engine's questions
 * naming the brand, won / lost / held) kept in D1, one row per brand, market
 * and ISO week, so a report can show more than the API's 12 weeks.
 *
 * Written from a `WeeklyInputs` (the one read of `readWeek`) by the digest
 * consumer and by the hourly cron (src/exports/history-cron.ts); read by the
 * history page and its CSV. It lives here, below every feature, because both
 * a digest (src/digests) and the reports and exports read or write it.
 *
 * A week's row is written once (`ON CONFLICT DO NOTHING`): a later read never
 * overwrites the figures first kept for a week. One exception: the history
 * starts full (`keepApiWeeks`): the first read of a brand and market for a
 * person or a link keeps the API's 12 weekly points of the score (source
 * `api`: the score and its answered runs, the rest null), and a full read of
 * such a week later (the digest, the cron) completes its row.
 */
import { ENGINES } from '../contract/enums';
import type { ResponseOf } from '../contract/operations';
import { figuresViolations } from './guard';
import { readScope, reportOf, type Scope, type WeeklyInputs, type WeekTarget } from './read';
import type { ApiClient } from '../client';
import { utcWeek } from './week';

/** How far back the history page and its CSV go: 2 years of weeks. */
export const HISTORY_WEEKS = 104;

export interface EngineWeek {
  /** One of ours, or another implementation's own value (kept in the row, not a CSV column of its own). */
  engine: string;
  /** Questions whose usual answer on this engine named the brand; null when the engine's figures were not read. */
  naming: number | null;
  answered: number | null;
}

export interface HistoryWeek {
  brand_id: number;
  market_id: number;
  iso_week: string;
  week_monday: string;
  period_from: string;
  period_to: string;
  score: number | null;
  answered_runs: number;
  /** Null in a row kept from the API's 12-week history (source `api`), which gives the score and its answered runs only. */
  naming_runs: number | null;
  won: number | null;
  lost: number | null;
  held: number | null;
  engines: EngineWeek[];
  recorded_at: string;
  source: 'digest' | 'cron' | 'api';
}

/** The row a week's read keeps. */
export function historyWeekOf(inputs: WeeklyInputs, source: HistoryWeek['source'], now: Date): HistoryWeek {
  const report = reportOf(inputs);
  const { visibility, history } = inputs;
  return {
    brand_id: inputs.brand.id,
    market_id: inputs.market.id,
    iso_week: inputs.week.isoWeek,
    week_monday: inputs.week.monday,
    period_from: visibility.period.from,
    period_to: visibility.period.to,
    score: visibility.score,
    answered_runs: visibility.answered_runs,
    naming_runs: visibility.naming_runs,
    won: history.counts.won,
    lost: history.counts.lost,
    held: history.counts.held,
    engines: report.engines.map((e) => ({ engine: e.engine, naming: e.naming, answered: e.answered })),
    recorded_at: now.toISOString(),
    source,
  };
}

/** Keeps the week unless it is kept already; true when this call wrote it. */
export async function keepWeek(db: D1Database, week: HistoryWeek): Promise<boolean> {
  const written = await db
    .prepare(
      `INSERT INTO weekly_history (brand_id, market_id, iso_week, week_monday, period_from, period_to, score, answered_runs, naming_runs, won, lost, held, engines, recorded_at, source)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (brand_id, market_id, iso_week) DO UPDATE SET week_monday = excluded.week_monday, period_from = excluded.period_from, period_to = excluded.period_to,
         score = excluded.score, answered_runs = excluded.answered_runs, naming_runs = excluded.naming_runs, won = excluded.won, lost = excluded.lost, held = excluded.held,
         engines = excluded.engines, recorded_at = excluded.recorded_at, source = excluded.source
       WHERE weekly_history.source = 'api' AND excluded.source != 'api'
       RETURNING iso_week`,
    )
    .bind(
      week.brand_id,
      week.market_id,
      week.iso_week,
      week.week_monday,
      week.period_from,
      week.period_to,
      week.score,
      week.answered_runs,
      week.naming_runs,
      week.won,
      week.lost,
      week.held,
      JSON.stringify(week.engines),
      week.recorded_at,
      week.source,
    )
    .first();
  return written !== null;
}

/**
 * The API's 12 weekly points of the score as kept weeks (source `api`): each point's ISO week is the one its 7 days
 * end in, as the digest's read on that day would keep it. None when the body breaks a rule of the spec.
 */
export function apiWeeksOf(visibility: ResponseOf<'getVisibility'>, now: Date): HistoryWeek[] {
  if (figuresViolations({ visibility }).length > 0) return [];
  return (visibility.history ?? []).map((point) => {
    const week = utcWeek(new Date(`${point.week_end}T00:00:00Z`));
    return {
      brand_id: visibility.brand_id,
      market_id: visibility.market.id,
      iso_week: week.isoWeek,
      week_monday: week.monday,
      period_from: point.week_start,
      period_to: point.week_end,
      score: point.score,
      answered_runs: point.answered_runs,
      naming_runs: null,
      won: null,
      lost: null,
      held: null,
      engines: [],
      recorded_at: now.toISOString(),
      source: 'api',
    };
  });
}

/** Keeps the API's weeks that are not kept yet (a kept week of any source stays as it is). */
export async function keepApiWeeks(db: D1Database, visibility: ResponseOf<'getVisibility'>, now: Date): Promise<void> {
  const weeks = apiWeeksOf(visibility, now);
  if (weeks.length === 0) return;
  // Every view of a report comes here: one read when they are all kept already, the writes only the first time.
  const kept = await db
    .prepare(`SELECT COUNT(*) AS n FROM weekly_history WHERE brand_id = ? AND market_id = ? AND iso_week IN (${weeks.map(() => '?').join(', ')})`)
    .bind(visibility.brand_id, visibility.market.id, ...weeks.map((w) => w.iso_week))
    .first<number>('n');
  if (kept === weeks.length) return;
  const insert = db.prepare(
    `INSERT INTO weekly_history (brand_id, market_id, iso_week, week_monday, period_from, period_to, score, answered_runs, naming_runs, won, lost, held, engines, recorded_at, source)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, '[]', ?, 'api') ON CONFLICT (brand_id, market_id, iso_week) DO NOTHING`,
  );
  await db.batch(weeks.map((w) => insert.bind(w.brand_id, w.market_id, w.iso_week, w.week_monday, w.period_from, w.period_to, w.score, w.answered_runs, w.recorded_at)));
}

type HistoryRow = Omit<HistoryWeek, 'engines'> & { engines: string };

/** The kept weeks of a brand in a market, oldest first: at most `HISTORY_WEEKS`, the latest ones. */
export async function readHistory(db: D1Database, brandId: number, marketId: number): Promise<HistoryWeek[]> {
  const { results } = await db
    .prepare('SELECT * FROM (SELECT * FROM weekly_history WHERE brand_id = ? AND market_id = ? ORDER BY iso_week DESC LIMIT ?) ORDER BY iso_week')
    .bind(brandId, marketId, HISTORY_WEEKS)
    .all<HistoryRow>();
  return results.map((row) => ({ ...row, engines: JSON.parse(row.engines) as EngineWeek[] }));
}

/** The columns of the history as a table (its CSV): the week, its figures, then each engine's. */
export const HISTORY_COLUMNS: readonly string[] = [
  'iso_week',
  'week_monday',
  'period_from',
  'period_to',
  'score',
  'answered_runs',
  'naming_runs',
  'won',
  'lost',
  'held',
  ...ENGINES.flatMap((engine) => [`${engine}.naming`, `${engine}.answered`]),
];

/** A kept week as one flat record of `HISTORY_COLUMNS`. */
export function historyRecord(week: HistoryWeek): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const column of HISTORY_COLUMNS.slice(0, 10)) record[column] = week[column as keyof HistoryWeek];
  for (const engine of ENGINES) {
    const figures = week.engines.find((e) => e.engine === engine);
    record[`${engine}.naming`] = figures?.naming ?? null;
    record[`${engine}.answered`] = figures?.answered ?? null;
  }
  return record;
}

/**
 * `readScope` for a person or a link (a subscribe, a link made, the history or report opened): the brand and
 * market the key reads, and the API's 12 weeks of the score kept, so the history starts full (`keepApiWeeks`).
 */
export async function readScopeKept(client: ApiClient, target: Pick<WeekTarget, 'brand_id' | 'market'>, keep: { db: D1Database; now: Date }): Promise<Scope> {
  const scope = await readScope(client, target);
  await keepApiWeeks(keep.db, scope.visibility, keep.now);
  return scope;
}
