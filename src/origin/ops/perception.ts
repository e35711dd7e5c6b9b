/**
 * Brand perception, its transcripts and forum signals. The weekly perception
 * verdicts, transcripts and forum summaries are derived upstream by language
 * models and stored as data; the windows, counts and citations are computed here.
 */
import * as z from 'zod';
import { ENGINES, type Engine } from '../../contract/enums';
import { addDays, type Period } from '../../contract/window';
import { percent } from '../metrics';
import { HISTORY_WEEKS } from '../queries';
import { scopeOf, windowedScopeOf } from './core';
import type { Implementation } from './context';

interface PerceptionWeekRow {
  engine: Engine;
  week_start: string;
  knows_brand: number;
  recommends: number;
  sentiment: number;
  gets_right: string;
  gets_wrong: string;
}

const Lines = z.array(z.string());

/**
 * Per engine: the verdict of the latest perception week overlapping the
 * period (null when none), and up to 12 weekly points starting on or before
 * `period.to`, oldest first.
 */
export async function perceptionOf(db: D1Database, marketId: number, period: Period) {
  const { results } = await db
    .prepare(
      `SELECT engine, week_start, knows_brand, recommends, sentiment, gets_right, gets_wrong FROM perception_weeks
        WHERE market_id = ? AND week_start BETWEEN ? AND ? ORDER BY engine, week_start`,
    )
    .bind(marketId, addDays(period.to, -(HISTORY_WEEKS * 7 - 1)), period.to)
    .all<PerceptionWeekRow>();
  // A week overlaps the period when it starts at most 6 days before `from`.
  const earliestOverlapping = addDays(period.from, -6);
  const engines = ENGINES.map((engine) => {
    const weeks = results.filter((w) => w.engine === engine).slice(-HISTORY_WEEKS);
    const latest = weeks.filter((w) => w.week_start >= earliestOverlapping).at(-1);
    return {
      engine,
      as_of: latest?.week_start ?? null,
      knows_brand: latest ? latest.knows_brand === 1 : null,
      recommends: latest ? latest.recommends === 1 : null,
      sentiment: latest?.sentiment ?? null,
      gets_right: latest ? Lines.parse(JSON.parse(latest.gets_right)) : [],
      gets_wrong: latest ? Lines.parse(JSON.parse(latest.gets_wrong)) : [],
      history: weeks.map((w) => ({ week_start: w.week_start, knows_brand: w.knows_brand === 1, recommends: w.recommends === 1, sentiment: w.sentiment })),
    };
  });
  const measured = engines.filter((e) => e.as_of !== null);
  const recommending = measured.filter((e) => e.recommends).length;
  return {
    summary: {
      engines_measured: measured.length,
      engines_knowing: measured.filter((e) => e.knows_brand).length,
      engines_recommending: recommending,
      recommend_rate: percent(recommending, measured.length),
    },
    engines,
  };
}

export const getBrandPerception: Implementation<'getBrandPerception'> = async (c) => ({
  ...windowedScopeOf(c),
  ...(await perceptionOf(c.db, c.market.id, c.period)),
});

export const getPerceptionTranscript: Implementation<'getPerceptionTranscript'> = async (c) => {
  const engine = c.query.engine;
  const { results } = await c.db
    .prepare(
      `SELECT id, engine, asked_at, prompt, answer FROM perception_transcripts
        WHERE market_id = ?${engine ? ' AND engine = ?' : ''} ORDER BY asked_at DESC, id DESC`,
    )
    .bind(...(engine ? [c.market.id, engine] : [c.market.id]))
    .all<{ id: number; engine: Engine; asked_at: string; prompt: string; answer: string }>();
  return { ...scopeOf(c), engine: engine ?? null, transcripts: results };
};

interface ThreadRow {
  id: number;
  topic_id: number;
  url: string;
  title: string;
  forum: string;
  posted_on: string;
  replies: number;
}

/**
 * Threads of the window: those posted in it, and older ones that answers in
 * it cited. Most cited first, then newest.
 */
export const getForumSignals: Implementation<'getForumSignals'> = async (c) => {
  const { from, to } = c.period;
  const [{ results: topics }, { results: threads }, { results: cited }, { results: summaries }] = await Promise.all([
    c.db.prepare('SELECT id, name FROM topics WHERE market_id = ? ORDER BY id').bind(c.market.id).all<{ id: number; name: string }>(),
    c.db
      .prepare(
        `SELECT ft.id, ft.topic_id, ft.url, ft.title, ft.forum, ft.posted_on, ft.replies
           FROM forum_threads ft JOIN topics t ON t.id = ft.topic_id WHERE t.market_id = ? AND ft.posted_on <= ?`,
      )
      .bind(c.market.id, to)
      .all<ThreadRow>(),
    c.db
      .prepare(
        `SELECT url, sum(citations) AS n FROM citation_days
          WHERE market_id = ?1 AND day BETWEEN ?2 AND ?3
            AND url IN (SELECT ft.url FROM forum_threads ft JOIN topics t ON t.id = ft.topic_id WHERE t.market_id = ?1)
          GROUP BY url`,
      )
      .bind(c.market.id, from, to)
      .all<{ url: string; n: number }>(),
    c.db
      .prepare(
        `SELECT fs.topic_id, fs.week_start, fs.summary FROM forum_summaries fs JOIN topics t ON t.id = fs.topic_id
          WHERE t.market_id = ? AND fs.week_start <= ? ORDER BY fs.week_start DESC`,
      )
      .bind(c.market.id, to)
      .all<{ topic_id: number; week_start: string; summary: string }>(),
  ]);
  const citations = new Map(cited.map((r) => [r.url, r.n]));
  return {
    ...windowedScopeOf(c),
    topics: topics.map((t) => {
      const inWindow = threads
        .filter((th) => th.topic_id === t.id)
        .map((th) => ({ ...th, ai_citations: citations.get(th.url) ?? 0 }))
        .filter((th) => th.posted_on >= from || th.ai_citations > 0)
        .sort((a, b) => b.ai_citations - a.ai_citations || b.posted_on.localeCompare(a.posted_on) || a.id - b.id);
      const summary = summaries.find((s) => s.topic_id === t.id);
      return {
        id: t.id,
        name: t.name,
        threads_total: inWindow.length,
        threads_cited: inWindow.filter((th) => th.ai_citations > 0).length,
        threads: inWindow.slice(0, c.query.limit).map(({ topic_id: _, ...th }) => ({ ...th, cited: th.ai_citations > 0 })),
        summary: summary ? { week_start: summary.week_start, text: summary.summary } : null,
      };
    }),
  };
};
