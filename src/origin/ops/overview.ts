/**
 * The home view: visibility, share of voice and the standing against the top
 * rivals (overall and per day), perception, cited pages, topics weakest
 * first, AI traffic, the AI readiness score and open tasks per layer.
 */
import { addDays, daysBetween, type Period, previousPeriod } from '../../contract/window';
import type { Caller } from '../access';
import { classifyDomain, delta, meanPosition, percent, round1 } from '../metrics';
import { dailyTotals, domainCitationsByDay, openTaskCounts, ownCitationsByUrl, ownDomains, ownPagesOf, rivalRunsByTopic, rivalsOf, totalsBetween } from '../queries';
import { listTopics, windowedScopeOf } from './core';
import type { Implementation, OpContext } from './index';
import { perceptionOf } from './perception';
import { trafficTotals } from './traffic';

/** How many rivals the overview sets the brand against: the most mentioned ones. */
export const TOP_RIVALS = 3;
/** How many assistants the overview names in its traffic part. */
export const TOP_ASSISTANTS = 3;
/** How many of the brand's cited pages the overview lists. */
export const OVERVIEW_PAGES = 5;

/**
 * Perception, traffic and tasks are Pro and Growth data. On Starter the
 * overview still answers, and says in each of those parts that the plan does
 * not include it, instead of refusing the whole view.
 */
const notInPlan = (what: string) => ({ included: false as const, reason: 'not_in_plan' as const, message: `${what} is part of the Pro and Growth plans.` });
const whenIncluded = async <T>(caller: Caller, what: string, read: () => Promise<T>) =>
  caller.includesInsights ? { included: true as const, ...(await read()) } : notInPlan(what);

/**
 * AI readiness: 100 x sum(weight x value) / sum(weight) over the market's
 * stored signals (each value 0 to 1), one decimal; null when none is stored.
 */
export function readinessScore(signals: { value: number; weight: number }[]): number | null {
  const weights = signals.reduce((s, x) => s + x.weight, 0);
  return weights > 0 ? round1((100 * signals.reduce((s, x) => s + x.weight * x.value, 0)) / weights) : null;
}

interface DayCounts {
  answered: number;
  naming: number;
  positionSum: number;
  positionCount: number;
}

/**
 * Runs, rival mentions and citations per day of the period: what the
 * competition part is made of, in three scans of the period only, each
 * grouped by day first, the order of the (market, day, ...) indexes.
 */
async function competitionRows(c: OpContext) {
  const window = [c.market.id, c.period.from, c.period.to] as const;
  const [runs, citations] = await Promise.all([
    c.db
      .prepare(
        `SELECT day, sum(state <> 'no_answer') AS answered, sum(state IN ('recommended', 'mentioned')) AS naming,
                coalesce(sum(position), 0) AS position_sum, count(position) AS position_count
           FROM runs WHERE market_id = ? AND day BETWEEN ? AND ? GROUP BY day`,
      )
      .bind(...window)
      .all<{ day: string; answered: number; naming: number; position_sum: number; position_count: number }>(),
    domainCitationsByDay(c.db, c.market.id, c.period),
  ]);
  return { runs: runs.results, citations };
}

/**
 * Per day: all rival mentions, and the mentions and position sum of each of
 * the top rivals. One column pair per rival keeps the grouping by day alone,
 * in index order, where grouping by (day, rival) would sort every mention.
 */
async function rivalDays(c: OpContext, top: number[]) {
  const columns = top.map((_, i) => `, sum(rival_id = ?${i + 4}) AS n${i}, sum(CASE WHEN rival_id = ?${i + 4} THEN position END) AS p${i}`).join('');
  const { results } = await c.db
    .prepare(`SELECT day, count(*) AS mentions${columns} FROM run_rivals WHERE market_id = ?1 AND day BETWEEN ?2 AND ?3 GROUP BY day`)
    .bind(c.market.id, c.period.from, c.period.to, ...top)
    .all<Record<string, string | number | null>>();
  return results.map((r) => ({
    day: String(r.day),
    mentions: Number(r.mentions),
    rivals: new Map(top.map((id, i) => [id, { n: Number(r[`n${i}`] ?? 0), positionSum: Number(r[`p${i}`] ?? 0) }])),
  }));
}

/** The previous period needs only totals: the daily counts give them without scanning runs. */
async function previousTotals(c: OpContext, previous: Period) {
  const [daily, rivalRuns] = await Promise.all([dailyTotals(c.db, c.market.id, previous), rivalRunsByTopic(c.db, c.market.id, previous)]);
  return { ...totalsBetween(daily, previous), rivalMentions: rivalRuns.reduce((s, r) => s + r.runs, 0) };
}

export const getOverview: Implementation<'getOverview'> = async (c) => {
  const previous = previousPeriod(c.period);
  const inPeriod = (day: string) => day >= c.period.from && day <= c.period.to;
  const [rows, rivalRuns, before, rivals, topics, ownCitations, pages, signals, perception, traffic, tasks, integrations] = await Promise.all([
    competitionRows(c),
    rivalRunsByTopic(c.db, c.market.id, c.period),
    previousTotals(c, previous),
    rivalsOf(c.db, c.brand.id),
    listTopics(c as unknown as OpContext<'listTopics'>),
    ownCitationsByUrl(c.db, c.market.id, c.brand, c.period, previous),
    ownPagesOf(c.db, c.market.id),
    c.db.prepare('SELECT signal, value, weight, note FROM readiness_signals WHERE market_id = ? ORDER BY weight DESC, signal').bind(c.market.id).all<{ signal: string; value: number; weight: number; note: string }>(),
    whenIncluded(c.caller, 'Brand perception', async () => {
      const p = await perceptionOf(c.db, c.market.id, c.period);
      return { ...p.summary, engines: p.engines.map((e) => ({ engine: e.engine, knows_brand: e.knows_brand, recommends: e.recommends })) };
    }),
    whenIncluded(c.caller, 'AI traffic', () => trafficTotals(c.db, c.brand.id, c.period)),
    whenIncluded(c.caller, 'Tasks', async () => {
      const counts = await openTaskCounts(c.db, c.market.id);
      return { open_counts: counts, open_total: Object.values(counts).reduce((s, n) => s + n, 0) };
    }),
    c.db.prepare('SELECT kind FROM integrations WHERE brand_id = ?').bind(c.brand.id).all<{ kind: string }>(),
  ]);

  // --- visibility and share of voice, this period against the previous one
  const sumRuns = (filter: (day: string) => boolean): DayCounts =>
    rows.runs
      .filter((r) => filter(r.day))
      .reduce((s, r) => ({ answered: s.answered + r.answered, naming: s.naming + r.naming, positionSum: s.positionSum + r.position_sum, positionCount: s.positionCount + r.position_count }), {
        answered: 0,
        naming: 0,
        positionSum: 0,
        positionCount: 0,
      });
  // The top rivals: the most named in the period, from the daily counts; rivals AI never named are not "top rivals".
  const top = rivals
    .map((rival) => ({ rival, n: rivalRuns.filter((r) => r.rival_id === rival.id).reduce((s, r) => s + r.runs, 0) }))
    .filter((m) => m.n > 0)
    .sort((a, b) => b.n - a.n || a.rival.name.localeCompare(b.rival.name))
    .slice(0, TOP_RIVALS)
    .map((m) => m.rival);
  const mentionDays = await rivalDays(c, top.map((r) => r.id));

  const now = sumRuns(inPeriod);
  const rivalMentions = (filter: (day: string) => boolean) => mentionDays.filter((d) => filter(d.day)).reduce((s, d) => s + d.mentions, 0);
  const score = percent(now.naming, now.answered);
  const sov = percent(now.naming, now.naming + rivalMentions(inPeriod));
  const sovBefore = percent(before.naming, before.naming + before.rivalMentions);

  // --- standing of the brand and its top rivals, over the period and per day
  const ownDomainList = ownDomains(c.brand);
  // Each cited domain's owner, found once: the brand, a rival's id, or nobody (a third party).
  const ownerOf = (domain: string): 'brand' | number | null => {
    if (classifyDomain(domain, ownDomainList, []) === 'own') return 'brand';
    return rivals.find((r) => classifyDomain(domain, [], [r.domain]) === 'competitor')?.id ?? null;
  };
  const owned = rows.citations.map((r) => ({ day: r.day, n: r.citations, owner: ownerOf(r.domain) })).filter((r) => r.owner !== null);
  const citationsOf = (owner: 'brand' | number, filter: (day: string) => boolean) =>
    owned.filter((r) => r.owner === owner && filter(r.day)).reduce((s, r) => s + r.n, 0);

  const standings = (filter: (day: string) => boolean) => {
    const runs = sumRuns(filter);
    const allMentions = runs.naming + rivalMentions(filter);
    return {
      brand: {
        name: c.brand.name,
        visibility: percent(runs.naming, runs.answered),
        share_of_voice: percent(runs.naming, allMentions),
        position: meanPosition(runs.positionSum, runs.positionCount),
        citations: citationsOf('brand', filter),
      },
      rivals: top.map((rival) => {
        const of = mentionDays.filter((d) => filter(d.day)).map((d) => d.rivals.get(rival.id) ?? { n: 0, positionSum: 0 });
        const n = of.reduce((s, x) => s + x.n, 0);
        return {
          name: rival.name,
          visibility: percent(n, runs.answered),
          share_of_voice: percent(n, allMentions),
          position: meanPosition(of.reduce((s, x) => s + x.positionSum, 0), n),
          citations: citationsOf(rival.id, filter),
        };
      }),
    };
  };
  const days = Array.from({ length: daysBetween(c.period.from, c.period.to) + 1 }, (_, i) => addDays(c.period.from, i));

  // --- cited pages, topics, readiness
  const citedPages = [...new Set(ownCitations.filter((r) => r.current === 1).map((r) => r.url))]
    .map((url) => {
      const citations = ownCitations.find((r) => r.url === url && r.current === 1)?.citations ?? 0;
      const previousCitations = ownCitations.find((r) => r.url === url && r.current === 0)?.citations ?? 0;
      return { url, title: pages.find((p) => p.url === url)?.title ?? null, citations, previous_citations: previousCitations, change: citations - previousCitations };
    })
    .sort((a, b) => b.citations - a.citations || a.url.localeCompare(b.url))
    .slice(0, OVERVIEW_PAGES);
  // Weakest first; a topic with nothing measured is not "weak", so it goes last.
  const weakestFirst = topics.topics
    .map((t) => ({ id: t.id, name: t.name, score: t.score, change: t.change, rank: t.rank }))
    .sort((a, b) => (a.score ?? Infinity) - (b.score ?? Infinity) || a.id - b.id);
  const hasCrawlerData = integrations.results.some((r) => r.kind === 'edge_network' || r.kind === 'tracking_script');

  return {
    ...windowedScopeOf(c),
    previous_period: previous,
    visibility: { score, change: delta(score, percent(before.naming, before.answered)), answered_runs: now.answered, naming_runs: now.naming },
    share_of_voice: { share: sov, change: delta(sov, sovBefore), brand_mentions: now.naming, rival_mentions: rivalMentions(inPeriod) },
    competition: { ...standings(inPeriod), daily: days.map((day) => ({ day, ...standings((d) => d === day) })) },
    perception,
    cited_pages: citedPages,
    topics: weakestFirst,
    ai_traffic: traffic.included
      ? {
          included: true as const,
          visits: traffic.visits,
          previous_visits: traffic.previousVisits,
          top_assistants: traffic.topAssistants.slice(0, TOP_ASSISTANTS),
          crawler_hits: hasCrawlerData ? traffic.crawlerHits : null,
        }
      : traffic,
    readiness: {
      score: readinessScore(signals.results),
      signals: signals.results.map((s) => ({ signal: s.signal, value: round1(100 * s.value), weight: s.weight, note: s.note })),
    },
    tasks,
  };
};
