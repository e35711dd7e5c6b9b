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
 * overwrites the figures first kept for a week.
 */
import { ENGINES } from '../contract/enums';
import { reportOf, type WeeklyInputs } from './read';

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
  naming_runs: number;
  won: number;
  lost: number;
  held: number;
  engines: EngineWeek[];
  recorded_at: string;
  source: 'digest' | 'cron';
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
       ON CONFLICT (brand_id, market_id, iso_week) DO NOTHING RETURNING iso_week`,
    )
    .bind(week.brand_id, week.market_id, week.iso_week, week.week_monday, week.period_from, week.period_to, week.score, week.answered_runs, week.naming_runs, week.won, week.lost, week.held, JSON.stringify(week.engines), week.recorded_at, week.source)
    .first();
  return written !== null;
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

/** Whether the week is kept already (the cron reads only what is missing). */
export async function weekKept(db: D1Database, brandId: number, marketId: number, isoWeek: string): Promise<boolean> {
  return (await db.prepare('SELECT 1 FROM weekly_history WHERE brand_id = ? AND market_id = ? AND iso_week = ?').bind(brandId, marketId, isoWeek).first()) !== null;
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
