/**
 * Search performance joined to AI citations, AI crawler hits and AI visits.
 * Crawler and visitor traffic is recorded per site (brand), not per market:
 * these bodies name the market read, but their figures cover the brand's site.
 */
import * as z from 'zod';
import { type Period, previousPeriod } from '../../contract/window';
import { percent, round1 } from '../metrics';
import { ownCitationsByUrl } from '../queries';
import { windowedScopeOf } from './core';
import type { Implementation } from './context';

const Pages = z.array(z.string());

export const getSearchPerformance: Implementation<'getSearchPerformance'> = async (c) => {
  const { dimension, limit } = c.query;
  // `dimension` is one of two column names, checked by the contract's enum.
  const key = dimension === 'page' ? 'page' : 'query';
  const [{ results }, citationRows] = await Promise.all([
    c.db
      .prepare(
        `SELECT ${key} AS key, sum(clicks) AS clicks, sum(impressions) AS impressions,
                coalesce(sum(position * impressions) / nullif(sum(impressions), 0), avg(position)) AS position,
                json_group_array(DISTINCT page) AS pages
           FROM search_rows WHERE market_id = ? AND day BETWEEN ? AND ?
          GROUP BY ${key} ORDER BY impressions DESC, clicks DESC, key`,
      )
      .bind(c.market.id, c.period.from, c.period.to)
      .all<{ key: string; clicks: number; impressions: number; position: number; pages: string }>(),
    ownCitationsByUrl(c.db, c.market.id, c.brand, c.period),
  ]);
  const citations = new Map(citationRows.map((r) => [r.url, r.citations]));
  const rows = results.map((r) => {
    const pages = Pages.parse(JSON.parse(r.pages)).sort();
    const aiCitations = pages.reduce((s, p) => s + (citations.get(p) ?? 0), 0);
    return {
      key: r.key,
      clicks: r.clicks,
      impressions: r.impressions,
      ctr: percent(r.clicks, r.impressions),
      position: Math.max(1, round1(r.position)),
      pages,
      ai_citations: aiCitations,
      // "Ranks in search but is never cited by AI": seen in search results, cited by no answer of the window.
      search_only: r.impressions > 0 && aiCitations === 0,
    };
  });
  return {
    ...windowedScopeOf(c),
    dimension,
    totals: {
      clicks: rows.reduce((s, r) => s + r.clicks, 0),
      impressions: rows.reduce((s, r) => s + r.impressions, 0),
      rows: rows.length,
      search_only: rows.filter((r) => r.search_only).length,
    },
    rows: rows.slice(0, limit),
  };
};

/** Hits (or visits) per agent and URL over a window and the one before it, for a brand's site. */
async function trafficRows(db: D1Database, table: 'crawler_hits' | 'ai_visits', brandId: number, period: { from: string; to: string }) {
  const previous = previousPeriod(period);
  const [agent, count] = table === 'crawler_hits' ? ['bot', 'hits'] : ['assistant', 'visits'];
  const [{ results }, before, days] = await Promise.all([
    db
      .prepare(`SELECT ${agent} AS agent, url, sum(${count}) AS n, max(day) AS last_day FROM ${table} WHERE brand_id = ? AND day BETWEEN ? AND ? GROUP BY agent, url`)
      .bind(brandId, period.from, period.to)
      .all<{ agent: string; url: string; n: number; last_day: string }>(),
    db.prepare(`SELECT coalesce(sum(${count}), 0) AS n FROM ${table} WHERE brand_id = ? AND day BETWEEN ? AND ?`).bind(brandId, previous.from, previous.to).first<{ n: number }>(),
    db.prepare(`SELECT count(DISTINCT day) AS n FROM ${table} WHERE brand_id = ? AND day BETWEEN ? AND ? AND ${count} > 0`).bind(brandId, period.from, period.to).first<{ n: number }>(),
  ]);
  return { rows: results, previousTotal: before?.n ?? 0, daysWithTraffic: days?.n ?? 0 };
}

/** Agents by volume and pages by volume, each with its breakdown; ties by name. */
function breakdown(rows: { agent: string; url: string; n: number; last_day: string }[]) {
  const total = rows.reduce((s, r) => s + r.n, 0);
  const agents = [...new Set(rows.map((r) => r.agent))].map((agent) => {
    const of = rows.filter((r) => r.agent === agent);
    return {
      agent,
      n: of.reduce((s, r) => s + r.n, 0),
      share:
        percent(
          of.reduce((s, r) => s + r.n, 0),
          total,
        ) ?? 0,
      pages: of.length,
      last_seen: of
        .map((r) => r.last_day)
        .sort()
        .at(-1)!,
    };
  });
  agents.sort((a, b) => b.n - a.n || a.agent.localeCompare(b.agent));
  const pages = [...new Set(rows.map((r) => r.url))].map((url) => {
    const of = rows.filter((r) => r.url === url).sort((a, b) => b.n - a.n || a.agent.localeCompare(b.agent));
    return { url, n: of.reduce((s, r) => s + r.n, 0), agents: of.map((r) => ({ agent: r.agent, n: r.n })) };
  });
  pages.sort((a, b) => b.n - a.n || a.url.localeCompare(b.url));
  return { total, agents, pages };
}

export const getAiCrawlers: Implementation<'getAiCrawlers'> = async (c) => {
  const traffic = await trafficRows(c.db, 'crawler_hits', c.brand.id, c.period);
  const { total, agents, pages } = breakdown(traffic.rows);
  return {
    ...windowedScopeOf(c),
    total_hits: total,
    previous_hits: traffic.previousTotal,
    days_with_hits: traffic.daysWithTraffic,
    bots: agents.map((a) => ({ bot: a.agent, hits: a.n, share: a.share, pages: a.pages, last_seen: a.last_seen })),
    pages: pages.map((p) => ({ url: p.url, hits: p.n, bots: p.agents.map((a) => ({ bot: a.agent, hits: a.n })) })),
  };
};

export const getAiVisitors: Implementation<'getAiVisitors'> = async (c) => {
  const traffic = await trafficRows(c.db, 'ai_visits', c.brand.id, c.period);
  const { total, agents, pages } = breakdown(traffic.rows);
  return {
    ...windowedScopeOf(c),
    total_visits: total,
    previous_visits: traffic.previousTotal,
    change: total - traffic.previousTotal,
    assistants: agents.map((a) => ({ assistant: a.agent, visits: a.n, share: a.share, pages: a.pages })),
    pages: pages.map((p) => ({ url: p.url, visits: p.n, assistants: p.agents.map((a) => ({ assistant: a.agent, visits: a.n })) })),
  };
};

/**
 * What the overview shows of traffic, in two reads: visits per assistant in
 * the window and the one before it, and the crawler hits of the window.
 */
export async function trafficTotals(db: D1Database, brandId: number, period: Period, withCrawlers: boolean) {
  const previous = previousPeriod(period);
  const [visits, crawlers] = await Promise.all([
    db
      .prepare(
        `SELECT assistant, sum(CASE WHEN day >= ?1 THEN visits ELSE 0 END) AS now, sum(CASE WHEN day < ?1 THEN visits ELSE 0 END) AS before
           FROM ai_visits WHERE brand_id = ?2 AND day BETWEEN ?3 AND ?4 GROUP BY assistant`,
      )
      .bind(period.from, brandId, previous.from, period.to)
      .all<{ assistant: string; now: number; before: number }>(),
    withCrawlers ? db.prepare('SELECT coalesce(sum(hits), 0) AS n FROM crawler_hits WHERE brand_id = ? AND day BETWEEN ? AND ?').bind(brandId, period.from, period.to).first<{ n: number }>() : null,
  ]);
  const assistants = visits.results.filter((a) => a.now > 0).sort((a, b) => b.now - a.now || a.assistant.localeCompare(b.assistant));
  return {
    visits: assistants.reduce((s, a) => s + a.now, 0),
    previousVisits: visits.results.reduce((s, a) => s + a.before, 0),
    topAssistants: assistants.map((a) => ({ assistant: a.assistant, visits: a.now })),
    crawlerHits: crawlers ? crawlers.n : null,
  };
}
