/**
 * GET /reports/weekly through the Worker: the page, `format=json` and
 * `format=text` from one report model; the API's own errors for what the key
 * cannot read; the 502 page on an upstream outage; reading never sends mail.
 */
import { env } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useServicesForTests } from './seams';
import { FakeQueue, FakeResend, testEnv } from './digests-helpers';
import { FakeUpstream, freshKey, restoreUpstream } from './proxy-upstream';
import { call, callWith, clearReports, pageFigures, reportJson } from './reports-helpers';

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
    expect(html).toContain('Brightdesk in AI answers, week of');

    const vis = report.visibility!;
    expect(vis.history).toHaveLength(12);
    expect(html).toContain(`data-testid="score" data-score="${vis.score!.toFixed(1)}"`);
    expect(html).toMatch(/<svg class="chart" viewBox="0 0 640 260" role="img" aria-labelledby="chart-title chart-desc"/);
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
    // The period covered and where the data came from.
    expect(html).toContain(`data-testid="period"`);
    expect(html).toMatch(/covers \d+ \w{3} \d{4} to \d+ \w{3} \d{4}/);
    expect(html).toMatch(/data-testid="source" data-from-cache="(all|some|none)">Figures computed .* UTC; read .* UTC, /);
    expect(source.reads.map((r) => r.operation).sort()).toEqual(['getAnswerHistory', 'getVisibility', 'listBrands', 'listTopics']);
  });

  it('says whether the data came from the cache: a second read within the TTL is served from it', async () => {
    await reportJson('/reports/weekly?brand_id=2&market=de', 'demo_growth_multi');
    const second = await reportJson('/reports/weekly?brand_id=2&market=de', 'demo_growth_multi');
    expect(second.source.from_cache).toBe('all');
    expect(second.source.reads.every((r) => r.cache === 'HIT' || r.cache === 'STALE')).toBe(true);
    expect(second.source.max_age_seconds).toBeGreaterThanOrEqual(0);
    const page = await (await call('/reports/weekly?brand_id=2&market=de', { key: 'demo_growth_multi' })).text();
    expect(page).toContain('data-from-cache="all"');
    expect(page).toContain('served from the edge cache');
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
    expect(response.headers.get('allow')).toBe('GET, HEAD');
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
