/**
 * Change alerts through the Worker: subscribing with a Slack or webhook
 * channel (SELF), the hourly cron at chosen times (`scheduled`), the delivery
 * queue and its dead-letter queue (`queue`). The API is a fixture whose
 * bodies each test sets day by day (test/alerts-helpers.ts); DNS-over-HTTPS,
 * Slack and the webhook receiver are fakes behind a stubbed `fetch` that
 * refuses every other request, so nothing leaves the test, and no request
 * ever goes to a private address (the checks are tested on names the fake
 * resolver maps, and on literals). No real sleeps: the Date is faked.
 */
import { env, SELF } from 'cloudflare:test';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AlertJob } from '../src/alerts/deps';
import { AlertQueue, changedDay2, skipHistoryPass, clearAlerts, deliveryRecords, FakeEndpoints, FixtureApi, fixtureDay, HOSTS, seedAlertSubscriptions, withScore } from './alerts-helpers';
import { clearDigests, deliver, FakeQueue, runCron, testEnv } from './digests-helpers';
import { useServicesForTests } from './seams';

const BASE = 'https://edge.test';
const HOOK = 'https://receiver.example.com/hooks/brand';
const SLACK = 'https://hooks.slack.com/services/T000/B000/XXXX';
/** Day 1 of the tests' week, 07:00 UTC: the first cron run at which a UTC group is due. */
const DAY1 = '2026-11-23T07:00:00Z';
const at = (day: number, hour = 7, minute = 0) => new Date(Date.parse(DAY1) + (day - 1) * 86_400_000 + (hour - 7) * 3_600_000 + minute * 60_000).toISOString();

let endpoints: FakeEndpoints;
let api: FixtureApi;
let alertQueue: AlertQueue;
let alertEnv: Env;

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(DAY1));
  await clearAlerts();
  await clearDigests();
  endpoints = new FakeEndpoints().install();
  api = new FixtureApi();
  alertQueue = new AlertQueue();
  useServicesForTests({ api: api.client, sleep: async () => {} });
  // Mail to the dev outbox (no Resend), the digests' Queue a recorder, the alerts' this one.
  alertEnv = testEnv(new FakeQueue(), { ALERT_QUEUE: alertQueue, RESEND_API_KEY: '' });
});
afterEach(() => {
  useServicesForTests();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** Runs the cron at `when`, with the API serving `bodies`. */
async function cronAt(when: string, bodies = api.bodies) {
  vi.setSystemTime(new Date(when));
  api.bodies = bodies;
  await skipHistoryPass(when);
  await runCron(when, alertEnv);
}

const deliverAlerts = (jobs: AlertJob[], options: { attempts?: number; queue?: string } = {}) => deliver(jobs, alertEnv, { queue: 'alert-deliveries', ...options });

function subscribe(body: Record<string, unknown>) {
  return SELF.fetch(`${BASE}/digests/subscriptions`, { method: 'POST', headers: { authorization: 'Bearer demo_pro_single', 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('subscribing with a channel', () => {
  // The key's reads go through the real pipeline (apiFor over the demo data), on the real clock.
  beforeEach(() => {
    useServicesForTests();
    vi.useRealTimers();
  });

  it('a webhook: 201 with its secret once, a signed test delivery carrying the confirm link, active once confirmed', async () => {
    const response = await subscribe({
      email: 'ops@example.com',
      kinds: ['alerts'],
      channel: { type: 'webhook', url: HOOK },
      quiet_hours: { start: '23:00', end: '06:30' },
      timezone: 'Europe/Berlin',
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { subscription: Record<string, unknown>; webhook_secret: string; test_delivery: { sent: boolean; message_id: string } };
    expect(body.subscription).toMatchObject({ status: 'pending', kinds: ['alerts'], channel: { type: 'webhook', url: HOOK }, quiet_hours: { start: '23:00', end: '06:30' } });
    expect(body.webhook_secret).toMatch(/^whsec_/);
    expect(body.test_delivery.sent).toBe(true);
    // The resolution was checked (A and AAAA), then one post went to the receiver: no email.
    expect(endpoints.dnsQueries).toEqual(['receiver.example.com A', 'receiver.example.com AAAA']);
    expect(endpoints.posts).toHaveLength(1);
    const post = endpoints.posts[0]!;
    expect(post.url).toBe(HOOK);
    expect(post.headers['webhook-id']).toBe(body.test_delivery.message_id);
    const payload = new Webhook(body.webhook_secret).verify(post.body, post.headers) as { type: string; data: { confirm_url: string; unsubscribe_url: string } };
    expect(payload.type).toBe('subscription.confirm');
    const outbox = (await (await SELF.fetch(`${BASE}/dev/outbox?format=json`)).json()) as { messages: { kind: string; to: string; headers: Record<string, string> }[] };
    // In dev the post is kept in the outbox, headers and all; no mail went anywhere.
    expect(outbox.messages.map((m) => [m.kind, m.to])).toEqual([['webhook', HOOK]]);
    expect(outbox.messages[0]!.headers['webhook-signature']).toBe(post.headers['webhook-signature']);

    const confirmPath = payload.data.confirm_url.replace(/^https?:\/\/[^/]+/, BASE);
    const page = await (await SELF.fetch(confirmPath)).text();
    expect(page).toContain('Confirm your change alerts');
    expect(page).toContain('to the webhook receiver at receiver.example.com');
    expect(page).toContain('quiet hours 23:00–06:30');
    const confirmed = await SELF.fetch(confirmPath, { method: 'POST' });
    expect(await confirmed.text()).toContain('Alerts confirmed');
    const list = (await (await SELF.fetch(`${BASE}/digests/subscriptions`, { headers: { authorization: 'Bearer demo_pro_single' } })).json()) as {
      subscriptions: { status: string; channel?: unknown }[];
    };
    expect(list.subscriptions).toEqual([expect.objectContaining({ status: 'active', channel: { type: 'webhook', url: HOOK } })]);
    expect(JSON.stringify(list)).not.toContain('whsec_');
    // The stop link the test delivery carries speaks of alerts, not of a digest.
    const stop = await (await SELF.fetch(payload.data.unsubscribe_url.replace(/^https?:\/\/[^/]+/, BASE))).text();
    expect(stop).toContain('Stop the change alerts?');
    expect(stop).toContain('Stop change alerts for Brightdesk (US) to the webhook receiver at receiver.example.com.');
  });

  it('sends a test delivery at most once per 10 minutes, signed with the secret the first answer showed, within the caps', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.now();
    const body = { email: 'ops@example.com', kinds: ['alerts'], channel: { type: 'webhook', url: HOOK } };
    const first = (await (await subscribe(body)).json()) as { webhook_secret: string; confirmation: { sent: boolean } };
    expect(first.confirmation.sent).toBe(true);
    const again = await subscribe(body);
    expect(again.status).toBe(200);
    const soon = (await again.json()) as Record<string, unknown>;
    expect(soon).toMatchObject({ confirmation: { sent: false } });
    expect(soon).not.toHaveProperty('webhook_secret');
    expect(endpoints.posts).toHaveLength(1);
    vi.setSystemTime(t0 + 10 * 60_000);
    const later = (await (await subscribe(body)).json()) as Record<string, unknown>;
    expect(later).toMatchObject({ confirmation: { sent: true }, test_delivery: { sent: true } });
    expect(later).not.toHaveProperty('webhook_secret');
    expect(endpoints.posts).toHaveLength(2);
    expect(new Webhook(first.webhook_secret).verify(endpoints.posts[1]!.body, endpoints.posts[1]!.headers)).toMatchObject({ type: 'subscription.confirm' });
    // The third in 24 hours to this URL is the last: the caps of confirmation mail hold for test deliveries too.
    vi.setSystemTime(t0 + 20 * 60_000);
    expect((await subscribe(body)).status).toBe(200);
    vi.setSystemTime(t0 + 30 * 60_000);
    const capped = await subscribe(body);
    expect(capped.status).toBe(429);
    expect(capped.headers.get('retry-after')).toMatch(/^\d+$/);
    // In the words of what was refused: a test delivery to an endpoint, not an email to an address.
    expect(((await capped.json()) as { error: { message: string } }).error.message).toMatch(/^No test delivery was sent: this endpoint may get no more test deliveries for now/);
    expect(endpoints.posts).toHaveLength(3);
  });

  it('counts a receiver, not a URL: six webhook URLs on one host, differing in path or query, get 3 test deliveries, then 429', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.now();
    // A fully qualified name (final dot) is the same host: the fake resolver answers it as DNS would.
    endpoints.hosts['receiver.example.com.'] = HOSTS['receiver.example.com']!;
    const urls = [
      'https://receiver.example.com/hook?v=0',
      'https://receiver.example.com/hook?v=1',
      'https://receiver.example.com/x/y?v=2',
      'https://RECEIVER.example.com:443/hook?v=3',
      'https://receiver.example.com./hook?v=4',
      'https://receiver.example.com/hook?v=5',
    ];
    const statuses: number[] = [];
    for (const [i, url] of urls.entries()) {
      vi.setSystemTime(t0 + i * 60_000);
      const response = await subscribe({ email: `ops${i}@example.com`, kinds: ['alerts'], channel: { type: 'webhook', url } });
      statuses.push(response.status);
      // Until the first test delivery is 24 hours old.
      if (response.status === 429) expect(response.headers.get('retry-after')).toBe(String(24 * 3600 - i * 60));
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429]);
    expect(endpoints.posts.map((p) => p.url)).toEqual(urls.slice(0, 3));
    // Another receiver is not held back.
    endpoints.hosts['other.example.com'] = ['93.184.216.36'];
    expect((await subscribe({ email: 'ops@example.com', kinds: ['alerts'], channel: { type: 'webhook', url: 'https://other.example.com/hook' } })).status).toBe(201);
    expect(endpoints.posts).toHaveLength(4);
  });

  it("a Slack incoming webhook is a receiver of its own: its URL with a query counts with it, another webhook on Slack's host does not", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await subscribe({ email: 'ops@example.com', kinds: ['alerts'], channel: { type: 'slack', url: `${SLACK}?i=${i}` } })).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    expect((await subscribe({ email: 'ops@example.com', kinds: ['alerts'], channel: { type: 'slack', url: 'https://hooks.slack.com/services/T000/B001/YYYY' } })).status).toBe(201);
    expect(endpoints.posts).toHaveLength(4);
  });

  it('a Slack subscription stopped from its message and subscribed again is confirmed in Slack again, not by email', async () => {
    const created = (await (await subscribe({ email: 'ops@example.com', kinds: ['alerts'], channel: { type: 'slack', url: SLACK } })).json()) as { subscription: { id: string } };
    // Confirmed, and its test delivery out of the 10-minute window.
    const before = new Date(Date.now() - 20 * 60_000).toISOString();
    await env.DB.prepare(`UPDATE digest_subscriptions SET status = 'active', confirmed_at = ?, confirm_sent_at = ? WHERE id = ?`).bind(before, before, created.subscription.id).run();
    const stopLink = /<([^|>]+\/digests\/unsubscribe\?token=[^|>]+)\|stop it now>/.exec(endpoints.posts[0]!.body)![1]!.replace(/^https?:\/\/[^/]+/, BASE);
    const stopped = await (await SELF.fetch(stopLink, { method: 'POST' })).text();
    expect(stopped).toContain('No more change alerts for Brightdesk (US) will be sent to the Slack channel of its incoming webhook.');
    const again = /<form method="post" action="([^"]+)"><button type="submit">Subscribe again/.exec(stopped)![1]!.replaceAll('&amp;', '&');
    const page = await (await SELF.fetch(`${BASE}${again}`, { method: 'POST' })).text();
    expect(page).toContain('Check the channel');
    expect(page).toContain('We sent a confirmation link to the Slack channel of its incoming webhook.');
    expect(endpoints.posts).toHaveLength(2);
    expect(endpoints.posts[1]!.body).toContain('Confirm the alerts');
    const outbox = (await (await SELF.fetch(`${BASE}/dev/outbox?format=json`)).json()) as { messages: { kind: string }[] };
    expect(outbox.messages.map((m) => m.kind)).toEqual(['slack', 'slack']);
  });

  it('a Slack channel: a Block Kit test message with the confirm button', async () => {
    const response = await subscribe({ email: 'ops@example.com', kinds: ['alerts'], channel: { type: 'slack', url: SLACK } });
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).not.toHaveProperty('webhook_secret');
    const message = JSON.parse(endpoints.posts[0]!.body) as { blocks: { type: string; elements?: { url?: string }[] }[] };
    expect(endpoints.posts[0]!.headers).not.toHaveProperty('webhook-signature');
    const button = message.blocks.find((b) => b.type === 'actions')!.elements![0]!.url!;
    expect(button).toMatch(/\/digests\/confirm\?token=v1\./);
  });

  it.each([
    [{ type: 'webhook', url: 'https://intranet.example.com/hook' }, 'resolves to 10.0.0.5'],
    [{ type: 'webhook', url: 'https://mapped.example.com/hook' }, 'resolves to ::ffff:192.168.1.1'],
    [{ type: 'slack', url: 'https://10.0.0.1/services/x' }, 'points at 10.0.0.1'],
    [{ type: 'webhook', url: 'https://[::1]/hook' }, 'points at ::1'],
    [{ type: 'webhook', url: 'https://2130706433/hook' }, 'points at 127.0.0.1'],
    [{ type: 'webhook', url: 'http://receiver.example.com/hook' }, 'must be an https URL'],
    [{ type: 'webhook' }, 'is required'],
  ])('refuses %j with a 400 naming channel.url, and stores and posts nothing', async (channel, reason) => {
    const response = await subscribe({ email: 'ops@example.com', kinds: ['alerts'], channel });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; param: string; message: string } };
    expect(error).toMatchObject({ code: 'invalid_parameter', param: 'channel.url' });
    expect(error.message).toContain(reason);
    expect(endpoints.posts).toEqual([]);
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM digest_subscriptions').first('n')).toBe(0);
  });

  it('refuses a Slack or webhook channel with digest kinds, and a channel without alerts', async () => {
    const mixed = await subscribe({ email: 'ops@example.com', kinds: ['alerts', 'visibility'], channel: { type: 'slack', url: SLACK } });
    expect(((await mixed.json()) as { error: { param: string } }).error.param).toBe('kinds');
    const noAlerts = await subscribe({ email: 'ops@example.com', kinds: ['visibility'], channel: { type: 'email' } });
    expect(((await noAlerts.json()) as { error: { param: string } }).error.param).toBe('channel');
  });

  it('a receiver that refuses the test delivery is a 400 naming channel.url', async () => {
    endpoints.failNext(404);
    const response = await subscribe({ email: 'ops@example.com', kinds: ['alerts'], channel: { type: 'webhook', url: HOOK } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string; message: string } }).error).toMatchObject({ param: 'channel.url', message: expect.stringContaining('answered 404') });
  });
});

describe('the daily evaluation and its deliveries', () => {
  it('stores on the first evaluation, then delivers the hand-worked events once, signed, most important first', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const [id] = await seedAlertSubscriptions([{ channel: 'webhook', url: HOOK, secret }]);
    // 06:00 UTC: before 07:00 local, nothing is evaluated.
    await cronAt(at(1, 6), fixtureDay(0));
    expect(api.reads).toEqual([]);
    await cronAt(at(1), fixtureDay(0));
    expect(api.reads.sort()).toEqual(['/prompts', '/topics', '/visibility']);
    expect(await deliveryRecords()).toEqual([]);

    await cronAt(at(2), changedDay2());
    const records = await deliveryRecords();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ subscription_id: id, status: 'pending' });
    const jobs = alertQueue.take();
    expect(jobs).toEqual([{ v: 1, delivery_ids: [records[0]!.id] }]);
    const delivered = await deliverAlerts(jobs);
    expect(delivered.explicitAcks).toHaveLength(1);
    expect(endpoints.posts).toHaveLength(1);
    const post = endpoints.posts[0]!;
    const payload = new Webhook(secret).verify(post.body, post.headers) as { type: string; data: { events: { id: string; type: string; summary: string }[]; report_url: string } };
    expect(payload.type).toBe('alerts.changes');
    expect(payload.data.events.map((e) => e.type)).toEqual(['visibility_moved', 'question_lost', 'rival_overtook', 'question_won']);
    // The bundle's webhook-id is its first event's id; every event has its own.
    expect(post.headers['webhook-id']).toBe(payload.data.events[0]!.id);
    expect(new Set(payload.data.events.map((e) => e.id)).size).toBe(4);
    // The lost question's action in one line: the task that moves its topic, and its page to write (the plan's).
    expect(payload.data.events[1]!.summary).toBe(
      'Claude stopped naming Brightdesk for “What is the best help desk software this year?” (recommended → not named). Next: Refresh the Best help desk software overall hub page. Expected +6.6 points, medium effort. Write a page answering “What is the best help desk software this year?”',
    );
    expect(payload.data.events.filter((e) => 'action' in e).map((e) => e.type)).toEqual(['question_lost']);
    // Read for it: content coverage and open tasks, once, beside the evaluation's three.
    expect(api.reads.filter((path) => path === '/content-gaps' || path === '/tasks').sort()).toEqual(['/content-gaps', '/tasks']);
    expect(payload.data.report_url).toMatch(/^https:\/\/edge\.test\/r\/v1\./);
    // Tampered, it fails the receiver's check.
    expect(() => new Webhook(secret).verify(post.body.replace('Claude', 'Gemini'), post.headers)).toThrow();
    expect((await deliveryRecords())[0]).toMatchObject({ status: 'sent', attempts: 1 });

    // A second evaluation the same day (a later hour, or the dev route) reads and sends nothing.
    api.reads = [];
    await cronAt(at(2, 9), changedDay2());
    const dev = (await (await SELF.fetch(`${BASE}/dev/alerts/run?at=${encodeURIComponent(at(2, 15))}`, { method: 'POST' })).json()) as { evaluated: number };
    expect(dev.evaluated).toBe(0);
    expect(api.reads).toEqual([]);
    expect(alertQueue.take()).toEqual([]);
    // The same message delivered again (the Queue's at-least-once) posts nothing.
    await deliverAlerts(jobs);
    expect(endpoints.posts).toHaveLength(1);
  });

  it('retries after a 500 with the same webhook-id (a new timestamp and signature), then sends once', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    await seedAlertSubscriptions([{ channel: 'webhook', url: HOOK, secret }]);
    await cronAt(at(1), fixtureDay(0));
    await cronAt(at(2), changedDay2());
    const jobs = alertQueue.take();
    endpoints.failNext(500);
    const first = await deliverAlerts(jobs, { attempts: 1 });
    expect(first.retries).toEqual([{ msgId: expect.any(String), delaySeconds: 30 }]);
    expect((await deliveryRecords())[0]).toMatchObject({ status: 'pending', reason: 'retrying: answered 500' });
    vi.setSystemTime(new Date(Date.parse(at(2)) + 30_000));
    const second = await deliverAlerts(jobs, { attempts: 2 });
    expect(second.explicitAcks).toHaveLength(1);
    const [failed, sent] = endpoints.posts;
    expect(sent!.headers['webhook-id']).toBe(failed!.headers['webhook-id']);
    expect(sent!.body).toBe(failed!.body);
    expect(sent!.headers['webhook-timestamp']).not.toBe(failed!.headers['webhook-timestamp']);
    expect(new Webhook(secret).verify(sent!.body, sent!.headers)).toBeTruthy();
    expect((await deliveryRecords())[0]).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('records why in the dead-letter queue, and pauses the subscription on a 410', async () => {
    const [gone, failing] = await seedAlertSubscriptions([
      { channel: 'slack', url: SLACK },
      { channel: 'webhook', url: HOOK, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    ]);
    await cronAt(at(1), fixtureDay(0));
    await cronAt(at(2), changedDay2());
    const jobs = alertQueue.take();
    expect(jobs).toHaveLength(2);
    const records = await deliveryRecords();
    const jobOf = (sub: string) => jobs.find((j) => j.delivery_ids.includes(records.find((r) => r.subscription_id === sub)!.id))!;
    endpoints.failNext(410);
    await deliverAlerts([jobOf(gone!)]);
    const paused = await env.DB.prepare('SELECT status, paused_reason FROM digest_subscriptions WHERE id = ?').bind(gone).first();
    expect(paused).toEqual({ status: 'paused', paused_reason: 'endpoint_gone' });
    endpoints.failNext(503);
    await deliverAlerts([jobOf(failing!)], { attempts: 6 });
    await deliverAlerts([jobOf(failing!)], { queue: 'alert-deliveries-dlq' });
    const after = await deliveryRecords();
    expect(after.find((r) => r.subscription_id === gone)).toMatchObject({ status: 'failed', reason: 'the endpoint is gone (answered 410): subscription paused' });
    expect(after.find((r) => r.subscription_id === failing)).toMatchObject({ status: 'failed', reason: "gave up after the Queue's retries (last: answered 503)" });
    // The paused subscription is no longer evaluated for: the next day's changes go to the other one only.
    const day3 = fixtureDay(2);
    await cronAt(at(3), day3);
    const next = alertQueue.take();
    expect(next).toHaveLength(1);
    expect((await deliveryRecords()).filter((r) => r.subscription_id === gone)).toHaveLength(1);
  });

  it('pauses a Slack subscription whose webhook Slack says is gone (404 no_service), and only then', async () => {
    const [removed, erring, hook] = await seedAlertSubscriptions([
      { channel: 'slack', url: SLACK },
      { channel: 'slack', url: `${SLACK}-2` },
      { channel: 'webhook', url: HOOK, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    ]);
    await cronAt(at(1), fixtureDay(0));
    await cronAt(at(2), changedDay2());
    const jobs = alertQueue.take();
    const records = await deliveryRecords();
    const jobOf = (sub: string) => jobs.find((j) => j.delivery_ids.includes(records.find((r) => r.subscription_id === sub)!.id))!;
    const statusOf = async (id: string) => (await env.DB.prepare('SELECT status FROM digest_subscriptions WHERE id = ?').bind(id).first<{ status: string }>())!.status;
    endpoints.failNext(404, 1, 'no_service');
    await deliverAlerts([jobOf(removed!)]);
    endpoints.failNext(404, 1, 'invalid_payload');
    await deliverAlerts([jobOf(erring!)]);
    // The same words from a webhook receiver are its own business: a failed delivery, not a removed endpoint.
    endpoints.failNext(404, 1, 'no_service');
    await deliverAlerts([jobOf(hook!)]);
    expect([await statusOf(removed!), await statusOf(erring!), await statusOf(hook!)]).toEqual(['paused', 'active', 'active']);
    const after = await deliveryRecords();
    expect(after.find((r) => r.subscription_id === removed)).toMatchObject({ status: 'failed', reason: 'the endpoint is gone (answered 404 no_service): subscription paused' });
  });

  it('holds a delivery in quiet hours and releases it when they end', async () => {
    // Quiet from 06:00 to 09:30 UTC: the 07:00 evaluation finds the changes inside them.
    await seedAlertSubscriptions([{ channel: 'slack', url: SLACK, quiet: { start: 6 * 60, end: 9 * 60 + 30 } }]);
    await cronAt(at(1), fixtureDay(0));
    await cronAt(at(2), changedDay2());
    expect(alertQueue.take()).toEqual([]);
    expect((await deliveryRecords())[0]).toMatchObject({ status: 'pending', deliver_after: at(2, 9, 30), enqueued_at: null });
    await cronAt(at(2, 9));
    expect(alertQueue.take()).toEqual([]);
    await cronAt(at(2, 10));
    const released = alertQueue.take();
    expect(released).toHaveLength(1);
    await deliverAlerts(released);
    const slack = JSON.parse(endpoints.posts[0]!.body) as { text: string; blocks: { type: string; text?: { text: string } }[] };
    expect(slack.blocks[0]!.text!.text).toBe('Brightdesk (US): 4 changes in AI answers');
    expect(slack.blocks.filter((b) => b.type === 'section').map((b) => b.text!.text.split(' · ')[0])).toEqual(['*Visibility*', '*Lost*', '*Overtaken*', '*Won*']);
    // Its button opens the full report (both parts, though the subscription has no digest kinds), read through the real pipeline.
    const button = (slack.blocks.find((b) => b.type === 'actions') as unknown as { elements: { url: string }[] }).elements[0]!.url;
    expect(button).toMatch(/^https:\/\/edge\.test\/r\/v1\./);
    useServicesForTests();
    // Opened the minute after the delivery, while the link lives (DAY1 is fixed: on the real clock, a month on, it has expired).
    vi.setSystemTime(new Date(Date.parse(at(2, 10, 1))));
    const report = await SELF.fetch(`${button}?format=json`);
    expect(report.status).toBe(200);
    expect(await report.json()).toMatchObject({ report: { brand: { id: 1 }, kinds: ['visibility', 'won_lost'] } });
  });

  it("says the quiet hours right when there are none: the email's footer and the Slack message", async () => {
    const none = { start: 0, end: 0 };
    await seedAlertSubscriptions([
      { channel: 'email', email: 'any-hour@example.com', quiet: none },
      { channel: 'slack', url: SLACK, quiet: none },
    ]);
    await cronAt(at(1), fixtureDay(0));
    await cronAt(at(2), changedDay2());
    await deliverAlerts(alertQueue.take());
    const outbox = (await (await SELF.fetch(`${BASE}/dev/outbox?format=json&to=any-hour@example.com`)).json()) as { messages: { kind: string; text: string }[] };
    expect(outbox.messages.map((m) => m.kind)).toEqual(['alert']);
    expect(outbox.messages[0]!.text).toContain('You get an alert the day something moves beyond the noise, at any hour (no quiet hours are set), and the same change');
    expect(outbox.messages[0]!.text).not.toMatch(/never between|quiet hours \(/);
    const slack = JSON.parse(endpoints.posts[0]!.body) as { blocks: { type: string; elements?: { text: string }[] }[] };
    expect(slack.blocks.at(-1)!.elements![0]!.text).toMatch(/^Changes beyond the noise since the day before; no quiet hours\. </);
  });

  it('does not repeat a change within 7 days unless it reverses; a wobble inside the band raises nothing', async () => {
    await seedAlertSubscriptions([{ channel: 'email', email: 'lead@example.com' }]);
    const scored = (day: number, score: number) => {
      const bodies = fixtureDay(day - 1);
      bodies.visibility = withScore(bodies.visibility, score);
      return bodies;
    };
    const eventsOf = async () => {
      const jobs = alertQueue.take();
      await deliverAlerts(jobs);
      const { results } = await env.DB.prepare(`SELECT events FROM alert_deliveries ORDER BY id DESC LIMIT 1`).all<{ events: string }>();
      return jobs.length === 0 ? [] : (JSON.parse(results[0]!.events) as { events: { type: string; direction?: string }[] }).events.map((e) => `${e.type} ${e.direction}`);
    };
    await cronAt(at(1), scored(1, 56.8));
    await cronAt(at(2), scored(2, 50)); // down, beyond the band
    expect(await eventsOf()).toEqual(['visibility_moved down']);
    await cronAt(at(3), scored(3, 45)); // down again within 7 days: not repeated
    expect(await eventsOf()).toEqual([]);
    await cronAt(at(4), scored(4, 45.9)); // +0.9, inside the band: nothing
    expect(await eventsOf()).toEqual([]);
    await cronAt(at(5), scored(5, 52)); // up: a reversal, raised at once
    expect(await eventsOf()).toEqual(['visibility_moved up']);
    await cronAt(at(6), scored(6, 44)); // down again: reverses the rise
    expect(await eventsOf()).toEqual(['visibility_moved down']);
    // The email channel: the alert email, in the dev outbox, with its one-click unsubscribe.
    const outbox = (await (await SELF.fetch(`${BASE}/dev/outbox?format=json&to=lead@example.com`)).json()) as { messages: { kind: string; subject: string; headers: Record<string, string> }[] };
    expect(outbox.messages.map((m) => m.subject)).toEqual([
      'Brightdesk (US): AI visibility 44.0% (−8.0 pts)',
      'Brightdesk (US): AI visibility 52.0% (+6.1 pts)',
      'Brightdesk (US): AI visibility 50.0% (−6.8 pts)',
    ]);
    expect(outbox.messages[0]!.headers).toHaveProperty('List-Unsubscribe-Post', 'List-Unsubscribe=One-Click');
  });

  it('sends the emails of one group and evaluation as one batch under one key, each recipient once', async () => {
    await seedAlertSubscriptions([
      { channel: 'email', email: 'a@example.com' },
      { channel: 'email', email: 'b@example.com' },
      { channel: 'email', email: 'c@example.com' },
      { channel: 'slack', url: SLACK },
    ]);
    await cronAt(at(1), fixtureDay(0));
    await cronAt(at(2), changedDay2());
    const jobs = alertQueue.take();
    expect(jobs.map((j) => j.delivery_ids.length).sort()).toEqual([1, 3]);
    await deliverAlerts(jobs);
    await deliverAlerts(jobs); // redelivered: nothing more
    const outbox = (await (await SELF.fetch(`${BASE}/dev/outbox?format=json`)).json()) as { messages: { kind: string; to: string; idempotency_key: string }[] };
    const mails = outbox.messages.filter((m) => m.kind === 'alert');
    expect(mails.map((m) => m.to).sort()).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    expect(new Set(mails.map((m) => m.idempotency_key)).size).toBe(1);
    expect(mails[0]!.idempotency_key).toMatch(/^alert\/sub_t\d+\+2\.[0-9a-f]{16}\/evt_[0-9a-f]{24}$/);
    expect(outbox.messages.filter((m) => m.kind === 'slack')).toHaveLength(1);
    expect((await deliveryRecords()).map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
  });

  it('POST /dev/alerts/run evaluates as the cron would at `at`, and names `at` when it is not a time', async () => {
    await seedAlertSubscriptions([{ channel: 'slack', url: SLACK }]);
    api.bodies = fixtureDay(0);
    const run = await SELF.fetch(`${BASE}/dev/alerts/run?at=${encodeURIComponent(at(1))}`, { method: 'POST' });
    expect(await run.json()).toMatchObject({ at: new Date(at(1)).toISOString(), evaluated: 1, reads: 3, events: 0, deliveries: 0 });
    const bad = await SELF.fetch(`${BASE}/dev/alerts/run?at=yesterday`, { method: 'POST' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('at');
  });

  it('refuses to post when the endpoint now resolves inside a private network (DNS rebinding), and records why', async () => {
    const rebinding = 'https://rebinding.example.com/hook';
    await seedAlertSubscriptions([{ channel: 'webhook', url: rebinding, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }]);
    await cronAt(at(1), fixtureDay(0));
    await cronAt(at(2), changedDay2());
    endpoints.hosts['rebinding.example.com'] = ['192.168.0.10'];
    await deliverAlerts(alertQueue.take());
    expect(endpoints.posts).toEqual([]);
    expect((await deliveryRecords())[0]).toMatchObject({ status: 'failed', reason: 'refused before sending: the endpoint resolves to 192.168.0.10, a private, loopback or link-local address.' });
  });
});
