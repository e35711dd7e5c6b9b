/**
 * The home view: visibility, share of voice and the standing against the top
 * rivals (overall and per day), perception, cited pages, topics weakest
 * first, AI traffic, the AI readiness score and open tasks per layer.
 */
import { addDays, daysBetween, type Period, previousPeriod } from '../../contract/window';
import type { Caller } from '../access';
import { classifyDomain, delta, meanPosition, percent, round1 } from '../metrics';
import { dailyTotals, domainCitationsByDay, openTaskCounts, ownCitationsByUrl, ownDomains, ownPagesOf, rivalsOf } from '../queries';
import { listTopics, windowedScopeOf } from './core';
import type { Implementation, OpContext } from './context';
import { perceptionOf } from './perception';
import { trafficTotals } from './traffic';

/** `position_days.rival_id` of the brand itself (migration 0006). */
const BRAND = 0;
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
const whenIncluded = async <T>(caller: Caller, what: string, read: () => Promise<T>) => (caller.includesInsights ? { included: true as const, ...(await read()) } : notInPlan(what));

/**
 * AI readiness: 100 x sum(weight x value) / sum(weight) over the market's
 * stored signals (each value 0 to 1), one decimal; null when none is stored.
 */
export function readinessScore(signals: { value: number; weight: number }[]): number | null {
  const weights = signals.reduce((s, x) => s + x.weight, 0);
  return weights > 0 ? round1((100 * signals.reduce((s, x) => s + x.weight * x.value, 0)) / weights) : null;
}

/** What one stretch of days adds up to: runs, the brand's positions, every rival's mentions and positions, and citations per owner. */
interface Tally {
  answered: number;
  naming: number;
  /** Mentions and position sums by name: 0 is the brand, else the rival's id. */
  named: Map<number, { n: number; positionSum: number }>;
  citations: Map<'brand' | number, number>;
}

/**
 * The competition part is read from the daily counts (migrations 0002, 0005,
 * 0006), never from runs, so a 90-day overview reads a few thousand rows:
 * runs per day, mentions and positions per day and name, citations per day and domain.
 */
async function dailyCounts(c: OpContext, span: Period) {
  const [runs, positions, citations] = await Promise.all([
    dailyTotals(c.db, c.market.id, span),
    c.db
      .prepare('SELECT day, rival_id, named, position_sum FROM position_days WHERE market_id = ? AND day BETWEEN ? AND ?')
      .bind(c.market.id, span.from, span.to)
      .all<{ day: string; rival_id: number; named: number; position_sum: number }>(),
    // Citations matter for the period only: the change is not reported for them.
    domainCitationsByDay(c.db, c.market.id, c.period),
  ]);
  return { runs, positions: positions.results, citations };
}

export const getOverview: Implementation<'getOverview'> = async (c) => {
  const previous = previousPeriod(c.period);
  const inPeriod = (day: string) => day >= c.period.from && day <= c.period.to;
  const inPrevious = (day: string) => day < c.period.from;
  const [counts, rivals, topics, ownCitations, pages, signals, perception, traffic, tasks] = await Promise.all([
    dailyCounts(c, { from: previous.from, to: c.period.to }),
    rivalsOf(c.db, c.brand.id),
    listTopics(c as unknown as OpContext<'listTopics'>),
    ownCitationsByUrl(c.db, c.market.id, c.brand, c.period, previous),
    ownPagesOf(c.db, c.market.id),
    c.db
      .prepare('SELECT signal, value, weight, note FROM readiness_signals WHERE market_id = ? ORDER BY weight DESC, signal')
      .bind(c.market.id)
      .all<{ signal: string; value: number; weight: number; note: string }>(),
    whenIncluded(c.caller, 'Brand perception', async () => {
      const p = await perceptionOf(c.db, c.market.id, c.period);
      return { ...p.summary, engines: p.engines.map((e) => ({ engine: e.engine, knows_brand: e.knows_brand, recommends: e.recommends })) };
    }),
    whenIncluded(c.caller, 'AI traffic', async () => {
      const { results } = await c.db.prepare('SELECT kind FROM integrations WHERE brand_id = ?').bind(c.brand.id).all<{ kind: string }>();
      // Crawler data needs the edge-network integration or the tracking script, as on /ai-crawlers; without either it is null.
      const hasCrawlerData = results.some((r) => r.kind === 'edge_network' || r.kind === 'tracking_script');
      return trafficTotals(c.db, c.brand.id, c.period, hasCrawlerData);
    }),
    whenIncluded(c.caller, 'Tasks', async () => {
      const open = await openTaskCounts(c.db, c.market.id);
      return { open_counts: open, open_total: Object.values(open).reduce((s, n) => s + n, 0) };
    }),
  ]);

  // Each cited domain's owner, found once: the brand, a rival's id, or nobody (a third party).
  const ownDomainList = ownDomains(c.brand);
  const ownerOf = (domain: string): 'brand' | number | null => {
    if (classifyDomain(domain, ownDomainList, []) === 'own') return 'brand';
    return rivals.find((r) => classifyDomain(domain, [], [r.domain]) === 'competitor')?.id ?? null;
  };
  const owners = new Map<string, 'brand' | number | null>();

  const tally = (filter: (day: string) => boolean): Tally => {
    const t: Tally = { answered: 0, naming: 0, named: new Map(), citations: new Map() };
    for (const [day, r] of counts.runs) {
      if (!filter(day)) continue;
      t.answered += r.answered;
      t.naming += r.naming;
    }
    for (const p of counts.positions) {
      if (!filter(p.day)) continue;
      const named = t.named.get(p.rival_id) ?? { n: 0, positionSum: 0 };
      t.named.set(p.rival_id, { n: named.n + p.named, positionSum: named.positionSum + p.position_sum });
    }
    for (const r of counts.citations) {
      if (!filter(r.day)) continue;
      if (!owners.has(r.domain)) owners.set(r.domain, ownerOf(r.domain));
      const owner = owners.get(r.domain);
      if (owner !== null && owner !== undefined) t.citations.set(owner, (t.citations.get(owner) ?? 0) + r.citations);
    }
    return t;
  };
  const rivalMentions = (t: Tally) => [...t.named].filter(([id]) => id !== BRAND).reduce((s, [, x]) => s + x.n, 0);

  // --- visibility and share of voice, this period against the previous one
  const now = tally(inPeriod);
  const before = tally(inPrevious);
  const score = percent(now.naming, now.answered);
  const sov = percent(now.naming, now.naming + rivalMentions(now));
  const sovBefore = percent(before.naming, before.naming + rivalMentions(before));

  // --- standing of the brand and its top rivals (the most named in the period; never named is not "top"), overall and per day
  const top = rivals
    .map((rival) => ({ rival, n: now.named.get(rival.id)?.n ?? 0 }))
    .filter((m) => m.n > 0)
    .sort((a, b) => b.n - a.n || a.rival.name.localeCompare(b.rival.name))
    .slice(0, TOP_RIVALS)
    .map((m) => m.rival);
  const standings = (t: Tally) => {
    const allMentions = t.naming + rivalMentions(t);
    const brand = t.named.get(BRAND);
    return {
      brand: {
        name: c.brand.name,
        visibility: percent(t.naming, t.answered),
        share_of_voice: percent(t.naming, allMentions),
        position: meanPosition(brand?.positionSum ?? 0, brand?.n ?? 0),
        citations: t.citations.get('brand') ?? 0,
      },
      rivals: top.map((rival) => {
        const named = t.named.get(rival.id) ?? { n: 0, positionSum: 0 };
        return {
          name: rival.name,
          visibility: percent(named.n, t.answered),
          share_of_voice: percent(named.n, allMentions),
          position: meanPosition(named.positionSum, named.n),
          citations: t.citations.get(rival.id) ?? 0,
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

  return {
    ...windowedScopeOf(c),
    previous_period: previous,
    visibility: { score, change: delta(score, percent(before.naming, before.answered)), answered_runs: now.answered, naming_runs: now.naming },
    share_of_voice: { share: sov, change: delta(sov, sovBefore), brand_mentions: now.naming, rival_mentions: rivalMentions(now) },
    competition: { ...standings(now), daily: days.map((day) => ({ day, ...standings(tally((d) => d === day)) })) },
    perception,
    cited_pages: citedPages,
    topics: weakestFirst,
    ai_traffic: traffic.included
      ? {
          included: true as const,
          visits: traffic.visits,
          previous_visits: traffic.previousVisits,
          top_assistants: traffic.topAssistants.slice(0, TOP_ASSISTANTS),
          crawler_hits: traffic.crawlerHits,
        }
      : traffic,
    readiness: {
      score: readinessScore(signals.results),
      signals: signals.results.map((s) => ({ signal: s.signal, value: round1(100 * s.value), weight: s.weight, note: s.note })),
    },
    tasks,
  };
};
