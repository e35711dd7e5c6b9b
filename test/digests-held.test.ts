/**
 * A week's digest held for implausible figures (the map read a field from the
 * wrong place) goes out once the map is fixed, if its week is still due, and
 * exactly once; the account's `last_delivery` shows the latest delivery, not
 * the older skip. Through the Worker's `scheduled` and `queue` handlers, in
 * front of the house-style service (test/house-style.ts) on a fetch mock.
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearDigests, deliver, demoMonday, FakeQueue, plusDays, runCron, seedSubscriptions, sendRecords, testEnv } from './digests-helpers';
import { putUpstreamMap } from './helpers';
import { houseMap, houseStyle } from './house-style';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { call } from './reports-helpers';
import { ReshapingUpstream } from './reshape';

afterEach(async () => {
  restoreUpstream();
  vi.useRealTimers();
  await putUpstreamMap({ operations: {} });
});

/** A map that reads the score from the market's id: every digest of it breaks score_is_share_named. */
function brokenMap() {
  const map = houseMap();
  map.operations.getVisibility!.fields.score = 'MarketId';
  return map;
}

async function outbox(to: string): Promise<unknown[]> {
  return ((await (await SELF.fetch(`https://edge.test/dev/outbox?format=json&to=${to}`)).json()) as { messages: unknown[] }).messages;
}

/** One hourly run at `at` and the deliveries it enqueued; the number of groups enqueued. */
async function hour(at: Date): Promise<number> {
  vi.setSystemTime(at);
  const queue = new FakeQueue();
  const outboxEnv = testEnv(queue, { RESEND_API_KEY: '' });
  await runCron(at.toISOString(), outboxEnv);
  const jobs = queue.sent.length;
  if (jobs > 0) await deliver(queue.sent, outboxEnv);
  return jobs;
}

async function lastDelivery(key: string, id: string) {
  const listed = (await (await call('/digests/subscriptions', { key })).json()) as { subscriptions: { id: string; last_delivery: { result: string; at: string; reason: string | null } | null }[] };
  return listed.subscriptions.find((s) => s.id === id)!.last_delivery;
}

async function held(email: string, label: string): Promise<{ monday: Date; key: string; id: string }> {
  const monday = demoMonday();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(monday);
  new ReshapingUpstream(houseStyle).install();
  await putUpstreamMap(brokenMap());
  await clearDigests();
  const key = freshKey(label);
  const [id] = await seedSubscriptions([{ email, key }]);
  expect(await hour(monday)).toBe(1);
  const [record] = await sendRecords();
  expect(record).toMatchObject({ status: 'skipped' });
  expect(record!.reason).toMatch(/^not sent: the Read API's figures are implausible: getVisibility score_is_share_named/);
  expect(await outbox(email)).toEqual([]);
  return { monday, key, id: id! };
}

describe('a week held for implausible figures', () => {
  it('goes out at the next hourly run once the map is fixed, once; last_delivery shows it', async () => {
    const email = 'held-fixed@example.com';
    const { monday, key, id } = await held(email, 'held-fixed');
    // Still broken an hour later: planned again, read again, held again, nothing sent.
    expect(await hour(plusDays(monday, 0, 1))).toBe(1);
    expect((await sendRecords())[0]).toMatchObject({ status: 'skipped' });
    expect(await outbox(email)).toEqual([]);

    await putUpstreamMap(houseMap());
    expect(await hour(plusDays(monday, 0, 2))).toBe(1);
    const [record] = await sendRecords();
    expect(record).toMatchObject({ status: 'sent', reason: null });
    expect(await outbox(email)).toHaveLength(1);
    expect(await lastDelivery(key, id)).toEqual({ kind: 'digest', at: plusDays(monday, 0, 2).toISOString(), result: 'sent', reason: null });

    // Every later run of the due window plans nothing for it, and nothing is sent twice.
    for (const h of [3, 12, 23]) expect(await hour(plusDays(monday, 0, h))).toBe(0);
    expect(await outbox(email)).toHaveLength(1);
    expect(await sendRecords()).toHaveLength(1);
  });

  it('past its due window (Tuesday 08:00 local) it stays held: fixed later, nothing is sent for that week', async () => {
    const email = 'held-late@example.com';
    const { monday } = await held(email, 'held-late');
    await putUpstreamMap(houseMap());
    expect(await hour(plusDays(monday, 1))).toBe(0);
    expect(await hour(plusDays(monday, 2))).toBe(0);
    expect((await sendRecords()).map((r) => r.status)).toEqual(['skipped']);
    expect(await outbox(email)).toEqual([]);
  });

  it('two send-nows after the hold: last_delivery shows the latest, and the weekly run does not send the week again', async () => {
    const email = 'held-sent-now@example.com';
    const { monday, key, id } = await held(email, 'held-sent-now');
    await putUpstreamMap(houseMap());
    const sendNow = async (at: Date) => {
      vi.setSystemTime(at);
      const response = await call('/reports/weekly/send?market=us', { key, method: 'POST' });
      expect(response.status, await response.clone().text()).toBe(202);
      expect(((await response.json()) as { send: { sent: number } }).send.sent).toBe(1);
    };
    // Hours apart: past the send-now's own window between two sends of a brand and market.
    await sendNow(plusDays(monday, 0, 0.5));
    await sendNow(plusDays(monday, 0, 1.5));
    expect(await outbox(email)).toHaveLength(2);
    expect(await lastDelivery(key, id)).toMatchObject({ kind: 'digest', at: plusDays(monday, 0, 1.5).toISOString(), result: 'sent', reason: null });
    expect(await hour(plusDays(monday, 0, 2))).toBe(0);
    expect(await outbox(email)).toHaveLength(2);
    expect((await sendRecords()).map((r) => r.status)).toEqual(['sent']);
    expect((await env.DB.prepare('SELECT count(*) AS n FROM digest_sends').first<{ n: number }>())!.n).toBe(1);
  });
});
