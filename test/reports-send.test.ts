/**
 * POST /reports/weekly/send through the Worker's fetch handler, with Resend
 * pointed at the fake the digest tests use: confirmed subscribers only, the
 * digest's own sending path (batch, Idempotency-Key, List-Unsubscribe), the
 * 10-minute rule (a fake clock; concurrent calls), nothing from parameters.
 */
import { env } from 'cloudflare:test';
import { formatStamp } from '../src/weekly-report/words';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useServicesForTests } from './seams';
import { RESEND_WINDOW_MS } from '../src/reports/send';
import { isoWeek } from '../src/weekly-report/week';
import { clearDigests, dayOf, deliver, demoMonday, FakeQueue, FakeResend, plusDays, runCron, seedSubscriptions, sendRecords, testEnv } from './digests-helpers';
import { callWith, clearReports, type ReportJson } from './reports-helpers';

let resend: FakeResend;
let queue: FakeQueue;
let testEnvironment: Env;

beforeEach(async () => {
  await clearReports();
  await clearDigests();
  resend = new FakeResend().install();
  queue = new FakeQueue();
  testEnvironment = testEnv(queue);
});
afterEach(async () => {
  useServicesForTests();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  await clearReports();
  await clearDigests();
});

const send = (query = 'brand_id=1&market=us', o: { key?: string | null; body?: string; headers?: Record<string, string> } = {}) =>
  callWith(testEnvironment, `/reports/weekly/send?${query}`, {
    key: o.key === undefined ? 'demo_pro_single' : o.key,
    method: 'POST',
    ...(o.body !== undefined ? { body: o.body } : {}),
    ...(o.headers ? { headers: o.headers } : {}),
  });

interface SendBody {
  send: { id: string; brand_id: number; market: { id: number; code: string }; recipients: number; sent: number; failed: number; sent_at: string; subject: string };
}

/** A mix: two confirmed for brand 1 / us, and everyone who must not get it. */
async function seedMix() {
  const ids = await seedSubscriptions([
    { email: 'one@example.com' },
    { email: 'two@example.com', kinds: 'won_lost' },
    { email: 'pending@example.com', status: 'pending' },
    { email: 'paused@example.com', status: 'paused' },
    { email: 'gone@example.com', status: 'unsubscribed' },
    { email: 'de@example.com', marketId: 12, marketCode: 'de' },
    { email: 'other-brand@example.com', key: 'demo_growth_multi', brandId: 2, brandName: 'Ledgerly', marketId: 21 },
  ]);
  // A pending row stores no confirmation time; seedSubscriptions sets one for all.
  await env.DB.prepare(`UPDATE digest_subscriptions SET confirmed_at = NULL WHERE status = 'pending'`).run();
  return ids;
}

describe("a send-now is the week's digest for its recipients", () => {
  /** Monday 08:00 UTC of a week the demo data covers: the hourly run plans UTC subscribers then. */
  const monday = demoMonday();

  it('the weekly run does not send the same week again after a send-now', async () => {
    await seedSubscriptions([{ email: 'early@example.com' }, { email: 'early-two@example.com' }]);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(plusDays(monday, 0, -1)); // 07:00, an hour before the digest is due
    expect((await send()).status).toBe(202);
    expect(resend.delivered).toHaveLength(2);
    vi.setSystemTime(monday);
    await runCron(monday.toISOString(), testEnvironment);
    expect(queue.sent).toEqual([]);
    const records = await sendRecords();
    expect(records.map((r) => [r.status, r.iso_week, r.reason?.startsWith('sent now (rs_')])).toEqual([
      ['sent', isoWeek(dayOf(monday)), true],
      ['sent', isoWeek(dayOf(monday)), true],
    ]);
    expect(resend.delivered).toHaveLength(2);
  });

  it("a digest planned for the week and not yet sent is not sent after a send-now: its record is the send-now's", async () => {
    await seedSubscriptions([{ email: 'planned@example.com' }]);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(monday);
    await runCron(monday.toISOString(), testEnvironment);
    expect(queue.sent).toHaveLength(1);
    vi.setSystemTime(plusDays(monday, 0, 0.01));
    expect((await send()).status).toBe(202);
    await deliver(queue.sent, testEnvironment);
    expect(resend.delivered.map((e) => e.to[0])).toEqual(['planned@example.com']);
    expect((await sendRecords()).map((r) => [r.status, r.reason?.startsWith('sent now (rs_')])).toEqual([['sent', true]]);
  });
});

describe('POST /reports/weekly/send', () => {
  it('sends the current digest to the confirmed subscribers of that brand and market only: 202 with how many', async () => {
    const ids = await seedMix();
    const response = await send();
    expect(response.status).toBe(202);
    const { send: result } = (await response.json()) as SendBody;
    expect(result).toEqual(expect.objectContaining({ brand_id: 1, market: { id: 11, code: 'us' }, recipients: 2, sent: 2, failed: 0 }));
    expect(result.subject).toMatch(/^Brightdesk: (a quiet week · )?AI visibility \d+\.\d% \((steady|[+\u2212]\d+\.\d pts)\)( · .+)? · \d{1,2}[^·]*\d{4}$/);

    expect(resend.calls).toHaveLength(1);
    expect(resend.calls[0]!.idempotencyKey).toBe(`report/${result.id}/0`);
    expect(resend.delivered.map((e) => e.to[0]).sort()).toEqual(['one@example.com', 'two@example.com']);
    for (const email of resend.delivered) {
      // The digest's headers and links: one-click unsubscribe (RFC 8058), a personal "view in browser" link.
      expect(email.headers?.['List-Unsubscribe']).toMatch(/^<https:\/\/edge\.test\/digests\/unsubscribe\?token=v1\.[^>]+>, <mailto:unsubscribe@mail\.example\.com\?subject=unsubscribe%20v1\./);
      expect(email.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
      expect(email.html).toMatch(/https:\/\/edge\.test\/r\/v1\./);
      expect(email.text).toMatch(/Unsubscribe https:\/\/edge\.test\/digests\/unsubscribe\?token=/);
      // Each link once in the text part: the report (the button) and unsubscribe.
      const urls = email.text.match(/https?:\/\/\S+/g)!;
      expect(urls).toHaveLength(2);
      expect(urls[0]).toMatch(/^https:\/\/edge\.test\/r\/v1\./);
      expect(urls[1]).toMatch(/^https:\/\/edge\.test\/digests\/unsubscribe\?token=v1\./);
      expect(email.html).not.toContain('placeholder.invalid');
    }
    // Each got their own kinds: the won/lost-only subscriber has no visibility section.
    const two = resend.delivered.find((e) => e.to[0] === 'two@example.com')!;
    expect(two.text).not.toContain('Score by week');
    expect(resend.delivered.find((e) => e.to[0] === 'one@example.com')!.text).toContain('Score by week');

    // Recorded in D1: the send and each recipient.
    const row = await env.DB.prepare('SELECT * FROM report_sends WHERE id = ?').bind(result.id).first<Record<string, unknown>>();
    expect(row).toEqual(expect.objectContaining({ status: 'sent', recipients: 2, sent: 2, failed: 0, brand_id: 1, market_id: 11 }));
    expect(JSON.stringify(row)).not.toContain('demo_pro_single');
    const { results } = await env.DB.prepare('SELECT subscription_id, status FROM report_send_recipients WHERE send_id = ? ORDER BY subscription_id').bind(result.id).all();
    expect(results).toEqual([
      { subscription_id: ids[0], status: 'sent' },
      { subscription_id: ids[1], status: 'sent' },
    ]);
  });

  it("the figures in the mail are the report's figures", async () => {
    await seedSubscriptions([{ email: 'figures@example.com' }]);
    const read = await callWith(testEnvironment, '/reports/weekly?brand_id=1&market=us&format=json', { key: 'demo_pro_single' });
    const { report } = (await read.json()) as ReportJson;
    expect((await send()).status).toBe(202);
    const mail = resend.delivered[0]!;
    expect(mail.subject).toBe(report.subject);
    expect(mail.text).toContain(report.lead.headline);
    expect(mail.text).toContain(`${report.won_lost!.counts.won} won`);
  });

  it('repeated within 10 minutes: 409 with when the last send went, nothing sent; after 10 minutes it sends again', async () => {
    await seedSubscriptions([{ email: 'again@example.com' }]);
    // One clock for the whole Worker, the proxy and the origin behind it included.
    // Last week's Monday, 10:00 UTC: inside the demo data, which ends today (a fixed day leaves it after 100 days).
    const t0 = plusDays(demoMonday(), 0, 2).getTime();
    const sentAt = new Date(t0).toISOString();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(t0);
    const first = (await (await send()).json()) as SendBody;
    expect(first.send.sent_at).toBe(sentAt);

    vi.setSystemTime(t0 + RESEND_WINDOW_MS - 1000);
    const again = await send('market=us');
    expect(again.status).toBe(409);
    expect(again.headers.get('retry-after')).toBe('1');
    const body = (await again.json()) as { error: { code: string; message: string }; last_send: { id: string; sent_at: string } };
    expect(body.error.code).toBe('recently_sent');
    // When, as people write it (`27 Nov 2026, 13:45 UTC`), never an ISO timestamp.
    expect(body.error.message).toContain(`was sent ${formatStamp(sentAt)};`);
    expect(body.error.message).not.toContain(sentAt);
    expect(body.last_send).toEqual({ id: first.send.id, sent_at: sentAt });
    expect(resend.calls).toHaveLength(1);

    vi.setSystemTime(t0 + RESEND_WINDOW_MS);
    const later = await send();
    expect(later.status).toBe(202);
    expect(resend.calls).toHaveLength(2);
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM report_sends').first('n')).toBe(2);
  });

  it('two concurrent calls cannot both send', async () => {
    await seedSubscriptions([{ email: 'race@example.com' }]);
    const responses = await Promise.all([send(), send(), send()]);
    expect(responses.map((r) => r.status).sort()).toEqual([202, 409, 409]);
    expect(resend.calls).toHaveLength(1);
    expect(resend.delivered).toHaveLength(1);
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM report_sends').first('n')).toBe(1);
  });

  it('no parameter can add a recipient: unknown query parameters and any body are refused', async () => {
    await seedSubscriptions([{ email: 'only@example.com' }]);
    for (const [query, param] of [
      ['brand_id=1&market=us&to=evil@example.com', 'to'],
      ['brand_id=1&email=evil@example.com', 'email'],
      ['brand_id=1&brand_id=1', 'brand_id'],
    ]) {
      const response = await send(query);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
    }
    const withBody = await send('brand_id=1', { body: JSON.stringify({ to: ['evil@example.com'] }), headers: { 'content-type': 'application/json' } });
    expect(withBody.status).toBe(400);
    expect(((await withBody.json()) as { error: { param: string } }).error.param).toBe('body');
    expect(resend.calls).toHaveLength(0);
  });

  it('only confirmed subscribers: a pending address gets nothing, and no subscriber means 202 with 0 and no claim', async () => {
    await seedSubscriptions([{ email: 'pending-only@example.com', status: 'pending' }]);
    await env.DB.prepare(`UPDATE digest_subscriptions SET confirmed_at = NULL`).run();
    const response = await send();
    expect(response.status).toBe(202);
    expect(((await response.json()) as SendBody).send).toEqual(expect.objectContaining({ recipients: 0, sent: 0 }));
    expect(resend.calls).toHaveLength(0);
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM report_send_gate').first('n')).toBe(0);
  });

  it("a key cannot send for a brand it cannot read: the API's 401/403/404", async () => {
    await seedMix();
    for (const [key, query, status, code] of [
      [null, 'brand_id=1', 401, 'invalid_api_key'],
      ['demo_revoked', 'brand_id=6', 401, 'invalid_api_key'],
      ['demo_inactive', '', 403, 'plan_inactive'],
      ['demo_growth_multi', 'brand_id=1&market=us', 404, 'brand_not_found'],
    ] as const) {
      const response = await send(query, { key });
      expect(response.status).toBe(status);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    }
    expect(resend.calls).toHaveLength(0);
    // The growth account sends for its own brand: only its own subscriber.
    const own = await send('brand_id=2&market=us', { key: 'demo_growth_multi' });
    expect(own.status).toBe(202);
    expect(resend.delivered.map((e) => e.to[0])).toEqual(['other-brand@example.com']);
  });

  it('when the mail service refuses every batch: 502, recorded, and the 10-minute slot is released', async () => {
    await seedSubscriptions([{ email: 'fail@example.com' }]);
    resend.failNext(500);
    const failed = await send();
    expect(failed.status).toBe(502);
    expect(((await failed.json()) as { error: { code: string } }).error.code).toBe('upstream_error');
    expect(await env.DB.prepare(`SELECT status FROM report_sends`).first('status')).toBe('failed');
    const retried = await send();
    expect(retried.status).toBe(202);
    expect(resend.delivered).toHaveLength(1);
  });

  it('splits more than 100 recipients into batches of 100, one Idempotency-Key each', async () => {
    await seedSubscriptions(Array.from({ length: 205 }, (_, i) => ({ email: `bulk${i}@example.com` })));
    useServicesForTests({ sleep: async () => {} });
    const response = await send();
    expect(response.status).toBe(202);
    const { send: result } = (await response.json()) as SendBody;
    expect(result).toEqual(expect.objectContaining({ recipients: 205, sent: 205 }));
    expect(resend.calls.map((c) => c.emails.length)).toEqual([100, 100, 5]);
    expect(resend.calls.map((c) => c.idempotencyKey)).toEqual([`report/${result.id}/0`, `report/${result.id}/1`, `report/${result.id}/2`]);
  });

  it('answers 405 with Allow: POST for GET', async () => {
    const response = await callWith(testEnvironment, '/reports/weekly/send?brand_id=1', { key: 'demo_pro_single' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});
