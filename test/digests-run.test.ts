/**
 * The weekly run through the Worker's `scheduled` and `queue` handlers, with
 * a fake Resend API reached by the real SDK. Monday 23 Nov 2026 is in ISO week
 * 2026-W48.
 */
import { createExecutionContext, env, SELF } from 'cloudflare:test';
import worker from '../src/index';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { retryDelaySeconds } from '../src/digests/consumer';
import { clearDigests, deliver, FakeQueue, FakeResend, runCron, seedSubscriptions, sendRecords, testEnv } from './digests-helpers';

const MONDAY_0800_UTC = '2026-11-23T08:00:00Z';

let resend: FakeResend;
let queue: FakeQueue;
let digestEnv: Env;

beforeEach(async () => {
  await clearDigests();
  resend = new FakeResend().install();
  queue = new FakeQueue();
  digestEnv = testEnv(queue);
});
afterEach(() => {
  vi.unstubAllGlobals();
});

async function originBody<T>(path: string, key = 'demo_pro_single'): Promise<T> {
  vi.unstubAllGlobals();
  const response = await SELF.fetch(`https://edge.test/origin/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  resend.install();
  return (await response.json()) as T;
}

describe('planning by timezone', () => {
  it('plans Monday 08:00 local: UTC, Berlin and Tokyo at 08:00 UTC, New York only at 13:00 UTC', async () => {
    const [utc, berlin, tokyo, newYork, sydneyTuesday] = await seedSubscriptions([
      { email: 'utc@example.com', timezone: 'UTC' },
      { email: 'berlin@example.com', timezone: 'Europe/Berlin' },
      { email: 'tokyo@example.com', timezone: 'Asia/Tokyo' },
      { email: 'ny@example.com', timezone: 'America/New_York' },
      // 19:00 Monday in Sydney at 08:00 UTC: still inside the catch-up window (until Tuesday 07:59).
      { email: 'sydney@example.com', timezone: 'Australia/Sydney' },
    ]);
    await runCron('2026-11-23T06:00:00Z', digestEnv); // 06:00 UTC: only Tokyo (15:00) and Sydney (17:00)
    expect((await sendRecords()).map((r) => r.subscription_id).sort()).toEqual([tokyo, sydneyTuesday].sort());
    await runCron('2026-11-23T07:00:00Z', digestEnv); // 08:00 in Berlin (CET, UTC+1)
    expect((await sendRecords()).map((r) => r.subscription_id).sort()).toEqual([berlin, tokyo, sydneyTuesday].sort());

    await runCron(MONDAY_0800_UTC, digestEnv);
    expect((await sendRecords()).map((r) => r.subscription_id).sort()).toEqual([utc, berlin, tokyo, sydneyTuesday].sort());
    expect(await sendRecords()).not.toContainEqual(expect.objectContaining({ subscription_id: newYork }));

    await runCron('2026-11-23T13:00:00Z', digestEnv); // 08:00 in New York
    const records = await sendRecords();
    expect(records.map((r) => r.subscription_id).sort()).toEqual([utc, berlin, tokyo, newYork, sydneyTuesday].sort());
    expect(new Set(records.map((r) => r.iso_week))).toEqual(new Set(['2026-W48']));
    expect(records.find((r) => r.subscription_id === utc)?.idempotency_key).toBe(`digest/${utc}/2026-W48`);
  });

  it('plans nothing on other days, and nothing for pending, paused or unsubscribed subscriptions', async () => {
    await seedSubscriptions([
      { email: 'a@example.com', status: 'pending' },
      { email: 'b@example.com', status: 'paused' },
      { email: 'c@example.com', status: 'unsubscribed' },
      { email: 'd@example.com' },
    ]);
    await runCron('2026-11-25T08:00:00Z', digestEnv); // a Wednesday
    await runCron('2026-11-24T08:00:00Z', digestEnv); // Tuesday 08:00: past the catch-up window
    expect(await sendRecords()).toEqual([]);
    await runCron(MONDAY_0800_UTC, digestEnv);
    expect((await sendRecords()).map((r) => r.subscription_id)).toHaveLength(1);
  });

  it('groups by brand, market and key: one message per group', async () => {
    await seedSubscriptions([
      { email: 'p1@example.com' },
      { email: 'p2@example.com' },
      { email: 'g1@example.com', key: 'demo_growth_multi', brandId: 2, brandName: 'Ledgerly', marketId: 21 },
      { email: 'g2@example.com', key: 'demo_growth_multi', brandId: 3, brandName: 'Payfold', marketId: 31 },
    ]);
    await runCron(MONDAY_0800_UTC, digestEnv);
    expect(queue.sent).toHaveLength(3);
    expect(queue.sent.map((j) => `${j.brand_id}:${j.market_id}`).sort()).toEqual(['1:11', '2:21', '3:31']);
  });
});

describe('sending', () => {
  it('sends one digest per subscription with both parts, the demo figures, List-Unsubscribe and the Idempotency-Key', async () => {
    const [id] = await seedSubscriptions([{ email: 'ada@example.com' }]);
    await runCron(MONDAY_0800_UTC, digestEnv);
    const result = await deliver(queue.sent, digestEnv);
    expect(result.explicitAcks).toHaveLength(1);

    expect(resend.calls).toHaveLength(1);
    const call = resend.calls[0]!;
    expect(call.path).toBe('/emails/batch');
    expect(call.authorization).toBe('Bearer re_test_key');
    expect(call.idempotencyKey).toBe(`digest/${id}/2026-W48`);
    const email = call.emails[0]!;
    expect(email.to).toEqual(['ada@example.com']);
    expect(email.from).toBe('Brightdesk Digest <digest@mail.example.com>');

    const visibility = await originBody<{ score: number; change: number; history: { score: number | null }[] }>('/visibility');
    const history = await originBody<{ counts: { won: number; lost: number; held: number }; questions: { text: string; outcome: string }[] }>('/answers/history');
    expect(email.subject).toContain(`Brightdesk: AI visibility ${visibility.score.toFixed(1)}%`);
    expect(email.subject).toContain(`${history.counts.won} won, ${history.counts.lost} lost · week of 23 Nov`);
    for (const part of [email.html, email.text]) {
      expect(part).toContain(`${visibility.score.toFixed(1)}%`);
      expect(part).toContain(`${history.counts.won} won`);
      expect(part).toContain(`${history.counts.lost} lost`);
      expect(part).toContain(`${history.counts.held} held`);
      const lost = history.questions.find((q) => q.outcome === 'lost')!;
      expect(part).toContain(lost.text.replace(/'/g, '&#x27;').includes('&') ? lost.text.slice(0, 20) : lost.text.slice(0, 20));
      expect(part).toContain('https://edge.test/digests/unsubscribe?token=');
      expect(part).toContain('https://edge.test/r/');
    }
    // The 12-week chart: every weekly score written out, in table cells; no image, no SVG.
    for (const point of visibility.history) if (point.score !== null) expect(email.html).toContain(`>${point.score.toFixed(1)}<`);
    expect(email.html).not.toMatch(/<img|<svg/i);
    expect(email.html).toMatch(/<html[^>]*lang="en"/);
    expect(email.text).not.toContain('<');

    expect(email.headers?.['List-Unsubscribe']).toMatch(/^<https:\/\/edge\.test\/digests\/unsubscribe\?token=[^>]+>, <mailto:unsubscribe@mail\.example\.com\?subject=unsubscribe%20[^>]+>$/);
    expect(email.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(await sendRecords()).toEqual([expect.objectContaining({ subscription_id: id, status: 'sent', iso_week: '2026-W48' })]);
  });

  it('sends exactly once per subscription and week when the cron fires twice and the queue redelivers', async () => {
    await seedSubscriptions([{ email: 'one@example.com' }, { email: 'two@example.com' }]);
    await runCron(MONDAY_0800_UTC, digestEnv);
    await runCron(MONDAY_0800_UTC, digestEnv); // a duplicated trigger
    await runCron('2026-11-23T09:00:00Z', digestEnv); // the next hour, still in the window
    expect(queue.sent).toHaveLength(1);

    await deliver(queue.sent, digestEnv);
    await deliver(queue.sent, digestEnv); // redelivered
    await deliver(queue.sent, digestEnv, { attempts: 2 });
    expect(resend.calls).toHaveLength(1);
    expect(resend.delivered.map((e) => e.to[0]).sort()).toEqual(['one@example.com', 'two@example.com']);

    // The next week is a new digest.
    await runCron('2026-11-30T08:00:00Z', digestEnv);
    expect(queue.sent).toHaveLength(2);
    expect(queue.sent[1]!.iso_week).toBe('2026-W49');
  });

  it('splits more than 100 recipients into batches of at most 100: ceil(n/100) calls', async () => {
    await seedSubscriptions(Array.from({ length: 250 }, (_, i) => ({ email: `reader${i}@example.com` })));
    await runCron(MONDAY_0800_UTC, digestEnv);
    expect(queue.sent).toHaveLength(1);
    const result = await deliver(queue.sent, digestEnv);
    expect(result.explicitAcks).toHaveLength(1);
    expect(resend.calls.map((c) => c.emails.length)).toEqual([100, 100, 50]);
    expect(new Set(resend.calls.map((c) => c.idempotencyKey)).size).toBe(3);
    expect(new Set(resend.delivered.map((e) => e.to[0])).size).toBe(250);
    expect((await sendRecords()).every((r) => r.status === 'sent')).toBe(true);
  });

  it('after a partial batch failure, the retry sends only the failed batch, with the same Idempotency-Key', async () => {
    await seedSubscriptions(Array.from({ length: 150 }, (_, i) => ({ email: `p${i}@example.com` })));
    await runCron(MONDAY_0800_UTC, digestEnv);
    // First call succeeds, the second answers 500.
    const original = resend.handle.bind(resend);
    let n = 0;
    resend.handle = async (request) => {
      if (++n === 2) resend.failNext(500);
      return original(request);
    };
    const first = await deliver(queue.sent, digestEnv);
    expect(first.retryMessages).toHaveLength(1);
    // The consumer asks for a backoff that doubles per attempt (the test harness does not record the delay itself).
    expect([1, 2, 3, 7, 12].map(retryDelaySeconds)).toEqual([60, 120, 240, 3600, 3600]);
    expect(resend.calls.map((c) => [c.emails.length, c.status])).toEqual([
      [100, 200],
      [50, 500],
    ]);
    const records = await sendRecords();
    expect(records.filter((r) => r.status === 'sent')).toHaveLength(100);
    expect(records.filter((r) => r.status === 'sending')).toHaveLength(50);
    expect(records.find((r) => r.status === 'sending')?.reason).toBe('retrying: mail 500 internal_server_error');

    const second = await deliver(queue.sent, digestEnv, { attempts: 2 });
    expect(second.explicitAcks).toHaveLength(1);
    expect(resend.calls).toHaveLength(3);
    expect(resend.calls[2]!.emails).toHaveLength(50);
    expect(resend.calls[2]!.idempotencyKey).toBe(resend.calls[1]!.idempotencyKey);
    expect(resend.delivered).toHaveLength(150);
    expect(new Set(resend.delivered.map((e) => e.to[0])).size).toBe(150);
  });

  it('a batch whose outcome was lost is resent with the same key and Resend does not send it twice', async () => {
    await seedSubscriptions([{ email: 'lost@example.com' }]);
    await runCron(MONDAY_0800_UTC, digestEnv);
    // Resend accepted the batch, but the answer never came back (a timeout): the SDK reports a network error.
    const original = resend.handle.bind(resend);
    let n = 0;
    resend.handle = async (request) => {
      const response = await original(request);
      if (++n === 1) throw new TypeError('connection reset');
      return response;
    };
    const first = await deliver(queue.sent, digestEnv);
    expect(first.retryMessages).toHaveLength(1);
    await deliver(queue.sent, digestEnv, { attempts: 2 });
    expect(resend.calls).toHaveLength(2);
    expect(resend.calls[0]!.idempotencyKey).toBe(resend.calls[1]!.idempotencyKey);
    expect(resend.delivered).toHaveLength(1);
    expect((await sendRecords())[0]!.status).toBe('sent');
  });

  it('a digest is about the week it was planned for, even when sent late', async () => {
    await seedSubscriptions([{ email: 'late@example.com' }]);
    await runCron(MONDAY_0800_UTC, digestEnv);
    await deliver(queue.sent, digestEnv, { attempts: 4 });
    expect(resend.calls[0]!.emails[0]!.subject).toMatch(/week of 23 Nov$/);
    expect(resend.calls[0]!.idempotencyKey).toMatch(/\/2026-W48$/);
  });
});

describe('the dev routes', () => {
  it('plan at a given time, into the real queue of the local dev flow, only without RESEND_API_KEY', async () => {
    await seedSubscriptions([{ email: 'dev@example.com', timezone: 'Asia/Tokyo' }]);
    const devEnv = testEnv(queue, { RESEND_API_KEY: '' });
    const plan = (at: string, e: Env) => worker.fetch!(new Request(`https://edge.test/dev/digests/plan?at=${at}`, { method: 'POST' }) as Request<unknown, IncomingRequestCfProperties>, e, createExecutionContext());
    expect((await plan('2026-11-23T08:00:00Z', digestEnv)).status).toBe(404);
    const response = await plan('2026-11-23T08:00:00Z', devEnv);
    expect(await response.json()).toEqual({ at: '2026-11-23T08:00:00.000Z', planned: 1, groups: 1 });
    expect(queue.sent).toHaveLength(1);
    expect((await plan('yesterday', devEnv)).status).toBe(400);
  });

  it('the outbox is off (404) when RESEND_API_KEY is set', async () => {
    const response = await worker.fetch!(new Request('https://edge.test/dev/outbox') as Request<unknown, IncomingRequestCfProperties>, digestEnv, createExecutionContext());
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});

describe('failures', () => {
  it('pauses the subscription on a revoked key and sends one notice, once', async () => {
    const [revoked] = await seedSubscriptions([{ email: 'revoked@example.com', key: 'demo_revoked', brandId: 5, marketId: 51 }]);
    await runCron(MONDAY_0800_UTC, digestEnv);
    const result = await deliver(queue.sent, digestEnv);
    expect(result.explicitAcks).toHaveLength(1);
    const row = await env.DB.prepare('SELECT status, paused_reason FROM digest_subscriptions WHERE id = ?').bind(revoked).first();
    expect(row).toEqual({ status: 'paused', paused_reason: 'invalid_api_key' });
    expect(resend.delivered).toHaveLength(1);
    expect(resend.delivered[0]!.subject).toBe('Paused: your weekly digest for Brightdesk');
    expect(resend.delivered[0]!.text).toContain('revoked');
    expect(await sendRecords()).toEqual([expect.objectContaining({ status: 'skipped', reason: 'paused: invalid_api_key' })]);

    await deliver(queue.sent, digestEnv); // redelivered: no second notice
    await runCron('2026-11-30T08:00:00Z', digestEnv); // next week: paused, not planned
    expect(resend.delivered).toHaveLength(1);
    expect(queue.sent).toHaveLength(1);
  });

  it('pauses on 403 plan_inactive too', async () => {
    const [inactive] = await seedSubscriptions([{ email: 'inactive@example.com', key: 'demo_inactive', brandId: 5 }]);
    await runCron(MONDAY_0800_UTC, digestEnv);
    await deliver(queue.sent, digestEnv);
    const row = await env.DB.prepare('SELECT status, paused_reason FROM digest_subscriptions WHERE id = ?').bind(inactive).first();
    expect(row?.status).toBe('paused');
  });

  it('retries a group when Resend rate-limits, with its Retry-After, and gives up through the dead-letter queue with a recorded reason', async () => {
    await seedSubscriptions([{ email: 'busy@example.com' }]);
    await runCron(MONDAY_0800_UTC, digestEnv);
    resend.failNext(429);
    const first = await deliver(queue.sent, digestEnv);
    expect(first.retryMessages).toHaveLength(1);
    // After the last retry the Queue moves the message to the dead-letter queue; its consumer records why.
    const dead = await deliver(queue.sent, digestEnv, { queue: 'digest-sends-dlq' });
    expect(dead.explicitAcks).toHaveLength(1);
    const [record] = await sendRecords();
    expect(record!.status).toBe('failed');
    expect(record!.reason).toContain('gave up after the Queue');
    expect(record!.reason).toContain('mail 429 rate_limit_exceeded');
  });

  it('retries a group after Resend answers 500, and the retry delivers each digest exactly once', async () => {
    await seedSubscriptions([{ email: 'a@example.com' }, { email: 'b@example.com' }]);
    await runCron(MONDAY_0800_UTC, digestEnv);
    resend.failNext(500);
    const first = await deliver(queue.sent, digestEnv);
    expect(first.retryMessages).toHaveLength(1);
    expect(resend.delivered).toHaveLength(0);
    // The Queue redelivers; the cron fires again meanwhile and plans nothing new.
    await runCron(MONDAY_0800_UTC, digestEnv);
    await deliver(queue.sent, digestEnv, { attempts: 2 });
    expect(resend.delivered.map((e) => e.to).flat().sort()).toEqual(['a@example.com', 'b@example.com']);
    expect((await sendRecords()).map((r) => r.status)).toEqual(['sent', 'sent']);
    // A third delivery of the same messages (a consumer that died after sending) sends nothing more.
    await deliver(queue.sent, digestEnv, { attempts: 3 });
    expect(resend.delivered).toHaveLength(2);
  });

  it('does not retry a validation error from Resend: the records are failed with the reason', async () => {
    await seedSubscriptions([{ email: 'bad@example.com' }]);
    await runCron(MONDAY_0800_UTC, digestEnv);
    resend.failNext(422, 'validation_error');
    const result = await deliver(queue.sent, digestEnv);
    expect(result.explicitAcks).toHaveLength(1);
    expect((await sendRecords())[0]).toEqual(expect.objectContaining({ status: 'failed', reason: expect.stringContaining('422 validation_error') }));
  });

  it('sends nothing to a subscription unsubscribed between planning and sending (one-click from the email)', async () => {
    const [stays, leaves] = await seedSubscriptions([{ email: 'stays@example.com' }, { email: 'leaves@example.com' }]);
    await runCron(MONDAY_0800_UTC, digestEnv);
    await deliver(queue.sent, digestEnv);
    const email = resend.delivered.find((e) => e.to[0] === 'leaves@example.com')!;
    const link = /^<([^>]+)>/.exec(email.headers!['List-Unsubscribe']!)![1]!;
    // RFC 8058 one-click: a POST with `List-Unsubscribe=One-Click`, no cookie, no further step.
    vi.unstubAllGlobals();
    const response = await SELF.fetch(link.replace('https://edge.test', 'https://edge.test'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    resend.install();
    expect(response.status).toBe(200);
    expect((await env.DB.prepare('SELECT status FROM digest_subscriptions WHERE id = ?').bind(leaves).first())?.status).toBe('unsubscribed');
    await runCron('2026-11-30T08:00:00Z', digestEnv);
    await deliver(queue.sent.slice(1), digestEnv);
    expect(resend.delivered.filter((e) => e.to[0] === 'leaves@example.com')).toHaveLength(1);
    expect(resend.delivered.filter((e) => e.to[0] === 'stays@example.com')).toHaveLength(2);
    expect(stays).toBeDefined();
  });
});
