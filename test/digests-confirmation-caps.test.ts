/**
 * Mail abuse through the subscription routes, reproduced and closed (DESIGN
 * section 12; src/subscriptions/caps.ts): confirmation mail is capped per
 * address across accounts (3 in 24 h), per account (50 in 24 h), and not sent
 * through the API for 30 days after the address unsubscribed, though its own
 * subscribe-again link still can; the counts are rows in D1. And confirming is
 * the confirm page's POST: a GET or a HEAD (a mail scanner) confirms nothing.
 * Windows are crossed on a fake clock, never waited for.
 */
import { createExecutionContext, env, SELF } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { signToken } from '../src/lib/signing';
import { sha256Hex } from '../src/lib/hash';
import { ACCOUNT_PER_DAY, ADDRESS_PER_DAY, recipientKeyOf } from '../src/subscriptions/caps';
import { clearDigests, FakeQueue, FakeResend, seedSubscriptions, testEnv } from './digests-helpers';
import worker from './worker';

const BASE = 'https://edge.test';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-11-20T10:00:00Z');

function subscribe(email: string, options: { key?: string; brand_id?: number; market?: string } = {}) {
  const { key = 'demo_pro_single', ...rest } = options;
  return SELF.fetch(`${BASE}/digests/subscriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, ...rest }),
  });
}

async function confirmations(to?: string) {
  const response = await SELF.fetch(`${BASE}/dev/outbox?format=json${to ? `&to=${encodeURIComponent(to)}` : ''}`);
  const { messages } = (await response.json()) as { messages: { kind: string; to: string; text: string; headers: Record<string, string> }[] };
  return messages.filter((m) => m.kind === 'confirm');
}

const countRows = async (sql: string, ...bind: unknown[]) =>
  (await env.DB.prepare(sql)
    .bind(...bind)
    .first<{ n: number }>())!.n;
const sendsTo = (emailKey: string) => countRows('SELECT COUNT(*) AS n FROM digest_confirmation_sends WHERE email_key = ?', emailKey);
const statusOf = async (emailKey: string, brandId: number, market = 'us') =>
  (await env.DB.prepare('SELECT status FROM digest_subscriptions WHERE email_key = ? AND brand_id = ? AND market_code = ?').bind(emailKey, brandId, market).first<{ status: string }>())?.status ??
  null;

async function expectLimited(response: Response, retryAfter: number) {
  expect(response.status).toBe(429);
  expect(response.headers.get('retry-after')).toBe(String(retryAfter));
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('rate_limited');
  expect(body.error.message).toMatch(/^No confirmation email was sent: /);
  return body.error.message;
}

const at = (ms: number) => vi.setSystemTime(ms);

beforeEach(async () => {
  await clearDigests();
  vi.useFakeTimers({ toFake: ['Date'] });
  at(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('per address: at most 3 confirmation emails in 24 hours, across all accounts', () => {
  it("the 4th within 24 h, from another account's key, is 429 with Retry-After and sends nothing; once the oldest leaves the window it goes", async () => {
    const email = 'target@example.com';
    // Two accounts' keys, their brands and markets: the attack that reached one mailbox 25 times.
    expect((await subscribe(email, { market: 'us' })).status).toBe(201);
    at(T0 + 1 * HOUR);
    expect((await subscribe(email, { market: 'de' })).status).toBe(201);
    at(T0 + 2 * HOUR);
    expect((await subscribe(email, { key: 'demo_growth_multi', brand_id: 2 })).status).toBe(201);
    expect(await confirmations(email)).toHaveLength(ADDRESS_PER_DAY);

    at(T0 + 3 * HOUR);
    const message = await expectLimited(await subscribe(email, { key: 'demo_growth_multi', brand_id: 3 }), 21 * 3600);
    // One wording for the address's rules: the caller is not told which other accounts wrote to it.
    expect(message).toContain('this address may get no more confirmation emails for now');
    expect(message).not.toContain('Brightdesk');
    expect(await confirmations(email)).toHaveLength(3);
    // Nothing written either: no subscription for brand 3, no fourth send counted.
    expect(await statusOf(email, 3)).toBeNull();
    expect(await sendsTo(email)).toBe(3);
    // The address's case does not matter.
    await expectLimited(await subscribe('TARGET@Example.com', { key: 'demo_growth_multi', brand_id: 3 }), 21 * 3600);

    // One second before the first send is 24 hours old: still refused, for that second.
    at(T0 + DAY - 1000);
    await expectLimited(await subscribe(email, { key: 'demo_growth_multi', brand_id: 3 }), 1);
    // At 24 hours it has left the rolling window: the 4th goes, and the window holds 3 again.
    at(T0 + DAY);
    const fourth = await subscribe(email, { key: 'demo_growth_multi', brand_id: 3 });
    expect(fourth.status).toBe(201);
    expect(((await fourth.json()) as { confirmation: { sent: boolean } }).confirmation.sent).toBe(true);
    expect(await confirmations(email)).toHaveLength(4);
    // Sends at T0+1h, T0+2h and T0+24h are in the window: the next can go when T0+1h leaves it.
    at(T0 + DAY + 1000);
    await expectLimited(await subscribe(email, { market: 'us' }), 3600 - 1);
  });

  it('counts the mailbox, not the spelling: nine +tag addresses of one inbox get 3 emails, each to the address as typed, then 429', async () => {
    // The attack: victim+1@, victim+2@, … victim+9@, one inbox, from one account within minutes.
    for (let i = 1; i <= 9; i++) {
      at(T0 + i * 60_000);
      const response = await subscribe(`Victim+${i}@Example.com`);
      if (i <= ADDRESS_PER_DAY) {
        expect([i, response.status]).toEqual([i, 201]);
      } else {
        // Until the first send (at 1 minute) is 24 hours old.
        await expectLimited(response, 24 * 3600 - (i - 1) * 60);
        expect(await statusOf(`victim+${i}@example.com`, 1)).toBeNull();
      }
    }
    // Mail went to each address as it was typed; the cap counted one mailbox.
    expect((await confirmations()).map((m) => m.to).sort()).toEqual(['Victim+1@Example.com', 'Victim+2@Example.com', 'Victim+3@Example.com']);
    expect(await sendsTo('victim@example.com')).toBe(ADDRESS_PER_DAY);
    // The bare address is the same mailbox, from another account too.
    await expectLimited(await subscribe('victim@example.com', { key: 'demo_growth_multi', brand_id: 2 }), 24 * 3600 - 8 * 60);
  });

  it('concurrent subscribes of one address to five brands and markets send exactly 3 emails; the others are 429', async () => {
    const email = 'burst@example.com';
    const targets = [{ market: 'us' }, { market: 'de' }, { key: 'demo_growth_multi', brand_id: 2 }, { key: 'demo_growth_multi', brand_id: 2, market: 'de' }, { key: 'demo_growth_multi', brand_id: 3 }];
    const responses = await Promise.all(targets.map((t) => subscribe(email, t)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    for (const r of responses.filter((r) => r.status === 429)) expect(Number(r.headers.get('retry-after'))).toBe(24 * 3600);
    expect(await confirmations(email)).toHaveLength(3);
    expect(await sendsTo(email)).toBe(3);
  });
});

describe('per account: at most 50 confirmation emails in 24 hours', () => {
  it("the account's 51st is 429 with Retry-After and sends nothing; another account is not held back", async () => {
    for (let i = 0; i < ACCOUNT_PER_DAY; i++) {
      at(T0 + i * 60_000);
      // The account's brand in both its markets: one account, whichever subscription.
      const response = await subscribe(`reader-${i}@example.com`, { market: i % 2 ? 'de' : 'us' });
      expect([i, response.status]).toEqual([i, 201]);
    }
    expect(await countRows(`SELECT COUNT(*) AS n FROM digest_outbox WHERE kind = 'confirm'`)).toBe(50);

    at(T0 + 50 * 60_000);
    const message = await expectLimited(await subscribe('reader-50@example.com'), 24 * 3600 - 50 * 60);
    expect(message).toContain(`this account has sent ${ACCOUNT_PER_DAY} confirmation emails in the last 24 hours`);
    expect(await confirmations('reader-50@example.com')).toHaveLength(0);
    expect(await countRows(`SELECT COUNT(*) AS n FROM digest_subscriptions WHERE email_key = 'reader-50@example.com'`)).toBe(0);

    // Another account's key sends as usual.
    expect((await subscribe('reader-50@example.com', { key: 'demo_growth_multi', brand_id: 2 })).status).toBe(201);

    // When the first send leaves the window, one more goes.
    at(T0 + DAY);
    expect((await subscribe('reader-50@example.com')).status).toBe(201);
    at(T0 + DAY + 1000);
    await expectLimited(await subscribe('reader-51@example.com'), 60 - 1);
  });

  it('concurrent subscribes of different addresses never pass the cap: with 47 counted, 3 of 6 send', async () => {
    await seedSends({ brandId: 1, count: ACCOUNT_PER_DAY - 3, at: T0 - HOUR });
    const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => subscribe(`race-${i}@example.com`)));
    expect(responses.map((r) => r.status).sort()).toEqual([201, 201, 201, 429, 429, 429]);
    expect(await countRows(`SELECT COUNT(*) AS n FROM digest_outbox WHERE kind = 'confirm'`)).toBe(3);
    expect(await countRows('SELECT COUNT(*) AS n FROM digest_confirmation_sends WHERE brand_id = 1')).toBe(ACCOUNT_PER_DAY);
  });
});

/** Send records as another isolate (or an earlier deploy) would have left them in D1. */
async function seedSends(o: { brandId: number; count: number; at: number; emailKey?: (i: number) => string }) {
  await env.DB.batch(
    Array.from({ length: o.count }, (_, i) =>
      env.DB.prepare(`INSERT INTO digest_confirmation_sends (id, email_key, brand_id, subscription_id, via, sent_at) VALUES (?, ?, ?, ?, 'api', ?)`).bind(
        `cfm_seed_${o.brandId}_${i}`,
        o.emailKey?.(i) ?? `seed-${i}@example.com`,
        o.brandId,
        `sub_seed${i}`,
        new Date(o.at + i).toISOString(),
      ),
    ),
  );
}

describe("the counts are in D1, not in an isolate's memory", () => {
  it("sends recorded in D1 by anyone count: 50 rows for the account's brand refuse the next; without them it goes", async () => {
    await seedSends({ brandId: 1, count: ACCOUNT_PER_DAY, at: T0 - 2 * HOUR });
    // A Worker built afresh from its environment (a new isolate would start the same way) refuses too.
    const fresh = await worker.fetch!(
      new Request(`${BASE}/digests/subscriptions`, {
        method: 'POST',
        headers: { authorization: 'Bearer demo_pro_single', 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'fresh@example.com' }),
      }) as Request<unknown, IncomingRequestCfProperties>,
      { ...env } as Env,
      createExecutionContext(),
    );
    await expectLimited(fresh, 22 * 3600);
    await env.DB.prepare('DELETE FROM digest_confirmation_sends').run();
    expect((await subscribe('fresh@example.com')).status).toBe(201);
    expect(await sendsTo('fresh@example.com')).toBe(1);
  });

  it("counters stored before migration 0017 count by their recipient once it runs: an address's mailbox, a webhook's receiver", async () => {
    const hook = 'https://receiver.example.com/hook?v=1';
    const slack = 'https://hooks.slack.com/services/T000/B000/XXXX';
    // Subscriptions and counters as migration 0012 keyed them: the address in lower case, an endpoint by `<type>:<sha-256 of its URL>`.
    const emails = ['victim+old@example.com', 'gone+a@example.com', 'gone+b@example.com', '+plain@example.com', 'a+b+c@example.com', 'ops@example.com', 'ops2@example.com'];
    const ids = await seedSubscriptions(emails.map((email) => ({ email, status: 'unsubscribed' as const })));
    const [hookId, slackId] = ids.slice(-2) as [string, string];
    const legacy = { hook: `webhook:${await sha256Hex(hook)}`, slack: `slack:${await sha256Hex(slack)}` };
    await env.DB.batch([
      env.DB.prepare(`UPDATE digest_subscriptions SET email_key = ?, kinds = 'alerts' WHERE id = ?`).bind(legacy.hook, hookId),
      env.DB.prepare(`UPDATE digest_subscriptions SET email_key = ?, kinds = 'alerts' WHERE id = ?`).bind(legacy.slack, slackId),
      ...[[hookId, 'webhook', hook] as const, [slackId, 'slack', slack] as const].map(([id, type, url]) =>
        env.DB.prepare(`INSERT INTO alert_channels (subscription_id, type, url, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`).bind(
          id,
          type,
          url,
          new Date(T0).toISOString(),
          new Date(T0).toISOString(),
        ),
      ),
    ]);
    await seedSends({ brandId: 2, count: 3, at: T0 - 3 * HOUR, emailKey: () => 'victim+old@example.com' });
    await seedSends({ brandId: 3, count: 2, at: T0 - 3 * HOUR, emailKey: () => legacy.hook });
    const optout = env.DB.prepare('INSERT INTO digest_address_optouts (email_key, unsubscribed_at) VALUES (?, ?)');
    await env.DB.batch(
      (
        [
          ['gone+a@example.com', T0 - 5 * DAY],
          ['gone+b@example.com', T0 - 2 * DAY],
          ['+plain@example.com', T0 - DAY],
          ['a+b+c@example.com', T0 - DAY],
          [legacy.hook, T0 - DAY],
          [legacy.slack, T0 - DAY],
        ] as const
      ).map(([key, ms]) => optout.bind(key, new Date(ms).toISOString())),
    );

    const migration = env.TEST_MIGRATIONS.find((m) => m.name === '0017_mailbox.sql')!;
    await env.DB.batch(migration.queries.map((query) => env.DB.prepare(query)));

    const { results: sends } = await env.DB.prepare('SELECT email_key, COUNT(*) AS n FROM digest_confirmation_sends GROUP BY email_key ORDER BY email_key').all();
    expect(sends).toEqual([
      { email_key: 'https://receiver.example.com', n: 2 },
      { email_key: 'victim@example.com', n: 3 },
    ]);
    const { results: optouts } = await env.DB.prepare('SELECT email_key, unsubscribed_at FROM digest_address_optouts ORDER BY email_key').all();
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(optouts).toEqual([
      { email_key: '+plain@example.com', unsubscribed_at: iso(T0 - DAY) },
      { email_key: 'a@example.com', unsubscribed_at: iso(T0 - DAY) },
      // Two spellings of one mailbox: one row, the latest unsubscribe.
      { email_key: 'gone@example.com', unsubscribed_at: iso(T0 - 2 * DAY) },
      { email_key: 'https://receiver.example.com', unsubscribed_at: iso(T0 - DAY) },
      // A Slack URL carries no query: its old hash is already its key.
      { email_key: legacy.slack, unsubscribed_at: iso(T0 - DAY) },
    ]);
    // The keys the migration wrote are the ones the code computes.
    for (const id of ids) {
      const row = (await env.DB.prepare(
        'SELECT s.email, c.type AS channel_type, c.url AS channel_url FROM digest_subscriptions s LEFT JOIN alert_channels c ON c.subscription_id = s.id WHERE s.id = ?',
      )
        .bind(id)
        .first<{ email: string; channel_type: 'slack' | 'webhook' | null; channel_url: string | null }>())!;
      expect([...sends, ...optouts].map((r) => r.email_key)).toContain(await recipientKeyOf(row));
    }
    // And they hold through the Worker: the mailbox has had its 3, and the opt-out of 2 days ago holds 28 more.
    await expectLimited(await subscribe('Victim@example.com'), 21 * 3600);
    await expectLimited(await subscribe('gone+new@example.com'), 28 * 24 * 3600);
  });

  it('a confirmation that could not be sent is not counted (nor does it hold the 10-minute window)', async () => {
    const resend = new FakeResend().install();
    try {
      resend.failNext(500);
      const post = () =>
        worker.fetch!(
          new Request(`${BASE}/digests/subscriptions`, {
            method: 'POST',
            headers: { authorization: 'Bearer demo_pro_single', 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'bounce@example.com' }),
          }) as Request<unknown, IncomingRequestCfProperties>,
          testEnv(new FakeQueue()),
          createExecutionContext(),
        );
      const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        expect((await post()).status).toBe(502);
      } finally {
        errors.mockRestore();
      }
      expect(await sendsTo('bounce@example.com')).toBe(0);
      // Nor is the subscription kept: the failed subscribe stored nothing, so the retry creates it (201).
      expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM digest_subscriptions WHERE email = 'bounce@example.com'").first<number>('n')).toBe(0);
      const retried = await post();
      expect(retried.status).toBe(201);
      expect(((await retried.json()) as { confirmation: { sent: boolean } }).confirmation.sent).toBe(true);
      expect(resend.delivered).toHaveLength(1);
      expect(await sendsTo('bounce@example.com')).toBe(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('an address that unsubscribed: none for 30 days, unless from its own link', () => {
  /** Subscribes, then unsubscribes with the one-click POST of the confirmation email's List-Unsubscribe. Returns the "subscribe again" button's path. */
  async function subscribeThenUnsubscribe(email: string) {
    expect((await subscribe(email)).status).toBe(201);
    const [mail] = await confirmations(email);
    const link = /^<([^>]+)>/.exec(mail!.headers['List-Unsubscribe']!)![1]!.replace(/^https?:\/\/[^/]+/, BASE);
    const done = await SELF.fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(done.status).toBe(200);
    return /<form method="post" action="([^"]+)"><button type="submit">Subscribe again<\/button><\/form>/.exec(await done.text())![1]!.replaceAll('&amp;', '&');
  }

  it('POST /digests/subscriptions 10 minutes after the unsubscribe is 429 and changes nothing, from any account, for 30 days', async () => {
    const email = 'gone@example.com';
    at(T0);
    await subscribeThenUnsubscribe(email);
    expect(await statusOf(email, 1)).toBe('unsubscribed');

    // The attack: 10 minutes later the account subscribes the address again.
    at(T0 + 10 * 60_000);
    await expectLimited(await subscribe(email), 30 * 24 * 3600 - 10 * 60);
    // Another account, another brand: the address said no to confirmation mail, whoever asks.
    await expectLimited(await subscribe(email, { key: 'demo_growth_multi', brand_id: 2 }), 30 * 24 * 3600 - 10 * 60);
    expect(await confirmations(email)).toHaveLength(1);
    // The subscription stays unsubscribed, its key still gone; no other was created.
    expect(await env.DB.prepare('SELECT status, key_sealed FROM digest_subscriptions WHERE email_key = ?').bind(email).all()).toEqual(
      expect.objectContaining({ results: [{ status: 'unsubscribed', key_sealed: null }] }),
    );

    at(T0 + 29 * DAY);
    await expectLimited(await subscribe(email), 24 * 3600);
    // 30 days after the unsubscribe: the API may ask again.
    at(T0 + 30 * DAY);
    expect((await subscribe(email)).status).toBe(200);
    expect(await confirmations(email)).toHaveLength(2);
  });

  it('the 30 days hold for the mailbox: after alice@ unsubscribed, alice+1@ gets nothing from any account until day 30, then mail to alice+1@ as typed', async () => {
    await subscribeThenUnsubscribe('alice@example.com');
    at(T0 + 10 * 60_000);
    await expectLimited(await subscribe('alice+1@example.com'), 30 * 24 * 3600 - 10 * 60);
    await expectLimited(await subscribe('Alice+Work@Example.com', { key: 'demo_growth_multi', brand_id: 2 }), 30 * 24 * 3600 - 10 * 60);
    expect(await statusOf('alice+1@example.com', 1)).toBeNull();
    at(T0 + 29 * DAY);
    await expectLimited(await subscribe('alice+1@example.com'), 24 * 3600);
    expect((await confirmations()).map((m) => m.to)).toEqual(['alice@example.com']);
    // Day 30: the API may ask again, and the mail goes to the address as it was typed.
    at(T0 + 30 * DAY);
    expect((await subscribe('Alice+1@example.com')).status).toBe(201);
    expect((await confirmations()).map((m) => m.to).sort()).toEqual(['Alice+1@example.com', 'alice@example.com']);
  });

  it('an unsubscribe from a +tag address holds the whole mailbox', async () => {
    await subscribeThenUnsubscribe('bob+news@example.com');
    at(T0 + HOUR);
    await expectLimited(await subscribe('bob@example.com'), 30 * 24 * 3600 - 3600);
    await expectLimited(await subscribe('BOB+other@example.com'), 30 * 24 * 3600 - 3600);
  });

  it("the address's own subscribe-again link sends a confirmation within the 30 days, and confirming restores the digest", async () => {
    const email = 'back@example.com';
    const again = await subscribeThenUnsubscribe(email);
    at(T0 + 2 * DAY);
    await expectLimited(await subscribe(email), 28 * 24 * 3600);
    const post = await SELF.fetch(`${BASE}${again}`, { method: 'POST' });
    expect(post.status).toBe(200);
    expect(await post.text()).toContain(`We sent a confirmation link to ${email}.`);
    const mails = await confirmations(email);
    expect(mails).toHaveLength(2);
    expect(await countRows(`SELECT COUNT(*) AS n FROM digest_confirmation_sends WHERE email_key = ? AND via = 'link'`, email)).toBe(1);
    const confirm = /https?:\/\/\S+\/digests\/confirm\?token=[\w.-]+/.exec(mails[0]!.text)![0].replace(/^https?:\/\/[^/]+/, BASE);
    expect((await SELF.fetch(confirm, { method: 'POST' })).status).toBe(200);
    expect(await statusOf(email, 1)).toBe('active');
  });

  it('the subscribe-again link still counts against the per-address cap: over it, a 429 page with Retry-After and no email', async () => {
    const email = 'count@example.com';
    const again = await subscribeThenUnsubscribe(email); // send 1, T0
    at(T0 + HOUR);
    expect((await subscribe(email, { key: 'demo_growth_multi', brand_id: 2 })).status).toBe(429); // the 30 days hold the API back
    // Sends 2 and 3: the link, then its "send again" once the 10-minute window of the subscription has passed.
    expect((await SELF.fetch(`${BASE}${again}`, { method: 'POST' })).status).toBe(200);
    at(T0 + HOUR + 11 * 60_000);
    expect(await (await SELF.fetch(`${BASE}${again}`)).text()).toContain('Send the confirmation again');
    expect((await SELF.fetch(`${BASE}${again}`, { method: 'POST' })).status).toBe(200);
    expect(await confirmations(email)).toHaveLength(3);
    // The 4th in 24 hours, even from the address's own link: refused until the first leaves the window.
    at(T0 + 2 * HOUR);
    const refused = await SELF.fetch(`${BASE}${again}`, { method: 'POST' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(22 * 3600));
    expect(refused.headers.get('content-type')).toContain('text/html');
    const html = await refused.text();
    expect(html).toContain('No confirmation email for now');
    expect(html).toContain('Send it from 21 Nov 2026, 10:00 UTC');
    expect(await confirmations(email)).toHaveLength(3);
  });

  it('an account removing its own subscription (DELETE) is not the address unsubscribing: it may subscribe it again', async () => {
    const email = 'removed@example.com';
    const { subscription } = (await (await subscribe(email)).json()) as { subscription: { id: string } };
    expect((await SELF.fetch(`${BASE}/digests/subscriptions/${subscription.id}`, { method: 'DELETE', headers: { authorization: 'Bearer demo_pro_single' } })).status).toBe(204);
    at(T0 + 11 * 60_000);
    // The delete was final: subscribing the address again makes a new subscription, and its confirmation goes.
    const again = await subscribe(email);
    expect(again.status).toBe(201);
    expect(((await again.json()) as { subscription: { id: string } }).subscription.id).not.toBe(subscription.id);
    expect(await confirmations(email)).toHaveLength(2);
  });

  it("the mailto unsubscribe is the address's too", async () => {
    const email = 'mailto-gone@example.com';
    const { subscription } = (await (await subscribe(email)).json()) as { subscription: { id: string } };
    const token = await signToken(env.SIGNING_SECRET, { p: 'unsubscribe', s: subscription.id }, { ttlSeconds: 3600 });
    const message = { headers: new Headers({ subject: `unsubscribe ${token}` }), setReject: () => {} };
    await worker.email!(message as unknown as ForwardableEmailMessage, env, createExecutionContext());
    at(T0 + 11 * 60_000);
    expect((await subscribe(email)).status).toBe(429);
  });
});

describe("confirming is a POST from the confirm page's button", () => {
  it("a GET (a mail scanner prefetching the link) and a HEAD leave the subscription pending; the button's POST confirms", async () => {
    const email = 'scanned@example.com';
    const { subscription } = (await (await subscribe(email)).json()) as { subscription: { id: string } };
    const [mail] = await confirmations(email);
    const link = /https?:\/\/\S+\/digests\/confirm\?token=[\w.-]+/.exec(mail!.text)![0].replace(/^https?:\/\/[^/]+/, BASE);
    const status = async () => (await env.DB.prepare('SELECT status, confirmed_at FROM digest_subscriptions WHERE id = ?').bind(subscription.id).first())!;

    for (let i = 0; i < 3; i++) expect((await SELF.fetch(link)).status).toBe(200);
    const head = await SELF.fetch(link, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(await status()).toEqual({ status: 'pending', confirmed_at: null });

    const html = await (await SELF.fetch(link)).text();
    const form = /<form method="post" action="([^"]+)">/.exec(html)![1]!.replaceAll('&amp;', '&');
    expect(`${BASE}${form}`).toBe(link);
    expect(html).toContain(`Get the weekly AI-visibility digest for Brightdesk (US) at ${email}`);
    const post = await SELF.fetch(`${BASE}${form}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(post.status).toBe(200);
    expect(await post.text()).toContain('Subscription confirmed');
    expect(await status()).toEqual({ status: 'active', confirmed_at: new Date(T0).toISOString() });
  });

  it('the confirm route answers GET, HEAD and POST, and 405 with that Allow for anything else', async () => {
    const token = await signToken(env.SIGNING_SECRET, { p: 'confirm', s: 'sub_none' }, { ttlSeconds: 3600 });
    const put = await SELF.fetch(`${BASE}/digests/confirm?token=${token}`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    // A subscription that is not there was removed by its account (ids are never reused): gone, 410.
    expect((await SELF.fetch(`${BASE}/digests/confirm?token=${token}`, { method: 'POST' })).status).toBe(410);
  });
});
