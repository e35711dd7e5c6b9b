/**
 * Aggregates over stored answer runs, shared by the operations. Each query
 * reads one market over one window through a covering index and returns
 * counts; the metric rules that turn counts into figures are in metrics.ts.
 */
import { type AnswerState, ENGINES, type Engine, STATES, TASK_LAYERS, type TaskLayer } from '../contract/enums';
import { addDays, type Period } from '../contract/window';
import { dominantState, dominantStateSql, isNaming, meanPosition, percent, type StateCounts } from './metrics';

/** `AND question_id IN (topic's questions)` when a topic is given. */
const topicFilter = (topicId: number | undefined, column = 'question_id') => (topicId === undefined ? '' : ` AND ${column} IN (SELECT id FROM questions WHERE topic_id = ${Number(topicId)})`);

export interface QuestionRow {
  id: number;
  text: string;
  topic_id: number;
  topic_name: string;
}

export async function questionsOf(db: D1Database, marketId: number, topicId?: number): Promise<QuestionRow[]> {
  const { results } = await db
    .prepare(
      `SELECT q.id, q.text, q.topic_id, t.name AS topic_name FROM questions q JOIN topics t ON t.id = q.topic_id
        WHERE q.market_id = ?${topicId === undefined ? '' : ` AND q.topic_id = ${Number(topicId)}`} ORDER BY q.topic_id, q.id`,
    )
    .bind(marketId)
    .all<QuestionRow>();
  return results;
}

/** Answered and brand-naming runs of a `cell_days` row, as SQL (DESIGN section 4). */
export const CELL_ANSWERED = 'recommended + mentioned + absent + open';
export const CELL_NAMING = 'recommended + mentioned';

/** Per question and engine: how many runs ended in each state, and the brand's positions where named. */
export interface Cell {
  counts: StateCounts;
  runs: number;
  positionSum: number;
  positionCount: number;
}

export type CellMap = Map<number, Map<Engine, Cell>>;

/** The cells of one window, from the daily counts of migration 0002. */
export async function cellsOver(db: D1Database, marketId: number, period: Period): Promise<CellMap> {
  const { results } = await db
    .prepare(
      `SELECT question_id, engine, sum(recommended) AS recommended, sum(mentioned) AS mentioned, sum(absent) AS absent,
              sum(open) AS open, sum(no_answer) AS no_answer, sum(position_sum) AS pos_sum, sum(position_count) AS pos_n
         FROM cell_days WHERE market_id = ? AND day BETWEEN ? AND ?
        GROUP BY question_id, engine`,
    )
    .bind(marketId, period.from, period.to)
    .all<{ question_id: number; engine: Engine; pos_sum: number; pos_n: number } & Record<AnswerState, number>>();
  const cells: CellMap = new Map();
  for (const row of results) {
    let byEngine = cells.get(row.question_id);
    if (!byEngine) cells.set(row.question_id, (byEngine = new Map()));
    const counts: StateCounts = {};
    let runs = 0;
    for (const state of STATES) {
      if (row[state] > 0) counts[state] = row[state];
      runs += row[state];
    }
    byEngine.set(row.engine, { counts, runs, positionSum: row.pos_sum, positionCount: row.pos_n });
  }
  return cells;
}

/** The dominant state of each question and engine over one window (cells with runs only). */
export async function dominantStatesOver(db: D1Database, marketId: number, period: Period): Promise<Map<number, Map<Engine, AnswerState>>> {
  const { results } = await db
    .prepare(
      `SELECT question_id, engine, ${dominantStateSql()} AS state FROM (
         SELECT question_id, engine, ${STATES.map((s) => `sum(${s}) AS ${s}`).join(', ')}
           FROM cell_days WHERE market_id = ? AND day BETWEEN ? AND ? GROUP BY question_id, engine)`,
    )
    .bind(marketId, period.from, period.to)
    .all<{ question_id: number; engine: Engine; state: AnswerState | null }>();
  const states = new Map<number, Map<Engine, AnswerState>>();
  for (const row of results) {
    if (row.state === null) continue;
    let byEngine = states.get(row.question_id);
    if (!byEngine) states.set(row.question_id, (byEngine = new Map()));
    byEngine.set(row.engine, row.state);
  }
  return states;
}

/** The prompt-by-engine view of a cell (DESIGN section 4). */
export function cellFigures(cell: Cell | undefined) {
  const dominant = cell ? dominantState(cell.counts) : null;
  return {
    state: dominant?.state ?? null,
    rate: dominant?.rate ?? null,
    position: cell ? meanPosition(cell.positionSum, cell.positionCount) : null,
    runs: cell?.runs ?? 0,
  };
}

/** Engines whose dominant state names the brand. */
export function namingEngines(states: Map<Engine, AnswerState> | undefined): Set<Engine> {
  return new Set(
    ENGINES.filter((engine) => {
      const state = states?.get(engine);
      return state !== undefined && isNaming(state);
    }),
  );
}

export interface Totals {
  answered: number;
  naming: number;
}

/** Answered and brand-naming runs per day (from the daily counts of migration 0002). */
export async function dailyTotals(db: D1Database, marketId: number, period: Period, topicId?: number): Promise<Map<string, Totals>> {
  const { results } = await db
    .prepare(
      `SELECT day, sum(answered) AS answered, sum(naming) AS naming FROM topic_days
        WHERE market_id = ? AND day BETWEEN ? AND ?${topicId === undefined ? '' : ` AND topic_id = ${Number(topicId)}`} GROUP BY day`,
    )
    .bind(marketId, period.from, period.to)
    .all<{ day: string; answered: number; naming: number }>();
  return new Map(results.map((r) => [r.day, { answered: r.answered, naming: r.naming }]));
}

export function totalsBetween(daily: Map<string, Totals>, period: Period): Totals {
  const sum: Totals = { answered: 0, naming: 0 };
  for (const [day, t] of daily) {
    if (day >= period.from && day <= period.to) {
      sum.answered += t.answered;
      sum.naming += t.naming;
    }
  }
  return sum;
}

export const HISTORY_WEEKS = 12;
/** The days a 12-week history reads: 84 days ending today. */
export const historyPeriod = (today: string): Period => ({ from: addDays(today, -(HISTORY_WEEKS * 7 - 1)), to: today });

/** 12 weekly points, oldest first; the last one is the trailing 7 days ending today. */
export function weeklyHistory(daily: Map<string, Totals>, today: string) {
  return Array.from({ length: HISTORY_WEEKS }, (_, i) => {
    const week_end = addDays(today, -7 * (HISTORY_WEEKS - 1 - i));
    const week_start = addDays(week_end, -6);
    const t = totalsBetween(daily, { from: week_start, to: week_end });
    return { week_start, week_end, score: percent(t.naming, t.answered), answered_runs: t.answered };
  });
}

export interface RivalRow {
  id: number;
  name: string;
  domain: string;
}

export async function rivalsOf(db: D1Database, brandId: number): Promise<RivalRow[]> {
  const { results } = await db.prepare('SELECT id, name, domain FROM rivals WHERE brand_id = ? ORDER BY id').bind(brandId).all<RivalRow>();
  return results;
}

/** Runs naming each rival, per topic, in a window. */
export async function rivalRunsByTopic(db: D1Database, marketId: number, period: Period, topicId?: number) {
  const { results } = await db
    .prepare(
      `SELECT topic_id, rival_id, sum(runs) AS runs FROM rival_topic_days
        WHERE market_id = ? AND day BETWEEN ? AND ?${topicId === undefined ? '' : ` AND topic_id = ${Number(topicId)}`} GROUP BY topic_id, rival_id`,
    )
    .bind(marketId, period.from, period.to)
    .all<{ topic_id: number; rival_id: number; runs: number }>();
  return results;
}

/** Answered and naming runs per topic, for a window and the one before it, in one read. */
export async function topicTotals(db: D1Database, marketId: number, period: Period, previous: Period, topicId?: number) {
  const { results } = await db
    .prepare(
      `SELECT topic_id, day >= ?4 AS current, sum(answered) AS answered, sum(naming) AS naming FROM topic_days
        WHERE market_id = ?1 AND day BETWEEN ?2 AND ?3${topicId === undefined ? '' : ` AND topic_id = ${Number(topicId)}`}
        GROUP BY topic_id, current`,
    )
    .bind(marketId, previous.from, period.to, period.from)
    .all<{ topic_id: number; current: number; answered: number; naming: number }>();
  return results;
}

/** Cited domains in a window, most cited first. */
export async function citedDomains(db: D1Database, marketId: number, period: Period, options: { topicId?: number; limit: number }) {
  const { results } = await db
    .prepare(
      `SELECT domain, count(*) AS citations FROM run_citations
        WHERE market_id = ? AND day BETWEEN ? AND ?${topicFilter(options.topicId)}
        GROUP BY domain ORDER BY citations DESC, domain LIMIT ?`,
    )
    .bind(marketId, period.from, period.to, options.limit)
    .all<{ domain: string; citations: number }>();
  return results;
}

/** The brand's own domains: its main domain. */
export const ownDomains = (brand: { domain: string }): string[] => [brand.domain];

/**
 * `(domain = ? OR domain LIKE ?)` for each domain, with its bindings: a domain
 * and its subdomains, the rule of `classifyDomain`.
 */
export function domainClause(domains: string[], column = 'domain'): { sql: string; binds: string[] } {
  if (domains.length === 0) return { sql: '0', binds: [] };
  return {
    sql: `(${domains.map(() => `${column} = ? OR ${column} LIKE ?`).join(' OR ')})`,
    binds: domains.flatMap((d) => [d, `%.${d}`]),
  };
}

export async function topicsOf(db: D1Database, marketId: number): Promise<{ id: number; name: string }[]> {
  const { results } = await db.prepare('SELECT id, name FROM topics WHERE market_id = ? ORDER BY id').bind(marketId).all<{ id: number; name: string }>();
  return results;
}

/** The brand's own pages known to the service in a market. */
export interface OwnPageRow {
  url: string;
  title: string;
  topic_id: number | null;
  question_id: number | null;
}

export async function ownPagesOf(db: D1Database, marketId: number): Promise<OwnPageRow[]> {
  const { results } = await db.prepare('SELECT url, title, topic_id, question_id FROM pages WHERE market_id = ? AND rival_id IS NULL ORDER BY id').bind(marketId).all<OwnPageRow>();
  return results;
}

/**
 * Citations of the brand's own URLs per URL, for a window and the one before
 * it in one read of the daily citation counts (`current` is 1 for the later window).
 */
export async function ownCitationsByUrl(db: D1Database, marketId: number, brand: { domain: string }, period: Period, previous?: Period) {
  const own = domainClause(ownDomains(brand));
  const { results } = await db
    .prepare(
      `SELECT url, day >= ? AS current, sum(citations) AS citations FROM citation_days
        WHERE market_id = ? AND day BETWEEN ? AND ? AND ${own.sql} GROUP BY url, current`,
    )
    .bind(period.from, marketId, (previous ?? period).from, period.to, ...own.binds)
    .all<{ url: string; current: number; citations: number }>();
  return results;
}

/**
 * Citations of one site's pages (the given domains and their subdomains) per
 * URL, topic and engine, in a window and the one before it, from the per-site
 * counts of migration 0007. The site's domains are found with one index seek
 * per distinct cited domain (a loose index scan); its rows are then one index
 * range, aggregated in key order without a sort.
 */
export async function siteCitations(db: D1Database, marketId: number, domains: string[], period: Period, previous: Period) {
  const site = domainClause(domains);
  const { results } = await db
    .prepare(
      `WITH RECURSIVE cited (domain) AS (
         SELECT min(domain) FROM site_citation_days WHERE market_id = ?
         UNION ALL
         SELECT (SELECT min(domain) FROM site_citation_days WHERE market_id = ? AND domain > cited.domain) FROM cited WHERE cited.domain IS NOT NULL
       )
       SELECT url, topic_id, engine, sum(CASE WHEN day >= ? THEN citations ELSE 0 END) AS citations, sum(CASE WHEN day < ? THEN citations ELSE 0 END) AS previous_citations
         FROM site_citation_days
        WHERE market_id = ? AND domain IN (SELECT domain FROM cited WHERE ${site.sql}) AND day BETWEEN ? AND ?
        GROUP BY domain, url, topic_id, engine
       HAVING sum(citations) > 0`,
    )
    .bind(marketId, marketId, period.from, period.from, marketId, ...site.binds, previous.from, period.to)
    .all<{ url: string; topic_id: number; engine: Engine; citations: number; previous_citations: number }>();
  return results;
}

/** The most cited URLs of each topic in a window (most citations first, ties by URL), leaving out the given domains and their subdomains. */
export async function topCitedPerTopic(db: D1Database, marketId: number, period: Period, options: { exceptDomains: string[]; perTopic: number }) {
  const except = domainClause(options.exceptDomains);
  const { results } = await db
    .prepare(
      `SELECT topic_id, url, domain, citations FROM (
         SELECT topic_id, url, domain, citations, row_number() OVER (PARTITION BY topic_id ORDER BY citations DESC, url) AS rank FROM (
           SELECT topic_id, url, min(domain) AS domain, sum(citations) AS citations FROM citation_days
            WHERE market_id = ? AND day BETWEEN ? AND ? AND NOT ${except.sql} GROUP BY topic_id, url HAVING sum(citations) > 0))
        WHERE rank <= ? ORDER BY topic_id, rank`,
    )
    .bind(marketId, period.from, period.to, ...except.binds, options.perTopic)
    .all<{ topic_id: number; url: string; domain: string; citations: number }>();
  return results;
}

/** Rows grouped by a key, in first-seen order. */
export function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list) list.push(row);
    else out.set(k, [row]);
  }
  return out;
}

/** The open tasks of a market per layer. */
export async function openTaskCounts(db: D1Database, marketId: number) {
  const { results } = await db.prepare("SELECT layer, count(*) AS n FROM tasks WHERE market_id = ? AND status = 'open' GROUP BY layer").bind(marketId).all<{ layer: TaskLayer; n: number }>();
  const counts = Object.fromEntries(TASK_LAYERS.map((l) => [l, 0])) as Record<TaskLayer, number>;
  for (const r of results) counts[r.layer] = r.n;
  return counts;
}

/**
 * Citations per day and domain, from the daily citation counts (migration
 * 0005). Grouping by day first follows their key, so SQLite streams the
 * groups instead of sorting.
 */
export async function domainCitationsByDay(db: D1Database, marketId: number, period: Period) {
  const { results } = await db
    .prepare('SELECT day, domain, sum(citations) AS citations FROM citation_days WHERE market_id = ? AND day BETWEEN ? AND ? GROUP BY day, domain')
    .bind(marketId, period.from, period.to)
    .all<{ day: string; domain: string; citations: number }>();
  return results;
}

/** Citations per domain over a window, most cited first, ties by domain name. */
export async function domainCitations(db: D1Database, marketId: number, period: Period): Promise<{ domain: string; citations: number }[]> {
  const totals = new Map<string, number>();
  for (const r of await domainCitationsByDay(db, marketId, period)) totals.set(r.domain, (totals.get(r.domain) ?? 0) + r.citations);
  return [...totals].map(([domain, citations]) => ({ domain, citations })).sort((a, b) => b.citations - a.citations || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
}
