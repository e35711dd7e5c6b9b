/**
 * Bad input writes nothing (issue 45 item 6): subscribe requests drawn by a
 * seeded generator (fast-check) from the class of inputs a person or a client
 * gets wrong (channel types, receivers private, unresolvable, plain http or
 * loopback, receivers that refuse or are down, kinds, emails, timezones,
 * quiet hours), through the Worker's JSON route and the account's form. The
 * oracle: never a 500; a refused or failed subscribe leaves the
 * subscriptions, their channels and the dev outbox exactly as they were; the
 * account form answers its page with the error, never an error page.
 *
 * What the generator leaves out: concurrent subscribes of one address (their
 * race is test/digests-subscriptions.test.ts's), and the caps on confirmation
 * mail (test/digests-confirmation-caps.test.ts), whose 429s it meets only by chance.
 */
import { env, SELF } from 'cloudflare:test';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get, post, signIn } from './account-helpers';
import { clearAlerts, FakeEndpoints } from './alerts-helpers';
import { clearDigests } from './digests-helpers';
import { useServicesForTests } from './seams';

const BASE = 'https://edge.test';
let endpoints: FakeEndpoints;

beforeEach(async () => {
  await clearAlerts();
  await clearDigests();
  endpoints = new FakeEndpoints().install();
  useServicesForTests();
});
afterEach(() => {
  useServicesForTests();
  vi.unstubAllGlobals();
});

/** Everything a subscribe may write, as it stands. */
async function stored(): Promise<string> {
  const [subs, channels, outbox] = await env.DB.batch([
    env.DB.prepare('SELECT * FROM digest_subscriptions ORDER BY id'),
    env.DB.prepare('SELECT * FROM alert_channels ORDER BY subscription_id'),
    env.DB.prepare('SELECT id FROM digest_outbox ORDER BY id'),
  ]);
  // A row's revision moves on with every write, an undo's too (migration 0023): the rest is what it holds.
  const held = (subs!.results as Record<string, unknown>[]).map(({ revision: _, ...row }) => row);
  return JSON.stringify([held, channels!.results, outbox!.results]);
}

const RECEIVERS = [
  'https://receiver.example.com/hooks/brand', // public: its answer is drawn below
  'https://hooks.slack.com/services/T000/B000/XXXX',
  'https://intranet.example.com/hook', // resolves to 10.0.0.5
  'https://mapped.example.com/hook', // ::ffff:192.168.1.1
  'https://nowhere.example.com/hook', // no such name
  'http://receiver.example.com/hooks/brand', // not https
  'https://localhost/hook', // loopback (taken in dev, where nothing listens on it)
  'https://127.0.0.1/hook',
  'https://[::1]/hook',
  'ftp://receiver.example.com/',
  'not a url',
  '',
];
const subscribeInput = fc.record(
  {
    // Each field right more often than wrong, so a request often gets as far as the receiver.
    email: fc.oneof({ arbitrary: fc.constant('ops@example.com'), weight: 4 }, { arbitrary: fc.constantFrom('not-an-address', '', 'a@b'), weight: 1 }),
    // Alerts alone half the time: the only kinds a Slack or webhook channel takes, so receivers are reached often.
    kinds: fc.oneof(fc.constant(['alerts']), fc.subarray(['alerts', 'visibility', 'won_lost', 'hourly'], { minLength: 0 })),
    channel: fc.option(
      fc.record({
        type: fc.constantFrom('slack', 'webhook', 'email', 'sms'),
        url: fc.option(fc.oneof({ arbitrary: fc.constantFrom(...RECEIVERS.slice(0, 2)), weight: 3 }, { arbitrary: fc.constantFrom(...RECEIVERS), weight: 2 }), { nil: undefined, freq: 8 }),
      }),
      { nil: undefined, freq: 6 },
    ),
    timezone: fc.oneof({ arbitrary: fc.constantFrom('Europe/Berlin', 'UTC'), weight: 4 }, { arbitrary: fc.constantFrom('Berlin', 'Mars/Olympus'), weight: 1 }),
    quiet_hours: fc.option(
      fc.oneof(
        { arbitrary: fc.constant({ start: '22:00', end: '07:00' }), weight: 3 },
        { arbitrary: fc.record({ start: fc.constantFrom('22:00', '25:00', '7'), end: fc.constantFrom('07:00', 'noon') }), weight: 1 },
      ),
      { nil: undefined },
    ),
  },
  { requiredKeys: ['email', 'kinds'] },
);
/** What the public receiver does with the test delivery: takes it, refuses it, fails, or is down. */
const answer = fc.constantFrom<'ok' | 404 | 500 | 'down'>('ok', 404, 500, 'down');

function script(what: 'ok' | 404 | 500 | 'down') {
  if (what === 'down') endpoints.dropNext();
  else if (what !== 'ok') endpoints.failNext(what);
}

describe('a subscribe that is refused or fails writes nothing', () => {
  it('through POST /digests/subscriptions: never a 500, and nothing stored unless it answered 2xx (fast-check, seeded)', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(subscribeInput, answer, async (input, receiver) => {
        await clearDigests();
        endpoints = new FakeEndpoints().install();
        script(receiver);
        const before = await stored();
        const response = await SELF.fetch(`${BASE}/digests/subscriptions`, {
          method: 'POST',
          headers: { authorization: 'Bearer demo_pro_single', 'content-type': 'application/json' },
          body: JSON.stringify(input),
        });
        const body = (await response.json()) as { error?: { code: string; message: string } };
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expect(response.status, JSON.stringify(body)).not.toBe(500);
        if (response.status >= 400) {
          expect(body.error?.message).toEqual(expect.any(String));
          expect(await stored()).toBe(before);
        }
      }),
      { seed: 4506, numRuns: 120 },
    );
    // The generator reached the outcomes that matter: taken, refused, and failed after writing.
    expect([...statuses.keys()].sort()).toEqual(expect.arrayContaining([201, 400, 502]));
  });

  it('a receiver that is down or refuses: 502 or 400 naming channel.url, and no pending subscription is left behind', async () => {
    for (const receiver of ['down', 404] as const) {
      script(receiver);
      const response = await SELF.fetch(`${BASE}/digests/subscriptions`, {
        method: 'POST',
        headers: { authorization: 'Bearer demo_pro_single', 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ops@example.com', kinds: ['alerts'], channel: { type: 'slack', url: 'https://hooks.slack.com/services/T000/B000/XXXX' } }),
      });
      const { error } = (await response.json()) as { error: { param: string; message: string } };
      expect([response.status, error.param]).toEqual([receiver === 'down' ? 502 : 400, 'channel.url']);
      expect(error.message).toContain('nothing was stored');
      expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM digest_subscriptions').first<{ n: number }>())!.n).toBe(0);
    }
  });

  it('subscribing an unsubscribed channel again, with its receiver down, leaves it unsubscribed as it was', async () => {
    const body = JSON.stringify({ email: 'ops@example.com', kinds: ['alerts'], channel: { type: 'webhook', url: 'https://receiver.example.com/hooks/brand' } });
    const post = () => SELF.fetch(`${BASE}/digests/subscriptions`, { method: 'POST', headers: { authorization: 'Bearer demo_pro_single', 'content-type': 'application/json' }, body });
    expect((await post()).status).toBe(201);
    await env.DB.prepare("UPDATE digest_subscriptions SET status = 'unsubscribed', unsubscribed_at = '2026-11-01T00:00:00.000Z'").run();
    const before = await stored();
    endpoints.dropNext();
    expect((await post()).status).toBe(502);
    expect(await stored()).toBe(before);
  });

  it("through the account's form: the page again with the error beside the address, never an error page, and nothing stored", async () => {
    await env.DB.prepare('DELETE FROM account_sessions').run();
    const { cookie, csrf } = await signIn();
    const form = { csrf, email: 'ops@example.com', scope: '1:us', kinds: ['alerts'], timezone: 'UTC', quiet_start: '22:00', quiet_end: '07:00' };
    // Nothing listens on loopback's 443 here (dev takes localhost receivers): the test delivery cannot go.
    for (const [channel, url, status] of [
      ['slack', 'https://localhost/hook', 502],
      ['webhook', 'https://intranet.example.com/hook', 400],
      ['slack', 'https://hooks.slack.com/services/T000/B000/XXXX', 502],
    ] as const) {
      if (url.includes('slack.com')) endpoints.dropNext();
      const before = await stored();
      const response = await post('/account/subscriptions', { ...form, channel, channel_url: url }, { cookie });
      const html = await response.text();
      expect([url, response.status]).toEqual([url, status]);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(html).toMatch(/<p class="(?:error|problem)" id="channel_url-error" role="alert">(The test delivery|This resolves to)/);
      expect(await stored()).toBe(before);
    }
  });
});

describe("people's words on the subscriptions screen", () => {
  it('tells two Slack channels apart by their destination, the secret part of the address masked; takes a city for the timezone', async () => {
    await env.DB.prepare('DELETE FROM account_sessions').run();
    const urls = ['https://hooks.slack.com/services/T000/B000/AAAA1111', 'https://hooks.slack.com/services/T000/B111/BBBB2222'];
    for (const url of urls) {
      const response = await SELF.fetch(`${BASE}/digests/subscriptions`, {
        method: 'POST',
        headers: { authorization: 'Bearer demo_pro_single', 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ops@example.com', kinds: ['alerts'], channel: { type: 'slack', url }, timezone: 'Berlin' }),
      });
      expect(response.status).toBe(201);
      expect(((await response.json()) as { subscription: { timezone: string } }).subscription.timezone).toBe('Europe/Berlin');
    }
    const { cookie } = await signIn();
    const html = await (await get('/account/subscriptions', cookie)).text();
    const who = [...html.matchAll(/<span class="who">([^<]*)<\/span>/g)].map((m) => m[1]).sort();
    expect(who).toEqual(['Slack: hooks.slack.com/…1111', 'Slack: hooks.slack.com/…2222']);
    for (const url of urls) expect(html).not.toContain(url);
  });
});
