/**
 * Subscriptions through the Worker (SELF): validation, double opt-in, the
 * signed links, account scoping, and the key at rest. Mail goes to the dev
 * outbox (no RESEND_API_KEY in the test env).
 */
import { createExecutionContext, env, SELF } from 'cloudflare:test';
import worker from './worker';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useServicesForTests, useUpstreamForTests } from './seams';
import { InvalidEnvError } from '../src/app/env';
import { unseal } from '../src/lib/sealing';
import { UNVERIFIED_PER_MINUTE } from '../src/proxy/abuse';
import { fromBase64url, signToken } from '../src/lib/signing';
import { seal } from '../src/lib/sealing';
import { describeNextDigest, nextDigest } from '../src/subscriptions/next-digest';
import { clearDigests, deliver, FakeQueue, FakeResend, label, RecordingApi, runCron, testEnv } from './digests-helpers';
import { visibleText } from './reports-helpers';
import { inOneLimiterWindow } from './helpers';

const BASE = 'https://edge.test';

function subscribe(body: unknown, options: { key?: string | null; contentType?: string; raw?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' };
  const key = options.key === undefined ? 'demo_pro_single' : options.key;
  if (key) headers.authorization = `Bearer ${key}`;
  return SELF.fetch(`${BASE}/digests/subscriptions`, { method: 'POST', headers, body: options.raw ?? JSON.stringify(body) });
}

async function outbox(to: string) {
  const response = await SELF.fetch(`${BASE}/dev/outbox?format=json&to=${encodeURIComponent(to)}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { messages: { id: number; kind: string; subject: string; text: string; headers: Record<string, string> }[] }).messages;
}

const linkIn = (text: string, path: string) => new RegExp(`https?://[^\\s]+${path.replace('/', '\\/')}\\?token=[A-Za-z0-9._-]+`).exec(text)?.[0];

beforeEach(clearDigests);

describe('POST /digests/subscriptions', () => {
  it('creates a pending subscription and sends only a confirmation email; confirming activates it', async () => {
    const response = await subscribe({ email: 'Ada@Example.com', market: 'us', kinds: ['won_lost'], timezone: 'europe/berlin' });
    expect(response.status).toBe(201);
    const { subscription } = (await response.json()) as { subscription: Record<string, unknown> };
    expect(subscription).toEqual(
      expect.objectContaining({ email: 'Ada@Example.com', brand_id: 1, brand_name: 'Brightdesk', market: { id: 11, code: 'us' }, kinds: ['won_lost'], timezone: 'Europe/Berlin', status: 'pending' }),
    );
    expect(JSON.stringify(subscription)).not.toContain('demo_pro_single');

    const mails = await outbox('Ada@Example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.kind).toBe('confirm');
    expect(mails[0]!.subject).toBe('Confirm your weekly AI-visibility digest for Brightdesk');
    const confirm = linkIn(mails[0]!.text, '/digests/confirm');
    expect(confirm).toBeDefined();

    // Opening the link (GET) shows a button and confirms nothing: mail scanners prefetch links.
    const url = confirm!.replace(/^https?:\/\/[^/]+/, BASE);
    const ask = await SELF.fetch(url);
    expect(ask.status).toBe(200);
    const askHtml = await ask.text();
    expect(askHtml).toContain('Confirm your weekly digest');
    const action = /<form method="post" action="([^"]+)"><button type="submit">Confirm the subscription<\/button><\/form>/.exec(askHtml)?.[1]?.replaceAll('&amp;', '&');
    expect(action).toBe(new URL(url).pathname + new URL(url).search);
    expect((await env.DB.prepare('SELECT status FROM digest_subscriptions WHERE id = ?').bind(subscription.id).first())?.status).toBe('pending');

    // The button POSTs to the same address: that confirms.
    const page = await SELF.fetch(`${BASE}${action}`, { method: 'POST' });
    expect(page.status).toBe(200);
    const confirmed = await page.text();
    expect(confirmed).toContain('Subscription confirmed');
    // What happens next, in the subscriber's own time (nextDigest is checked on fixed dates below).
    expect(confirmed).toContain('every Monday at 08:00 (Europe/Berlin)');
    expect(confirmed).toMatch(/Your first digest arrives (Monday|Tuesday) \d+ \w{3} \d{4} at \d\d:00 \(Europe\/Berlin\)\./);
    expect(confirmed).toContain('<span class="product">Brand AI-Visibility</span>');
    const row = await env.DB.prepare('SELECT status, confirmed_at FROM digest_subscriptions WHERE id = ?').bind(subscription.id).first<{ status: string; confirmed_at: string }>();
    expect(row?.status).toBe('active');
    // Confirming twice, or opening the link again, is harmless: it says so.
    const again = await SELF.fetch(`${BASE}${action}`, { method: 'POST' });
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('You are subscribed');
    const reopened = await SELF.fetch(url);
    expect(reopened.status).toBe(200);
    expect(await reopened.text()).toMatch(/You are subscribed[\s\S]*Your next digest arrives/);
  });

  it('stores the API key sealed (AES-GCM), never in plain text', async () => {
    const { subscription } = (await (await subscribe({ email: 'key@example.com' })).json()) as { subscription: { id: string } };
    const row = await env.DB.prepare('SELECT * FROM digest_subscriptions WHERE id = ?').bind(subscription.id).first<Record<string, string>>();
    expect(JSON.stringify(row)).not.toContain('demo_pro_single');
    expect(row!.key_sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
  });

  it('does not duplicate a re-subscription; an active one stays active and gets no new email', async () => {
    const first = (await (await subscribe({ email: 'dup@example.com' })).json()) as { subscription: { id: string } };
    await env.DB.prepare(`UPDATE digest_subscriptions SET status = 'active' WHERE id = ?`).bind(first.subscription.id).run();
    const again = await subscribe({ email: 'DUP@example.com', kinds: ['visibility'] });
    expect(again.status).toBe(200);
    const body = (await again.json()) as { subscription: { id: string; status: string; kinds: string[] } };
    expect(body.subscription).toEqual(expect.objectContaining({ id: first.subscription.id, status: 'active', kinds: ['visibility'] }));
    const count = await env.DB.prepare('SELECT COUNT(*) AS n FROM digest_subscriptions').first<{ n: number }>();
    expect(count?.n).toBe(1);
    expect(await outbox('dup@example.com')).toHaveLength(1);
  });

  it('answers concurrent subscribes of one new address with 201 and 200s, one row, one confirmation email', async () => {
    const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => subscribe({ email: 'race@example.com', kinds: i % 2 ? ['visibility'] : ['won_lost'] })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 201]);
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as { subscription: { id: string; status: string } }[];
    expect(new Set(bodies.map((b) => b.subscription.id)).size).toBe(1);
    expect(bodies.every((b) => b.subscription.status === 'pending')).toBe(true);
    const rows = await env.DB.prepare('SELECT id, key_sealed FROM digest_subscriptions').all<{ id: string; key_sealed: string }>();
    expect(rows.results).toHaveLength(1);
    // Whichever request wrote last, the key is sealed for the row's own id.
    expect(await unseal(env.ENCRYPTION_KEY, rows.results[0]!.key_sealed, rows.results[0]!.id)).toBe('demo_pro_single');
    expect(await outbox('race@example.com')).toHaveLength(1);
  });

  it('says when a new confirmation can be sent when re-subscribing within 10 minutes, and sends one after', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const t0 = Date.parse('2026-11-20T10:00:00Z');
      vi.setSystemTime(t0);
      const first = (await (await subscribe({ email: 'again@example.com' })).json()) as { confirmation: unknown };
      expect(first.confirmation).toEqual({ sent: true, sent_at: '2026-11-20T10:00:00.000Z', resend_after: '2026-11-20T10:10:00.000Z' });

      vi.setSystemTime(t0 + 9 * 60_000);
      const soon = await subscribe({ email: 'again@example.com' });
      expect(soon.status).toBe(200);
      expect(((await soon.json()) as { confirmation: unknown }).confirmation).toEqual({ sent: false, sent_at: '2026-11-20T10:00:00.000Z', resend_after: '2026-11-20T10:10:00.000Z' });
      expect(await outbox('again@example.com')).toHaveLength(1);

      vi.setSystemTime(t0 + 10 * 60_000);
      const later = (await (await subscribe({ email: 'again@example.com' })).json()) as { confirmation: unknown };
      expect(later.confirmation).toEqual({ sent: true, sent_at: '2026-11-20T10:10:00.000Z', resend_after: '2026-11-20T10:20:00.000Z' });
      expect(await outbox('again@example.com')).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('sends the confirmation email with List-Unsubscribe (https and mailto) and one-click List-Unsubscribe-Post', async () => {
    const resend = new FakeResend().install();
    let email: FakeResend['delivered'][number];
    try {
      const response = await worker.fetch!(
        new Request(`${BASE}/digests/subscriptions`, {
          method: 'POST',
          headers: { authorization: 'Bearer demo_pro_single', 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'headers@example.com' }),
        }) as Request<unknown, IncomingRequestCfProperties>,
        testEnv(new FakeQueue()),
        createExecutionContext(),
      );
      expect(response.status).toBe(201);
      email = resend.delivered[0]!;
    } finally {
      vi.unstubAllGlobals();
    }
    expect(email.headers?.['List-Unsubscribe']).toMatch(/^<https:\/\/edge\.test\/digests\/unsubscribe\?token=[^>]+>, <mailto:unsubscribe@mail\.example\.com\?subject=unsubscribe%20[^>]+>$/);
    expect(email.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(email.text).toContain('https://edge.test/digests/unsubscribe?token=');
    // The one-click POST to it unsubscribes the pending address: it gets nothing more.
    const link = /^<([^>]+)>/.exec(email.headers!['List-Unsubscribe']!)![1]!;
    const post = await SELF.fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(post.status).toBe(200);
    expect((await env.DB.prepare('SELECT status FROM digest_subscriptions WHERE email_key = ?').bind('headers@example.com').first())?.status).toBe('unsubscribed');
  });

  it.each([
    ['malformed email', { email: 'not-an-email' }, 'email'],
    ['header injection in email', { email: 'a@example.com\r\nBcc: x@example.com' }, 'email'],
    ['missing email', { market: 'us' }, 'email'],
    ['unknown timezone', { email: 'a@example.com', timezone: 'Mars/Olympus' }, 'timezone'],
    ['offset instead of a timezone', { email: 'a@example.com', timezone: '+02:00' }, 'timezone'],
    ['unknown kind', { email: 'a@example.com', kinds: ['weather'] }, 'kinds'],
    ['empty kinds', { email: 'a@example.com', kinds: [] }, 'kinds'],
    ['repeated kind', { email: 'a@example.com', kinds: ['visibility', 'visibility'] }, 'kinds'],
    ['brand_id as text', { email: 'a@example.com', brand_id: '1' }, 'brand_id'],
    ['unknown field', { email: 'a@example.com', frequency: 'daily' }, 'frequency'],
  ])('400 invalid_parameter for %s', async (_, body, param) => {
    const response = await subscribe(body);
    expect(response.status).toBe(400);
    const error = ((await response.json()) as { error: { code: string; param: string; message: string } }).error;
    expect(error.code).toBe('invalid_parameter');
    expect(error.param).toBe(param);
    expect(error.message.length).toBeGreaterThan(10);
  });

  it('400 for a wrong content type, a body that is not JSON, a JSON array, and an oversize body', async () => {
    for (const [options, param] of [
      [{ contentType: 'text/plain' }, 'content-type'],
      [{ raw: '{"email":' }, 'body'],
      [{ raw: '[]' }, 'body'],
      [{ raw: JSON.stringify({ email: 'a@example.com', pad: 'x'.repeat(5000) }) }, 'body'],
    ] as const) {
      const response = await subscribe({ email: 'a@example.com' }, options);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
    }
  });

  it('passes the API error through when the key cannot read the brand or market', async () => {
    const cases: [string | null, unknown, number, string][] = [
      [null, { email: 'a@example.com' }, 401, 'invalid_api_key'],
      ['demo_revoked', { email: 'a@example.com' }, 401, 'invalid_api_key'],
      ['demo_inactive', { email: 'a@example.com' }, 403, 'plan_inactive'],
      ['demo_growth_multi', { email: 'a@example.com' }, 400, 'brand_required'],
      ['demo_growth_multi', { email: 'a@example.com', brand_id: 1 }, 404, 'brand_not_found'],
      ['demo_pro_single', { email: 'a@example.com', market: 'zz' }, 404, 'not_found'],
    ];
    for (const [key, body, status, code] of cases) {
      const response = await subscribe(body, { key });
      expect([key, response.status]).toEqual([key, status]);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    }
    expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM digest_subscriptions').first<{ n: number }>())?.n).toBe(0);
  });
});

describe("abuse limits (the proxy's, before any upstream read)", () => {
  let api: RecordingApi;
  beforeEach(() => {
    api = new RecordingApi();
    // Behind the gate: the routes read through the proxy, its cache and its abuse limits, as in production.
    useUpstreamForTests(api.upstream);
  });
  afterEach(() => useUpstreamForTests());

  const from = (address: string, key: string) =>
    SELF.fetch(`${BASE}/digests/subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'cf-connecting-ip': address },
      body: JSON.stringify({ email: 'flood@example.com' }),
    });

  it('a flood of random keys from one address reaches the upstream at most UNVERIFIED_PER_MINUTE times, then gets 429', async () => {
    api.fault = { status: 401, code: 'invalid_api_key' };
    // Within one window of the local limiter (helpers.ts: it counts by the wall-clock minute).
    let round = 0;
    const { statuses, last } = await inOneLimiterWindow(
      () => `198.51.100.${201 + round++}`,
      async (address) => {
        const statuses: number[] = [];
        for (let i = 0; i < UNVERIFIED_PER_MINUTE + 10; i++) statuses.push((await from(address, `random_${crypto.randomUUID()}`)).status);
        return { statuses, last: await from(address, `random_last_${crypto.randomUUID()}`) };
      },
      () => void (api.requests = []),
    );
    expect(api.requests).toHaveLength(UNVERIFIED_PER_MINUTE);
    expect(statuses.slice(0, UNVERIFIED_PER_MINUTE).every((s) => s === 401)).toBe(true);
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('60');
    expect(((await last.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(statuses.slice(UNVERIFIED_PER_MINUTE)).toEqual(Array(10).fill(429));
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM digest_subscriptions').first<{ n: number }>()).toEqual({ n: 0 });
  });

  it('a key the upstream refused is refused again without another upstream read; a good key is not limited', async () => {
    api.fault = { status: 401, code: 'invalid_api_key' };
    const revoked = `revoked_${crypto.randomUUID()}`;
    expect((await from('198.51.100.210', revoked)).status).toBe(401);
    expect((await from('198.51.100.210', revoked)).status).toBe(401);
    expect(api.requests).toHaveLength(1);
    api.fault = null;
    expect((await from('198.51.100.210', 'demo_pro_single')).status).toBe(201);
  });
});

describe('GET and DELETE /digests/subscriptions', () => {
  it("lists only the key's account's subscriptions and deletes only those", async () => {
    await subscribe({ email: 'pro@example.com' });
    const growth = (await (await subscribe({ email: 'growth@example.com', brand_id: 2 }, { key: 'demo_growth_multi' })).json()) as { subscription: { id: string } };
    const list = await SELF.fetch(`${BASE}/digests/subscriptions`, { headers: { authorization: 'Bearer demo_pro_single' } });
    expect(list.status).toBe(200);
    const { subscriptions } = (await list.json()) as { subscriptions: { email: string }[] };
    expect(subscriptions.map((s) => s.email)).toEqual(['pro@example.com']);

    const foreign = await SELF.fetch(`${BASE}/digests/subscriptions/${growth.subscription.id}`, { method: 'DELETE', headers: { authorization: 'Bearer demo_pro_single' } });
    expect(foreign.status).toBe(404);
    const own = await SELF.fetch(`${BASE}/digests/subscriptions/${growth.subscription.id}`, { method: 'DELETE', headers: { authorization: 'Bearer demo_growth_multi' } });
    expect(own.status).toBe(204);
    // Removed for good: the row is gone, and its sealed key with it.
    expect(await env.DB.prepare('SELECT id FROM digest_subscriptions WHERE id = ?').bind(growth.subscription.id).first()).toBeNull();
    expect((await SELF.fetch(`${BASE}/digests/subscriptions`)).status).toBe(401);
  });
});

describe('signed links', () => {
  it('unsubscribe: GET shows a confirm button and changes nothing; POST (RFC 8058 one-click) unsubscribes', async () => {
    const { subscription } = (await (await subscribe({ email: 'bye@example.com' })).json()) as { subscription: { id: string } };
    const token = await signToken(env.SIGNING_SECRET, { p: 'unsubscribe', s: subscription.id }, { ttlSeconds: 3600 });
    const get = await SELF.fetch(`${BASE}/digests/unsubscribe?token=${token}`);
    expect(get.status).toBe(200);
    const html = await get.text();
    expect(html).toContain('<form method="post"');
    expect(html).toContain('<button type="submit">Unsubscribe</button>');
    expect((await env.DB.prepare('SELECT status FROM digest_subscriptions WHERE id = ?').bind(subscription.id).first())?.status).toBe('pending');

    const post = await SELF.fetch(`${BASE}/digests/unsubscribe?token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(post.status).toBe(200);
    expect(await post.text()).toContain('You are unsubscribed');
    expect((await env.DB.prepare('SELECT status FROM digest_subscriptions WHERE id = ?').bind(subscription.id).first())?.status).toBe('unsubscribed');
    // A confirm link of the cycle the unsubscribe ended does not reactivate it, opened or posted: 410, saying why.
    const confirm = linkIn((await outbox('bye@example.com'))[0]!.text, '/digests/confirm')!.replace(/^https?:\/\/[^/]+/, BASE);
    for (const method of ['GET', 'POST']) {
      const stale = await SELF.fetch(confirm, { method });
      expect(stale.status).toBe(410);
      expect(visibleText(await stale.text())).toContain('Its subscription was unsubscribed.');
    }
    expect((await env.DB.prepare('SELECT status FROM digest_subscriptions WHERE id = ?').bind(subscription.id).first())?.status).toBe('unsubscribed');
  });

  it('a forged, tampered, wrong-purpose or expired token is a clear 400/403/410 page (the one token policy), never a 500', async () => {
    const { subscription } = (await (await subscribe({ email: 'tok@example.com' })).json()) as { subscription: { id: string } };
    const good = await signToken(env.SIGNING_SECRET, { p: 'confirm', s: subscription.id }, { ttlSeconds: 3600 });
    const [v, payload, signature] = good.split('.');
    const other = await signToken(env.SIGNING_SECRET, { p: 'confirm', s: 'sub_someoneelse' }, { ttlSeconds: 3600 });
    const cases: [string, string, number, string][] = [
      ['/digests/confirm', '', 400, 'incomplete'],
      ['/digests/confirm', 'garbage', 400, 'incomplete'],
      ['/digests/confirm', `${v}.${other.split('.')[1]}.${signature}`, 403, 'not valid'],
      // Another signature, canonically spelled (whatever the real one ends with).
      ['/digests/confirm', `${v}.${payload}.${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'QA' : 'AA'}`, 403, 'not valid'],
      ['/digests/confirm', await signToken('another secret', { p: 'confirm', s: subscription.id }, { ttlSeconds: 3600 }), 403, 'not valid'],
      ['/digests/unsubscribe', good, 403, 'not valid'], // a confirm token is not an unsubscribe token
      ['/digests/confirm', await signToken(env.SIGNING_SECRET, { p: 'confirm', s: subscription.id }, { ttlSeconds: 60, now: new Date(Date.now() - 120_000) }), 410, 'expired'],
    ];
    for (const [path, token, status, words] of cases) {
      // The page's GET and its button's POST alike.
      for (const method of ['GET', 'POST']) {
        const response = await SELF.fetch(`${BASE}${path}?token=${encodeURIComponent(token)}`, { method });
        expect([method, path, token.slice(0, 12), response.status]).toEqual([method, path, token.slice(0, 12), status]);
        expect(response.headers.get('content-type')).toContain('text/html');
        expect(await response.text()).toContain(words);
      }
    }
    expect((await env.DB.prepare('SELECT status FROM digest_subscriptions WHERE id = ?').bind(subscription.id).first())?.status).toBe('pending');
  });
});

describe('what happens next: the first digest, and subscribing again', () => {
  const next = (at: string, timeZone: string, sent: string[] = []) => {
    const found = nextDigest(new Date(at), timeZone, new Set(sent));
    return found && describeNextDigest(found, timeZone);
  };

  it("the first digest is the next Monday 08:00 local, or the next hourly run while this week's is still due", () => {
    expect(next('2026-11-25T10:00:00Z', 'Europe/Berlin')).toBe('Monday 30 Nov 2026 at 08:00 (Europe/Berlin)');
    expect(next('2026-11-23T06:30:00Z', 'Europe/Berlin')).toBe('Monday 23 Nov 2026 at 08:00 (Europe/Berlin)');
    // Confirmed on Monday 08:30 local: the 09:00 run still plans this week (the catch-up hours).
    expect(next('2026-11-23T07:30:00Z', 'Europe/Berlin')).toBe('Monday 23 Nov 2026 at 09:00 (Europe/Berlin)');
    // ... unless this week already has its record (a subscription that was confirmed before).
    expect(next('2026-11-23T07:30:00Z', 'Europe/Berlin', ['2026-W48'])).toBe('Monday 30 Nov 2026 at 08:00 (Europe/Berlin)');
    // Tuesday 08:00 local ends the catch-up: next week.
    expect(next('2026-11-24T07:30:00Z', 'Europe/Berlin')).toBe('Monday 30 Nov 2026 at 08:00 (Europe/Berlin)');
    expect(next('2026-11-29T20:00:00Z', 'America/New_York')).toBe('Monday 30 Nov 2026 at 08:00 (America/New_York)');
    expect(nextDigest(new Date('2026-11-25T10:00:00Z'), 'Asia/Tokyo', new Set())!.at.toISOString()).toBe('2026-11-29T23:00:00.000Z');
  });

  it('unsubscribing offers a signed "subscribe again" button; it restores the subscription as pending and sends a new confirmation', async () => {
    const { subscription } = (await (await subscribe({ email: 'again@example.com', market: 'us', timezone: 'Europe/Berlin' })).json()) as { subscription: { id: string } };
    const id = subscription.id;
    const row = () => env.DB.prepare('SELECT status, key_sealed, confirmed_at FROM digest_subscriptions WHERE id = ?').bind(id).first<{ status: string; key_sealed: string | null }>();
    const sealedBefore = (await row())!.key_sealed!;
    const confirm = linkIn((await outbox('again@example.com'))[0]!.text, '/digests/confirm')!.replace(/^https?:\/\/[^/]+/, BASE);
    expect((await SELF.fetch(confirm, { method: 'POST' })).status).toBe(200);
    expect((await row())!.status).toBe('active');

    const unsubscribeToken = await signToken(env.SIGNING_SECRET, { p: 'unsubscribe', s: id }, { ttlSeconds: 3600 });
    const get = await (await SELF.fetch(`${BASE}/digests/unsubscribe?token=${unsubscribeToken}`)).text();
    expect(get).toContain('You can subscribe again from the next page if you change your mind.');
    const done = await SELF.fetch(`${BASE}/digests/unsubscribe?token=${unsubscribeToken}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    const html = await done.text();
    expect(html).toContain('No more weekly digests for Brightdesk (US) will be sent to again@example.com.');
    expect(html).toMatch(/Changed your mind\? Subscribe again below until \d+ \w{3} \d{4}, \d\d:\d\d UTC\./);
    expect(await row()).toEqual(expect.objectContaining({ status: 'unsubscribed', key_sealed: null }));
    const action = /<form method="post" action="([^"]+)"><button type="submit">Subscribe again<\/button><\/form>/.exec(html)?.[1]?.replaceAll('&amp;', '&');
    expect(action).toMatch(/^\/digests\/resubscribe\?token=v1\./);
    // The database holds no key; the link carries it, sealed for this subscription, never in plain text.
    const token = new URL(action!, BASE).searchParams.get('token')!;
    const claims = JSON.parse(new TextDecoder().decode(fromBase64url(token.split('.')[1]!)!)) as Record<string, unknown>;
    // For the cycle the unsubscribe started: the one after the confirmed one.
    expect(claims).toEqual(expect.objectContaining({ p: 'resubscribe', s: id, g: 1, k: sealedBefore }));
    expect(token).not.toContain('demo_pro_single');

    // GET shows the button and changes nothing (link scanners prefetch GETs).
    const show = await SELF.fetch(`${BASE}${action}`);
    expect(show.status).toBe(200);
    expect(await show.text()).toContain('<button type="submit">Subscribe again</button>');
    expect((await row())!.status).toBe('unsubscribed');

    // POST, past the 10-minute window of the first confirmation: pending again, the key back, a new confirmation email.
    useServicesForTests({ now: () => new Date(Date.now() + 11 * 60_000) });
    try {
      const post = await SELF.fetch(`${BASE}${action}`, { method: 'POST' });
      expect(post.status).toBe(200);
      const text = await post.text();
      expect(text).toContain('Check your inbox');
      expect(text).toContain('We sent a confirmation link to again@example.com.');
    } finally {
      useServicesForTests();
    }
    expect(await row()).toEqual(expect.objectContaining({ status: 'pending', key_sealed: sealedBefore }));
    const mails = (await outbox('again@example.com')).filter((m) => m.kind === 'confirm');
    expect(mails).toHaveLength(2);
    const link = linkIn(mails[0]!.text, '/digests/confirm');
    // The first cycle's confirm link does not confirm this one.
    expect((await SELF.fetch(confirm, { method: 'POST' })).status).toBe(410);
    expect((await row())!.status).toBe('pending');
    const reconfirmed = await SELF.fetch(link!.replace(/^https?:\/\/[^/]+/, BASE), { method: 'POST' });
    expect(await reconfirmed.text()).toContain('Your first digest arrives');
    expect((await row())!.status).toBe('active');
    // Again: nothing to do.
    const twice = await SELF.fetch(`${BASE}${action}`, { method: 'POST' });
    expect(await twice.text()).toContain('You are subscribed');
  });

  it('subscribing again minutes after confirming sends the new confirmation at once; pressed again, the page says from when its button sends another, and it does', async () => {
    const t0 = Date.now();
    let now = t0;
    useServicesForTests({ now: () => new Date(now) });
    const email = 'changed-mind@example.com';
    const confirms = async () => (await outbox(email)).filter((m) => m.kind === 'confirm');
    const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, BASE);
    /** `23 Nov 2026, 16:05 UTC`, written independently of the code under test. */
    const stamp = (ms: number) => `${label(new Date(ms))} ${new Date(ms).getUTCFullYear()}, ${new Date(ms).toISOString().slice(11, 16)} UTC`;
    try {
      // Subscribed and confirmed; two minutes on, the person unsubscribes by one click on the confirmation's link.
      expect((await subscribe({ email, market: 'us' })).status).toBe(201);
      const [first] = await confirms();
      expect((await SELF.fetch(local(linkIn(first!.text, '/digests/confirm')!), { method: 'POST' })).status).toBe(200);
      now = t0 + 2 * 60_000;
      const unsubscribed = await SELF.fetch(local(linkIn(first!.text, '/digests/unsubscribe')!), {
        method: 'POST',
        body: 'List-Unsubscribe=One-Click',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      const action = /<form method="post" action="([^"]+)"><button type="submit">Subscribe again<\/button><\/form>/.exec(await unsubscribed.text())![1]!.replaceAll('&amp;', '&');

      // A minute later, within 10 minutes of the first confirmation (whose link no longer works): a new one goes at once.
      now = t0 + 3 * 60_000;
      const again = visibleText(await (await SELF.fetch(`${BASE}${action}`, { method: 'POST' })).text());
      expect(again).toContain(`We sent a confirmation link to ${email}.`);
      expect(await confirms()).toHaveLength(2);

      // Pressed again a minute later: the page says when the last went, from when another can, and offers the button.
      now = t0 + 4 * 60_000;
      const held = await SELF.fetch(`${BASE}${action}`, { method: 'POST' });
      const heldHtml = await held.text();
      expect(visibleText(heldHtml)).toContain(`A confirmation link went to ${email} at ${stamp(t0 + 3 * 60_000)};`);
      // Rounded up to the minute: the button sends at the time the page names.
      const from = Math.ceil((t0 + 13 * 60_000) / 60_000) * 60_000;
      expect(visibleText(heldHtml)).toContain(`Another can be sent from ${stamp(from)}, with the button below.`);
      const button = /<form method="post" action="([^"]+)"><button type="submit">Send the confirmation again<\/button><\/form>/.exec(heldHtml)?.[1]?.replaceAll('&amp;', '&');
      expect(button).toBe(action);
      expect(await confirms()).toHaveLength(2);

      // At that time the button sends it, and its link confirms.
      now = from;
      expect(visibleText(await (await SELF.fetch(`${BASE}${button}`, { method: 'POST' })).text())).toContain(`We sent a confirmation link to ${email}.`);
      const latest = await confirms();
      expect(latest).toHaveLength(3);
      expect(visibleText(await (await SELF.fetch(local(linkIn(latest[0]!.text, '/digests/confirm')!), { method: 'POST' })).text())).toContain('Subscription confirmed');
    } finally {
      useServicesForTests();
    }
  });

  it("a resubscribe link whose key is not the subscription's, or a token of another purpose, restores nothing", async () => {
    const { subscription } = (await (await subscribe({ email: 'stale@example.com' })).json()) as { subscription: { id: string } };
    const id = subscription.id;
    await SELF.fetch(`${BASE}/digests/unsubscribe?token=${await signToken(env.SIGNING_SECRET, { p: 'unsubscribe', s: id }, { ttlSeconds: 3600 })}`, { method: 'POST' });
    // Of the right cycle (the one the unsubscribe started), but with another key.
    const otherKey = await signToken(env.SIGNING_SECRET, { p: 'resubscribe', s: id, g: 1, k: await seal(env.ENCRYPTION_KEY, 'demo_growth_multi', id) }, { ttlSeconds: 3600 });
    const stale = await SELF.fetch(`${BASE}/digests/resubscribe?token=${otherKey}`, { method: 'POST' });
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain('This link is out of date');
    const unsubscribeToken = await signToken(env.SIGNING_SECRET, { p: 'unsubscribe', s: id }, { ttlSeconds: 3600 });
    expect((await SELF.fetch(`${BASE}/digests/resubscribe?token=${unsubscribeToken}`, { method: 'POST' })).status).toBe(403);
    expect(await env.DB.prepare('SELECT status, key_sealed FROM digest_subscriptions WHERE id = ?').bind(id).first()).toEqual({ status: 'unsubscribed', key_sealed: null });
    // Already unsubscribed when the page is opened again: no key to offer back, and it says who can help.
    const again = await (await SELF.fetch(`${BASE}/digests/unsubscribe?token=${unsubscribeToken}`)).text();
    expect(again).toContain('You are already unsubscribed');
    expect(again).toContain('ask whoever manages Brightdesk in Brand AI-Visibility to subscribe you');
  });
});

describe('mailto unsubscribe (Email Routing)', () => {
  it('unsubscribes on a mail whose subject carries the signed token, and rejects anything else', async () => {
    const { subscription } = (await (await subscribe({ email: 'mailto@example.com' })).json()) as { subscription: { id: string } };
    const token = await signToken(env.SIGNING_SECRET, { p: 'unsubscribe', s: subscription.id }, { ttlSeconds: 3600 });
    const rejected: string[] = [];
    const message = (subject: string) => ({ headers: new Headers({ subject }), setReject: (reason: string) => rejected.push(reason) });
    await worker.email!(message('hello') as unknown as ForwardableEmailMessage, env, createExecutionContext());
    await worker.email!(message(`unsubscribe ${token.slice(0, -3)}abc`) as unknown as ForwardableEmailMessage, env, createExecutionContext());
    expect(rejected).toHaveLength(2);
    expect((await env.DB.prepare('SELECT status FROM digest_subscriptions WHERE id = ?').bind(subscription.id).first())?.status).toBe('pending');
    await worker.email!(message(`unsubscribe ${token}`) as unknown as ForwardableEmailMessage, env, createExecutionContext());
    expect(rejected).toHaveLength(2);
    expect((await env.DB.prepare('SELECT status FROM digest_subscriptions WHERE id = ?').bind(subscription.id).first())?.status).toBe('unsubscribed');
  });
});

describe('GET /dev/outbox', () => {
  it('lists the outbox as HTML and JSON and shows one message, while RESEND_API_KEY is unset', async () => {
    await subscribe({ email: 'box@example.com' });
    const list = await SELF.fetch(`${BASE}/dev/outbox`);
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('Confirm your weekly AI-visibility digest for Brightdesk');
    const [message] = await outbox('box@example.com');
    const one = await SELF.fetch(`${BASE}/dev/outbox/${message!.id}`);
    expect(one.headers.get('content-type')).toContain('text/html');
    const detail = await one.text();
    expect(detail).toMatch(/<html[^>]* lang="en"/);
    // One message: from, to, subject, headers, the text part, the HTML in a frame that runs nothing, a way back.
    expect(detail).toContain('<a href="/dev/outbox" data-testid="back">← Back to the list</a>');
    expect(detail).toContain('<dt>From</dt><dd>Brand AI-Visibility &lt;digest@localhost&gt;</dd><dt>To</dt><dd>box@example.com</dd>');
    expect(detail).toContain('<dt>Subject</dt><dd>Confirm your weekly AI-visibility digest for Brightdesk</dd>');
    expect(detail).toContain('<dt>List-Unsubscribe-Post</dt><dd>List-Unsubscribe=One-Click</dd>');
    expect(detail).toContain(`<pre data-testid="text">${message!.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')}</pre>`);
    // Sandboxed (no script, no form); its links open in a new tab, outside the sandbox, as a reader's mail program opens them.
    expect(detail).toMatch(
      /<iframe class="preview" title="The email's HTML part" sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc="&lt;base target=&quot;_blank&quot;&gt;&lt;!DOCTYPE html/i,
    );
    expect(one.headers.get('content-security-policy')).toContain("default-src 'none'");
    const raw = await SELF.fetch(`${BASE}/dev/outbox/${message!.id}?format=html`);
    expect(await raw.text()).toMatch(/^<!DOCTYPE html/i);
    expect(await (await SELF.fetch(`${BASE}/dev/outbox/${message!.id}?format=text`)).text()).toContain('Confirm');
    // The list links each message to its page.
    expect(await (await SELF.fetch(`${BASE}/dev/outbox`)).text()).toContain(`<a class="subject" href="/dev/outbox/${message!.id}">Confirm your weekly AI-visibility digest for Brightdesk</a>`);
  });
});

describe('configuration', () => {
  const post = (e: Env) =>
    worker.fetch!(
      new Request(`${BASE}/digests/subscriptions`, {
        method: 'POST',
        headers: { authorization: 'Bearer demo_pro_single', 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'cfg@example.com' }),
      }) as Request<unknown, IncomingRequestCfProperties>,
      e,
      createExecutionContext(),
    );

  it('with RESEND_API_KEY, PUBLIC_URL must be https: a named error at start, for the routes, the cron and the queue alike', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      for (const publicUrl of ['http://edge.test', '']) {
        const misconfigured = testEnv(new FakeQueue(), { PUBLIC_URL: publicUrl });
        const response = await post(misconfigured);
        expect(response.status).toBe(500);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('internal_error');
        await expect(runCron('2026-11-23T08:00:00Z', misconfigured)).rejects.toThrow(/PUBLIC_URL must be the Worker's public https address/);
        await expect(deliver([], misconfigured)).rejects.toThrow(InvalidEnvError);
      }
      expect(errors.mock.calls.map((c) => String(c[0])).filter((line) => line.includes('InvalidEnvError: Environment variable or binding PUBLIC_URL must be'))).toHaveLength(6);
      expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM digest_subscriptions').first<{ n: number }>())?.n).toBe(0);
    } finally {
      errors.mockRestore();
    }
  });

  it('with an https PUBLIC_URL the links use it; without RESEND_API_KEY, http://localhost:8787 is the dev default', async () => {
    const resend = new FakeResend().install();
    try {
      expect((await post(testEnv(new FakeQueue()))).status).toBe(201);
      expect(resend.delivered[0]!.text).toContain('https://edge.test/digests/confirm?token=');
    } finally {
      vi.unstubAllGlobals();
    }
    expect((await subscribe({ email: 'dev@example.com' })).status).toBe(201);
    expect((await outbox('dev@example.com'))[0]!.text).toContain('http://localhost:8787/digests/confirm?token=');
  });
});
