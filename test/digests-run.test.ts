/**
 * The weekly run through the Worker's `scheduled` and `queue` handlers, with
 * a fake Resend API reached by the real SDK. The planning tests use Monday
 * 23 Nov 2026 (ISO week 2026-W48); the sending tests run on a fake clock in
 * the week before the current one (`demoMonday`), whose days the demo data
 * covers whenever the suite runs. Nothing waits in real time: the Date is
 * faked, the consumer's pacing and the client's retries sleep through
 * recording seams.
 */
import { createExecutionContext, env, SELF } from 'cloudflare:test';
import worker from './worker';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { retryDelaySeconds } from '../src/digests/consumer';
import { WEEK_READS } from '../src/weekly-report/read';
import { useServicesForTests } from './seams';
import { isoWeek } from '../src/weekly-report/week';
import { signToken } from '../src/lib/signing';
import {
  clearDigests,
  dayOf,
  deliver,
  demoMonday,
  FakeQueue,
  FakeResend,
  plusDays,
  range,
  RecordingApi,
  recordingSleep,
  runCron,
  seedSubscriptions,
  sendRecords,
  span,
  testEnv,
} from './digests-helpers';

const MONDAY_0800_UTC = '2026-11-23T08:00:00Z';
/** Monday 08:00 UTC of the sending tests, and its ISO week. */
const MONDAY = demoMonday();
const WEEK = isoWeek(dayOf(MONDAY));

let resend: FakeResend;
let queue: FakeQueue;
let api: RecordingApi;
let pacing: ReturnType<typeof recordingSleep>;
let digestEnv: Env;

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(MONDAY);
  await clearDigests();
  resend = new FakeResend().install();
  queue = new FakeQueue();
  api = new RecordingApi();
  pacing = recordingSleep();
  useServicesForTests({ api: api.client, sleep: pacing.sleep });
  digestEnv = testEnv(queue);
});
afterEach(() => {
  useServicesForTests();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** A body straight from the reference origin, at the fake clock's time. */
async function originBody<T>(path: string, key = 'demo_pro_single'): Promise<T> {
  vi.unstubAllGlobals();
  const response = await SELF.fetch(`https://edge.test/origin/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  resend.install();
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');

async function subscriptionRow(id: string) {
  return env.DB.prepare('SELECT status, paused_reason, notice_status, notice_sent_at FROM digest_subscriptions WHERE id = ?').bind(id).first();
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

  it('enqueues again, on a later cron run, a group planned but never enqueued; the consumer still sends once', async () => {
    await seedSubscriptions([{ email: 'stranded1@example.com' }, { email: 'stranded2@example.com' }]);
    queue.failures = 1; // the run inserts its records, then cannot enqueue
    await expect(runCron(MONDAY.toISOString(), digestEnv)).rejects.toThrow('Queue send failed');
    expect((await sendRecords()).map((r) => r.status)).toEqual(['planned', 'planned']);
    expect(queue.sent).toEqual([]);

    // A run a few minutes later leaves them (another run may be enqueueing them now); the next hour's enqueues the group.
    await runCron(plusDays(MONDAY, 0, 0.05).toISOString(), digestEnv);
    expect(queue.sent).toEqual([]);
    await runCron(plusDays(MONDAY, 0, 1).toISOString(), digestEnv);
    expect(queue.sent).toEqual([expect.objectContaining({ iso_week: WEEK, brand_id: 1, market_id: 11 })]);
    await runCron(plusDays(MONDAY, 0, 2).toISOString(), digestEnv); // enqueued now: not again
    expect(queue.sent).toHaveLength(1);

    vi.setSystemTime(plusDays(MONDAY, 0, 1));
    await deliver([...queue.sent, ...queue.sent], digestEnv); // and delivered twice
    expect(resend.delivered.map((e) => e.to[0]).sort()).toEqual(['stranded1@example.com', 'stranded2@example.com']);
    expect((await sendRecords()).map((r) => r.status)).toEqual(['sent', 'sent']);
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
  it('sends one digest per subscription with both parts, the demo figures of one window, List-Unsubscribe and the Idempotency-Key', async () => {
    const [id] = await seedSubscriptions([{ email: 'ada@example.com' }]);
    await runCron(MONDAY.toISOString(), digestEnv);
    const result = await deliver(queue.sent, digestEnv);
    expect(result.explicitAcks).toHaveLength(1);

    expect(resend.calls).toHaveLength(1);
    const call = resend.calls[0]!;
    expect(call.path).toBe('/emails/batch');
    expect(call.authorization).toBe('Bearer re_test_key');
    expect(call.idempotencyKey).toBe(`digest/${id}/${WEEK}`);
    const email = call.emails[0]!;
    expect(email.to).toEqual(['ada@example.com']);
    expect(email.from).toBe('Brightdesk Digest <digest@mail.example.com>');

    // Sent on Monday, the data covers the 7 days ending that Monday: the subject names them.
    const from = dayOf(plusDays(MONDAY, -6));
    expect(api.requests.sort()).toEqual(
      [
        '/answers/history?brand_id=1&market=11',
        '/prompts?brand_id=1&market=11',
        `/topics?brand_id=1&market=11&from=${from}&to=${dayOf(MONDAY)}`,
        '/visibility?brand_id=1&market=11',
        // The plan's: content coverage, open tasks, and the cited pages of the same days.
        '/content-gaps?brand_id=1&market=11',
        '/tasks?brand_id=1&market=11',
        `/pages?brand_id=1&market=11&from=${from}&to=${dayOf(MONDAY)}`,
      ].sort(),
    );
    const visibility = await originBody<{ score: number; change: number; period: { from: string }; history: { score: number | null }[] }>('/visibility');
    const history = await originBody<{ counts: { won: number; lost: number; held: number }; questions: { text: string; outcome: string }[] }>('/answers/history');
    expect(visibility.period.from).toBe(from);
    // The subject: the score with its change in points (or steady), the questions lost and won, the 7 days.
    expect(email.subject).toMatch(new RegExp(`^Brightdesk: (a quiet week · )?AI visibility ${visibility.score.toFixed(1)}% \\((steady|[+\u2212]\\d+\\.\\d pts)\\) · `));
    // The week's way first: more won leads with the won, as many or more lost with the lost (the demo's week changes with the day).
    const { won, lost: lostCount } = history.counts;
    const noun = (n: number) => (n === 1 ? 'question' : 'questions');
    const news =
      won > 0 && lostCount > 0
        ? won > lostCount
          ? `won ${won} ${noun(won)}, lost ${lostCount}`
          : `lost ${lostCount} ${noun(lostCount)}, won ${won}`
        : won > 0
          ? `won ${won} ${noun(won)}`
          : `lost ${lostCount} ${noun(lostCount)}`;
    expect(email.subject).toContain(`${news} · ${range(plusDays(MONDAY, -6), MONDAY)}`);
    const lost = history.questions.find((q) => q.outcome === 'lost')!;
    expect(email.html).toContain(escapeHtml(lost.text));
    expect(email.text).toContain(lost.text);
    for (const part of [email.html, email.text]) {
      expect(part).toContain(`${visibility.score.toFixed(1)}%`);
      expect(part).toContain(`${history.counts.won} won`);
      expect(part).toContain(`${history.counts.lost} lost`);
      expect(part).toContain(`${history.counts.held} held`);
      expect(part).toContain('https://edge.test/digests/unsubscribe?token=');
      expect(part).toContain('https://edge.test/r/');
    }
    // The 12-week chart: table cells, every weekly score written out (for screen readers in HTML, in one line of text); no image, no SVG.
    const weekly = `: ${visibility.history.map((p) => (p.score === null ? 'not measured' : `${p.score.toFixed(1)}%`)).join(', ')}.`;
    expect(email.html).toMatch(/<table[^>]*role="img"[^>]*aria-label="Score by week, last 12 weeks/);
    expect(email.html).toContain(weekly);
    expect(email.text).toContain(weekly);
    // Each link once in the text part.
    const urls = email.text.match(/https?:\/\/\S+/g)!;
    expect(urls).toHaveLength(2);
    expect(urls[0]).toMatch(/^https:\/\/edge\.test\/r\/v1\./);
    expect(urls[1]).toMatch(/^https:\/\/edge\.test\/digests\/unsubscribe\?token=v1\./);
    expect(email.html).not.toMatch(/<img|<svg/i);
    expect(email.html).toMatch(/<html[^>]*lang="en"/);
    expect(email.text).not.toContain('<');

    expect(email.headers?.['List-Unsubscribe']).toMatch(/^<https:\/\/edge\.test\/digests\/unsubscribe\?token=[^>]+>, <mailto:unsubscribe@mail\.example\.com\?subject=unsubscribe%20[^>]+>$/);
    expect(email.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(await sendRecords()).toEqual([expect.objectContaining({ subscription_id: id, status: 'sent', iso_week: WEEK })]);
  });

  it('sends exactly once per subscription and week when the cron fires twice and the queue redelivers', async () => {
    await seedSubscriptions([{ email: 'one@example.com' }, { email: 'two@example.com' }]);
    await runCron(MONDAY.toISOString(), digestEnv);
    await runCron(MONDAY.toISOString(), digestEnv); // a duplicated trigger
    await runCron(plusDays(MONDAY, 0, 1).toISOString(), digestEnv); // the next hour, still in the window
    expect(queue.sent).toHaveLength(1);

    await deliver(queue.sent, digestEnv);
    await deliver(queue.sent, digestEnv); // redelivered
    await deliver(queue.sent, digestEnv, { attempts: 2 });
    expect(resend.calls).toHaveLength(1);
    expect(resend.delivered.map((e) => e.to[0]).sort()).toEqual(['one@example.com', 'two@example.com']);

    // The next week is a new digest.
    await runCron(plusDays(MONDAY, 7).toISOString(), digestEnv);
    expect(queue.sent).toHaveLength(2);
    expect(queue.sent[1]!.iso_week).toBe(isoWeek(dayOf(plusDays(MONDAY, 7))));
  });

  it('splits more than 100 recipients into batches of at most 100, ceil(n/100) calls paced through the injected sleep', async () => {
    await seedSubscriptions(Array.from({ length: 250 }, (_, i) => ({ email: `reader${i}@example.com` })));
    await runCron(MONDAY.toISOString(), digestEnv);
    expect(queue.sent).toHaveLength(1);
    const result = await deliver(queue.sent, digestEnv);
    expect(result.explicitAcks).toHaveLength(1);
    expect(resend.calls.map((c) => c.emails.length)).toEqual([100, 100, 50]);
    expect(new Set(resend.calls.map((c) => c.idempotencyKey)).size).toBe(3);
    expect(new Set(resend.delivered.map((e) => e.to[0])).size).toBe(250);
    expect((await sendRecords()).every((r) => r.status === 'sent')).toBe(true);
    // 220 ms between calls (Resend's ~5 requests per second), asked of the sleep seam, never waited here.
    expect(pacing.waits).toEqual([220, 220]);
  });

  it('after a partial batch failure, the retry sends only the failed batch: the same bytes under the same Idempotency-Key', async () => {
    await seedSubscriptions(Array.from({ length: 150 }, (_, i) => ({ email: `p${i}@example.com` })));
    await runCron(MONDAY.toISOString(), digestEnv);
    // First call succeeds, the second answers 500.
    const original = resend.handle.bind(resend);
    let n = 0;
    resend.handle = async (request) => {
      if (++n === 2) resend.failNext(500);
      return original(request);
    };
    const first = await deliver(queue.sent, digestEnv);
    expect(first.retries).toEqual([{ msgId: expect.any(String), delaySeconds: retryDelaySeconds(1) }]);
    expect([1, 2, 3, 7, 12].map(retryDelaySeconds)).toEqual([60, 120, 240, 3600, 3600]);
    expect(resend.calls.map((c) => [c.emails.length, c.status])).toEqual([
      [100, 200],
      [50, 500],
    ]);
    const records = await sendRecords();
    expect(records.filter((r) => r.status === 'sent')).toHaveLength(100);
    expect(records.filter((r) => r.status === 'sending')).toHaveLength(50);
    expect(records.find((r) => r.status === 'sending')?.reason).toBe('retrying: mail 500 internal_server_error');

    // The Queue's retry comes later; the signed links and figures are the same.
    vi.setSystemTime(plusDays(MONDAY, 0, 2));
    const second = await deliver(queue.sent, digestEnv, { attempts: 2 });
    expect(second.explicitAcks).toHaveLength(1);
    expect(resend.calls).toHaveLength(3);
    expect(resend.calls[2]!.emails).toHaveLength(50);
    expect(resend.calls[2]!.idempotencyKey).toBe(resend.calls[1]!.idempotencyKey);
    expect(resend.calls[2]!.body).toBe(resend.calls[1]!.body);
    expect(resend.calls[2]!.status).toBe(200);
    expect(resend.delivered).toHaveLength(150);
    expect(new Set(resend.delivered.map((e) => e.to[0])).size).toBe(150);
    // One read of the data for the group, whatever was retried.
    expect(api.requests).toHaveLength(WEEK_READS);
  });

  it('a batch whose outcome was lost goes again as the same request, and Resend replays it instead of sending twice', async () => {
    await seedSubscriptions([{ email: 'lost@example.com' }]);
    await runCron(MONDAY.toISOString(), digestEnv);
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
    vi.setSystemTime(plusDays(MONDAY, 0, 1));
    await deliver(queue.sent, digestEnv, { attempts: 2 });
    expect(resend.calls).toHaveLength(2);
    expect(resend.calls[0]!.idempotencyKey).toBe(resend.calls[1]!.idempotencyKey);
    expect(resend.calls[1]!.body).toBe(resend.calls[0]!.body);
    expect(resend.calls[1]!.replayed).toBe(true);
    expect(resend.conflicts).toEqual([]);
    expect(resend.delivered).toHaveLength(1);
    expect((await sendRecords())[0]).toEqual(expect.objectContaining({ status: 'sent', reason: null }));
  });

  it('does not resend to those already sent when the D1 write after a send fails', async () => {
    await seedSubscriptions(Array.from({ length: 120 }, (_, i) => ({ email: `d1-${i}@example.com` })));
    await runCron(MONDAY.toISOString(), digestEnv);
    // The first "mark sent" write fails once, after Resend accepted the first batch.
    let failures = 0;
    const failingDb = new Proxy(env.DB, {
      get(target, property) {
        if (property === 'batch') {
          return async (statements: D1PreparedStatement[]) => {
            const sql = statements.map((s) => sqlOf.get(s) ?? '').join(';');
            if (failures === 0 && /SET status = \?, reason = \?, provider_id/.test(sql) && resend.accepted.length === 1) {
              failures++;
              throw new Error('D1_ERROR: Network connection lost.');
            }
            return target.batch(statements);
          };
        }
        if (property === 'prepare') {
          return (sql: string) => {
            const statement = target.prepare(sql);
            sqlOf.set(statement, sql);
            return wrapBind(statement, sql);
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const sqlOf = new WeakMap<D1PreparedStatement, string>();
    const wrapBind = (statement: D1PreparedStatement, sql: string): D1PreparedStatement => {
      const bind = statement.bind.bind(statement);
      statement.bind = (...values: unknown[]) => {
        const bound = bind(...values);
        sqlOf.set(bound, sql);
        return bound;
      };
      return statement;
    };
    useServicesForTests({ api: api.client, sleep: pacing.sleep, db: failingDb });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const first = await deliver(queue.sent, digestEnv);
    errors.mockRestore();
    expect(failures).toBe(1);
    expect(first.retryMessages).toHaveLength(1);
    // The consumer stopped at the failed write: the first batch went out, its records still say `sending`.
    expect(resend.calls.map((c) => c.emails.length)).toEqual([100]);
    expect((await sendRecords()).filter((r) => r.status === 'sending')).toHaveLength(120);

    vi.setSystemTime(plusDays(MONDAY, 0, 1));
    await deliver(queue.sent, digestEnv, { attempts: 2 });
    expect(resend.calls.map((c) => [c.emails.length, c.status, c.replayed])).toEqual([
      [100, 200, false],
      [100, 200, true],
      [20, 200, false],
    ]);
    expect(resend.calls[1]!.body).toBe(resend.calls[0]!.body);
    expect(resend.delivered).toHaveLength(120);
    expect(new Set(resend.delivered.map((e) => e.to[0])).size).toBe(120);
    expect((await sendRecords()).every((r) => r.status === 'sent')).toBe(true);
  });

  it('a late digest is about one window: the 7 days before the first read, named in the subject, with /topics read for the same days', async () => {
    const [id] = await seedSubscriptions([{ email: 'late@example.com' }]);
    await runCron(MONDAY.toISOString(), digestEnv);
    // A backlog: the message is consumed on Thursday.
    const thursday = plusDays(MONDAY, 3, 2);
    vi.setSystemTime(thursday);
    await deliver(queue.sent, digestEnv, { attempts: 1 });
    const from = dayOf(plusDays(thursday, -6));
    const to = dayOf(thursday);
    expect(api.requests.find((r) => r.startsWith('/topics'))).toBe(`/topics?brand_id=1&market=11&from=${from}&to=${to}`);
    const snapshot = await env.DB.prepare('SELECT period_from, period_to, visibility, history, topics FROM digest_snapshots').first<Record<string, string>>();
    expect([snapshot!.period_from, snapshot!.period_to]).toEqual([from, to]);
    for (const body of ['visibility', 'history', 'topics']) expect(JSON.parse(snapshot![body]!).period).toEqual({ from, to });
    const email = resend.delivered[0]!;
    expect(email.subject).toMatch(new RegExp(` · ${range(plusDays(thursday, -6), thursday)}$`));
    expect(email.text).toContain(`${range(plusDays(thursday, -6), thursday)} · market US`);
    // Still the digest planned for its week: its key and record.
    expect(resend.calls[0]!.idempotencyKey).toBe(`digest/${id}/${WEEK}`);
    expect(await sendRecords()).toEqual([expect.objectContaining({ iso_week: WEEK, status: 'sent' })]);
  });

  it('retries render from the snapshot of the first read, even days later', async () => {
    await seedSubscriptions([{ email: 'snap@example.com' }]);
    await runCron(MONDAY.toISOString(), digestEnv);
    resend.failNext(500);
    await deliver(queue.sent, digestEnv);
    vi.setSystemTime(plusDays(MONDAY, 2));
    await deliver(queue.sent, digestEnv, { attempts: 2 });
    expect(api.requests).toHaveLength(WEEK_READS);
    expect(resend.calls.map((c) => c.status)).toEqual([500, 200]);
    expect(resend.calls[1]!.body).toBe(resend.calls[0]!.body);
    expect(resend.delivered[0]!.subject).toMatch(new RegExp(` · ${range(plusDays(MONDAY, -6), MONDAY)}$`));
  });

  it('sends nothing when the first read comes after the planned ISO week is over, and records why', async () => {
    const [id] = await seedSubscriptions([{ email: 'toolate@example.com' }]);
    await runCron(MONDAY.toISOString(), digestEnv);
    // The following Monday, 00:30 UTC: this week's digest would repeat the days of the next one.
    vi.setSystemTime(plusDays(MONDAY, 7, -7.5));
    const result = await deliver(queue.sent, digestEnv);
    expect(result.explicitAcks).toHaveLength(1);
    expect(api.requests).toEqual([]);
    expect(resend.calls).toEqual([]);
    const [record] = await sendRecords();
    expect(record).toEqual(expect.objectContaining({ subscription_id: id, iso_week: WEEK, status: 'skipped' }));
    expect(record!.reason).toBe(`too late: not read before ISO week ${WEEK} ended (${dayOf(plusDays(MONDAY, 6))}); on ${dayOf(plusDays(MONDAY, 7))} its data would repeat the next digest`);
  });
});

describe('the dev routes', () => {
  it('plan at a given time, into the real queue of the local dev flow, only with DEV_ROUTES = "on"', async () => {
    await seedSubscriptions([{ email: 'dev@example.com', timezone: 'Asia/Tokyo' }]);
    const devEnv = testEnv(queue, { RESEND_API_KEY: '', DEV_ROUTES: 'on' });
    const plan = (at: string, e: Env) =>
      worker.fetch!(new Request(`https://edge.test/dev/digests/plan?at=${at}`, { method: 'POST' }) as Request<unknown, IncomingRequestCfProperties>, e, createExecutionContext());
    // Not by the absence of a secret: without DEV_ROUTES there is no such route, with or without Resend.
    for (const off of [{ ...digestEnv, DEV_ROUTES: '' }, testEnv(queue, { RESEND_API_KEY: '', DEV_ROUTES: '' })] as Env[]) {
      const response = await plan('2026-11-23T08:00:00Z', off);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^Nothing here/);
    }
    expect(queue.sent).toHaveLength(0);
    const response = await plan('2026-11-23T08:00:00Z', devEnv);
    expect(await response.json()).toEqual({ at: '2026-11-23T08:00:00.000Z', planned: 1, groups: 1 });
    expect(queue.sent).toHaveLength(1);
    expect((await plan('yesterday', devEnv)).status).toBe(400);
  });

  it('the outbox is off (404) without DEV_ROUTES = "on", whether or not RESEND_API_KEY is set', async () => {
    for (const off of [{ ...digestEnv, DEV_ROUTES: '' }, testEnv(queue, { RESEND_API_KEY: '', DEV_ROUTES: '' })] as Env[]) {
      for (const path of ['/dev/outbox', '/dev/outbox?format=json', '/dev/outbox/1']) {
        const response = await worker.fetch!(new Request(`https://edge.test${path}`) as Request<unknown, IncomingRequestCfProperties>, off, createExecutionContext());
        expect(response.status, path).toBe(404);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
      }
    }
  });
});

describe('failures', () => {
  it('pauses the subscription on a revoked key and sends one notice, once', async () => {
    const [revoked] = await seedSubscriptions([{ email: 'revoked@example.com', key: 'demo_revoked', brandId: 5, marketId: 51 }]);
    await runCron(MONDAY.toISOString(), digestEnv);
    const result = await deliver(queue.sent, digestEnv);
    expect(result.explicitAcks).toHaveLength(1);
    expect(await subscriptionRow(revoked!)).toEqual(expect.objectContaining({ status: 'paused', paused_reason: 'invalid_api_key' }));
    expect(resend.delivered).toHaveLength(1);
    expect(resend.delivered[0]!.subject).toBe('Paused: your weekly digest for Brightdesk');
    expect(resend.delivered[0]!.text).toContain('revoked');
    expect(resend.delivered[0]!.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(await sendRecords()).toEqual([expect.objectContaining({ status: 'skipped', reason: 'paused: invalid_api_key' })]);

    expect(await subscriptionRow(revoked!)).toEqual(expect.objectContaining({ notice_status: 'sent', notice_sent_at: MONDAY.toISOString() }));

    await deliver(queue.sent, digestEnv); // redelivered: no second notice
    await runCron(plusDays(MONDAY, 0, 1).toISOString(), digestEnv); // the next hour: nothing owed, nothing enqueued
    await runCron(plusDays(MONDAY, 7).toISOString(), digestEnv); // next week: paused, not planned
    expect(resend.delivered).toHaveLength(1);
    expect(queue.sent).toHaveLength(1);
  });

  it('retries a pause notice that failed, on the next delivery, and sends it once: the same request under the same key', async () => {
    const [revoked] = await seedSubscriptions([{ email: 'notice@example.com', key: 'demo_revoked', brandId: 5, marketId: 51 }]);
    await runCron(MONDAY.toISOString(), digestEnv);
    resend.failNext(500);
    const first = await deliver(queue.sent, digestEnv);
    expect(first.retries).toEqual([{ msgId: expect.any(String), delaySeconds: 60 }]);
    expect(resend.delivered).toEqual([]);
    expect(await subscriptionRow(revoked!)).toEqual(expect.objectContaining({ status: 'paused', notice_status: 'owed', notice_sent_at: null }));

    vi.setSystemTime(plusDays(MONDAY, 0, 0.05));
    const second = await deliver(queue.sent, digestEnv, { attempts: 2 });
    expect(second.explicitAcks).toHaveLength(1);
    expect(resend.calls.map((c) => c.status)).toEqual([500, 200]);
    expect(resend.calls[1]!.body).toBe(resend.calls[0]!.body);
    expect(resend.calls[1]!.idempotencyKey).toBe(resend.calls[0]!.idempotencyKey);
    expect(resend.delivered.map((e) => [e.to[0], e.subject])).toEqual([['notice@example.com', 'Paused: your weekly digest for Brightdesk']]);
    expect(await subscriptionRow(revoked!)).toEqual(expect.objectContaining({ notice_status: 'sent', notice_sent_at: plusDays(MONDAY, 0, 0.05).toISOString() }));

    await deliver(queue.sent, digestEnv, { attempts: 3 });
    await runCron(plusDays(MONDAY, 0, 1).toISOString(), digestEnv);
    expect(resend.delivered).toHaveLength(1);
  });

  it('retries a pause notice whose retries ran out, from the next cron run, once', async () => {
    const [revoked] = await seedSubscriptions([{ email: 'cron-notice@example.com', key: 'demo_revoked', brandId: 5, marketId: 51 }]);
    await runCron(MONDAY.toISOString(), digestEnv);
    resend.failNext(500);
    await deliver(queue.sent, digestEnv);
    // The Queue's retries are lost or exhausted (the dead-letter queue records the week's send, not the notice).
    await deliver(queue.sent, digestEnv, { queue: 'digest-sends-dlq' });
    expect(await subscriptionRow(revoked!)).toEqual(expect.objectContaining({ notice_status: 'owed' }));

    // A cron run within five minutes of the pause leaves it to the delivery; the next hour's enqueues the group.
    await runCron(plusDays(MONDAY, 0, 0.05).toISOString(), digestEnv);
    expect(queue.sent).toHaveLength(1);
    await runCron(plusDays(MONDAY, 0, 1).toISOString(), digestEnv);
    expect(queue.sent).toHaveLength(2);
    expect(queue.sent[1]).toEqual(expect.objectContaining({ group_key: queue.sent[0]!.group_key, iso_week: WEEK }));
    vi.setSystemTime(plusDays(MONDAY, 0, 1));
    await deliver(queue.sent.slice(1), digestEnv);
    expect(resend.delivered.map((e) => e.to[0])).toEqual(['cron-notice@example.com']);
    expect(resend.calls[1]!.body).toBe(resend.calls[0]!.body);
    expect(await subscriptionRow(revoked!)).toEqual(expect.objectContaining({ notice_status: 'sent' }));

    await runCron(plusDays(MONDAY, 0, 2).toISOString(), digestEnv);
    expect(queue.sent).toHaveLength(2);
    expect(resend.delivered).toHaveLength(1);
  });

  it('pauses on 403 plan_inactive too, with its notice naming why', async () => {
    const [inactive] = await seedSubscriptions([{ email: 'inactive@example.com', key: 'demo_inactive', brandId: 5 }]);
    await runCron(MONDAY.toISOString(), digestEnv);
    await deliver(queue.sent, digestEnv);
    expect(await subscriptionRow(inactive!)).toEqual(expect.objectContaining({ status: 'paused', paused_reason: 'plan_inactive' }));
    expect(resend.delivered.map((e) => [e.to[0], e.subject])).toEqual([['inactive@example.com', 'Paused: your weekly digest for Brightdesk']]);
    expect(resend.delivered[0]!.text).toContain('the plan of the account is no longer active');
    expect(await sendRecords()).toEqual([expect.objectContaining({ status: 'skipped', reason: 'paused: plan_inactive' })]);
  });

  it('retries a group when Resend rate-limits, after its Retry-After, and gives up through the dead-letter queue with a recorded reason', async () => {
    await seedSubscriptions([{ email: 'busy@example.com' }]);
    await runCron(MONDAY.toISOString(), digestEnv);
    resend.failNext(429, 'rate_limit_exceeded', 1, 7);
    const first = await deliver(queue.sent, digestEnv);
    // The delay the consumer asks of the Queue is Resend's Retry-After, not the 60 s backoff of a first attempt.
    expect(first.retries).toEqual([{ msgId: expect.any(String), delaySeconds: 7 }]);
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
    await runCron(MONDAY.toISOString(), digestEnv);
    resend.failNext(500);
    const first = await deliver(queue.sent, digestEnv);
    expect(first.retryMessages).toHaveLength(1);
    expect(resend.delivered).toHaveLength(0);
    // The Queue redelivers; the cron fires again meanwhile and plans nothing new.
    await runCron(MONDAY.toISOString(), digestEnv);
    await deliver(queue.sent, digestEnv, { attempts: 2 });
    expect(resend.delivered.flatMap((e) => e.to).sort()).toEqual(['a@example.com', 'b@example.com']);
    expect((await sendRecords()).map((r) => r.status)).toEqual(['sent', 'sent']);
    // A third delivery of the same messages (a consumer that died after sending) sends nothing more.
    await deliver(queue.sent, digestEnv, { attempts: 3 });
    expect(resend.delivered).toHaveLength(2);
    expect(resend.conflicts).toEqual([]);
  });

  it('does not retry a validation error from Resend: the records are failed with the reason', async () => {
    await seedSubscriptions([{ email: 'bad@example.com' }]);
    await runCron(MONDAY.toISOString(), digestEnv);
    resend.failNext(422, 'validation_error');
    const result = await deliver(queue.sent, digestEnv);
    expect(result.explicitAcks).toHaveLength(1);
    expect((await sendRecords())[0]).toEqual(expect.objectContaining({ status: 'failed', reason: expect.stringContaining('422 validation_error') }));
  });

  it('sends nothing to a subscription unsubscribed (one-click) between planning and sending', async () => {
    const [stays, leaves] = await seedSubscriptions([{ email: 'stays@example.com' }, { email: 'leaves@example.com' }]);
    await runCron(MONDAY.toISOString(), digestEnv);
    expect((await sendRecords()).map((r) => r.status)).toEqual(['planned', 'planned']);
    // RFC 8058 one-click, from last week's email, before the consumer runs.
    const token = await signToken(env.SIGNING_SECRET, { p: 'unsubscribe', s: leaves! }, { ttlSeconds: 3600, now: MONDAY });
    vi.unstubAllGlobals();
    const response = await SELF.fetch(`https://edge.test/digests/unsubscribe?token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    resend.install();
    expect(response.status).toBe(200);

    await deliver(queue.sent, digestEnv);
    expect(resend.delivered.map((e) => e.to[0])).toEqual(['stays@example.com']);
    const records = await sendRecords();
    expect(records.find((r) => r.subscription_id === leaves)).toEqual(expect.objectContaining({ status: 'skipped', reason: 'unsubscribed' }));
    expect(records.find((r) => r.subscription_id === stays)).toEqual(expect.objectContaining({ status: 'sent' }));
  });

  it('sends no digest when nothing was measured, and records why', async () => {
    // Thirty weeks before the demo data begins: no answered run in the window or the 12 weeks of history.
    const early = plusDays(MONDAY, -30 * 7);
    vi.setSystemTime(early);
    await seedSubscriptions([{ email: 'empty@example.com' }]);
    await runCron(early.toISOString(), digestEnv);
    const result = await deliver(queue.sent, digestEnv);
    expect(result.explicitAcks).toHaveLength(1);
    expect(api.requests).toHaveLength(WEEK_READS);
    expect(resend.calls).toEqual([]);
    const [record] = await sendRecords();
    expect(record!.status).toBe('skipped');
    expect(record!.reason).toBe(`nothing measured: no answered run in ${span(plusDays(early, -6), early)} or the 7 days before`);
  });

  it('records the reason when the API stays unavailable until the dead-letter queue', async () => {
    await seedSubscriptions([{ email: 'down@example.com' }]);
    await runCron(MONDAY.toISOString(), digestEnv);
    api.fault = { status: 502, code: 'upstream_error' };
    for (let attempt = 1; attempt <= 6; attempt++) {
      vi.setSystemTime(plusDays(MONDAY, 0, attempt / 4));
      const result = await deliver(queue.sent, digestEnv, { attempts: attempt });
      expect(result.retries).toEqual([{ msgId: expect.any(String), delaySeconds: retryDelaySeconds(attempt) }]);
    }
    // Two tries per delivery (the client's own retry, without waiting), none of them sent anything.
    expect(api.requests.length).toBeGreaterThanOrEqual(6 * 2);
    expect(resend.calls).toEqual([]);
    const dead = await deliver(queue.sent, digestEnv, { queue: 'digest-sends-dlq' });
    expect(dead.explicitAcks).toHaveLength(1);
    const [record] = await sendRecords();
    expect(record).toEqual(expect.objectContaining({ status: 'skipped', reason: "gave up after the Queue's retries (retrying: upstream 502 upstream_error)" }));
  });
});
