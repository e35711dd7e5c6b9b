/** The operations computed from stored runs (DESIGN section 4): brands, markets, questions, visibility, matrix, runs, history, topics. */
import { type AnswerState, ENGINES, type Engine } from '../../contract/enums';
import { ApiError } from '../../contract/errors';
import { addDays, type Period, previousPeriod } from '../../contract/window';
import { classifyDomain, delta, isNaming, percent, rankAmong, outcome as outcomeOf } from '../metrics';
import {
  cellFigures,
  cellsOver,
  dominantStatesOver,
  citedDomains,
  dailyTotals,
  historyPeriod,
  namingEngines,
  ownDomains,
  questionsOf,
  type RivalRow,
  rivalRunsByTopic,
  rivalsOf,
  topicTotals,
  totalsBetween,
  weeklyHistory,
} from '../queries';
import type { MarketRow } from '../access';
import type { Implementation, OpContext } from './context';

/** What every brand-scoped body names (DESIGN section 3). */
export const scopeOf = (c: OpContext) => ({
  brand_id: c.brand.id,
  market: { id: c.market.id, code: c.market.code },
  generated_at: c.now.toISOString(),
});
export const windowedScopeOf = (c: OpContext) => ({ ...scopeOf(c), period: c.period });

const marketView = (m: MarketRow) => ({ id: m.id, code: m.code, name: m.name, language: m.language, country: m.country, primary: m.is_primary === 1 });

async function marketsOf(db: D1Database, where: string, id: number): Promise<MarketRow[]> {
  const { results } = await db
    .prepare(`SELECT m.id, m.brand_id, m.code, m.name, m.language, m.country, m.is_primary FROM markets m JOIN brands b ON b.id = m.brand_id WHERE ${where} = ? ORDER BY m.is_primary DESC, m.id`)
    .bind(id)
    .all<MarketRow>();
  return results;
}

export const listBrands: Implementation<'listBrands'> = async (c) => {
  const [{ results: brands }, markets] = await Promise.all([
    c.db.prepare('SELECT id, name, domain, category FROM brands WHERE account_id = ? ORDER BY id').bind(c.caller.accountId).all<{ id: number; name: string; domain: string; category: string }>(),
    marketsOf(c.db, 'b.account_id', c.caller.accountId),
  ]);
  return {
    brands: brands.map((b) => ({ ...b, markets: markets.filter((m) => m.brand_id === b.id).map(marketView) })),
    plan: { id: c.caller.plan, monthly_quota: c.caller.monthlyQuota, includes_pro_operations: c.caller.includesInsights },
    generated_at: c.now.toISOString(),
  };
};

export const listMarkets: Implementation<'listMarkets'> = async (c) => ({
  brand_id: c.brand.id,
  markets: (await marketsOf(c.db, 'm.brand_id', c.brand.id)).map(marketView),
  generated_at: c.now.toISOString(),
});

export const listAnswers: Implementation<'listAnswers'> = async (c) => {
  const topicId = c.query.topic_id;
  if (topicId !== undefined) await topicOf(c, topicId);
  const questions = await questionsOf(c.db, c.market.id, topicId);
  return { ...scopeOf(c), questions: questions.map((q) => ({ id: q.id, text: q.text, topic: { id: q.topic_id, name: q.topic_name } })) };
};

export const getVisibility: Implementation<'getVisibility'> = async (c) => {
  const daily = await dailyTotals(c.db, c.market.id, historyPeriod(c.today));
  const history = weeklyHistory(daily, c.today);
  const now = totalsBetween(daily, c.period);
  const score = percent(now.naming, now.answered);
  return {
    ...windowedScopeOf(c),
    score,
    change: delta(score, history.at(-2)?.score ?? null),
    answered_runs: now.answered,
    naming_runs: now.naming,
    history,
  };
};

export const getPromptMatrix: Implementation<'getPromptMatrix'> = async (c) => {
  const [questions, current] = await Promise.all([questionsOf(c.db, c.market.id), cellsOver(c.db, c.market.id, c.period)]);
  return {
    ...windowedScopeOf(c),
    engines: [...ENGINES],
    prompts: questions.map((q) => ({
      question_id: q.id,
      text: q.text,
      topic_id: q.topic_id,
      engines: ENGINES.map((engine) => ({ engine, ...cellFigures(current.get(q.id)?.get(engine)) })),
    })),
  };
};

interface RunRow {
  id: number;
  question_id: number;
  engine: Engine;
  ran_at: string;
  state: AnswerState;
  position: number | null;
  answer: string;
}

async function citationsOf(db: D1Database, runIds: number[]): Promise<Map<number, { url: string; domain: string }[]>> {
  const out = new Map<number, { url: string; domain: string }[]>();
  // D1 binds at most 100 parameters per statement.
  for (let i = 0; i < runIds.length; i += 100) {
    const chunk = runIds.slice(i, i + 100);
    const { results } = await db
      .prepare(`SELECT run_id, url, domain FROM run_citations WHERE run_id IN (${chunk.map(() => '?').join(',')}) ORDER BY run_id, url`)
      .bind(...chunk)
      .all<{ run_id: number; url: string; domain: string }>();
    for (const r of results) {
      const list = out.get(r.run_id) ?? [];
      list.push({ url: r.url, domain: r.domain });
      out.set(r.run_id, list);
    }
  }
  return out;
}

export const getAnswerRuns: Implementation<'getAnswerRuns'> = async (c) => {
  const question = await c.db
    .prepare('SELECT id, text, topic_id FROM questions WHERE market_id = ? AND text = ?')
    .bind(c.market.id, c.query.prompt)
    .first<{ id: number; text: string; topic_id: number }>();
  if (!question) throw new ApiError('not_found', 'No tracked question has exactly this text in this market (see `GET /answers`).');
  const { results: runs } = await c.db
    .prepare('SELECT id, question_id, engine, ran_at, state, position, answer FROM runs WHERE question_id = ? AND day BETWEEN ? AND ? ORDER BY ran_at DESC, id DESC')
    .bind(question.id, c.period.from, c.period.to)
    .all<RunRow>();
  const citations = await citationsOf(
    c.db,
    runs.map((r) => r.id),
  );
  return {
    ...windowedScopeOf(c),
    question,
    runs: runs.map((r) => ({
      id: r.id,
      engine: r.engine,
      ran_at: r.ran_at,
      state: r.state,
      brand_named: isNaming(r.state),
      position: r.position,
      text: r.answer,
      citations: citations.get(r.id) ?? [],
    })),
  };
};

const OUTCOME_ORDER = { won: 0, lost: 1, held: 2 } as const;

export const getAnswerHistory: Implementation<'getAnswerHistory'> = async (c) => {
  const previous = previousPeriod(c.period);
  const [questions, now, before, rivals] = await Promise.all([
    questionsOf(c.db, c.market.id),
    dominantStatesOver(c.db, c.market.id, c.period),
    dominantStatesOver(c.db, c.market.id, previous),
    rivalsOf(c.db, c.brand.id),
  ]);
  const naming = new Map(
    questions.map((q) => {
      const [nowNaming, beforeNaming] = [namingEngines(now.get(q.id)), namingEngines(before.get(q.id))];
      return [q.id, { now: nowNaming, before: beforeNaming, moved: ENGINES.filter((e) => nowNaming.has(e) !== beforeNaming.has(e)) }];
    }),
  );
  // The top rival matters only where an engine moved: count rivals for those questions and engines alone.
  const moved = questions.flatMap((q) => naming.get(q.id)!.moved.map((e) => [q.id, e] as const));
  const rivalCounts = await c.db
    .prepare(
      `SELECT question_id, engine, rival_id, count(*) AS runs FROM run_rivals
        WHERE market_id = ? AND (question_id, engine) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?)) AND day BETWEEN ? AND ?
        GROUP BY question_id, engine, rival_id`,
    )
    .bind(c.market.id, JSON.stringify(moved), c.period.from, c.period.to)
    .all<{ question_id: number; engine: Engine; rival_id: number; runs: number }>();
  const rivalName = new Map(rivals.map((r) => [r.id, r.name]));
  const topRival = new Map<string, { name: string; runs: number }>();
  for (const r of rivalCounts.results) {
    const key = `${r.question_id}/${r.engine}`;
    const best = topRival.get(key);
    const name = rivalName.get(r.rival_id) ?? '';
    // Most runs wins; a tie goes to the name first in alphabetical order, so the answer never depends on row order.
    if (!best || r.runs > best.runs || (r.runs === best.runs && name < best.name)) topRival.set(key, { name, runs: r.runs });
  }

  const rows = questions.map((q) => {
    const { now: nowNaming, before: beforeNaming, moved: movedEngines } = naming.get(q.id)!;
    const moved = movedEngines.map((engine) => ({
      engine,
      before: before.get(q.id)?.get(engine) ?? null,
      now: now.get(q.id)?.get(engine) ?? null,
      direction: nowNaming.has(engine) ? ('gained' as const) : ('lost' as const),
      top_rival: topRival.get(`${q.id}/${engine}`)?.name ?? null,
    }));
    return {
      question_id: q.id,
      text: q.text,
      topic_id: q.topic_id,
      outcome: outcomeOf(beforeNaming.size, nowNaming.size),
      engines_naming_now: nowNaming.size,
      engines_naming_before: beforeNaming.size,
      moved,
    };
  });
  // Won and lost first, the largest swings first within each.
  rows.sort(
    (a, b) =>
      OUTCOME_ORDER[a.outcome] - OUTCOME_ORDER[b.outcome] ||
      Math.abs(b.engines_naming_now - b.engines_naming_before) - Math.abs(a.engines_naming_now - a.engines_naming_before) ||
      a.question_id - b.question_id,
  );
  const count = (o: keyof typeof OUTCOME_ORDER) => rows.filter((r) => r.outcome === o).length;
  return { ...windowedScopeOf(c), previous_period: previous, counts: { won: count('won'), lost: count('lost'), held: count('held') }, questions: rows };
};

interface TopicRow {
  id: number;
  name: string;
  facts_compared: string;
  cited_pages_share: string;
  analysed_on: string;
}

/** The topic, if it belongs to the market read; another brand's or market's topic is not found. */
async function topicOf(c: OpContext, id: number): Promise<TopicRow> {
  const topic = await c.db.prepare('SELECT id, name, facts_compared, cited_pages_share, analysed_on FROM topics WHERE id = ? AND market_id = ?').bind(id, c.market.id).first<TopicRow>();
  if (!topic) throw new ApiError('not_found', `No topic ${id} in this brand and market (see \`GET /topics\`).`);
  return topic;
}

/** Score, change, rank and rivals of every topic (or one) over a window (DESIGN section 4, topic visibility). */
async function topicSummaries(c: OpContext, period: Period, topicId?: number) {
  const previous = previousPeriod(period);
  const [{ results: topics }, totals, rivalRuns, rivals, questionCounts] = await Promise.all([
    c.db
      .prepare(`SELECT id, name FROM topics WHERE market_id = ?${topicId === undefined ? '' : ' AND id = ?'} ORDER BY id`)
      .bind(...(topicId === undefined ? [c.market.id] : [c.market.id, topicId]))
      .all<{ id: number; name: string }>(),
    topicTotals(c.db, c.market.id, period, previous, topicId),
    rivalRunsByTopic(c.db, c.market.id, period, topicId),
    rivalsOf(c.db, c.brand.id),
    c.db.prepare('SELECT topic_id, count(*) AS n FROM questions WHERE market_id = ? GROUP BY topic_id').bind(c.market.id).all<{ topic_id: number; n: number }>(),
  ]);
  const rivalById = new Map(rivals.map((r) => [r.id, r]));
  return topics.map((t) => {
    const now = totals.find((r) => r.topic_id === t.id && r.current === 1);
    const before = totals.find((r) => r.topic_id === t.id && r.current === 0);
    const score = percent(now?.naming ?? 0, now?.answered ?? 0);
    const answered = now?.answered ?? 0;
    const named = rivalRuns
      .filter((r) => r.topic_id === t.id)
      .map((r) => ({ rival: rivalById.get(r.rival_id) as RivalRow, share: percent(r.runs, answered) ?? 0 }))
      .filter((r) => r.rival)
      .sort((a, b) => b.share - a.share || a.rival.name.localeCompare(b.rival.name));
    return {
      id: t.id,
      name: t.name,
      score,
      change: delta(score, percent(before?.naming ?? 0, before?.answered ?? 0)),
      rank:
        score === null
          ? null
          : rankAmong(
              score,
              named.map((r) => r.share),
            ),
      questions: questionCounts.results.find((q) => q.topic_id === t.id)?.n ?? 0,
      rivals: named.map((r) => ({ name: r.rival.name, share: r.share })),
    };
  });
}

export const listTopics: Implementation<'listTopics'> = async (c) => ({ ...windowedScopeOf(c), topics: await topicSummaries(c, c.period) });

export const getTopic: Implementation<'getTopic'> = async (c) => {
  const topic = await topicOf(c, c.path.id);
  const [[summary], questions, latest, headToHead, sources, rivals, daily] = await Promise.all([
    topicSummaries(c, c.period, topic.id),
    questionsOf(c.db, c.market.id, topic.id),
    latestRuns(c, topic.id),
    c.db
      .prepare(
        `SELECT rr.rival_id, count(*) AS rival_runs,
                sum(r.state IN ('recommended', 'mentioned')) AS both_named,
                sum(r.state IN ('recommended', 'mentioned') AND r.position < rr.position) AS brand_ahead,
                sum(r.state IN ('recommended', 'mentioned') AND r.position > rr.position) AS rival_ahead
           FROM run_rivals rr JOIN runs r ON r.id = rr.run_id
          WHERE rr.market_id = ? AND rr.day BETWEEN ? AND ? AND rr.question_id IN (SELECT id FROM questions WHERE topic_id = ?)
          GROUP BY rr.rival_id`,
      )
      .bind(c.market.id, c.period.from, c.period.to, topic.id)
      .all<{ rival_id: number; rival_runs: number; both_named: number; brand_ahead: number; rival_ahead: number }>(),
    citedDomains(c.db, c.market.id, c.period, { topicId: topic.id, limit: 10 }),
    rivalsOf(c.db, c.brand.id),
    dailyTotals(c.db, c.market.id, historyPeriod(c.today), topic.id),
  ]);
  const brandNaming = totalsBetween(daily, c.period).naming;
  const rivalById = new Map(rivals.map((r) => [r.id, r]));
  const citations = await citationsOf(
    c.db,
    latest.map((r) => r.id),
  );
  return {
    ...windowedScopeOf(c),
    topic: summary as NonNullable<typeof summary>,
    questions: questions.map((q) => ({
      id: q.id,
      text: q.text,
      engines: ENGINES.map((engine) => {
        const run = latest.find((r) => r.question_id === q.id && r.engine === engine);
        return {
          engine,
          latest: run ? { ran_at: run.ran_at, state: run.state, position: run.position, text: run.answer, citations: citations.get(run.id) ?? [] } : null,
        };
      }),
    })),
    head_to_heads: headToHead.results
      .map((h) => ({
        rival: rivalById.get(h.rival_id)?.name ?? '',
        both_named: h.both_named,
        brand_only: brandNaming - h.both_named,
        rival_only: h.rival_runs - h.both_named,
        brand_ahead: h.brand_ahead,
        rival_ahead: h.rival_ahead,
      }))
      .sort((a, b) => b.both_named + b.rival_only - (a.both_named + a.rival_only) || a.rival.localeCompare(b.rival)),
    top_sources: sources.map((s) => ({
      ...s,
      classification: classifyDomain(
        s.domain,
        ownDomains(c.brand),
        rivals.map((r) => r.domain),
      ),
    })),
    history: weeklyHistory(daily, c.today),
    content_analysis: {
      facts_compared: JSON.parse(topic.facts_compared) as string[],
      cited_pages_share: JSON.parse(topic.cited_pages_share) as string[],
      updated_on: topic.analysed_on,
    },
  };
};

/** How far back "latest answer" looks: the data the service keeps answering from. */
const LATEST_LOOKBACK_DAYS = 90;

/** Each engine's latest run for every question of a topic: picked on the index alone, then read. */
async function latestRuns(c: OpContext, topicId: number): Promise<RunRow[]> {
  const { results } = await c.db
    .prepare(
      `SELECT id, question_id, engine, ran_at, state, position, answer FROM runs WHERE id IN (
         SELECT id FROM (
           SELECT id, row_number() OVER (PARTITION BY question_id, engine ORDER BY ran_at DESC, id DESC) AS nth
             FROM runs WHERE question_id IN (SELECT id FROM questions WHERE topic_id = ?) AND ran_at >= ?
         ) WHERE nth = 1
       )`,
    )
    .bind(topicId, `${addDays(c.today, -(LATEST_LOOKBACK_DAYS - 1))}T00:00:00Z`)
    .all<RunRow>();
  return results;
}
