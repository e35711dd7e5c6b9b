/**
 * The insight operations over a world small enough to work out by hand:
 * brand Gizmo (gizmo.com, account/brand 800, market `us` 8001 and `de` 8002),
 * rivals Acme (acme.io) and Big Co (bigco.com), topics Widgets (q1, q2) and
 * Pricing (q3), two engines, ten runs. Every expected figure is derived in
 * the comments next to it, from the tables below. T is today; "T-3" is three
 * days ago. The default 7-day window is T-6..T, the one before it T-13..T-7.
 */
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OperationId, ResponseOf } from '../src/contract/operations';
import { addDays, toDay } from '../src/contract/window';
import { sha256Hex } from '../src/lib/hash';
import { api, json } from './helpers';
import { zodSide } from '../src/contract/zod-side';

/** The contract's zod side: the response schemas the bodies are checked with. */
const zs = await zodSide();

const KEY = 'fixture_insights_key';
const ID = {
  account: 800,
  brand: 800,
  us: 8001,
  de: 8002,
  acme: 8001,
  bigco: 8002,
  widgets: 800101,
  pricing: 800102,
  q1: 80010101,
  q2: 80010102,
  q3: 80010201,
} as const;

const URL_ = {
  widgets: 'https://www.gizmo.com/widgets', // own page P1: topic Widgets, question q1
  pricing: 'https://www.gizmo.com/pricing', // own page P2: topic Pricing, question q3
  hub: 'https://www.gizmo.com/topics/widgets', // own page P3: topic Widgets, no question; never cited
  blog: 'https://blog.gizmo.com/q2-post', // own subdomain, not a known page
  careers: 'https://www.gizmo.com/careers', // only in search rows
  acme: 'https://www.acme.io/widgets', // Acme's page
  g2Widgets: 'https://www.g2.com/widgets',
  g2Pricing: 'https://www.g2.com/pricing',
  thread1: 'https://www.reddit.com/r/gizmo/comments/1/',
  thread2: 'https://news.ycombinator.com/item?id=2',
  thread3: 'https://www.reddit.com/r/gizmo/comments/3/',
  thread4: 'https://www.reddit.com/r/gizmo/comments/4/',
} as const;

type Engine = 'chatgpt' | 'perplexity';
// [n, question, engine, days ago, state, brand position, [rival, position][], cited URLs]
const RUNS: [number, number, Engine, number, string, number | null, [number, number][], string[]][] = [
  // current window T-6..T
  [1, ID.q1, 'chatgpt', 0, 'recommended', 1, [[ID.acme, 2]], [URL_.widgets, URL_.g2Widgets]],
  [
    2,
    ID.q1,
    'perplexity',
    1,
    'absent',
    null,
    [
      [ID.acme, 1],
      [ID.bigco, 2],
    ],
    [URL_.acme, URL_.g2Widgets],
  ],
  [3, ID.q2, 'chatgpt', 2, 'absent', null, [[ID.acme, 1]], [URL_.acme, URL_.thread1]],
  [4, ID.q2, 'perplexity', 3, 'mentioned', 2, [[ID.acme, 1]], [URL_.blog]],
  [5, ID.q3, 'chatgpt', 4, 'open', null, [], [URL_.g2Pricing]],
  [6, ID.q3, 'perplexity', 5, 'no_answer', null, [], []],
  [7, ID.q1, 'chatgpt', 6, 'mentioned', 1, [[ID.bigco, 2]], [URL_.widgets]],
  // previous window T-13..T-7
  [8, ID.q1, 'chatgpt', 7, 'mentioned', 1, [], [URL_.widgets]],
  [9, ID.q1, 'perplexity', 8, 'recommended', 1, [], [URL_.widgets, URL_.pricing]],
  [10, ID.q3, 'chatgpt', 10, 'absent', null, [[ID.acme, 1]], [URL_.pricing]],
];
const runId = (n: number) => 800_000_000 + n;

const T = toDay(new Date());
const day = (daysAgo: number) => addDays(T, -daysAgo);
const at = (daysAgo: number, hour: number) => `${day(daysAgo)}T${String(hour).padStart(2, '0')}:00:00Z`;

async function loadWorld(): Promise<void> {
  if (await env.DB.prepare('SELECT 1 FROM brands WHERE id = ?').bind(ID.brand).first()) return;
  const db = env.DB;
  const row = (table: string, values: Record<string, string | number | null>) =>
    db
      .prepare(
        `INSERT INTO ${table} (${Object.keys(values).join(', ')}) VALUES (${Object.keys(values)
          .map(() => '?')
          .join(', ')})`,
      )
      .bind(...Object.values(values));
  const s = [
    row('accounts', { id: ID.account, name: 'Gizmo Ltd', plan_id: 'pro', plan_active: 1 }),
    row('api_keys', { id: ID.account, account_id: ID.account, key_hash: await sha256Hex(KEY), label: 'fixture', created_at: '2026-01-01T00:00:00Z' }),
    row('brands', { id: ID.brand, account_id: ID.account, name: 'Gizmo', domain: 'gizmo.com', category: 'widget software' }),
    row('markets', { id: ID.us, brand_id: ID.brand, code: 'us', name: 'United States', language: 'en', country: 'US', is_primary: 1 }),
    row('markets', { id: ID.de, brand_id: ID.brand, code: 'de', name: 'Germany', language: 'de', country: 'DE', is_primary: 0 }),
    row('rivals', { id: ID.acme, brand_id: ID.brand, name: 'Acme', domain: 'acme.io' }),
    row('rivals', { id: ID.bigco, brand_id: ID.brand, name: 'Big Co', domain: 'bigco.com' }),
    row('integrations', { brand_id: ID.brand, kind: 'search_performance', connected_at: '2026-01-01T00:00:00Z' }),
    row('integrations', { brand_id: ID.brand, kind: 'tracking_script', connected_at: '2026-01-01T00:00:00Z' }),
    row('topics', { id: ID.widgets, brand_id: ID.brand, market_id: ID.us, name: 'Widgets', analysed_on: T }),
    row('topics', { id: ID.pricing, brand_id: ID.brand, market_id: ID.us, name: 'Pricing', analysed_on: T }),
    row('questions', { id: ID.q1, topic_id: ID.widgets, market_id: ID.us, text: 'What is the best widget tool?' }),
    row('questions', { id: ID.q2, topic_id: ID.widgets, market_id: ID.us, text: 'Which widget tool is fastest?' }),
    row('questions', { id: ID.q3, topic_id: ID.pricing, market_id: ID.us, text: 'How much do widget tools cost?' }),
    row('pages', { id: 800001, brand_id: ID.brand, market_id: ID.us, rival_id: null, url: URL_.widgets, title: 'Widgets guide', topic_id: ID.widgets, question_id: ID.q1 }),
    row('pages', { id: 800002, brand_id: ID.brand, market_id: ID.us, rival_id: null, url: URL_.pricing, title: 'Pricing', topic_id: ID.pricing, question_id: ID.q3 }),
    row('pages', { id: 800003, brand_id: ID.brand, market_id: ID.us, rival_id: null, url: URL_.hub, title: 'All about widgets', topic_id: ID.widgets, question_id: null }),
    row('pages', { id: 800004, brand_id: ID.brand, market_id: ID.us, rival_id: ID.acme, url: URL_.acme, title: 'Acme widgets', topic_id: ID.widgets, question_id: null }),
  ];
  for (const [n, question, engine, daysAgo, state, position, rivals, urls] of RUNS) {
    s.push(row('runs', { id: runId(n), market_id: ID.us, question_id: question, engine, day: day(daysAgo), ran_at: at(daysAgo, 8), state, position, answer: `Answer ${n}` }));
    for (const [rival, rank] of rivals) s.push(row('run_rivals', { run_id: runId(n), market_id: ID.us, day: day(daysAgo), question_id: question, engine, rival_id: rival, position: rank }));
    for (const url of urls)
      s.push(row('run_citations', { run_id: runId(n), market_id: ID.us, day: day(daysAgo), question_id: question, engine, url, domain: new URL(url).hostname.replace(/^www\./, '') }));
  }
  // Activity: a5 ties with a2 on time, so the higher id comes first.
  const activity: [number, string, number, number][] = [
    [1, 'visibility', 1, 10],
    [2, 'citation', 0, 8],
    [3, 'competitor', 3, 9],
    [4, 'citation', 2, 9],
    [5, 'task', 0, 8],
  ];
  for (const [n, category, daysAgo, hour] of activity)
    s.push(row('activity', { id: 800_000 + n, brand_id: ID.brand, market_id: ID.us, category, title: `Event ${n}`, detail: `Detail ${n}`, occurred_at: at(daysAgo, hour) }));
  // Tasks: [n, market, layer, status, impact (tenths of a point), effort]
  const tasks: [number, number, string, string, number, string][] = [
    [1, ID.us, 'content', 'open', 40, 'high'],
    [2, ID.us, 'technical', 'open', 40, 'low'],
    [3, ID.us, 'authority', 'open', 55, 'medium'],
    [4, ID.us, 'content', 'done', 90, 'low'],
    [5, ID.us, 'content', 'open', 40, 'high'],
    [6, ID.us, 'brand', 'in_progress', 10, 'low'],
    [7, ID.de, 'content', 'open', 99, 'low'],
  ];
  for (const [n, market, layer, status, impact, effort] of tasks)
    s.push(
      row('tasks', {
        id: 800_000 + n,
        brand_id: ID.brand,
        market_id: market,
        title: `Task ${n}`,
        layer,
        status,
        impact,
        effort,
        why: `Why ${n}`,
        steps: JSON.stringify([`Step ${n}.1`, `Step ${n}.2`]),
        evidence: JSON.stringify([
          { kind: 'answer', text: 'Acme named instead' },
          { kind: 'citation', text: 'Acme page cited', url: URL_.acme },
        ]),
        created_at: at(10, 9),
        updated_at: at(1, 9),
      }),
    );
  s.push(
    row('task_topics', { task_id: 800_003, topic_id: ID.widgets }),
    row('task_topics', { task_id: 800_003, topic_id: ID.pricing }),
    row('task_topics', { task_id: 800_001, topic_id: ID.widgets }),
  );
  // Perception: chatgpt has a week overlapping T-6..T; perplexity's latest week starts T-16, too early.
  const weeks: [Engine, number, number, number, number, string[], string[]][] = [
    ['chatgpt', 16, 1, 0, 0.1, ['Old right'], []],
    ['chatgpt', 9, 1, 0, 0.2, ['Right 9'], ['Wrong 9']],
    ['chatgpt', 2, 1, 1, 0.5, ['Knows the API'], ['Quotes old prices']],
    ['perplexity', 23, 0, 0, -0.3, [], ['Unknown brand']],
    ['perplexity', 16, 0, 0, -0.2, [], ['Confuses it with Acme']],
  ];
  for (const [engine, daysAgo, knows, recommends, sentiment, right, wrong] of weeks)
    s.push(
      row('perception_weeks', { market_id: ID.us, engine, week_start: day(daysAgo), knows_brand: knows, recommends, sentiment, gets_right: JSON.stringify(right), gets_wrong: JSON.stringify(wrong) }),
    );
  s.push(
    row('perception_transcripts', { id: 800_001, market_id: ID.us, engine: 'chatgpt', asked_at: at(1, 6), prompt: 'What is Gizmo?', answer: `Gizmo is ${'very '.repeat(1000)}good.` }),
    row('perception_transcripts', { id: 800_002, market_id: ID.us, engine: 'perplexity', asked_at: at(0, 6), prompt: 'Is Gizmo any good?', answer: 'It depends.' }),
    row('perception_transcripts', { id: 800_003, market_id: ID.us, engine: 'chatgpt', asked_at: at(8, 6), prompt: 'What is Gizmo?', answer: 'A widget tool.' }),
  );
  // Forum threads of Widgets: [n, url, posted days ago]
  const threads: [number, string, number][] = [
    [1, URL_.thread1, 30],
    [2, URL_.thread2, 2],
    [3, URL_.thread3, 40],
    [4, URL_.thread4, 1],
  ];
  for (const [n, url, daysAgo] of threads)
    s.push(row('forum_threads', { id: 800_010 + n, topic_id: ID.widgets, url, title: `Thread ${n}`, forum: 'Reddit', posted_on: day(daysAgo), replies: n * 10 }));
  for (const [daysAgo, text] of [
    [16, 'Older summary'],
    [9, 'Last week'],
    [2, 'This week'],
  ] as const)
    s.push(row('forum_summaries', { topic_id: ID.widgets, week_start: day(daysAgo), summary: text }));
  // Search rows: [days ago, query, page, clicks, impressions, position]
  const search: [number, string, string, number, number, number][] = [
    [1, 'gizmo widgets', URL_.widgets, 10, 100, 2],
    [3, 'gizmo widgets', URL_.widgets, 5, 300, 4],
    [1, 'gizmo widgets', URL_.hub, 0, 50, 8],
    [2, 'gizmo pricing', URL_.pricing, 20, 500, 1.5],
    [5, 'gizmo careers', URL_.careers, 1, 80, 6],
    [40, 'gizmo widgets', URL_.widgets, 50, 999, 3],
  ];
  for (const [daysAgo, query, page, clicks, impressions, position] of search) s.push(row('search_rows', { market_id: ID.us, day: day(daysAgo), query, page, clicks, impressions, position }));
  const crawls: [number, string, string, number][] = [
    [1, 'GPTBot', URL_.widgets, 10],
    [1, 'GPTBot', URL_.pricing, 5],
    [2, 'ClaudeBot', URL_.widgets, 7],
    [0, 'ClaudeBot', URL_.widgets, 3],
    [8, 'GPTBot', URL_.widgets, 4],
  ];
  for (const [daysAgo, bot, url, hits] of crawls) s.push(row('crawler_hits', { brand_id: ID.brand, day: day(daysAgo), bot, url, hits }));
  const visits: [number, string, string, number][] = [
    [1, 'chatgpt', URL_.widgets, 12],
    [3, 'perplexity', URL_.widgets, 3],
    [3, 'chatgpt', URL_.pricing, 6],
    [9, 'chatgpt', URL_.widgets, 20],
  ];
  for (const [daysAgo, assistant, url, n] of visits) s.push(row('ai_visits', { brand_id: ID.brand, day: day(daysAgo), assistant, url, visits: n }));
  for (const [signal, value, weight] of [
    ['a_signal', 0.5, 3],
    ['b_signal', 1, 1],
    ['c_signal', 0, 1],
  ] as const)
    s.push(row('readiness_signals', { market_id: ID.us, signal, value, weight, note: `Note ${signal}` }));
  await db.batch(s);
}

async function read<Id extends OperationId>(id: Id, path: string): Promise<ResponseOf<Id>> {
  const response = await api(path, { key: KEY });
  const body = await json<unknown>(response);
  expect(response.status, JSON.stringify(body)).toBe(200);
  return zs.response(id).parse(body) as ResponseOf<Id>;
}

beforeAll(loadWorld);

describe('content gaps (fixture)', () => {
  it('applies write / improve / leave per question', async () => {
    const body = await read('getContentGaps', '/content-gaps');
    // q2: no page of its own (the blog post is not a known page) -> write; visibility: runs 3, 4 answered, 4 names -> 1/2 = 50.
    // q3: page P2, but P2 was cited only in runs 9 and 10, before the window -> improve; runs 5 (open) answered, 6 not -> 0/1 = 0.
    // q1: page P1, cited by runs 1 and 7 -> leave, 2 citations; runs 1, 2, 7 answered, 1 and 7 name -> 2/3 = 66.7.
    expect(body.questions.map((q) => [q.question_id, q.action, q.page?.url ?? null, q.page_citations, q.visibility])).toEqual([
      [ID.q2, 'write', null, 0, 50],
      [ID.q3, 'improve', URL_.pricing, 0, 0],
      [ID.q1, 'leave', URL_.widgets, 2, 66.7],
    ]);
    expect(body.counts).toEqual({ write: 1, improve: 1, leave: 1 });
  });
});

describe('sources (fixture)', () => {
  it('counts and classifies every cited domain of the window', async () => {
    const body = await read('listSources', '/sources');
    // Citations T-6..T: g2.com runs 1, 2, 5 = 3; acme.io runs 2, 3 = 2; gizmo.com runs 1, 7 = 2;
    // blog.gizmo.com run 4 = 1; reddit.com run 3 = 1. Total 9. Ties by domain name.
    expect(body.sources).toEqual([
      { domain: 'g2.com', citations: 3, share: 33.3, classification: 'third_party', rival: null },
      { domain: 'acme.io', citations: 2, share: 22.2, classification: 'competitor', rival: 'Acme' },
      { domain: 'gizmo.com', citations: 2, share: 22.2, classification: 'own', rival: null },
      { domain: 'blog.gizmo.com', citations: 1, share: 11.1, classification: 'own', rival: null }, // a subdomain is the parent's
      { domain: 'reddit.com', citations: 1, share: 11.1, classification: 'third_party', rival: null },
    ]);
    // own 2 + 1 = 3; competitor 2; third party 3 + 1 = 4.
    expect(body).toMatchObject({ total_citations: 9, domains_cited: 5, by_class: { own: 3, competitor: 2, third_party: 4 } });
  });
  it('cuts the list at limit, not the totals', async () => {
    const body = await read('listSources', '/sources?limit=2');
    expect(body.sources.map((s) => s.domain)).toEqual(['g2.com', 'acme.io']);
    expect(body).toMatchObject({ total_citations: 9, domains_cited: 5 });
  });
});

describe('cited pages (fixture)', () => {
  it('compares the 7 days with the 7 before, by engine and topic', async () => {
    const body = await read('listPages', '/pages');
    expect(body.previous_period).toEqual({ from: day(13), to: day(7) });
    // P1 widgets: now runs 1, 7 (chatgpt); before runs 8 (chatgpt), 9 (perplexity); all answers of Widgets questions.
    // blog post: now run 4 (perplexity, q2 in Widgets); before none. Unknown page: no title, no topic.
    // P2 pricing: now none; before run 9 (perplexity, q1: Widgets) and run 10 (chatgpt, q3: Pricing).
    expect(body.pages.map((p) => [p.url, p.title, p.topic?.id ?? null, p.citations, p.previous_citations, p.change])).toEqual([
      [URL_.widgets, 'Widgets guide', ID.widgets, 2, 2, 0],
      [URL_.blog, null, null, 1, 0, 1],
      [URL_.pricing, 'Pricing', ID.pricing, 0, 2, -2],
    ]);
    const pricing = body.pages[2]!;
    expect(pricing.by_engine.filter((e) => e.citations + e.previous_citations > 0)).toEqual([
      { engine: 'chatgpt', citations: 0, previous_citations: 1 },
      { engine: 'perplexity', citations: 0, previous_citations: 1 },
    ]);
    expect(pricing.by_topic).toEqual([
      { id: ID.widgets, name: 'Widgets', citations: 0, previous_citations: 1 },
      { id: ID.pricing, name: 'Pricing', citations: 0, previous_citations: 1 },
    ]);
    // Totals: now 2 + 1 = 3, before 2 + 2 = 4. By engine: chatgpt now 2 (1, 7), before 2 (8, 10); perplexity now 1 (4), before 2 (9, 9).
    expect(body.totals).toEqual({ citations: 3, previous_citations: 4, change: -1 });
    expect(body.by_engine.slice(0, 2)).toEqual([
      { engine: 'chatgpt', citations: 2, previous_citations: 2 },
      { engine: 'perplexity', citations: 1, previous_citations: 2 },
    ]);
    expect(body.by_engine.slice(2).every((e) => e.citations === 0 && e.previous_citations === 0)).toBe(true);
    // By topic: Widgets now 2 + 1 = 3, before 2 + 1 (run 9 cited P2 for q1) = 3; Pricing now 0, before 1 (run 10).
    expect(body.by_topic).toEqual([
      { id: ID.widgets, name: 'Widgets', citations: 3, previous_citations: 3, change: 0 },
      { id: ID.pricing, name: 'Pricing', citations: 0, previous_citations: 1, change: -1 },
    ]);
  });
  it('lists the uncited topic pages with what AI cites instead', async () => {
    const body = await read('listPages', '/pages');
    // P2 (Pricing): answers of q3 now cite only g2.com/pricing (run 5).
    // P3 (Widgets hub): answers of q1, q2 now cite acme (runs 2, 3), g2 widgets (1, 2), the thread (3); own URLs excluded.
    expect(body.uncited).toEqual([
      { url: URL_.pricing, title: 'Pricing', topic: { id: ID.pricing, name: 'Pricing' }, cited_instead: [{ url: URL_.g2Pricing, domain: 'g2.com', classification: 'third_party', citations: 1 }] },
      {
        url: URL_.hub,
        title: 'All about widgets',
        topic: { id: ID.widgets, name: 'Widgets' },
        cited_instead: [
          { url: URL_.acme, domain: 'acme.io', classification: 'competitor', citations: 2 },
          { url: URL_.g2Widgets, domain: 'g2.com', classification: 'third_party', citations: 2 },
          { url: URL_.thread1, domain: 'reddit.com', classification: 'third_party', citations: 1 },
        ],
      },
    ]);
  });
  it('compares an explicit from..to with the same number of days before it', async () => {
    const body = await read('listPages', `/pages?from=${day(13)}&to=${day(7)}`);
    // Now = T-13..T-7: P1 runs 8, 9 = 2; P2 runs 9, 10 = 2 (tie, by URL: pricing first). Before = T-20..T-14: nothing.
    expect(body.previous_period).toEqual({ from: day(20), to: day(14) });
    expect(body.pages.map((p) => [p.url, p.citations, p.previous_citations])).toEqual([
      [URL_.pricing, 2, 0],
      [URL_.widgets, 2, 0],
    ]);
    expect(body.uncited.map((u) => u.url)).toEqual([URL_.hub]);
  });
});

describe('competitor (fixture)', () => {
  it("gives Acme's wins, whatever the case of its name", async () => {
    const body = await read('getCompetitor', '/competitors/ACME');
    // Answered T-6..T: runs 1, 2, 3, 4, 5, 7 = 6. Acme named in 1, 2, 3, 4 = 4 -> 66.7; brand in 1, 4, 7 = 3 -> 50; both in 1 and 4.
    expect(body.competitor).toEqual({ name: 'Acme', domain: 'acme.io' });
    expect(body.overall).toEqual({ answered_runs: 6, rival_share: 66.7, brand_share: 50, both_named: 2 });
    // Widgets: answered 5 (1, 2, 3, 4, 7); Acme 4 -> 80, brand 3 -> 60: won by 20. Pricing: 0 against 0: not won.
    expect(body.topics_won).toEqual([{ id: ID.widgets, name: 'Widgets', rival_share: 80, brand_share: 60, margin: 20 }]);
    // q1: Acme 2 (1, 2) against brand 2 (1, 7): not won. q2: Acme 2 (3, 4) against brand 1 (4): won.
    // On q2 chatgpt named Acme (3) and never the brand; perplexity named both (4). Latest answer naming Acme, not the brand: run 3.
    expect(body.questions_won).toEqual([
      {
        question_id: ID.q2,
        text: 'Which widget tool is fastest?',
        topic_id: ID.widgets,
        rival_runs: 2,
        brand_runs: 1,
        answered_runs: 2,
        engines: ['chatgpt'],
        what_ai_said: { engine: 'chatgpt', ran_at: at(2, 8), text: 'Answer 3' },
      },
    ]);
    expect(body.cited_pages).toEqual([{ url: URL_.acme, title: 'Acme widgets', citations: 2 }]);
  });
  it('decodes a URL-encoded name with a space', async () => {
    const body = await read('getCompetitor', '/competitors/big%20co');
    // Big Co named in runs 2 and 7: 2/6 = 33.3; with the brand in run 7 only. Widgets: 2/5 = 40 < 60: no win.
    expect(body.competitor.name).toBe('Big Co');
    expect(body.overall).toEqual({ answered_runs: 6, rival_share: 33.3, brand_share: 50, both_named: 1 });
    expect(body.topics_won).toEqual([]);
    expect(body.questions_won).toEqual([]);
    expect(body.cited_pages).toEqual([]);
  });
  it('answers 404 not_found for a name that is not a rival of this brand', async () => {
    for (const name of ['Nobody', 'Helpwave', 'Acme%20Inc']) {
      const response = await api(`/competitors/${name}`, { key: KEY });
      expect(response.status).toBe(404);
      expect((await json<{ error: { code: string } }>(response)).error.code).toBe('not_found');
    }
  });
});

describe('activity (fixture)', () => {
  it('lists newest first, the higher id first on a tie', async () => {
    // a2 and a5 both at T 08:00; then a1 (T-1), a4 (T-2), a3 (T-3).
    expect((await read('listActivity', '/activity')).entries.map((e) => e.id)).toEqual([800_005, 800_002, 800_001, 800_004, 800_003]);
    expect((await read('listActivity', '/activity?category=citation')).entries.map((e) => e.id)).toEqual([800_002, 800_004]);
    expect((await read('listActivity', '/activity?limit=2')).entries.map((e) => e.id)).toEqual([800_005, 800_002]);
  });
});

describe('tasks (fixture)', () => {
  it('orders open tasks best first: gain, then lower effort, then older', async () => {
    const body = await read('listTasks', '/tasks');
    // Open in `us`: t3 (5.5), then three at 4.0: t2 (low effort), t1 and t5 (high, t1 older). t7 is in `de`.
    expect(body.tasks.map((t) => [t.id, t.expected_gain, t.effort])).toEqual([
      [800_003, 5.5, 'medium'],
      [800_002, 4, 'low'],
      [800_001, 4, 'high'],
      [800_005, 4, 'high'],
    ]);
    expect(body.tasks[0]!.topics).toEqual([
      { id: ID.widgets, name: 'Widgets' },
      { id: ID.pricing, name: 'Pricing' },
    ]);
    expect(body.open_counts).toEqual({ content: 2, technical: 1, authority: 1, brand: 0 });
    expect(body.matching).toBe(4);
  });
  it('filters by layer and status; open counts ignore the filter', async () => {
    const content = await read('listTasks', '/tasks?layer=content');
    expect(content.tasks.map((t) => t.id)).toEqual([800_001, 800_005]);
    expect(content.open_counts).toEqual({ content: 2, technical: 1, authority: 1, brand: 0 });
    expect((await read('listTasks', '/tasks?status=done')).tasks.map((t) => t.id)).toEqual([800_004]);
    expect((await read('listTasks', '/tasks?status=in_progress&layer=brand')).tasks.map((t) => t.id)).toEqual([800_006]);
    const one = await read('listTasks', '/tasks?limit=1');
    expect([one.tasks.map((t) => t.id), one.matching]).toEqual([[800_003], 4]);
    expect((await read('listTasks', '/tasks?market=de')).tasks.map((t) => t.id)).toEqual([800_007]);
  });
  it('gives the brief with the visibility of the topics it moves', async () => {
    const { task } = await read('getTask', '/tasks/800003');
    // Widgets T-6..T: 3 naming of 5 answered = 60; Pricing: 0 of 1 = 0.
    expect(task).toMatchObject({
      id: 800_003,
      layer: 'authority',
      status: 'open',
      expected_gain: 5.5,
      why: 'Why 3',
      steps: ['Step 3.1', 'Step 3.2'],
      evidence: [
        { kind: 'answer', text: 'Acme named instead', url: null },
        { kind: 'citation', text: 'Acme page cited', url: URL_.acme },
      ],
      topics: [
        { id: ID.widgets, name: 'Widgets', score: 60 },
        { id: ID.pricing, name: 'Pricing', score: 0 },
      ],
    });
  });
  it('answers 404 for a task of another market', async () => {
    expect((await api('/tasks/800007', { key: KEY })).status).toBe(404);
    expect((await read('getTask', '/tasks/800007?market=de')).task.id).toBe(800_007);
  });
});

describe('perception (fixture)', () => {
  it("takes each engine's latest week overlapping the period; an engine without one is not measured", async () => {
    const body = await read('getBrandPerception', '/brand-perception');
    const chatgpt = body.engines.find((e) => e.engine === 'chatgpt')!;
    const perplexity = body.engines.find((e) => e.engine === 'perplexity')!;
    expect(chatgpt).toMatchObject({ as_of: day(2), knows_brand: true, recommends: true, sentiment: 0.5, gets_right: ['Knows the API'], gets_wrong: ['Quotes old prices'] });
    expect(chatgpt.history.map((h) => [h.week_start, h.recommends])).toEqual([
      [day(16), false],
      [day(9), false],
      [day(2), true],
    ]);
    // Perplexity's latest week (T-16..T-10) ends before T-6.
    expect(perplexity).toMatchObject({ as_of: null, knows_brand: null, recommends: null, sentiment: null, gets_right: [], gets_wrong: [] });
    expect(perplexity.history.map((h) => h.week_start)).toEqual([day(23), day(16)]);
    expect(body.summary).toEqual({ engines_measured: 1, engines_knowing: 1, engines_recommending: 1, recommend_rate: 100 });
  });
  it('reads an earlier period from the weeks of that time', async () => {
    const body = await read('getBrandPerception', `/brand-perception?from=${day(20)}&to=${day(10)}`);
    // Weeks overlapping T-20..T-10 start at T-26 or later and on or before T-10: chatgpt T-16 (knows, does not recommend), perplexity T-16 (neither).
    expect(body.summary).toEqual({ engines_measured: 2, engines_knowing: 1, engines_recommending: 0, recommend_rate: 0 });
    expect(body.engines.find((e) => e.engine === 'chatgpt')!.history.map((h) => h.week_start)).toEqual([day(16)]);
  });
  it('gives transcripts newest first, untruncated, by engine', async () => {
    const all = await read('getPerceptionTranscript', '/brand-perception/transcript');
    expect(all.transcripts.map((t) => t.id)).toEqual([800_002, 800_001, 800_003]);
    expect(all.transcripts[1]!.answer).toBe(`Gizmo is ${'very '.repeat(1000)}good.`);
    expect((await read('getPerceptionTranscript', '/brand-perception/transcript?engine=chatgpt')).transcripts.map((t) => t.id)).toEqual([800_001, 800_003]);
    expect((await read('getPerceptionTranscript', '/brand-perception/transcript?engine=gemini')).transcripts).toEqual([]);
  });
});

describe('forum (fixture)', () => {
  it('gives the threads of the window, cited first, and the latest summary', async () => {
    const body = await read('getForumSignals', '/forum');
    const widgets = body.topics.find((t) => t.id === ID.widgets)!;
    // Thread 1 is older but run 3 cited it in the window; 4 (T-1) and 2 (T-2) were posted in it; 3 (T-40) is neither.
    expect(widgets.threads.map((t) => [t.id, t.ai_citations, t.cited])).toEqual([
      [800_011, 1, true],
      [800_014, 0, false],
      [800_012, 0, false],
    ]);
    expect(widgets).toMatchObject({ threads_total: 3, threads_cited: 1, summary: { week_start: day(2), text: 'This week' } });
    expect(body.topics.find((t) => t.id === ID.pricing)).toMatchObject({ threads_total: 0, threads: [], summary: null });
    const one = (await read('getForumSignals', '/forum?limit=1')).topics.find((t) => t.id === ID.widgets)!;
    expect([one.threads.map((t) => t.id), one.threads_total]).toEqual([[800_011], 3]);
  });
  it('reads an earlier window', async () => {
    const body = await read('getForumSignals', `/forum?from=${day(20)}&to=${day(10)}`);
    // No thread was posted in T-20..T-10 and no answer then cited one; the latest summary starting by T-10 is T-16's.
    expect(body.topics.find((t) => t.id === ID.widgets)).toMatchObject({ threads_total: 0, summary: { week_start: day(16), text: 'Older summary' } });
  });
});

describe('search performance (fixture)', () => {
  it('sums queries over 28 days and joins them to the citations of their pages', async () => {
    const body = await read('getSearchPerformance', '/search-performance');
    // T-27..T; the T-40 row is out. Own citations in it: widgets runs 1, 7, 8, 9 = 4; pricing runs 9, 10 = 2.
    // gizmo widgets: clicks 10 + 5 + 0, impressions 100 + 300 + 50 = 450, position (2x100 + 4x300 + 8x50) / 450 = 4, CTR 15/450 = 3.3.
    expect(body.rows).toEqual([
      { key: 'gizmo pricing', clicks: 20, impressions: 500, ctr: 4, position: 1.5, pages: [URL_.pricing], ai_citations: 2, search_only: false },
      { key: 'gizmo widgets', clicks: 15, impressions: 450, ctr: 3.3, position: 4, pages: [URL_.hub, URL_.widgets], ai_citations: 4, search_only: false },
      { key: 'gizmo careers', clicks: 1, impressions: 80, ctr: 1.3, position: 6, pages: [URL_.careers], ai_citations: 0, search_only: true },
    ]);
    expect(body.totals).toEqual({ clicks: 36, impressions: 1030, rows: 3, search_only: 1 });
  });
  it('by page over 7 days: pricing ranks but is not cited in that window', async () => {
    const body = await read('getSearchPerformance', '/search-performance?days=7&dimension=page&limit=2');
    // widgets: 100 + 300 impressions, position (200 + 1200) / 400 = 3.5, CTR 15/400 = 3.75 -> 3.8; cited by runs 1 and 7.
    expect(body.rows).toEqual([
      { key: URL_.pricing, clicks: 20, impressions: 500, ctr: 4, position: 1.5, pages: [URL_.pricing], ai_citations: 0, search_only: true },
      { key: URL_.widgets, clicks: 15, impressions: 400, ctr: 3.8, position: 3.5, pages: [URL_.widgets], ai_citations: 2, search_only: false },
    ]);
    // All four pages: pricing, widgets, careers, hub; all but widgets are search-only.
    expect(body.totals).toEqual({ clicks: 36, impressions: 1030, rows: 4, search_only: 3 });
  });
});

describe('AI traffic (fixture)', () => {
  it('counts crawler hits per bot and page, against the previous 7 days', async () => {
    const body = await read('getAiCrawlers', '/ai-crawlers');
    // T-6..T: GPTBot 10 + 5 on two pages, ClaudeBot 7 + 3 on one; 25 in all on 3 days (T, T-1, T-2); before: 4 (T-8).
    expect(body).toMatchObject({ total_hits: 25, previous_hits: 4, days_with_hits: 3 });
    expect(body.bots).toEqual([
      { bot: 'GPTBot', hits: 15, share: 60, pages: 2, last_seen: day(1) },
      { bot: 'ClaudeBot', hits: 10, share: 40, pages: 1, last_seen: day(0) },
    ]);
    expect(body.pages).toEqual([
      {
        url: URL_.widgets,
        hits: 20,
        bots: [
          { bot: 'ClaudeBot', hits: 10 },
          { bot: 'GPTBot', hits: 10 },
        ],
      },
      { url: URL_.pricing, hits: 5, bots: [{ bot: 'GPTBot', hits: 5 }] },
    ]);
  });
  it('counts AI visits per assistant and page', async () => {
    const body = await read('getAiVisitors', '/ai-visitors');
    // chatgpt 12 + 6 = 18 (85.7%), perplexity 3 (14.3%); before: 20 (T-9).
    expect(body).toMatchObject({ total_visits: 21, previous_visits: 20, change: 1 });
    expect(body.assistants).toEqual([
      { assistant: 'chatgpt', visits: 18, share: 85.7, pages: 2 },
      { assistant: 'perplexity', visits: 3, share: 14.3, pages: 1 },
    ]);
    expect(body.pages).toEqual([
      {
        url: URL_.widgets,
        visits: 15,
        assistants: [
          { assistant: 'chatgpt', visits: 12 },
          { assistant: 'perplexity', visits: 3 },
        ],
      },
      { url: URL_.pricing, visits: 6, assistants: [{ assistant: 'chatgpt', visits: 6 }] },
    ]);
  });
});

describe('overview (fixture)', () => {
  it('gives visibility, share of voice and the standing against the top rivals', async () => {
    const body = await read('getOverview', '/overview');
    // Now: answered 6, naming 3 (1, 4, 7) -> 50. Before: runs 8, 9, 10 answered, 8 and 9 name -> 66.7. Change -16.7.
    expect(body.visibility).toEqual({ score: 50, change: -16.7, answered_runs: 6, naming_runs: 3 });
    // Rival mentions now: Acme 1, 2, 3, 4 + Big Co 2, 7 = 6 -> 3 / 9 = 33.3. Before: Acme in 10 -> 2 / 3 = 66.7.
    expect(body.share_of_voice).toEqual({ share: 33.3, change: -33.4, brand_mentions: 3, rival_mentions: 6 });
    // Brand positions 1, 2, 1 -> 1.3; own citations gizmo.com 2 + blog.gizmo.com 1 = 3.
    // Acme: 4/6 = 66.7, 4/9 = 44.4, positions 2, 1, 1, 1 -> 1.25 -> 1.3, acme.io cited twice. Big Co: 2/6, 2/9, positions 2, 2.
    expect({ brand: body.competition.brand, rivals: body.competition.rivals }).toEqual({
      brand: { name: 'Gizmo', visibility: 50, share_of_voice: 33.3, position: 1.3, citations: 3 },
      rivals: [
        { name: 'Acme', visibility: 66.7, share_of_voice: 44.4, position: 1.3, citations: 2 },
        { name: 'Big Co', visibility: 33.3, share_of_voice: 22.2, position: 2, citations: 0 },
      ],
    });
  });
  it('gives the standing per day, null where nothing answered', async () => {
    const { competition } = await read('getOverview', '/overview');
    expect(competition.daily.map((d) => d.day)).toEqual([6, 5, 4, 3, 2, 1, 0].map(day));
    // T: only run 1 (recommended, first; Acme second; cites the widgets page).
    expect(competition.daily.at(-1)).toEqual({
      day: T,
      brand: { name: 'Gizmo', visibility: 100, share_of_voice: 50, position: 1, citations: 1 },
      rivals: [
        { name: 'Acme', visibility: 100, share_of_voice: 50, position: 2, citations: 0 },
        { name: 'Big Co', visibility: 0, share_of_voice: 0, position: null, citations: 0 },
      ],
    });
    // T-5: only run 6, no answer: nothing measured.
    expect(competition.daily[1]!.brand).toEqual({ name: 'Gizmo', visibility: null, share_of_voice: null, position: null, citations: 0 });
  });
  it('gives perception, cited pages, topics weakest first, traffic, readiness and open tasks', async () => {
    const body = await read('getOverview', '/overview');
    expect(body.perception).toMatchObject({ included: true, engines_measured: 1, engines_knowing: 1, engines_recommending: 1, recommend_rate: 100 });
    expect(body.cited_pages).toEqual([
      { url: URL_.widgets, title: 'Widgets guide', citations: 2, previous_citations: 2, change: 0 },
      { url: URL_.blog, title: null, citations: 1, previous_citations: 0, change: 1 },
    ]);
    // Pricing 0/1 = 0 (before 0/1: change 0); Widgets 3/5 = 60 (before 2/2 = 100: -40), behind Acme (80): rank 2.
    expect(body.topics).toEqual([
      { id: ID.pricing, name: 'Pricing', score: 0, change: 0, rank: 1 },
      { id: ID.widgets, name: 'Widgets', score: 60, change: -40, rank: 2 },
    ]);
    expect(body.ai_traffic).toEqual({
      included: true,
      visits: 21,
      previous_visits: 20,
      top_assistants: [
        { assistant: 'chatgpt', visits: 18 },
        { assistant: 'perplexity', visits: 3 },
      ],
      crawler_hits: 25,
    });
    // 100 x (3 x 0.5 + 1 x 1 + 1 x 0) / (3 + 1 + 1) = 100 x 2.5 / 5 = 50.
    expect(body.readiness).toEqual({
      score: 50,
      signals: [
        { signal: 'a_signal', value: 50, weight: 3, note: 'Note a_signal' },
        { signal: 'b_signal', value: 100, weight: 1, note: 'Note b_signal' },
        { signal: 'c_signal', value: 0, weight: 1, note: 'Note c_signal' },
      ],
    });
    expect(body.tasks).toEqual({ included: true, open_counts: { content: 2, technical: 1, authority: 1, brand: 0 }, open_total: 4 });
  });
  it('says "not measured" with null, never 0, for a market without data', async () => {
    const body = await read('getOverview', '/overview?market=de');
    expect(body.visibility).toEqual({ score: null, change: null, answered_runs: 0, naming_runs: 0 });
    expect(body.share_of_voice.share).toBeNull();
    expect(body.competition.rivals).toEqual([]);
    expect(body.readiness).toEqual({ score: null, signals: [] });
    expect(body.tasks).toEqual({ included: true, open_counts: { content: 1, technical: 0, authority: 0, brand: 0 }, open_total: 1 });
  });
});
