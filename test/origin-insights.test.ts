/**
 * The insight, task, perception, traffic and overview operations through the
 * Worker, over the demo dataset: every 200 body is parsed with the
 * operation's response schema; filters, defaults and maxima of `limit`; the
 * plan (403), integration (409) and item (404) refusals. Every operation's
 * example request is read in origin-core.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../src/contract/enums';
import type { OperationId, ResponseOf } from '../src/contract/operations';
import { addDays, toDay } from '../src/contract/window';
import { api, json, KEYS } from './helpers';
import { zodSide } from '../src/contract/zod-side';

/** The contract's zod side: the response schemas the bodies are checked with. */
const zs = await zodSide();

/** GETs `path` and returns the body parsed by the operation's response schema; fails on any other status. */
async function read<Id extends OperationId>(id: Id, path: string, key: string = KEYS.pro): Promise<ResponseOf<Id>> {
  const response = await api(path, { key });
  const body = await json<unknown>(response);
  expect(response.status, JSON.stringify(body)).toBe(200);
  return zs.response(id).parse(body) as ResponseOf<Id>;
}

async function expectError(path: string, status: number, code: string, key: string = KEYS.pro, param?: string) {
  const response = await api(path, { key });
  const body = await json<{ error: { code: string; param?: string } }>(response);
  expect({ status: response.status, code: body.error.code, param: body.error.param }).toEqual({ status, code, param });
}

const today = toDay(new Date());
const isDescending = (xs: number[]) => xs.every((x, i) => i === 0 || xs[i - 1]! >= x);

describe('GET /content-gaps', () => {
  it('gives every question an action by the stated rule, write first', async () => {
    const body = await read('getContentGaps', '/content-gaps');
    expect(body.questions).toHaveLength(42);
    for (const q of body.questions) {
      expect(q.has_page).toBe(q.page !== null);
      expect(q.cited).toBe(q.page_citations > 0);
      expect(q.action).toBe(!q.has_page ? 'write' : q.cited ? 'leave' : 'improve');
    }
    const count = (a: string) => body.questions.filter((q) => q.action === a).length;
    expect(body.counts).toEqual({ write: count('write'), improve: count('improve'), leave: count('leave') });
    expect(body.counts.write).toBeGreaterThan(0);
    expect(body.counts.leave).toBeGreaterThan(0);
    const order = { write: 0, improve: 1, leave: 2 };
    expect(body.questions.map((q) => order[q.action])).toEqual(body.questions.map((q) => order[q.action]).sort());
    expect(body.period).toEqual({ from: addDays(today, -6), to: today });
  });
});

describe('GET /sources', () => {
  it('lists at most 15 domains by default, most cited first, classified', async () => {
    const body = await read('listSources', '/sources');
    expect(body.sources.length).toBe(Math.min(15, body.domains_cited));
    expect(isDescending(body.sources.map((s) => s.citations))).toBe(true);
    const byDomain = new Map(body.sources.map((s) => [s.domain, s]));
    expect(byDomain.get('brightdesk.com')).toMatchObject({ classification: 'own', rival: null });
    expect(byDomain.get('helpwave.io')).toMatchObject({ classification: 'competitor', rival: 'Helpwave' });
    expect(byDomain.get('g2.com')).toMatchObject({ classification: 'third_party', rival: null });
    expect(body.by_class.own + body.by_class.competitor + body.by_class.third_party).toBe(body.total_citations);
  });
  it('honours limit and its maximum of 100', async () => {
    expect((await read('listSources', '/sources?limit=2')).sources).toHaveLength(2);
    await read('listSources', '/sources?limit=100');
    await expectError('/sources?limit=101', 400, 'invalid_parameter', KEYS.pro, 'limit');
    await expectError('/sources?limit=0', 400, 'invalid_parameter', KEYS.pro, 'limit');
  });
});

describe('GET /pages', () => {
  it('compares own cited pages with the previous period of the same length, by engine and topic', async () => {
    const body = await read('listPages', '/pages?days=14');
    expect(body.previous_period).toEqual({ from: addDays(today, -27), to: addDays(today, -14) });
    expect(body.pages.length).toBeGreaterThan(0);
    const sum = (f: (p: (typeof body.pages)[number]) => number) => body.pages.reduce((s, p) => s + f(p), 0);
    expect(body.totals).toEqual({ citations: sum((p) => p.citations), previous_citations: sum((p) => p.previous_citations), change: sum((p) => p.change) });
    expect(body.by_engine.map((e) => e.engine)).toEqual([...ENGINES]);
    expect(body.by_engine.reduce((s, e) => s + e.citations, 0)).toBe(body.totals.citations);
    expect(body.by_topic.reduce((s, t) => s + t.citations, 0)).toBe(body.totals.citations);
    for (const p of body.pages) {
      expect(p.url.startsWith('https://www.brightdesk.com/')).toBe(true);
      expect(p.change).toBe(p.citations - p.previous_citations);
      expect(p.by_engine.reduce((s, e) => s + e.citations, 0)).toBe(p.citations);
    }
    expect(isDescending(body.pages.map((p) => p.citations))).toBe(true);
  });
  it('lists uncited topic pages with what is cited instead, never the brand itself', async () => {
    const body = await read('listPages', '/pages?days=1');
    const cited = new Set(body.pages.filter((p) => p.citations > 0).map((p) => p.url));
    expect(body.uncited.length).toBeGreaterThan(0);
    for (const u of body.uncited) {
      expect(cited.has(u.url)).toBe(false);
      expect(u.cited_instead.length).toBeLessThanOrEqual(3);
      for (const alt of u.cited_instead) expect(alt.classification).not.toBe('own');
    }
  });
  it('takes from and to', async () => {
    const body = await read('listPages', `/pages?from=${addDays(today, -20)}&to=${addDays(today, -10)}`);
    expect(body.period).toEqual({ from: addDays(today, -20), to: addDays(today, -10) });
    expect(body.previous_period).toEqual({ from: addDays(today, -31), to: addDays(today, -21) });
  });
});

describe('GET /competitors/{name}', () => {
  it('matches the name case-insensitively', async () => {
    for (const name of ['Helpwave', 'helpwave', 'HELPWAVE']) {
      const body = await read('getCompetitor', `/competitors/${name}`);
      expect(body.competitor).toEqual({ name: 'Helpwave', domain: 'helpwave.io' });
    }
  });
  it('decodes a URL-encoded name', async () => {
    const body = await read('getCompetitor', '/competitors/clearbooks%20PRO?brand_id=2', KEYS.growth);
    expect(body.competitor.name).toBe('Clearbooks Pro');
  });
  it('reports topics won by margin and questions won with what AI said', async () => {
    const body = await read('getCompetitor', '/competitors/Helpwave');
    for (const t of body.topics_won) expect(t.margin).toBeCloseTo(t.rival_share - t.brand_share, 1);
    expect(isDescending(body.topics_won.map((t) => t.margin))).toBe(true);
    for (const q of body.questions_won) {
      expect(q.rival_runs).toBeGreaterThan(q.brand_runs);
      if (q.what_ai_said) expect(q.what_ai_said.text).toContain('Helpwave');
    }
    for (const p of body.cited_pages) expect(new URL(p.url).hostname.endsWith('helpwave.io')).toBe(true);
  });
  it("answers 404 not_found for an unknown name and for another brand's rival", async () => {
    await expectError('/competitors/Nobody', 404, 'not_found');
    await expectError('/competitors/Bookwise', 404, 'not_found');
  });
});

describe('GET /activity', () => {
  it('lists 20 entries by default, newest first', async () => {
    const body = await read('listActivity', '/activity');
    expect(body.entries).toHaveLength(20);
    const times = body.entries.map((e) => e.occurred_at);
    expect(times).toEqual([...times].sort().reverse());
  });
  it('filters by category and honours limit up to 200', async () => {
    const body = await read('listActivity', '/activity?category=competitor&limit=200');
    expect(body.entries.length).toBe(5);
    expect(new Set(body.entries.map((e) => e.category))).toEqual(new Set(['competitor']));
    expect((await read('listActivity', '/activity?limit=200')).entries).toHaveLength(30);
    expect((await read('listActivity', '/activity?limit=1')).entries).toHaveLength(1);
    await expectError('/activity?limit=201', 400, 'invalid_parameter', KEYS.pro, 'limit');
    await expectError('/activity?category=gossip', 400, 'invalid_parameter', KEYS.pro, 'category');
  });
});

describe('GET /tasks and /tasks/{id}', () => {
  it('lists open tasks best first with open counts per layer', async () => {
    const body = await read('listTasks', '/tasks');
    expect(body.filter).toEqual({ layer: null, status: 'open' });
    expect(body.tasks.every((t) => t.status === 'open')).toBe(true);
    expect(body.tasks.length).toBe(Math.min(30, body.matching));
    const open = body.open_counts;
    expect(open.content + open.technical + open.authority + open.brand).toBe(body.matching);
    expect(isDescending(body.tasks.map((t) => t.expected_gain))).toBe(true);
    expect(Object.values(open).filter((n) => n > 0).length).toBeGreaterThanOrEqual(3);
  });
  it('filters by layer and status, and honours limit up to 100', async () => {
    const content = await read('listTasks', '/tasks?layer=content');
    expect(content.tasks.every((t) => t.layer === 'content' && t.status === 'open')).toBe(true);
    expect(content.matching).toBe(content.open_counts.content);
    const done = await read('listTasks', '/tasks?status=done');
    expect(done.tasks.length).toBeGreaterThan(0);
    expect(done.tasks.every((t) => t.status === 'done')).toBe(true);
    expect((await read('listTasks', '/tasks?limit=1')).tasks).toHaveLength(1);
    await read('listTasks', '/tasks?limit=100');
    await expectError('/tasks?limit=101', 400, 'invalid_parameter', KEYS.pro, 'limit');
    await expectError('/tasks?status=closed', 400, 'invalid_parameter', KEYS.pro, 'status');
  });
  it('gives the full brief of task 1', async () => {
    const { task } = await read('getTask', '/tasks/1');
    expect(task.id).toBe(1);
    expect(task.why.length).toBeGreaterThan(20);
    expect(task.steps.length).toBeGreaterThan(0);
    expect(task.evidence.length).toBeGreaterThan(0);
    expect(task.topics.length).toBeGreaterThan(0);
  });
  it("answers 404 for an unknown task, another brand's task and a task of another market", async () => {
    await expectError('/tasks/999999', 404, 'not_found');
    const other = await read('listTasks', '/tasks?brand_id=2&status=open', KEYS.growth);
    await expectError(`/tasks/${other.tasks[0]!.id}`, 404, 'not_found');
    await expectError('/tasks/1?market=de', 404, 'not_found');
  });
  it('answers 403 on Starter', async () => {
    await expectError('/tasks', 403, 'feature_not_in_plan', KEYS.starter);
    await expectError('/tasks/1', 403, 'feature_not_in_plan', KEYS.starter);
  });
});

describe('GET /brand-perception and /brand-perception/transcript', () => {
  it('gives each engine a verdict, what AI gets right and wrong, and weekly history', async () => {
    const body = await read('getBrandPerception', '/brand-perception');
    expect(body.engines.map((e) => e.engine)).toEqual([...ENGINES]);
    for (const e of body.engines) {
      expect(e.as_of).not.toBeNull();
      expect(e.history).toHaveLength(12);
      expect(e.history.at(-1)?.week_start).toBe(e.as_of);
      expect(e.gets_right.length).toBeGreaterThan(0);
    }
    expect(body.summary.engines_measured).toBe(6);
    expect(body.summary.engines_recommending).toBe(body.engines.filter((e) => e.recommends).length);
  });
  it('says "not measured" for a period before any perception week', async () => {
    const body = await read('getBrandPerception', `/brand-perception?from=${addDays(today, -200)}&to=${addDays(today, -150)}`);
    expect(body.engines.every((e) => e.as_of === null && e.knows_brand === null && e.history.length === 0)).toBe(true);
    expect(body.summary.recommend_rate).toBeNull();
  });
  it('gives full transcripts, filtered by engine', async () => {
    const all = await read('getPerceptionTranscript', '/brand-perception/transcript');
    expect(all.engine).toBeNull();
    expect(new Set(all.transcripts.map((t) => t.engine)).size).toBe(6);
    expect(Math.min(...all.transcripts.map((t) => t.answer.length))).toBeGreaterThan(500);
    const claude = await read('getPerceptionTranscript', '/brand-perception/transcript?engine=claude');
    expect(claude.transcripts.length).toBeGreaterThan(0);
    expect(claude.transcripts.every((t) => t.engine === 'claude')).toBe(true);
    await expectError('/brand-perception/transcript?engine=bard', 400, 'invalid_parameter', KEYS.pro, 'engine');
  });
  it('answers 403 on Starter', async () => {
    await expectError('/brand-perception', 403, 'feature_not_in_plan', KEYS.starter);
    await expectError('/brand-perception/transcript', 403, 'feature_not_in_plan', KEYS.starter);
  });
});

describe('GET /forum', () => {
  it('gives per topic its threads of the window and weekly summary', async () => {
    const body = await read('getForumSignals', '/forum?days=90');
    expect(body.topics).toHaveLength(6);
    for (const t of body.topics) {
      expect(t.summary).not.toBeNull();
      expect(t.threads.length).toBe(Math.min(20, t.threads_total));
      expect(t.threads_cited).toBeGreaterThanOrEqual(t.threads.filter((th) => th.cited).length);
      for (const th of t.threads) expect(th.cited).toBe(th.ai_citations > 0);
    }
    expect(body.topics.some((t) => t.threads_cited > 0)).toBe(true);
  });
  it('honours limit per topic up to 50', async () => {
    const body = await read('getForumSignals', '/forum?days=90&limit=1');
    expect(body.topics.every((t) => t.threads.length <= 1)).toBe(true);
    await read('getForumSignals', '/forum?limit=50');
    await expectError('/forum?limit=51', 400, 'invalid_parameter', KEYS.pro, 'limit');
    await expectError('/forum', 403, 'feature_not_in_plan', KEYS.starter);
  });
});

describe('GET /search-performance', () => {
  it('defaults to 28 days, queries, 25 rows by impressions', async () => {
    const body = await read('getSearchPerformance', '/search-performance');
    expect(body.period).toEqual({ from: addDays(today, -27), to: today });
    expect(body.dimension).toBe('query');
    expect(body.rows.length).toBe(Math.min(25, body.totals.rows));
    expect(isDescending(body.rows.map((r) => r.impressions))).toBe(true);
  });
  it('marks pages that rank in search but no answer cites', async () => {
    const body = await read('getSearchPerformance', '/search-performance?dimension=page&limit=1000');
    const pricing = body.rows.find((r) => r.key === 'https://www.brightdesk.com/pricing');
    expect(pricing).toMatchObject({ ai_citations: 0, search_only: true });
    expect(body.rows.some((r) => r.ai_citations > 0 && !r.search_only)).toBe(true);
    expect(body.totals.search_only).toBe(body.rows.filter((r) => r.search_only).length);
    for (const r of body.rows) expect(r.pages).toEqual([r.key]);
  });
  it('honours limit up to 1000 and refuses dates other than days', async () => {
    expect((await read('getSearchPerformance', '/search-performance?limit=3')).rows).toHaveLength(3);
    await expectError('/search-performance?limit=1001', 400, 'invalid_parameter', KEYS.pro, 'limit');
    await expectError('/search-performance?from=2026-01-01', 400, 'invalid_parameter', KEYS.pro, 'from');
    await expectError('/search-performance?dimension=device', 400, 'invalid_parameter', KEYS.pro, 'dimension');
  });
  it('answers 409 for the brand without the integration', async () => {
    await expectError('/search-performance?brand_id=3', 409, 'integration_not_connected', KEYS.growth);
    await read('getSearchPerformance', '/search-performance?brand_id=2', KEYS.growth);
  });
});

describe('GET /ai-crawlers and /ai-visitors', () => {
  it('give bots and assistants by volume with their pages', async () => {
    const crawlers = await read('getAiCrawlers', '/ai-crawlers?days=30');
    expect(crawlers.total_hits).toBe(crawlers.bots.reduce((s, b) => s + b.hits, 0));
    expect(crawlers.total_hits).toBe(crawlers.pages.reduce((s, p) => s + p.hits, 0));
    expect(isDescending(crawlers.bots.map((b) => b.hits))).toBe(true);
    expect(crawlers.days_with_hits).toBeLessThanOrEqual(30);
    const visitors = await read('getAiVisitors', '/ai-visitors?days=30');
    expect(visitors.total_visits).toBe(visitors.assistants.reduce((s, a) => s + a.visits, 0));
    expect(visitors.change).toBe(visitors.total_visits - visitors.previous_visits);
  });
  it('answer 409 on /ai-crawlers for the brand without crawler data, 403 on Starter', async () => {
    await expectError('/ai-crawlers?brand_id=3', 409, 'integration_not_connected', KEYS.growth);
    await read('getAiCrawlers', '/ai-crawlers?brand_id=2', KEYS.growth);
    await read('getAiVisitors', '/ai-visitors?brand_id=3', KEYS.growth);
    await expectError('/ai-crawlers', 403, 'feature_not_in_plan', KEYS.starter);
    await expectError('/ai-visitors', 403, 'feature_not_in_plan', KEYS.starter);
  });
});

describe('GET /overview', () => {
  it('gives the whole home view on Pro', async () => {
    const body = await read('getOverview', '/overview');
    expect(body.competition.rivals).toHaveLength(3);
    expect(body.competition.daily.map((d) => d.day)).toEqual(Array.from({ length: 7 }, (_, i) => addDays(today, i - 6)));
    expect(body.competition.brand.visibility).toBe(body.visibility.score);
    expect(body.share_of_voice.share).toBe(body.competition.brand.share_of_voice);
    expect(body.perception.included).toBe(true);
    expect(body.ai_traffic).toMatchObject({ included: true });
    expect(body.tasks).toMatchObject({ included: true });
    const scores = body.topics.map((t) => t.score ?? Infinity);
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    expect(body.readiness.signals).toHaveLength(6);
    expect(body.readiness.score).not.toBeNull();
    expect(body.cited_pages.length).toBeLessThanOrEqual(5);
  });
  it('agrees with /visibility over the same 7 days', async () => {
    const overview = await read('getOverview', '/overview');
    const visibility = await json<{ score: number | null; naming_runs: number }>(await api('/visibility'));
    expect(overview.visibility.score).toBe(visibility.score);
    expect(overview.visibility.naming_runs).toBe(visibility.naming_runs);
  });
  it('says on Starter which parts the plan does not include, instead of failing', async () => {
    const body = await read('getOverview', '/overview', KEYS.starter);
    for (const part of [body.perception, body.ai_traffic, body.tasks]) expect(part).toMatchObject({ included: false, reason: 'not_in_plan' });
    expect(body.visibility.score).not.toBeNull();
  });
  it('gives no crawler figure for a brand without crawler data', async () => {
    const body = await read('getOverview', '/overview?brand_id=3', KEYS.growth);
    expect(body.ai_traffic).toMatchObject({ included: true, crawler_hits: null });
  });
});
