/**
 * The pages for people (src/account) through the Worker: the front door beside
 * the JSON answer of `/`, signing in with the key (good, revoked, malformed,
 * the unverified keys' limit), the session's cookie and its ends (a working
 * day, sign-out, the key revoked upstream, the secrets rotated), the forms'
 * protection, and the subscriptions screen: each action through the JSON
 * route's code, its refusals beside their fields, one account's view only.
 */
import { env, evictDurableObject, SELF } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { UNVERIFIED_PER_MINUTE } from '../src/proxy/abuse';
import { sha256Hex } from '../src/lib/hash';
import { SESSIONS_PER_KEY } from '../src/account/session';
import { SIGN_IN_PER_MINUTE } from '../src/account/sign-in-limit';
import { keepWeek } from '../src/weekly-report/history';
import { clearDigests, RecordingApi } from './digests-helpers';
import { accountKey, gateOf } from './exports-helpers';
import { inOneLimiterWindow, KEYS } from './helpers';
import { callWith, clearReports, visibleText } from './reports-helpers';
import { useServicesForTests, useUpstreamForTests } from './seams';
import { BASE, BROWSER_ACCEPT, get, post, signIn } from './account-helpers';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let clock = Date.now();
beforeEach(async () => {
  await clearDigests();
  // Every file mints links with the demo keys: none left from another, so no test meets the cap of live links.
  await clearReports();
  await env.DB.prepare('DELETE FROM account_sessions').run();
  clock = Date.now();
  useServicesForTests({ now: () => new Date(clock) });
});
afterEach(() => {
  useServicesForTests();
  useUpstreamForTests();
});

const errorBeside = (html: string, field: string) => {
  const error = new RegExp(`<p class="(?:error|problem)" id="${field}-error" role="alert">(.*?)</p>`).exec(html)?.[1];
  return error === undefined ? undefined : visibleText(error);
};

describe('the front door', () => {
  it('GET / in a browser is a page offering sign-in, naming the API and the MCP address; noindex and unframeable', async () => {
    const response = await get('/');
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(visibleText(html)).toContain('Sign in with your API key');
    expect(html).toContain('href="/account/sign-in"');
    expect(visibleText(html)).toContain(`${BASE}/api/v1`);
    expect(visibleText(html)).toContain(`${BASE}/mcp`);
    expect(html).toContain('<meta name="robots" content="noindex">');
    expect(response.headers.get('x-robots-tag')).toBe('noindex');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('a client asking for JSON (or anything) keeps the JSON answer of /', async () => {
    for (const accept of [null, 'application/json', '*/*']) {
      const response = await SELF.fetch(`${BASE}/`, accept ? { headers: { accept } } : {});
      expect([accept, response.status, response.headers.get('content-type')]).toEqual([accept, 404, expect.stringMatching(/^application\/json/)]);
      expect(await response.json()).toEqual({ error: { code: 'not_found', message: 'Nothing here. The API is at /api/v1 (see /api/v1/openapi.json).' } });
    }
    const posted = await SELF.fetch(`${BASE}/`, { method: 'POST', headers: { accept: BROWSER_ACCEPT } });
    expect(posted.status).toBe(404);
  });

  it('a browser on an address that is no page gets a 404 page (title, language, a way back); a JSON client its JSON', async () => {
    for (const path of ['/account/x', '/nope', '/account/subscriptions/x', '/reports/x']) {
      const page = await get(path);
      expect([path, page.status, page.headers.get('content-type')]).toEqual([path, 404, expect.stringMatching(/^text\/html/)]);
      const html = await page.text();
      expect(html).toMatch(/<html lang="en"/);
      expect(html).toMatch(/<title>Nothing here[^<]*<\/title>/);
      expect(html).toContain('href="/"');
      const json = await SELF.fetch(`${BASE}${path}`, { headers: { accept: 'application/json' } });
      expect([path, json.status, ((await json.json()) as { error: { code: string } }).error.code]).toEqual([path, 404, 'not_found']);
    }
    // Signed in, the way back is the account.
    const { cookie } = await signIn();
    expect(await (await get('/account/x', cookie)).text()).toContain('href="/account"');
  });
});

describe('signing in', () => {
  it('a good key begins a session: an opaque __Host- cookie (HttpOnly, Secure, SameSite=Lax, a working day); the key only sealed in D1', async () => {
    const { cookie, setCookie } = await signIn();
    expect(setCookie).toMatch(/^__Host-session=[A-Za-z0-9_-]{43}; Path=\/; Secure; HttpOnly; SameSite=Lax; Max-Age=28800$/);
    expect(cookie).not.toContain(KEYS.pro);
    const rows = await env.DB.prepare('SELECT * FROM account_sessions').all<Record<string, string>>();
    expect(rows.results).toHaveLength(1);
    expect(JSON.stringify(rows.results)).not.toContain(KEYS.pro);
    expect(JSON.stringify(rows.results)).not.toContain(cookie.split('=')[1]);
    const page = await get('/account', cookie);
    const text = visibleText(await page.text());
    expect(text).toContain('Brightdesk');
    expect(text).not.toContain(KEYS.pro);
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    // Signed in, the sign-in page and the front door lead to the account.
    expect((await get('/account/sign-in', cookie)).headers.get('location')).toBe('/account');
    expect(visibleText(await (await get('/', cookie)).text())).toContain('Go to your account');
  });

  it('a revoked key, an unknown one and a malformed one are refused on the page, beside the field; no session begins', async () => {
    const cases: [string, number, string][] = [
      [KEYS.revoked, 400, 'This key was not accepted: it is unknown or revoked.'],
      ['demo_no_such_key', 400, 'This key was not accepted: it is unknown or revoked.'],
      ['two words', 400, 'The API key has characters an API key never has'],
      ['', 400, 'The API key is empty: paste the Read API key.'],
    ];
    for (const [key, status, message] of cases) {
      const response = await post('/account/sign-in', { api_key: key });
      expect([key, response.status]).toEqual([key, status]);
      expect(response.headers.get('set-cookie')).toBeNull();
      const html = await response.text();
      expect(errorBeside(html, 'key')).toContain(message);
      expect(html).toContain('aria-invalid="true"');
      expect(html).not.toContain(`value="${key}"`);
    }
    expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM account_sessions').first<{ n: number }>())!.n).toBe(0);
  });

  it('sign-in attempts count as unverified keys of their address: past the limit, 429 on the page without reading upstream', async () => {
    const api = new RecordingApi();
    api.fault = { status: 401, code: 'invalid_api_key' };
    useUpstreamForTests(api.upstream);
    let round = 0;
    const { statuses, last } = await inOneLimiterWindow(
      () => `198.51.100.${221 + round++}`,
      async (address) => {
        const statuses: number[] = [];
        for (let i = 0; i < UNVERIFIED_PER_MINUTE + 3; i++) statuses.push((await post('/account/sign-in', { api_key: `random_${crypto.randomUUID()}` }, { address })).status);
        return { statuses, last: await post('/account/sign-in', { api_key: `random_last_${crypto.randomUUID()}` }, { address }) };
      },
      () => void (api.requests = []),
    );
    expect(api.requests).toHaveLength(UNVERIFIED_PER_MINUTE);
    expect(statuses.slice(UNVERIFIED_PER_MINUTE)).toEqual([429, 429, 429]);
    expect(last.status).toBe(429);
    expect(errorBeside(await last.text(), 'key')).toMatch(/^Too many checks just now\. Try again in \d+ seconds\.$/);
  });

  it('the sign-in limit is a rolling minute: 130 guesses in 29 s across a minute boundary get 429 past the 120th, until the first leaves the minute', async () => {
    const api = new RecordingApi();
    api.fault = { status: 401, code: 'invalid_api_key' };
    useUpstreamForTests(api.upstream);
    // The binding's fixed window resets on the minute: here it lets every request through, as it does after a boundary.
    const bindingAfterBoundary = { ...env, UNVERIFIED_KEYS: { limit: async () => ({ success: true }) } } as unknown as Env;
    const guess = () => {
      const body = new URLSearchParams({ api_key: `random_${crypto.randomUUID()}` }).toString();
      const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER_ACCEPT, origin: BASE, 'cf-connecting-ip': '198.51.100.240' };
      return callWith(bindingAfterBoundary, '/account/sign-in', { method: 'POST', body, headers });
    };
    const start = Math.ceil(clock / MINUTE) * MINUTE + 10 * MINUTE - 15_000;
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 130; i++) {
      clock = start + Math.floor((i * 29_000) / 130);
      last = await guess();
      statuses.push(last.status);
    }
    expect(statuses.slice(0, SIGN_IN_PER_MINUTE).every((status) => status === 401 || status === 400)).toBe(true);
    expect(statuses.slice(SIGN_IN_PER_MINUTE)).toEqual(Array(130 - SIGN_IN_PER_MINUTE).fill(429));
    // The first guess leaves the minute 60 s after it was made: Retry-After says when.
    const wait = Number(last!.headers.get('retry-after'));
    expect(wait).toBe(Math.ceil((start + MINUTE - clock) / 1000));
    expect(errorBeside(await last!.text(), 'key')).toBe(`Too many checks just now. Try again in ${wait} seconds.`);
    clock = start + MINUTE + 1;
    expect((await guess()).status).not.toBe(429);
  });

  it('a sign-in posted from another site is refused before the key is read', async () => {
    for (const origin of ['https://evil.test', null]) {
      const response = await post('/account/sign-in', { api_key: KEYS.pro }, { origin });
      expect(response.status).toBe(403);
      expect(response.headers.get('set-cookie')).toBeNull();
    }
  });

  it('signed-out pages lead to sign-in', async () => {
    for (const path of ['/account', '/account/subscriptions']) expect((await get(path)).headers.get('location')).toBe('/account/sign-in');
  });
});

describe('the overview is where the week shows', () => {
  it('for each brand and market: the score, won and lost, 12 weeks and the first action, as the API and the report say them', async () => {
    const { cookie } = await signIn();
    const html = await (await get('/account', cookie)).text();
    for (const market of ['us', 'de']) {
      const card = new RegExp(`<li data-scope="brand_id=1&amp;market=${market}" data-score="([^"]*)">([\\s\\S]*?)</li>\\n?(?=<li data-scope|</ul>)`).exec(html);
      expect(card, market).not.toBeNull();
      const api = (path: string) => SELF.fetch(`${BASE}/api/v1${path}?market=${market}`, { headers: { authorization: `Bearer ${KEYS.pro}` } }).then((r) => r.json() as Promise<any>);
      const [visibility, history] = await Promise.all([api('/visibility'), api('/answers/history')]);
      expect(card![1]).toBe(visibility.score.toFixed(1));
      const text = visibleText(card![2]!);
      expect(text).toContain(`${history.counts.lost} lost · ${history.counts.won} won`);
      expect(card![2]).toContain(
        `aria-label="Brightdesk ${market.toUpperCase()}, score by week, last 12 weeks: ${visibility.history.map((p: { score: number }) => `${p.score.toFixed(1)}%`).join(', ')}"`,
      );
      const report = (await (await SELF.fetch(`${BASE}/reports/weekly?market=${market}&format=json`, { headers: { authorization: `Bearer ${KEYS.pro}` } })).json()) as {
        report: { plan: { items: { headline: string }[] } };
      };
      expect(text).toContain(`This week: ${report.report.plan.items[0]!.headline}`);
    }
  });

  it('an account with two brands sees every brand and market side by side', async () => {
    const { cookie } = await signIn(KEYS.growth);
    const html = await (await get('/account', cookie)).text();
    const scopes = [...html.matchAll(/<li data-scope="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(scopes.map((scope) => /brand_id=(\d+)/.exec(scope!)![1])).size).toBe(2);
    expect(scopes.length).toBeGreaterThanOrEqual(4);
    expect(html).toContain('<ul class="weeks" data-testid="weeks">');
  });
});

describe('the report and history inside the account', () => {
  it('switch between every brand and market of the key, the one shown marked, staying on the same page', async () => {
    const { cookie } = await signIn(KEYS.growth);
    const overview = await (await get('/account', cookie)).text();
    const pairs = [...overview.matchAll(/<li data-scope="[^"]*brand_id=(\d+)&amp;market=([a-z-]+)/g)].map((m) => `${m[1]}:${m[2]}`);
    expect(new Set(pairs.map((p) => p.split(':')[0])).size).toBe(2);
    const [brandId, market] = pairs[0]!.split(':');
    for (const path of ['/account/report', '/account/history']) {
      const html = await (await get(`${path}?brand_id=${brandId}&market=${market}`, cookie)).text();
      const nav = /<nav aria-label="Brand and market"><ul class="scopes" data-testid="scopes">([\s\S]*?)<\/ul><\/nav>/.exec(html)?.[1];
      expect(nav, path).toBeDefined();
      const links = [...nav!.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
      // Every other pair, on the same page; the one shown is marked, not linked.
      expect(links.sort()).toEqual(
        pairs
          .slice(1)
          .map((p) => `${path}?brand_id=${p.split(':')[0]}&market=${p.split(':')[1]}`)
          .sort(),
      );
      expect(nav).toMatch(/<span class="here" aria-current="page">[^<]+ · [A-Z-]+<\/span>/);
      // The report's own market links are not repeated beside it.
      expect(html).not.toContain('data-testid="markets"');
    }
  });

  it("keep the account's navigation and its sign-out button, which posts from them; the keyed report has neither", async () => {
    const { cookie, csrf } = await signIn();
    for (const path of ['/account/report?brand_id=1&market=us', '/account/history?brand_id=1&market=us']) {
      const page = await get(path, cookie);
      expect([path, page.status]).toEqual([path, 200]);
      const html = await page.text();
      expect(html).toContain('<nav class="nav" aria-label="Your account">');
      expect(html).toContain('href="/account"');
      expect(html).toContain(`<form method="post" action="/account/sign-out"><input type="hidden" name="csrf" value="${csrf}">`);
      // The sign-out form may post (CSP) and sends its Origin (the forms' check reads it).
      expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
      expect(page.headers.get('referrer-policy')).toBe('same-origin');
    }
    const out = await post('/account/sign-out', { csrf }, { cookie });
    expect(out.headers.get('location')).toBe('/account/sign-in?note=signed-out');
    const keyed = await SELF.fetch(`${BASE}/reports/weekly?market=us`, { headers: { authorization: 'Bearer demo_pro_single', accept: BROWSER_ACCEPT } });
    const keyedHtml = await keyed.text();
    expect(keyedHtml).not.toContain('aria-label="Your account"');
    expect(keyed.headers.get('referrer-policy')).toBe('no-referrer');
    // Its one form makes its CSV links, on this site only.
    expect(keyed.headers.get('content-security-policy')).toContain("form-action 'self'");
  });
});

describe('a note or done in the address', () => {
  // Names every object inherits: a page that looked them up with `in` showed `function Object() { [native code] }`.
  const INHERITED = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf', 'toLocaleString'];

  it('says only the notes and confirmations the pages know, never an inherited name', async () => {
    const ended = await (await get('/account/sign-in?note=signed-out')).text();
    expect(ended).toContain('role="status"');
    const { cookie } = await signIn();
    for (const name of INHERITED) {
      for (const [path, withCookie] of [
        [`/account/sign-in?note=${name}`, undefined],
        [`/account/subscriptions?done=${name}`, cookie],
        [`/account/links?done=${name}`, cookie],
        [`/account/exports?done=${name}`, cookie],
      ] as const) {
        const response = await get(path, withCookie);
        expect([path, response.status]).toEqual([path, 200]);
        const html = await response.text();
        expect(html, path).not.toMatch(/native code|function |\[object /);
        expect(html, path).not.toContain('role="status"');
      }
    }
  });
});

describe('the session ends', () => {
  it('after a working day (8 hours), whatever happens in it', async () => {
    const { cookie } = await signIn();
    clock += 8 * HOUR - MINUTE;
    expect((await get('/account', cookie)).status).toBe(200);
    clock += 2 * MINUTE;
    const late = await get('/account', cookie);
    expect([late.status, late.headers.get('location')]).toEqual([303, '/account/sign-in?note=ended']);
    expect(late.headers.get('set-cookie')).toMatch(/^__Host-session=; Path=\/; Secure; HttpOnly; SameSite=Lax; Max-Age=0$/);
    expect(visibleText(await (await get('/account/sign-in?note=ended')).text())).toContain('Your session has ended');
    expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM account_sessions').first<{ n: number }>())!.n).toBe(0);
  });

  it('on signing out (the form needs its token); the old cookie opens nothing', async () => {
    const { cookie, csrf } = await signIn();
    expect((await post('/account/sign-out', { csrf: 'f'.repeat(64) }, { cookie })).status).toBe(403);
    expect((await get('/account', cookie)).status).toBe(200);
    const out = await post('/account/sign-out', { csrf }, { cookie });
    expect([out.status, out.headers.get('location')]).toEqual([303, '/account/sign-in?note=signed-out']);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await get('/account', cookie)).headers.get('location')).toBe('/account/sign-in?note=ended');
  });

  it('when the API no longer accepts the key: every session of it', async () => {
    const key = await accountKey('account-revoked');
    const first = await signIn(key);
    const second = await signIn(key);
    await env.DB.prepare('UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?')
      .bind(new Date(clock).toISOString(), await sha256Hex(key))
      .run();
    // The edge checks a key it serves from its cache again 5 minutes after the upstream last accepted it.
    clock += 6 * MINUTE;
    await evictDurableObject(await gateOf(key));
    const page = await get('/account', first.cookie);
    expect([page.status, page.headers.get('location')]).toEqual([303, '/account/sign-in?note=revoked']);
    expect((await get('/account', second.cookie)).headers.get('location')).toBe('/account/sign-in?note=ended');
    expect(visibleText(await (await get('/account/sign-in?note=revoked')).text())).toContain('the API no longer accepts its key');
  });

  it("when the API no longer accepts the key: a form that writes asks the API now, so nothing is written, even within the cache's 5 minutes", async () => {
    const key = await accountKey('account-revoked-write');
    const { cookie, csrf } = await signIn(key);
    const add = { email: 'lead@example.com', scope: '1:us', kinds: ['visibility', 'won_lost'], timezone: 'UTC', channel: 'email', channel_url: '', quiet_start: '22:00', quiet_end: '07:00' };
    expect((await post('/account/subscriptions', { csrf, ...add }, { cookie })).status).toBe(303);
    const id = (await env.DB.prepare("SELECT id FROM digest_subscriptions WHERE email = 'lead@example.com' AND key_hash = ?")
      .bind(await sha256Hex(key))
      .first<{ id: string }>())!.id;
    await env.DB.prepare('UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?')
      .bind(new Date(clock).toISOString(), await sha256Hex(key))
      .run();
    clock += MINUTE;
    // The key's gate shares an answer with identical reads for 2 s of real time: this test runs within them.
    await evictDurableObject(await gateOf(key));
    // A page within the bound may still be read from the cache (docs/people.md); a write is refused at once and ends
    // every session of the key, so the next writes find no session.
    const refused = await post('/account/subscriptions/remove', { csrf, id }, { cookie });
    expect([refused.status, refused.headers.get('location')]).toEqual([303, '/account/sign-in?note=revoked']);
    for (const [path, fields] of [
      ['/account/links', { csrf, scope: '1:us', days: '30' }],
      ['/account/subscriptions/send', { csrf, scope: '1:us' }],
      ['/account/subscriptions/remove', { csrf, id }],
    ] as const) {
      const after = await post(path, fields, { cookie });
      expect([path, after.status, after.headers.get('location')]).toEqual([path, 303, '/account/sign-in?note=ended']);
    }
    expect(await env.DB.prepare('SELECT id FROM digest_subscriptions WHERE id = ?').bind(id).first()).not.toBeNull();
    expect(
      (await env.DB.prepare('SELECT COUNT(*) AS n FROM report_links WHERE key_hash = ?')
        .bind(await sha256Hex(key))
        .first<{ n: number }>())!.n,
    ).toBe(0);
  });

  it('when its key holds too many: the 21st sign-in ends the oldest session, so no key grows the table without bound', async () => {
    const first = await signIn();
    for (let i = 0; i < SESSIONS_PER_KEY; i++) {
      clock += 1000;
      await post('/account/sign-in', { api_key: KEYS.pro });
    }
    expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM account_sessions').first<{ n: number }>())!.n).toBe(SESSIONS_PER_KEY);
    expect((await get('/account', first.cookie)).headers.get('location')).toBe('/account/sign-in?note=ended');
  });

  it("when the operator rotates the secrets: the session's tag or seal no longer opens", async () => {
    const tag = await signIn();
    await env.DB.prepare("UPDATE account_sessions SET secret_tag = 'rotated'").run();
    expect((await get('/account', tag.cookie)).headers.get('location')).toBe('/account/sign-in?note=ended');
    const seal = await signIn();
    await env.DB.prepare("UPDATE account_sessions SET key_sealed = 'v1.AAAAAAAAAAAAAAAA.AAAA'").run();
    expect((await get('/account', seal.cookie)).headers.get('location')).toBe('/account/sign-in?note=ended');
  });
});

describe('the subscriptions screen', () => {
  const ADD = { email: 'lead@example.com', scope: '1:us', kinds: ['visibility', 'won_lost'], timezone: 'Europe/Berlin', channel: 'email', channel_url: '', quiet_start: '22:00', quiet_end: '07:00' };

  it('asks before it removes: the button that removes is inside a disclosure that says what it does, and only it posts', async () => {
    const { cookie, csrf } = await signIn();
    expect((await post('/account/subscriptions', { csrf, ...ADD }, { cookie })).status).toBe(303);
    const page = await (await get('/account/subscriptions', cookie)).text();
    const ask = /<details class="ask"><summary>Remove<span class="sr">([^<]*)<\/span>…<\/summary><form method="post" action="\/account\/subscriptions\/remove">([\s\S]*?)<\/form><\/details>/.exec(
      page,
    );
    expect(ask).not.toBeNull();
    expect(ask![1]).toContain('lead@example.com');
    expect(visibleText(ask![2]!)).toContain('Nothing more goes to lead@example.com for Brightdesk US');
    expect(ask![2]).toMatch(/<button type="submit" class="danger">Yes, remove<span class="sr"> lead@example\.com/);
    // No other form on the page removes it.
    expect(page.match(/action="\/account\/subscriptions\/remove"/g)).toHaveLength(1);
  });

  it("adds an address through the JSON route's code: 303, the message after the redirect, its confirmation in the outbox", async () => {
    const { cookie, csrf } = await signIn();
    const added = await post('/account/subscriptions', { csrf, ...ADD }, { cookie });
    expect([added.status, added.headers.get('location')]).toEqual([303, '/account/subscriptions?done=added']);
    const page = visibleText(await (await get('/account/subscriptions?done=added', cookie)).text());
    expect(page).toContain('Added. A confirmation went out');
    expect(page).toContain('lead@example.com');
    expect(page).toContain('waiting for confirmation');
    const outbox = (await (await SELF.fetch(`${BASE}/dev/outbox?format=json&to=lead@example.com`)).json()) as { messages: { kind: string }[] };
    expect(outbox.messages.map((m) => m.kind)).toEqual(['confirm']);
    // The same subscription as the JSON route lists it.
    const listed = (await (await SELF.fetch(`${BASE}/digests/subscriptions`, { headers: { authorization: `Bearer ${KEYS.pro}` } })).json()) as {
      subscriptions: { email: string; timezone: string; status: string }[];
    };
    expect(listed.subscriptions).toEqual([expect.objectContaining({ email: 'lead@example.com', timezone: 'Europe/Berlin', status: 'pending' })]);
    // Sent again within its window: nothing goes, and the page says so.
    const id = (await env.DB.prepare('SELECT id FROM digest_subscriptions').first<{ id: string }>())!.id;
    const again = await post('/account/subscriptions/resend', { csrf, id }, { cookie });
    expect(again.headers.get('location')).toBe('/account/subscriptions?done=recent');
  });

  it("shows each mistake beside the field it concerns, in the form's words (no API field name), with what was typed", async () => {
    const { cookie, csrf } = await signIn();
    const cases: [Record<string, string | string[]>, string, string][] = [
      [{ email: 'not-an-address' }, 'email', 'This is not a valid email address.'],
      [{ timezone: 'Mars/Olympus' }, 'timezone', 'This must be an IANA timezone name'],
      [{ kinds: [] }, 'kinds', 'This must name at least one of “The weekly visibility digest”, “Won and lost questions”'],
      [{ scope: '1:zz' }, 'scope', 'zz'],
      [{ scope: '2:us' }, 'scope', ''],
      [{ kinds: ['alerts'], channel: 'webhook', channel_url: '' }, 'channel_url', 'This is required for a `webhook` channel'],
      [{ kinds: ['alerts'], channel: 'webhook', channel_url: 'http://10.0.0.1/hook' }, 'channel_url', 'This '],
      [{ kinds: ['visibility', 'alerts'], channel: 'slack', channel_url: 'https://hooks.slack.com/services/T/B/x' }, 'kinds', 'A `slack` channel takes only “Change alerts”'],
    ];
    for (const [change, field, message] of cases) {
      const response = await post('/account/subscriptions', { csrf, ...ADD, ...change }, { cookie });
      const html = await response.text();
      expect([change, response.status]).toEqual([change, expect.any(Number)]);
      expect(response.status).toBeGreaterThanOrEqual(400);
      const beside = errorBeside(html, field);
      expect([change, beside]).toEqual([change, expect.stringContaining(message.replace(/`/g, ''))]);
      // The form's words: none of the API's field names a person never typed.
      expect([change, beside]).toEqual([change, expect.not.stringMatching(/channel\.url|quiet_hours|won_lost|\bkinds\b|brand_id/)]);
      if (change.email) expect(html).toContain(`value="${change.email}"`);
    }
    expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM digest_subscriptions').first<{ n: number }>())!.n).toBe(0);
  });

  it("a form without the session's token, or from another site, changes nothing", async () => {
    const { cookie, csrf } = await signIn();
    const attempts = [
      post('/account/subscriptions', { ...ADD }, { cookie }),
      post('/account/subscriptions', { csrf: 'a'.repeat(64), ...ADD }, { cookie }),
      post('/account/subscriptions', { csrf, ...ADD }, { cookie, origin: 'https://evil.test' }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(403);
      expect(visibleText(await response.text())).toContain('This form was not accepted');
    }
    // Another session's token is refused too.
    const other = await signIn();
    expect((await post('/account/subscriptions', { csrf: other.csrf, ...ADD }, { cookie })).status).toBe(403);
    expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM digest_subscriptions').first<{ n: number }>())!.n).toBe(0);
  });

  it("lists and removes only the signed-in key's account's subscriptions", async () => {
    const theirs = await SELF.fetch(`${BASE}/digests/subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.growth}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'theirs@example.com', brand_id: 2 }),
    });
    expect(theirs.status).toBe(201);
    const theirId = ((await theirs.json()) as { subscription: { id: string } }).subscription.id;
    const { cookie, csrf } = await signIn();
    expect((await post('/account/subscriptions', { csrf, ...ADD }, { cookie })).status).toBe(303);
    const page = visibleText(await (await get('/account/subscriptions', cookie)).text());
    expect(page).toContain('lead@example.com');
    expect(page).not.toContain('theirs@example.com');

    const refused = await post('/account/subscriptions/remove', { csrf, id: theirId }, { cookie });
    expect(refused.status).toBe(404);
    expect(visibleText(await refused.text())).toContain('No such subscription for this account.');
    expect(await env.DB.prepare('SELECT id FROM digest_subscriptions WHERE id = ?').bind(theirId).first()).not.toBeNull();

    const mine = (await env.DB.prepare("SELECT id FROM digest_subscriptions WHERE email = 'lead@example.com'").first<{ id: string }>())!.id;
    const removed = await post('/account/subscriptions/remove', { csrf, id: mine }, { cookie });
    expect(removed.headers.get('location')).toBe('/account/subscriptions?done=removed');
    expect(await env.DB.prepare('SELECT id FROM digest_subscriptions WHERE id = ?').bind(mine).first()).toBeNull();
  });
  it("shows each subscription's last delivery and, when it did not go out, why (GET /digests/subscriptions' last_delivery)", async () => {
    const { cookie, csrf } = await signIn();
    expect((await post('/account/subscriptions', { csrf, ...ADD }, { cookie })).status).toBe(303);
    const before = visibleText(await (await get('/account/subscriptions', cookie)).text());
    expect(before).not.toContain('Last digest');
    const { id } = (await env.DB.prepare("SELECT id FROM digest_subscriptions WHERE email = 'lead@example.com'").first<{ id: string }>())!;
    const at = new Date(clock).toISOString();
    const reason = 'The Read API has no getAnswerHistory operation (GET /answers/history answered 404 not_found)';
    await env.DB.prepare(
      "INSERT INTO digest_sends (subscription_id, iso_week, week_monday, group_key, idempotency_key, status, reason, planned_at, updated_at) VALUES (?, '2026-W01', '2026-01-05', 'g', ?, 'skipped', ?, ?, ?)",
    )
      .bind(id, `digest/${id}/2026-W01`, reason, at, at)
      .run();
    const page = visibleText(await (await get('/account/subscriptions', cookie)).text());
    expect(page).toContain(`Last digest: not sent ${at.slice(0, 16).replace('T', ' ')} UTC: ${reason}`);
  });
});

describe('share links, CSV links and send now', () => {
  it('a share link: made (its URL shown once), opened signed out, listed, revoked; its mistakes beside their fields', async () => {
    const { cookie, csrf } = await signIn();
    for (const [days, message] of [
      ['abc', 'This must be a whole number of days'],
      ['500', 'This must be at most 90'],
    ] as const) {
      const refused = await post('/account/links', { csrf, scope: '1:us', days }, { cookie });
      expect(refused.status).toBe(400);
      expect(errorBeside(await refused.text(), 'days')).toContain(message);
    }
    const made = await post('/account/links', { csrf, scope: '1:us', days: '7' }, { cookie });
    expect(made.status).toBe(200);
    const url = /<code class="secret" id="made-url">([^<]+)<\/code>/.exec(await made.text())![1]!;
    expect(url).toMatch(/\/r\/[A-Za-z0-9._-]+$/);
    const opened = await SELF.fetch(url.replace(/^https?:\/\/[^/]+/, BASE));
    expect(opened.status).toBe(200);
    expect(visibleText(await opened.text())).toContain('Brightdesk');
    const id = (await env.DB.prepare("SELECT id FROM report_links WHERE purpose = 'report' ORDER BY created_at DESC").first<{ id: string }>())!.id;
    expect(await (await get('/account/links', cookie)).text()).toContain(`data-link="${id}"`);
    // Another key cannot revoke it.
    const other = await signIn(KEYS.growth);
    const refused = await post('/account/links/revoke', { csrf: other.csrf, id }, { cookie: other.cookie });
    expect([refused.status, errorBeside(await refused.text(), 'form')]).toEqual([404, 'No such live report link for this key.']);
    const revoked = await post('/account/links/revoke', { csrf, id }, { cookie });
    expect(revoked.headers.get('location')).toBe('/account/links?done=revoked');
    expect((await SELF.fetch(url.replace(/^https?:\/\/[^/]+/, BASE))).status).toBe(410);
  });

  it('a CSV link: made for an export, its address and IMPORTDATA formula listed, read, revoked; a bad parameter beside its field', async () => {
    const { cookie, csrf } = await signIn();
    // The table's parameters are fields of their kind, chosen with the table: no query string to write.
    const chosen = await (await SELF.fetch(`${BASE}/account/exports?table=getPromptMatrix`, { headers: { cookie } })).text();
    expect(chosen).not.toContain('name="params"');
    const topics = await (await SELF.fetch(`${BASE}/account/exports?table=listTopics`, { headers: { cookie } })).text();
    expect(topics).toMatch(/<input type="number" id="p-days" name="p\.days" value="" min="1" max="\d+"/);
    expect(topics).toMatch(/<input type="date" id="p-from" name="p\.from"/);
    expect(topics).toContain('<input type="hidden" name="operation" value="listTopics">');
    const refused = await post('/account/exports', { csrf, operation: 'listTopics', scope: '1:us', days: '30', 'p.days': '400' }, { cookie });
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(errorBeside(page, 'p-days')).toMatch(/^This must be at most \d+\.$/);
    expect(page).toContain('value="400"');
    const made = await post('/account/exports', { csrf, operation: 'listTopics', scope: '1:us', days: '30', 'p.days': '28' }, { cookie });
    expect(made.status).toBe(200);
    const html = await made.text();
    const url = /<code id="url-[^"]+">([^<]+)<\/code>/.exec(html)![1]!;
    expect(url).toMatch(/\/x\/[A-Za-z0-9._-]+\.csv$/);
    expect(html).toContain(`=IMPORTDATA(&quot;${url}&quot;)`);
    const read = await SELF.fetch(url.replace(/^https?:\/\/[^/]+/, BASE));
    expect([read.status, read.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^text\/csv/)]);
    const id = /data-link="([^"]+)"/.exec(html)![1]!;
    // Titled in words: its table, brand and market, never an operation id or a query string.
    expect(new RegExp(`<li data-link="${id}" class="fresh"><div class="head"><span class="who">([^<]+)</span>`).exec(html)![1]).toBe('List topics · Brightdesk US · days 28');
    expect(visibleText(html)).not.toMatch(/\(listTopics\)|brand_id=/);
    const revoked = await post('/account/exports/revoke', { csrf, id }, { cookie });
    expect(revoked.headers.get('location')).toBe('/account/exports?done=revoked');
    expect((await SELF.fetch(url.replace(/^https?:\/\/[^/]+/, BASE))).status).toBe(410);
  });

  it("the weekly report page, read with the session's key; its market switch stays in the account", async () => {
    const { cookie } = await signIn();
    const overview = await (await get('/account', cookie)).text();
    expect(overview).toContain('href="/account/report?brand_id=1&amp;market=us"');
    const page = await get('/account/report?brand_id=1&market=us', cookie);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(visibleText(html)).toContain('Brightdesk');
    expect(html).toContain('href="/account/report?brand_id=1&amp;market=de"');
    expect(html).not.toContain(KEYS.pro);
    expect((await get('/account/report?brand_id=1&market=us')).headers.get('location')).toBe('/account/sign-in');
  });

  it('the kept history of each brand and market, linked from the overview and the report page: the page of GET /reports/history', async () => {
    const { cookie } = await signIn();
    const overview = await (await get('/account', cookie)).text();
    for (const market of ['us', 'de']) expect(overview).toContain(`href="/account/history?brand_id=1&amp;market=${market}"`);
    // A week kept long ago, beyond the API's 12 weeks (brand 1's market us is market 11).
    const old = {
      brand_id: 1,
      market_id: 11,
      iso_week: '2025-W10',
      week_monday: '2025-03-03',
      period_from: '2025-02-24',
      period_to: '2025-03-02',
      score: 42.5,
      answered_runs: 321,
      naming_runs: 136,
      won: 4,
      lost: 2,
      held: 30,
      engines: [],
      recorded_at: '2025-03-03T01:00:00.000Z',
      source: 'cron',
    } as const;
    await keepWeek(env.DB, { ...old, engines: [] });
    onTestFinished(async () => void (await env.DB.prepare("DELETE FROM weekly_history WHERE iso_week = '2025-W10'").run()));
    const report = await (await get('/account/report?brand_id=1&market=us', cookie)).text();
    expect(report).toContain('href="/account/history?brand_id=1&amp;market=us"');
    const mine = await get('/account/history?brand_id=1&market=us', cookie);
    expect(mine.status).toBe(200);
    const html = await mine.text();
    const keyed = await (await SELF.fetch(`${BASE}/reports/history?brand_id=1&market=us`, { headers: { authorization: `Bearer ${KEYS.pro}` } })).text();
    const rows = (page: string) => [...page.matchAll(/<tr data-week="[^"]+">.*?<\/tr>/g)].map((m) => m[0]);
    expect(rows(html).find((row) => row.includes('data-week="2025-W10"'))).toContain('42.5');
    expect(rows(html)).toEqual(rows(keyed));
    expect(visibleText(html)).toContain('Brightdesk in AI answers: the kept history');
    expect(html).toContain('href="/account/report?brand_id=1&amp;market=us"');
    expect(html).not.toContain(KEYS.pro);
    expect((await get('/account/history?brand_id=1&market=us')).headers.get('location')).toBe('/account/sign-in');
    const refused = await get('/account/history?brand_id=1&market=zz', cookie);
    expect([refused.status, visibleText(await refused.text())]).toEqual([404, expect.stringContaining('zz')]);
  });

  it("send now: the route's answer in words (no confirmed subscriber: nothing sent)", async () => {
    const { cookie, csrf } = await signIn();
    const sent = await post('/account/subscriptions/send', { csrf, scope: '1:us' }, { cookie });
    expect(sent.status).toBe(200);
    expect(visibleText(await sent.text())).toContain('No confirmed subscriber for this brand and market: nothing was sent.');
    const refused = await post('/account/subscriptions/send', { csrf, scope: '1:zz' }, { cookie });
    expect(refused.status).toBe(404);
    expect(errorBeside(await refused.text(), 'send')).toBeTruthy();
  });
});

describe('a key whose plan is inactive', () => {
  it("signs in, and lists and removes its subscriptions and lists and revokes its links as the JSON routes let it; the plan's message where a read is refused", async () => {
    // Set up while its plan was active: made with a readable key, then handed to the inactive key (its hash).
    const pro = await signIn();
    const ADD = { email: 'lapsed@example.com', scope: '1:us', kinds: ['visibility'], timezone: 'UTC', channel: 'email', channel_url: '', quiet_start: '22:00', quiet_end: '07:00' };
    expect((await post('/account/subscriptions', { csrf: pro.csrf, ...ADD }, { cookie: pro.cookie })).status).toBe(303);
    expect((await post('/account/links', { csrf: pro.csrf, scope: '1:us', days: '7' }, { cookie: pro.cookie })).status).toBe(200);
    expect((await post('/account/exports', { csrf: pro.csrf, operation: 'listTopics', scope: '1:us', days: '30' }, { cookie: pro.cookie })).status).toBe(200);
    const hash = await sha256Hex(KEYS.inactive);
    await env.DB.batch([env.DB.prepare('UPDATE digest_subscriptions SET key_hash = ?').bind(hash), env.DB.prepare('UPDATE report_links SET key_hash = ?').bind(hash)]);
    const sub = (await env.DB.prepare('SELECT id FROM digest_subscriptions').first<{ id: string }>())!.id;
    const share = (await env.DB.prepare("SELECT id FROM report_links WHERE purpose = 'report'").first<{ id: string }>())!.id;
    const csv = (await env.DB.prepare("SELECT id FROM report_links WHERE purpose = 'export'").first<{ id: string }>())!.id;

    const { cookie, csrf } = await signIn(KEYS.inactive);
    const message = 'The plan of this account is not active.';
    const inactiveNote = (html: string) => visibleText(/<p class="problem" id="inactive" role="status">(.*?)<\/p>/.exec(html)?.[1] ?? '');
    const overview = await (await get('/account', cookie)).text();
    expect(inactiveNote(overview)).toBe(
      `The API reads nothing for this key. ${message} Until the plan is active again, you can still see and remove your subscriptions and see and revoke your share links and CSV links.`,
    );
    expect(overview).not.toContain('/account/report?');

    // The JSON route lists the same subscription for this key.
    const listed = (await (await SELF.fetch(`${BASE}/digests/subscriptions`, { headers: { authorization: `Bearer ${KEYS.inactive}` } })).json()) as { subscriptions: { id: string }[] };
    expect(listed.subscriptions.map((s) => s.id)).toEqual([sub]);
    const subscriptions = await (await get('/account/subscriptions', cookie)).text();
    expect(subscriptions).toContain(`data-subscription="${sub}"`);
    expect(visibleText(subscriptions)).toContain('lapsed@example.com');
    expect(inactiveNote(subscriptions)).toContain(message);
    expect(subscriptions).not.toContain('action="/account/subscriptions/send"');
    // Adding still goes through the API's read, and is refused with its message.
    const added = await post('/account/subscriptions', { csrf, ...ADD, email: 'new@example.com', scope: '5:us' }, { cookie });
    expect([added.status, errorBeside(await added.text(), 'form')]).toEqual([403, message]);
    expect((await post('/account/subscriptions/remove', { csrf, id: sub }, { cookie })).headers.get('location')).toBe('/account/subscriptions?done=removed');
    expect(await env.DB.prepare('SELECT id FROM digest_subscriptions WHERE id = ?').bind(sub).first()).toBeNull();

    for (const [path, id] of [
      ['/account/links', share],
      ['/account/exports', csv],
    ] as const) {
      const html = await (await get(path, cookie)).text();
      expect(html, path).toContain(`data-link="${id}"`);
      expect(inactiveNote(html), path).toContain(message);
      expect((await post(`${path}/revoke`, { csrf, id }, { cookie })).headers.get('location'), path).toBe(`${path}?done=revoked`);
      expect(await (await get(path, cookie)).text(), path).not.toContain(`data-link="${id}"`);
    }
    // The report page is a read: the plan's message, in the API's status.
    const report = await get('/account/report?brand_id=5&market=us', cookie);
    expect([report.status, visibleText(await report.text())]).toEqual([403, expect.stringContaining(message)]);
    // Another key's subscriptions stay invisible to it: none are listed once its own is gone.
    expect(((await (await SELF.fetch(`${BASE}/digests/subscriptions`, { headers: { authorization: `Bearer ${KEYS.inactive}` } })).json()) as { subscriptions: unknown[] }).subscriptions).toEqual([]);
  });
});
