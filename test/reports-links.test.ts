/**
 * Signed report links through the Worker: POST /reports/links (strict body,
 * the API's own errors), GET /r/<token> without a key (the same report), and
 * every way a link can be bad: forged, changed claims, wrong purpose, expired
 * (a fake clock, no sleeping), its record gone, its key revoked, the upstream
 * down. The digest's own "view in browser" link opens here too. A key's links:
 * listed (GET /reports/links) and revoked (DELETE /reports/links/{id}) by that
 * key only, at most 100 live, the cap held under concurrent mints.
 */
import { env } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seal } from '../src/lib/sealing';
import { reportUrl } from '../src/subscriptions';
import { useServicesForTests } from './seams';
import { mintReportLink } from '../src/reports/links';
import { MAX_LIVE_LINKS } from '../src/links/link-store';
import { base64url, fromBase64url, signReportToken, signToken } from '../src/lib/signing';
import { clearDigests, FakeQueue, seedSubscriptions, testEnv } from './digests-helpers';
import { FakeUpstream, freshKey, restoreUpstream } from './proxy-upstream';
import { call, callWith, clearReports, type ReportJson, mintLink, pageFigures, reportJson } from './reports-helpers';

const DAY_MS = 86_400_000;

const storeDeps = (now: () => Date = () => new Date()) => ({ db: env.DB, encryptionKey: env.ENCRYPTION_KEY, signingSecret: env.SIGNING_SECRET, publicUrl: 'https://edge.test', now });

/** Stores a link straight through links.ts (no API read): for keys that cannot mint through the API, and to fill a key up to the cap. */
async function stored(link: Parameters<typeof mintReportLink>[1], now?: () => Date) {
  const minted = await mintReportLink(storeDeps(now), link);
  if (!minted.ok) throw new Error(`at the cap: ${minted.live}`);
  return minted.link;
}

beforeEach(async () => {
  await clearReports();
  await clearDigests();
});
afterEach(() => {
  restoreUpstream();
  useServicesForTests();
});

function post(body: string, o: { key?: string | null; contentType?: string } = {}) {
  return call('/reports/links', {
    key: o.key === undefined ? 'demo_pro_single' : o.key,
    method: 'POST',
    headers: { 'content-type': o.contentType ?? 'application/json' },
    body,
  });
}

/** The token's claims, decoded (not verified). */
const claimsOf = (token: string) => JSON.parse(new TextDecoder().decode(fromBase64url(token.split('.')[1]!)!)) as Record<string, unknown>;
const tokenOf = (path: string) => path.replace(/^\/r\//, '');

describe('POST /reports/links', () => {
  it('mints an absolute link under PUBLIC_URL, 201, that names a stored record and never the key', async () => {
    const response = await callWith(testEnv(new FakeQueue(), { PUBLIC_URL: 'https://reports.example.com/' }), '/reports/links', {
      key: 'demo_pro_single',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ brand_id: 1, market: 'us', kind: 'weekly', expires_in_days: 30 }),
    });
    expect(response.status).toBe(201);
    const { link } = (await response.json()) as { link: { url: string; brand_id: number; market: { id: number; code: string }; kind: string; expires_at: string } };
    expect(link.url).toMatch(/^https:\/\/reports\.example\.com\/r\/v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(response.headers.get('location')).toBe(link.url);
    expect(link).toEqual(expect.objectContaining({ brand_id: 1, market: { id: 11, code: 'us' }, kind: 'weekly' }));
    expect(Date.parse(link.expires_at) - Date.now()).toBeGreaterThan(30 * DAY_MS - 60_000);
    expect(Date.parse(link.expires_at) - Date.now()).toBeLessThanOrEqual(30 * DAY_MS);

    const token = tokenOf(new URL(link.url).pathname);
    const claims = claimsOf(token);
    expect(claims).toEqual({ p: 'report', b: 1, m: 'us', k: 'weekly', r: expect.stringMatching(/^link:rl_[a-z0-9]+$/), exp: Math.floor(Date.parse(link.expires_at) / 1000) });
    expect(link.url).not.toContain('demo_pro_single');
    const row = await env.DB.prepare('SELECT * FROM report_links WHERE id = ?').bind(String(claims.r).slice(5)).first<Record<string, string>>();
    expect(row).not.toBeNull();
    expect(JSON.stringify(row)).not.toContain('demo_pro_single');
    expect(row!.key_sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
  });

  it("defaults to the key's brand, its primary market and 30 days", async () => {
    const response = await post('{}');
    expect(response.status).toBe(201);
    const { link } = (await response.json()) as { link: { url: string; market: { code: string }; kind: string; expires_at: string } };
    expect(link.url.startsWith('http://localhost:8787/r/')).toBe(true);
    expect(link.market.code).toBe('us');
    expect(link.kind).toBe('weekly');
    expect(Math.round((Date.parse(link.expires_at) - Date.now()) / DAY_MS)).toBe(30);
  });

  it.each([
    ['wrong content type', '{"market":"us"}', 'text/plain', 'content-type'],
    ['bad JSON', '{"market":', undefined, 'body'],
    ['an array', '[1]', undefined, 'body'],
    ['an unknown field', '{"market":"us","email":"a@example.com"}', undefined, 'email'],
    ['expires_in_days 0', '{"expires_in_days":0}', undefined, 'expires_in_days'],
    ['expires_in_days 91', '{"expires_in_days":91}', undefined, 'expires_in_days'],
    ['expires_in_days 1.5', '{"expires_in_days":1.5}', undefined, 'expires_in_days'],
    ['expires_in_days as a string', '{"expires_in_days":"30"}', undefined, 'expires_in_days'],
    ['an unknown kind', '{"kind":"monthly"}', undefined, 'kind'],
    ['a bad brand_id', '{"brand_id":"1"}', undefined, 'brand_id'],
    ['a bad market', '{"market":"u s"}', undefined, 'market'],
    ['an oversize body', JSON.stringify({ market: 'us', pad: 'x'.repeat(2000) }), undefined, 'body'],
  ])('%s: 400 invalid_parameter naming it', async (_, body, contentType, param) => {
    const response = await post(body, contentType ? { contentType } : {});
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; param: string; message: string } };
    expect(error.code).toBe('invalid_parameter');
    expect(error.param).toBe(param);
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM report_links').first('n')).toBe(0);
  });

  it.each([
    ['no key', null, '{}', 401, 'invalid_api_key'],
    ['a revoked key', 'demo_revoked', '{}', 401, 'invalid_api_key'],
    ['an inactive plan', 'demo_inactive', '{}', 403, 'plan_inactive'],
    ["another account's brand", 'demo_pro_single', '{"brand_id":2}', 404, 'brand_not_found'],
    ['an unknown market', 'demo_pro_single', '{"market":"zz"}', 404, 'not_found'],
    ['a multi-brand key without brand_id', 'demo_growth_multi', '{}', 400, 'brand_required'],
  ])("%s: the API's own error, no link", async (_, key, body, status, code) => {
    const response = await post(body, { key });
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM report_links').first('n')).toBe(0);
  });

  it("answers 405 with the path's methods for another method", async () => {
    const response = await call('/reports/links', { key: 'demo_pro_single', method: 'PUT' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, GET, HEAD');
    const one = await call('/reports/links/rl_x', { key: 'demo_pro_single' });
    expect(one.status).toBe(405);
    expect(one.headers.get('allow')).toBe('DELETE');
  });
});

describe('GET /r/<token>', () => {
  it('shows the same report without a key: page, JSON and text', async () => {
    const link = await mintLink({ brand_id: 2, market: 'us' }, 'demo_growth_multi');
    const keyed = await reportJson('/reports/weekly?brand_id=2&market=us', 'demo_growth_multi');
    const response = await call(link.path, { key: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await response.text();
    expect(html).toContain('Ledgerly in AI answers');
    const figures = pageFigures(html);
    expect(figures.bars.map((b) => b.score)).toEqual(keyed.report.visibility!.history.map((b) => (b.score === null ? null : Number(b.score.toFixed(1)))));
    expect(figures.counts).toEqual(keyed.report.won_lost!.counts);
    expect(figures.lost).toEqual(keyed.report.won_lost!.lost.map((q) => q.question_id));
    expect(html).toMatch(/Anyone with this link can read this report until \d+ \w{3} \d{4}, \d\d:\d\d UTC, without an API key\./);
    // A copy button for the page's own signed URL; its one script runs under this response's nonce, nothing else may.
    expect(html).toContain(`<input id="share-url" type="text" readonly value="${link.url}">`);
    expect(html).toContain('<button type="button" id="copy-link" hidden>Copy link</button>');
    const nonce = /<script nonce="([A-Za-z0-9+/=]+)">/.exec(html)?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(html.match(/<script/g)).toHaveLength(1);
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain(`script-src 'nonce-${nonce}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    const again = await (await call(link.path, { key: null })).text();
    expect(/<script nonce="([^"]+)">/.exec(again)?.[1]).not.toBe(nonce);
    // Bound to its market: the market is named, no switch to others.
    expect(html).toContain('· United States (US)</p>');
    expect(html).not.toContain('aria-label="Markets"');

    const viaJson = (await (await call(`${link.path}?format=json`, { key: null })).json()) as ReportJson;
    expect(viaJson.report.brand).toEqual({ id: 2, name: 'Ledgerly' });
    expect(viaJson.report.visibility!.score).toBe(keyed.report.visibility!.score);
    const text = await (await call(`${link.path}?format=text`, { key: null })).text();
    expect(text).toContain(keyed.report.lead.headline);
    expect(text).toContain(link.url);
  });

  it('opens the digest\'s own "view in browser" link (a subscription\'s key, its kinds)', async () => {
    const [id] = await seedSubscriptions([{ email: 'view@example.com', kinds: 'won_lost' }]);
    const url = await reportUrl({ publicUrl: 'https://edge.test', signingSecret: env.SIGNING_SECRET, now: () => new Date() }, { id: id!, generation: 0, brand_id: 1, market_code: 'us' });
    const response = await call(new URL(url).pathname, { key: null });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('Brightdesk in AI answers');
    expect(html).toContain('Won and lost questions');
    // The subscription asked for won/lost only: the page shows what the email showed.
    expect(html).not.toContain('<h2 id="h-vis">');

    // Unsubscribed: the link stops working (its key is gone), a clear 410.
    await env.DB.prepare(`UPDATE digest_subscriptions SET status = 'unsubscribed', key_sealed = NULL WHERE id = ?`).bind(id).run();
    const gone = await call(new URL(url).pathname, { key: null });
    expect(gone.status).toBe(410);
    expect(await gone.text()).toContain('This report link no longer works');
  });

  it('a forged, changed or cut token is a clear 403 or 400 page (the one token policy), never a 500', async () => {
    const link = await mintLink();
    const token = tokenOf(link.path);
    const [v, payload, signature] = token.split('.') as [string, string, string];
    const claims = claimsOf(token);
    const otherBrand = base64url(new TextEncoder().encode(JSON.stringify({ ...claims, b: 2 })));
    const later = base64url(new TextEncoder().encode(JSON.stringify({ ...claims, exp: Number(claims.exp) + 365 * 86_400 })));
    // Its last two characters changed to another canonical spelling (a last character's unused bits stay clear): a forgery, not garble.
    const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'QA' : 'AA');
    // Changed or not ours: 403. Cut short or garbled: 400 (TOKEN_FAILURE_STATUS).
    const variants: [string, number][] = [
      [`${v}.${otherBrand}.${signature}`, 403],
      [`${v}.${later}.${signature}`, 403],
      [`${v}.${payload}.${flipped}`, 403],
      [`${v}.${payload}`, 400],
      [`v2.${payload}.${signature}`, 400],
      ['not-a-token', 400],
      [`${v}.${payload}.${signature}%ZZ`, 400],
      [`${v}.${payload}!.${signature}`, 400],
      [await signReportToken('another-secret', { brandId: 1, market: 'us', kind: 'weekly', ref: String(claims.r) }), 403],
    ];
    for (const [bad, status] of variants) {
      const response = await call(`/r/${bad}`, { key: null });
      expect(response.status, bad).toBe(status);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await response.text()).toContain('This report link is not valid');
    }
    expect((await call('/r/', { key: null })).status).toBe(400);
  });

  it('a token of another purpose (confirm, unsubscribe) is refused as a report link', async () => {
    for (const p of ['confirm', 'unsubscribe'] as const) {
      const token = await signToken(env.SIGNING_SECRET, { p, s: 'sub_x', b: 1, m: 'us', k: 'weekly' }, { ttlSeconds: 3600 });
      const response = await call(`/r/${token}`, { key: null });
      expect(response.status).toBe(403);
    }
  });

  it('a correctly signed token whose record disagrees with it is refused', async () => {
    const link = await mintLink();
    const id = String(claimsOf(tokenOf(link.path)).r).slice(5);
    const token = await signReportToken(env.SIGNING_SECRET, { brandId: 4, market: 'us', kind: 'weekly', ref: `link:${id}` });
    expect((await call(`/r/${token}`, { key: null })).status).toBe(403);
    const noRecord = await signReportToken(env.SIGNING_SECRET, { brandId: 1, market: 'us', kind: 'weekly' });
    expect((await call(`/r/${noRecord}`, { key: null })).status).toBe(403);
    const missing = await signReportToken(env.SIGNING_SECRET, { brandId: 1, market: 'us', kind: 'weekly', ref: 'link:rl_doesnotexist' });
    expect((await call(`/r/${missing}`, { key: null })).status).toBe(410);
  });

  it('expires: 200 until its expiry, then a clear 410 page (fake clock)', async () => {
    const link = await mintLink({ expires_in_days: 1 });
    const expiry = Date.parse(link.expires_at);
    useServicesForTests({ now: () => new Date(expiry - 60_000) });
    expect((await call(link.path, { key: null })).status).toBe(200);
    useServicesForTests({ now: () => new Date(expiry + 1) });
    const response = await call(link.path, { key: null });
    expect(response.status).toBe(410);
    expect(await response.text()).toContain('This report link has expired');
    // The default 30 days, minted on the real clock.
    useServicesForTests();
    const month = await mintLink();
    useServicesForTests({ now: () => new Date(Date.now() + 29 * DAY_MS) });
    expect((await call(month.path, { key: null })).status).toBe(200);
    useServicesForTests({ now: () => new Date(Date.now() + 30 * DAY_MS + 1000) });
    expect((await call(month.path, { key: null })).status).toBe(410);
  });

  it("a link whose key was revoked or lost its plan answers the API's status as a page", async () => {
    const revoked = await stored({ apiKey: 'demo_revoked', brandId: 6, market: { id: 61, code: 'us' }, kind: 'weekly', days: 1 });
    const r1 = await call(new URL(revoked.url).pathname, { key: null });
    expect(r1.status).toBe(401);
    expect(await r1.text()).toContain('The access behind this link was revoked');
    const inactive = await stored({ apiKey: 'demo_inactive', brandId: 5, market: { id: 51, code: 'us' }, kind: 'weekly', days: 1 });
    const r2 = await call(new URL(inactive.url).pathname, { key: null });
    expect(r2.status).toBe(403);
    expect(await r2.text()).toContain('This report is not available');
    // A sealed key copied onto another row does not open.
    await env.DB.prepare('UPDATE report_links SET key_sealed = ? WHERE id = ?')
      .bind(await seal(env.ENCRYPTION_KEY, 'demo_pro_single', 'rl_other'), revoked.id)
      .run();
    expect((await call(new URL(revoked.url).pathname, { key: null })).status).toBe(403);
  });

  it('an upstream outage is a 502 page saying the data is unavailable', async () => {
    const up = new FakeUpstream().install(1_000);
    up.fault = 'network';
    useServicesForTests({ sleep: async () => {} });
    const link = await stored({ apiKey: freshKey('r-outage'), brandId: 1, market: { id: 11, code: 'us' }, kind: 'weekly', days: 1 });
    const response = await call(new URL(link.url).pathname, { key: null });
    expect(response.status).toBe(502);
    expect(await response.text()).toContain('The report data is unavailable');
    expect(up.calls).toBeGreaterThan(0);
  });

  it("the API's rate limit is a 429 page with Retry-After, as the API's own answer had (found by test/fuzz-product.test.ts)", async () => {
    const up = new FakeUpstream().install(1_000);
    up.fault = { status: 429, code: 'rate_limited', headers: { 'retry-after': '17' } };
    useServicesForTests({ sleep: async () => {} });
    const link = await stored({ apiKey: freshKey('r-limited'), brandId: 1, market: { id: 11, code: 'us' }, kind: 'weekly', days: 1 });
    const path = new URL(link.url).pathname;
    const response = await call(path, { key: null });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toMatch(/Try again in \d+ seconds\./);
    const asJson = await call(`${path}?format=json`, { key: null });
    expect(asJson.status).toBe(429);
    expect(Number(asJson.headers.get('retry-after'))).toBeGreaterThan(0);
    // The link's history page too.
    const history = await call(`${path}/history`, { key: null });
    expect([history.status, Number(history.headers.get('retry-after'))]).toEqual([429, 17]);
  });

  it('refuses unknown options and non-GET methods with a page', async () => {
    const link = await mintLink();
    expect((await call(`${link.path}?format=pdf`, { key: null })).status).toBe(400);
    expect((await call(`${link.path}?brand_id=2`, { key: null })).status).toBe(400);
    expect((await call(link.path, { key: null, method: 'POST' })).status).toBe(405);
  });
});

/** `mintLink` with the id the answer carries. */
const minted = async (...args: Parameters<typeof mintLink>) => (await mintLink(...args)) as Awaited<ReturnType<typeof mintLink>> & { id: string; created_at: string };

interface Listed {
  links: { id: string; brand_id: number; market: { id: number; code: string }; kind: string; created_at: string; expires_at: string }[];
  max_live: number;
  note: string;
}

async function listOf(key: string | null = 'demo_pro_single'): Promise<Listed> {
  const response = await call('/reports/links', { key });
  if (response.status !== 200) throw new Error(`list: ${response.status} ${await response.text()}`);
  return (await response.json()) as Listed;
}

const revoke = (id: string, key: string | null = 'demo_pro_single') => call(`/reports/links/${id}`, { key, method: 'DELETE' });
const liveRows = async () => Number(await env.DB.prepare('SELECT COUNT(*) AS n FROM report_links WHERE expires_at > ?').bind(new Date().toISOString()).first('n'));

/** Fills `key` with `n` live links of brand 1 (us): the first expires in a day, alone; the others in 2 to 90 days. */
async function fill(n: number, key = 'demo_pro_single') {
  for (let i = 0; i < n; i++) await stored({ apiKey: key, brandId: 1, market: { id: 11, code: 'us' }, kind: 'weekly', days: i === 0 ? 1 : 2 + (i % 89) });
}

describe("a key's report links: listed and revoked by the key", () => {
  it("the mint answers the link's id; GET /reports/links lists the key's live links without URL or key, oldest first", async () => {
    const first = await minted({ expires_in_days: 7 });
    const second = await minted({ expires_in_days: 60 });
    expect(first.id).toMatch(/^rl_[a-z0-9]{20}$/);
    expect(claimsOf(tokenOf(first.path)).r).toBe(`link:${first.id}`);
    const response = await call('/reports/links', { key: 'demo_pro_single' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toMatch(/no-store/);
    const text = await response.text();
    const listed = JSON.parse(text) as Listed;
    expect(listed.links).toEqual([
      { id: first.id, brand_id: 1, market: { id: 11, code: 'us' }, kind: 'weekly', created_at: expect.any(String), expires_at: first.expires_at },
      { id: second.id, brand_id: 1, market: { id: 11, code: 'us' }, kind: 'weekly', created_at: expect.any(String), expires_at: second.expires_at },
    ]);
    expect(listed.max_live).toBe(MAX_LIVE_LINKS);
    expect(listed.note).toContain('shown once');
    // Neither the URL nor its token, nor the key in any form.
    expect(text).not.toContain(tokenOf(first.path));
    expect(text).not.toContain('/r/');
    expect(text).not.toContain('demo_pro_single');
    expect(text).not.toContain('key_');
    // Per key: another key, even of the same account, sees only its own.
    expect((await listOf('demo_growth_multi')).links).toEqual([]);
    const other = await minted({ brand_id: 2 }, 'demo_growth_multi');
    expect((await listOf('demo_growth_multi')).links.map((l) => l.id)).toEqual([other.id]);
    expect((await listOf()).links.map((l) => l.id)).toEqual([first.id, second.id]);
  });

  it('DELETE revokes: 204, the link answers 410 at once, the row and its sealed key are gone, a second DELETE is 404', async () => {
    const link = await minted();
    const keep = await minted();
    expect((await call(link.path, { key: null })).status).toBe(200);
    const response = await revoke(link.id);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    const opened = await call(link.path, { key: null });
    expect(opened.status).toBe(410);
    expect(opened.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await opened.text()).toContain('The link was revoked');
    expect((await call(`${link.path}?format=json`, { key: null })).status).toBe(410);
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM report_links WHERE id = ?').bind(link.id).first('n')).toBe(0);
    expect((await listOf()).links.map((l) => l.id)).toEqual([keep.id]);
    expect((await call(keep.path, { key: null })).status).toBe(200);
    const again = await revoke(link.id);
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it("another key's link, an unknown or malformed id: 404 alike, and the link still works; a broken percent-encoding is a 400", async () => {
    const theirs = await minted({ brand_id: 2 }, 'demo_growth_multi');
    for (const id of ['%ZZ', '%E0%A4%A']) {
      const response = await revoke(id);
      expect(response.status, id).toBe(400);
      expect(((await response.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'invalid_parameter', param: 'id' });
    }
    for (const id of [theirs.id, 'rl_doesnotexist', 'sub_abc', 'x'.repeat(3000), encodeURIComponent('rl_ü')]) {
      const response = await revoke(id);
      expect(response.status, id.slice(0, 40)).toBe(404);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error).toEqual({ code: 'not_found', message: 'No such live report link for this key.' });
    }
    expect((await call(theirs.path, { key: null })).status).toBe(200);
    expect((await revoke(theirs.id, 'demo_growth_multi')).status).toBe(204);
  });

  it('needs a key the API knows; a key whose plan is inactive may still list and revoke', async () => {
    for (const key of [null, 'demo_revoked', 'not_a_key']) {
      for (const response of [await call('/reports/links', { key }), await revoke('rl_abc', key)]) {
        expect(response.status).toBe(401);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
      }
    }
    const inactive = await stored({ apiKey: 'demo_inactive', brandId: 5, market: { id: 51, code: 'us' }, kind: 'weekly', days: 1 });
    expect((await listOf('demo_inactive')).links.map((l) => l.id)).toEqual([inactive.id]);
    expect((await revoke(inactive.id, 'demo_inactive')).status).toBe(204);
    expect((await listOf('demo_inactive')).links).toEqual([]);
  });

  it('refuses a query string on the list and the revoke', async () => {
    const link = await minted();
    for (const response of [await call('/reports/links?all=1', { key: 'demo_pro_single' }), await call(`/reports/links/${link.id}?force=1`, { key: 'demo_pro_single', method: 'DELETE' })]) {
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'invalid_parameter' });
    }
    expect((await listOf()).links).toHaveLength(1);
  });

  it('an expired link is no longer listed, counted or revocable (fake clock)', async () => {
    const short = await minted({ expires_in_days: 1 });
    const long = await minted({ expires_in_days: 2 });
    useServicesForTests({ now: () => new Date(Date.parse(short.expires_at) + 1000) });
    expect((await listOf()).links.map((l) => l.id)).toEqual([long.id]);
    expect((await revoke(short.id)).status).toBe(404);
    expect((await revoke(long.id)).status).toBe(204);
  });
});

describe(`at most ${MAX_LIVE_LINKS} live links per key`, () => {
  it(`the ${MAX_LIVE_LINKS + 1}st is a 409 too_many_links naming the first expiry; revoking or an expiry frees a slot; other keys are not held`, async () => {
    await fill(MAX_LIVE_LINKS);
    const { links } = await listOf();
    expect(links).toHaveLength(MAX_LIVE_LINKS);
    const response = await post('{"market":"us"}');
    expect(response.status).toBe(409);
    expect(response.headers.get('retry-after')).toBeNull();
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('too_many_links');
    const firstExpiry = links.map((l) => l.expires_at).sort()[0]!;
    expect(error.message).toContain(`${MAX_LIVE_LINKS} live report links`);
    expect(error.message).toContain(firstExpiry);
    expect(error.message).toContain('DELETE /reports/links/{id}');
    expect(await liveRows()).toBe(MAX_LIVE_LINKS);

    // Another key (even another account's) mints as usual.
    expect((await call('/reports/links', { key: 'demo_growth_multi', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"brand_id":2}' })).status).toBe(201);

    // Revoking one frees one slot, and only one.
    expect((await revoke(links[50]!.id)).status).toBe(204);
    expect((await post('{}')).status).toBe(201);
    expect((await post('{}')).status).toBe(409);

    // So does an expiry: the link of the first expiry lapses (fake clock), its slot is free, and its row is cleared by the mint.
    // Found by its expiry, not its place: links made within one millisecond list in any order.
    const lapsed = links.find((l) => l.expires_at === firstExpiry)!;
    useServicesForTests({ now: () => new Date(Date.parse(firstExpiry) + 1000) });
    const after = await post('{}');
    expect(after.status, await after.clone().text()).toBe(201);
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM report_links WHERE id = ?').bind(lapsed.id).first('n')).toBe(0);
    expect((await listOf()).links).toHaveLength(MAX_LIVE_LINKS);
  });

  it('holds under concurrent mints: with 97 live, 12 at once make exactly 3', async () => {
    await fill(MAX_LIVE_LINKS - 3);
    const responses = await Promise.all(Array.from({ length: 12 }, () => post('{}')));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(3).fill(201), ...Array(9).fill(409)]);
    expect((await listOf()).links).toHaveLength(MAX_LIVE_LINKS);
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM report_links WHERE key_hash = (SELECT key_hash FROM report_links LIMIT 1)').first('n')).toBe(MAX_LIVE_LINKS);
  });

  it('the store counts per purpose: export links (a coming kind of link) neither fill nor show in the report links', async () => {
    const { storeKeyLink } = await import('../src/links/link-store');
    const now = new Date();
    for (let i = 0; i < 3; i++) {
      const outcome = await storeKeyLink(env.DB, env.ENCRYPTION_KEY, {
        id: `xl_test${i}`,
        purpose: 'export',
        apiKey: 'demo_pro_single',
        brandId: 1,
        market: { id: 11, code: 'us' },
        kind: 'getVisibility',
        params: { brand_id: 1, market: 'us' },
        now,
        expiresAt: new Date(now.getTime() + DAY_MS).toISOString(),
      });
      expect(outcome).toEqual({ ok: true });
    }
    await fill(MAX_LIVE_LINKS);
    expect((await listOf()).links.every((l) => l.id.startsWith('rl_'))).toBe(true);
    expect((await post('{}')).status).toBe(409);
    expect((await revoke('xl_test0')).status).toBe(404);
    expect(await env.DB.prepare("SELECT params FROM report_links WHERE id = 'xl_test1'").first('params')).toBe('{"brand_id":1,"market":"us"}');
  });
});
