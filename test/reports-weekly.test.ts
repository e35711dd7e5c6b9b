/**
 * GET /reports/weekly through the Worker: the page, `format=json` and
 * `format=text` from one report model; the API's own errors for what the key
 * cannot read; the 502 page on an upstream outage; reading never sends mail.
 */
import { env, SELF } from 'cloudflare:test';
import { ApiClientError, createClient } from '../src/client';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useServicesForTests } from './seams';
import { FakeQueue, FakeResend, testEnv } from './digests-helpers';
import { FakeUpstream, freshKey, restoreUpstream } from './proxy-upstream';
import { call, callWith, clearReports, pageFigures, reportJson, visibleText } from './reports-helpers';
import { chartScale, MIN_SCALE_POINTS } from '../src/weekly-report/chart';
import { sha256Hex } from '../src/lib/hash';

beforeAll(clearReports);
afterEach(() => {
  restoreUpstream();
  useServicesForTests();
  vi.unstubAllGlobals();
});

describe('GET /reports/weekly', () => {
  it('answers the report as a page with the figures of the JSON form: score, 12-week SVG chart, topics, won and lost', async () => {
    const { report, source } = await reportJson('/reports/weekly?market=us');
    const response = await call('/reports/weekly?market=us', { key: 'demo_pro_single' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toMatch(/^<!doctype html>\s*<html lang="en"/);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toMatch(/<h1>Brightdesk in AI answers, week of \d+ \w{3} \d{4}<\/h1>/);
    // One look with every page: the product's name heads it.
    expect(html).toContain('<header class="masthead"><span class="product">Brand AI-Visibility</span>');

    const vis = report.visibility!;
    expect(vis.history).toHaveLength(12);
    expect(html).toContain(`data-testid="score" data-score="${vis.score!.toFixed(1)}"`);
    expect(html).toMatch(/<svg class="chart" viewBox="0 0 640 280" role="img" aria-labelledby="chart-title chart-desc"/);
    const figures = pageFigures(html);
    expect(figures.bars).toEqual(vis.history.map((b) => ({ week: b.week_start, score: b.score === null ? null : Number(b.score.toFixed(1)) })));
    const wl = report.won_lost!;
    expect(figures.counts).toEqual(wl.counts);
    expect(figures.won).toEqual(wl.won.map((q) => q.question_id));
    expect(figures.lost).toEqual(wl.lost.map((q) => q.question_id));
    expect(wl.counts.won + wl.counts.lost).toBeGreaterThan(0);
    // Questions with the engines that moved.
    const lost = wl.lost[0]!;
    expect(html).toContain(`“${lost.text.replace(/&/g, '&amp;').replace(/'/g, '&#39;')}”`);
    expect(html).toContain(`data-engine="${lost.engines[0]!.engine}"`);
    for (const t of report.topics) expect(html).toContain(t.name.replace(/&/g, '&amp;'));
    // The period covered and where the data came from, in plain words: no ISO week, no cache jargon.
    // `17–23 Nov 2026`, `30 Nov–6 Dec 2026`, or across a new year `29 Dec 2026–4 Jan 2027`.
    expect(html).toMatch(/data-testid="period">\d+(?: \w{3}(?: \d{4})?)?–\d+ \w{3} \d{4} · United States \(US\)</);
    expect(html).toMatch(
      /data-testid="source" data-from-cache="(all|some|none)">Figures from \d+ \w{3} \d{4}, \d\d:\d\d UTC \((cached (less than a minute|\d+ minutes?|\d+ hours?) ago|just read|partly cached, at most (less than a minute|\d+ minutes?|\d+ hours?) old)\)\.</,
    );
    const words = visibleText(html);
    expect(words).toContain('Figures from');
    expect(words).not.toMatch(/ISO week|W\d\d|edge cache/);
    // The format=json read is the report's alone; the page's extra reads do not change it.
    expect(source.reads.map((r) => r.operation).sort()).toEqual(['getAnswerHistory', 'getContentGaps', 'getPromptMatrix', 'getVisibility', 'listBrands', 'listPages', 'listTasks', 'listTopics']);
    // The 12 weeks as a table with plain dates, newest first.
    const weeks = [...html.matchAll(/<tr(?: class="latest")? data-week="([\d-]+)"><td>(\d+ \w{3} \d{4})<\/td>/g)].map((m) => m[1]);
    expect(weeks).toEqual(vis.history.map((b) => b.week_start).reverse());
    // Showing the page makes no CSV link: its form does (a POST), and the one script the page then has is the "Copy CSV link" buttons', allowed by its nonce.
    expect(html).toContain('<form method="post" action="/reports/weekly?market=us">');
    expect(html).not.toContain('class="copy-csv"');
    const made = await call('/reports/weekly?market=us', { key: 'demo_pro_single', method: 'POST' });
    expect(made.headers.get('content-security-policy')).toMatch(/script-src 'nonce-[^']+'(;|$)/);
    const madeHtml = await made.text();
    expect(madeHtml.match(/<script/g)).toHaveLength(1);
    expect(madeHtml.match(/<button type="button" class="copy-csv" data-url="http:\/\/localhost:8787\/x\/v1\.[\w.-]+\.csv" hidden>Copy CSV link<\/button>/g)?.length).toBeGreaterThanOrEqual(4);
    // The report's own URL needs the key, so it says how to mint a link instead.
    expect(html).toContain('POST <code>{&quot;brand_id&quot;:1,&quot;market&quot;:&quot;us&quot;}</code> to <code>http://localhost:8787/reports/links</code>');
  });

  it("shows share of voice against the top rivals from /overview, for the report's 7 days", async () => {
    const { report } = await reportJson('/reports/weekly?market=us');
    const overview = (await (await call(`/api/v1/overview?brand_id=1&market=us&from=${report.period.from}&to=${report.period.to}`, { key: 'demo_pro_single' })).json()) as {
      share_of_voice: { share: number; brand_mentions: number; rival_mentions: number };
      competition: { brand: { name: string; share_of_voice: number }; rivals: { name: string; share_of_voice: number }[] };
    };
    const html = await (await call('/reports/weekly?market=us', { key: 'demo_pro_single' })).text();
    expect(html).toContain('<h2 id="h-sov">Share of voice</h2>');
    expect(html).toContain(`<strong>${overview.share_of_voice.share.toFixed(1)}%</strong> of the brand mentions in AI answers were Brightdesk’s`);
    const rows = [...html.matchAll(/<tr(?: class="brand")? data-name="([^"]+)" data-share="([\d.]*)">/g)].map((m) => ({ name: m[1], share: m[2] }));
    expect(rows).toEqual([overview.competition.brand, ...overview.competition.rivals].map((s) => ({ name: s.name, share: s.share_of_voice.toFixed(1) })));
    expect(overview.competition.rivals.length).toBeGreaterThan(0);
  });

  it('shows per engine how many answered questions name the brand, from /prompts', async () => {
    const prompts = (await (await call('/api/v1/prompts?brand_id=1&market=us', { key: 'demo_pro_single' })).json()) as { prompts: { engines: { engine: string; state: string | null }[] }[] };
    const html = await (await call('/reports/weekly?market=us', { key: 'demo_pro_single' })).text();
    expect(html).toContain('<h2 id="h-engines">Per engine</h2>');
    const chatgpt = prompts.prompts.map((p) => p.engines.find((e) => e.engine === 'chatgpt')!.state).filter((s) => s !== null && s !== 'no_answer');
    const named = chatgpt.filter((s) => s === 'recommended' || s === 'mentioned').length;
    expect(html).toMatch(
      new RegExp(
        `<tr data-engine="chatgpt" data-share="${((100 * named) / chatgpt.length).toFixed(1)}"><th scope="row">ChatGPT</th>.*?${named} of ${chatgpt.length} questions; recommends it in \\d+</span></td></tr>`,
      ),
    );
  });

  it("switches between the brand's markets (from /markets): links to the same report, the current one marked", async () => {
    // Another account's key than the tests around it use: each key has 60 upstream reads a minute.
    const html = await (await call('/reports/weekly?brand_id=2&market=us', { key: 'demo_growth_multi' })).text();
    expect(html).toContain('<nav aria-label="Markets">');
    expect(html).toContain('<span class="here" aria-current="page">United States (US)</span>');
    expect(html).toContain('<a href="/reports/weekly?brand_id=2&amp;market=de" data-market="de">Germany (DE)</a>');
    const german = await call('/reports/weekly?brand_id=2&market=de', { key: 'demo_growth_multi' });
    expect(german.status).toBe(200);
    const other = await german.text();
    expect(other).toContain('Ledgerly in AI answers');
    expect(other).toContain('· Germany (DE)</p>');
    expect(other).toContain('<a href="/reports/weekly?brand_id=2&amp;market=us" data-market="us">United States (US)</a>');
  });

  it('a page extra that cannot be read leaves its part out, says so, and the report still shows', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    // The API as the page reads it, except /overview, which fails as in an outage (/prompts is read with the week itself).
    useServicesForTests({
      api: (apiKey) => {
        const client = createClient({ apiKey, transport: (request) => SELF.fetch(request), baseUrl: 'https://edge.test/api/v1' });
        const down = (operation: string) => () => Promise.reject(new ApiClientError({ kind: 'http', code: 'upstream_error', status: 502, message: 'down', operation }));
        return { ...client, withMeta: { ...client.withMeta, getOverview: down('getOverview') } };
      },
    });
    try {
      const response = await call('/reports/weekly?market=us', { key: 'demo_pro_single' });
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(html).toContain('data-testid="score"');
      expect(html).toContain('Share of voice could not be read just now.');
      expect(html).toContain('aria-label="Markets"');
      expect(errors.mock.calls.map((c) => String(c[0])).some((line) => line.includes('report page extra read failed') && line.includes('getOverview'))).toBe(true);
    } finally {
      errors.mockRestore();
    }
  });

  it("the chart's scale fits the scores, so a move of a few points shows, and the caption says so", async () => {
    const { report } = await reportJson('/reports/weekly?market=us');
    const html = await (await call('/reports/weekly?market=us', { key: 'demo_pro_single' })).text();
    const scores = report.visibility!.history.flatMap((b) => (b.score === null ? [] : [b.score]));
    const lo = Number(/data-scale-lo="(\d+)"/.exec(html)![1]);
    const hi = Number(/data-scale-hi="(\d+)"/.exec(html)![1]);
    expect(lo).toBeLessThanOrEqual(Math.min(...scores));
    expect(hi).toBeGreaterThanOrEqual(Math.max(...scores));
    expect(hi - lo).toBeLessThanOrEqual(Math.max(20, 2.5 * (Math.max(...scores) - Math.min(...scores))));
    expect(html).toContain(`The scale runs from ${lo}% to ${hi}%`);
  });

  it('says whether the data came from the cache: a second read within the TTL is served from it', async () => {
    // A key of its own (Ledgerly's account): its entries are stored by this test's reads, however long ago earlier files
    // cached the demo keys' (a /brands lives an hour; on a slow run that is more than the minute the page is checked for).
    const key = `reports_cache_${crypto.randomUUID()}`;
    await env.DB.prepare("INSERT INTO api_keys (account_id, key_hash, label, created_at) VALUES (2, ?, 'reports test', '2026-01-01T00:00:00Z')")
      .bind(await sha256Hex(key))
      .run();
    await reportJson('/reports/weekly?brand_id=2&market=de', key);
    const second = await reportJson('/reports/weekly?brand_id=2&market=de', key);
    expect(second.source.from_cache).toBe('all');
    expect(second.source.reads.every((r) => r.cache === 'HIT' || r.cache === 'STALE')).toBe(true);
    expect(second.source.max_age_seconds).toBeGreaterThanOrEqual(0);
    // The page's own extra reads (share of voice, engines, markets) are cached from its first view on.
    await call('/reports/weekly?brand_id=2&market=de', { key });
    const page = await (await call('/reports/weekly?brand_id=2&market=de', { key })).text();
    expect(page).toContain('data-from-cache="all"');
    expect(page).toContain('(cached less than a minute ago).');
  });

  it('format=json is the report model, the same figures as the API itself', async () => {
    const { report } = await reportJson('/reports/weekly');
    const visibility = (await (await call('/origin/api/v1/visibility', { key: 'demo_pro_single' })).json()) as { score: number; history: unknown[]; brand_id: number };
    expect(report.brand).toEqual({ id: 1, name: 'Brightdesk' });
    expect(report.market).toEqual({ id: 11, code: 'us' });
    expect(report.kinds).toEqual(['visibility', 'won_lost']);
    expect(report.visibility!.score).toBe(visibility.score);
    expect(report.week.iso).toMatch(/^\d{4}-W\d{2}$/);
    expect(report.subject).toMatch(/^Brightdesk: (a quiet week · )?AI visibility /);
  });

  it('format=text is the plain-text digest, without the subscription footer', async () => {
    const { report } = await reportJson('/reports/weekly?market=us');
    const response = await call('/reports/weekly?market=us&format=text', { key: 'demo_pro_single' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await response.text();
    expect(text).toContain(report.lead.headline);
    expect(text).toContain(`${report.won_lost!.counts.won} won`);
    expect(text).toContain(`Score by week, last 12 weeks (`);
    expect(text).toContain(`: ${report.visibility!.history.map((b) => (b.score === null ? 'not measured' : `${b.score.toFixed(1)}%`)).join(', ')}.`);
    // The whole plan, every item in its order.
    report.plan!.items.forEach((item, i) => expect(text).toContain(`${i + 1}. ${item.headline}`));
    expect(text).not.toContain('more in the full report');
    // The link to the report, once: the button's.
    expect(text).toMatch(/(See all \d+ changed questions|Open the full report) https?:\/\/\S+/);
    expect(text.match(/https?:\/\/\S+/g)).toHaveLength(1);
    expect(text).not.toMatch(/unsubscribe/i);
    expect(text).not.toContain('<');
  });

  it.each([
    ['no key', null, '/reports/weekly', 401, 'invalid_api_key'],
    ['a revoked key', 'demo_revoked', '/reports/weekly', 401, 'invalid_api_key'],
    ['an inactive plan', 'demo_inactive', '/reports/weekly', 403, 'plan_inactive'],
    ["another account's brand", 'demo_pro_single', '/reports/weekly?brand_id=2', 404, 'brand_not_found'],
    ['a multi-brand key without brand_id', 'demo_growth_multi', '/reports/weekly', 400, 'brand_required'],
    ['an unknown market', 'demo_pro_single', '/reports/weekly?market=zz', 404, 'not_found'],
    ['an unknown parameter', 'demo_pro_single', '/reports/weekly?to=a@example.com', 400, 'invalid_parameter'],
    ['an unknown format', 'demo_pro_single', '/reports/weekly?format=pdf', 400, 'invalid_parameter'],
    ['a bad brand_id', 'demo_pro_single', '/reports/weekly?brand_id=abc', 400, 'invalid_parameter'],
  ])('%s: the API error shape, not an empty page', async (_, key, path, status, code) => {
    const response = await call(path, { key });
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await response.json()) as { error: { code: string; message: string; param?: string } };
    expect(body.error.code).toBe(code);
    expect(body.error.message.length).toBeGreaterThan(10);
  });

  it('names the parameter at fault', async () => {
    const body = (await (await call('/reports/weekly?format=pdf', { key: 'demo_pro_single' })).json()) as { error: { param: string } };
    expect(body.error.param).toBe('format');
  });

  it('answers 405 with Allow for other methods', async () => {
    const response = await call('/reports/weekly', { key: 'demo_pro_single', method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('an upstream outage is a 502 page that says the data is unavailable (and the API error for json)', async () => {
    const up = new FakeUpstream().install(1_000);
    up.fault = 'network';
    // The client's retry backoff waits through this seam: no real sleep.
    useServicesForTests({ sleep: async () => {} });
    const key = freshKey('outage');
    const response = await call('/reports/weekly', { key });
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<h1>The report data is unavailable</h1>');
    expect(html).toContain('Try again in a few minutes.');
    expect(up.calls).toBeGreaterThan(0);

    up.fault = { status: 503, code: 'upstream_error' };
    const asJson = await call('/reports/weekly?format=json', { key });
    expect(asJson.status).toBe(502);
    expect(((await asJson.json()) as { error: { code: string } }).error.code).toBe('upstream_error');
  });

  it('an upstream 500 is our 502, never passed through as our own 500', async () => {
    const up = new FakeUpstream().install(1_000);
    up.fault = { status: 500, code: 'internal_error' };
    useServicesForTests({ sleep: async () => {} });
    const response = await call('/reports/weekly', { key: freshKey('five-hundred') });
    expect(response.status).toBe(502);
  });

  it('reading a report never sends mail', async () => {
    const resend = new FakeResend().install();
    const testEnvironment = testEnv(new FakeQueue());
    const before = await env.DB.prepare('SELECT COUNT(*) AS n FROM digest_outbox').first<{ n: number }>();
    for (const format of ['html', 'json', 'text']) {
      const response = await callWith(testEnvironment, `/reports/weekly?format=${format}`, { key: 'demo_pro_single' });
      expect(response.status).toBe(200);
    }
    expect(resend.calls).toHaveLength(0);
    const after = await env.DB.prepare('SELECT COUNT(*) AS n FROM digest_outbox').first<{ n: number }>();
    expect(after?.n).toBe(before?.n);
    const sends = await env.DB.prepare('SELECT COUNT(*) AS n FROM report_sends').first<{ n: number }>();
    expect(sends?.n).toBe(0);
  });
});

describe('chartScale', () => {
  it('fits the scores with room above and below, so a 3-point move spans a good part of the chart', () => {
    expect(chartScale([54.2, 55.0, 57.2, 58.9])).toEqual({ lo: 52, hi: 60, step: 2 });
    const { lo, hi } = chartScale([54.2, 57.2]);
    expect(3 / (hi - lo)).toBeGreaterThan(0.25);
  });
  it('keeps a flat history on a scale of at least MIN_SCALE_POINTS, within 0 to 100', () => {
    const flat = chartScale([56, 56, 56]);
    expect(flat.hi - flat.lo).toBeGreaterThanOrEqual(MIN_SCALE_POINTS);
    expect(flat.lo).toBeLessThanOrEqual(56);
    expect(flat.hi).toBeGreaterThanOrEqual(56);
    expect(chartScale([0, 0.5]).lo).toBe(0);
    expect(chartScale([99.5, 100]).hi).toBe(100);
    expect(chartScale([2, 98])).toEqual({ lo: 0, hi: 100, step: 25 });
    expect(chartScale([])).toEqual({ lo: 0, hi: 100, step: 25 });
  });
});
