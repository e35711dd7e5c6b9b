/**
 * The kept weekly history: the hourly cron keeps the week of every brand and
 * market with an active subscription or a live export link (one row per ISO
 * week, read through apiFor), a digest group's read keeps its week too, an
 * earlier week is never overwritten, and the rows come back in order, as
 * CSV (`/x/` link of kind `history`) and on `GET /reports/history`.
 */
import { env, SELF } from 'cloudflare:test';
import type { ResponseOf } from '../src/contract/operations';
import { afterAll, afterEach, beforeEach, expect, it, vi } from 'vitest';
import { keepWeek, readHistory } from '../src/weekly-report/history';
import { isoWeek } from '../src/weekly-report/week';
import { clearDigests, dayOf, deliver, demoMonday, FakeQueue, FakeResend, plusDays, runCron, seedSubscriptions, testEnv } from './digests-helpers';
import { mintExport, readCsv } from './exports-helpers';
import { BASE, call, clearReports, postForm } from './reports-helpers';
import { useServicesForTests } from './seams';

const MONDAY = demoMonday();

const clearHistory = () => env.DB.batch([env.DB.prepare('DELETE FROM weekly_history'), env.DB.prepare('DELETE FROM weekly_history_misses')]);

beforeEach(async () => {
  await clearDigests();
  await clearReports();
  await clearHistory();
  useServicesForTests({ sleep: async () => {} });
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterAll(async () => {
  await clearReports();
  await clearHistory();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  useServicesForTests();
});

/** Runs the hourly cron at `at`, with the clock there. */
async function cronAt(at: Date, queue = new FakeQueue()) {
  vi.setSystemTime(at);
  await runCron(at.toISOString(), testEnv(queue));
  return queue;
}

it('accumulates one row per week over simulated weeks, read back in order; an earlier week is never overwritten', async () => {
  // Not due at these hours (Sunday and Tuesday evening in Los Angeles): no digest planned, so the cron keeps each week itself.
  await seedSubscriptions([{ email: 'lead@example.com', timezone: 'America/Los_Angeles' }]);
  // Three Mondays, oldest first, each read at 01:00 UTC; then again later in the latest week (nothing new).
  const mondays = [plusDays(MONDAY, -14, -7), plusDays(MONDAY, -7, -7), plusDays(MONDAY, 0, -7)];
  for (const at of mondays) await cronAt(at);
  await cronAt(plusDays(MONDAY, 2, 3));
  const weeks = await readHistory(env.DB, 1, 11);
  expect(weeks.map((w) => w.iso_week)).toEqual(mondays.map((at) => isoWeek(dayOf(at))));
  expect(weeks.every((w) => w.source === 'cron' && w.engines.length === 6)).toBe(true);
  for (const [i, w] of weeks.entries()) expect(w.period_to).toBe(dayOf(mondays[i]!));

  // Reading an earlier week again (a later read, other figures) changes nothing.
  const earliest = weeks[0]!;
  expect(await keepWeek(env.DB, { ...earliest, score: 99.9, won: 42, recorded_at: new Date().toISOString(), source: 'digest' })).toBe(false);
  expect((await readHistory(env.DB, 1, 11))[0]).toEqual(earliest);

  // As CSV: a link of kind `history`, one row per kept week, oldest first, with each engine's figures.
  vi.setSystemTime(plusDays(MONDAY, 2, 4));
  const link = await mintExport({ operation: 'history', params: { market: 'us' } });
  // Making the link kept the API's 12 weeks besides (source `api`); the weeks the cron kept stay as they were.
  const all = await readHistory(env.DB, 1, 11);
  expect(all.filter((w) => w.source === 'cron')).toEqual(weeks);
  expect(all.filter((w) => w.source === 'api').length).toBeGreaterThan(0);
  const csv = await readCsv(link.url);
  expect(csv.status).toBe(200);
  expect(csv.records.map((r) => r.iso_week)).toEqual(all.map((w) => w.iso_week));
  expect(csv.records.map((r) => r.score)).toEqual(all.map((w) => (w.score === null ? '' : String(w.score))));
  expect(csv.header).toEqual(expect.arrayContaining(['won', 'lost', 'held', 'chatgpt.naming', 'chatgpt.answered']));

  // The page: the chart and the table, newest first, and the CSV link its form makes.
  const page = await call('/reports/history?market=us', { key: 'demo_pro_single', method: 'POST' });
  expect(page.status).toBe(200);
  const html = await page.text();
  expect([...html.matchAll(/<tr data-week="([^"]+)"/g)].map((m) => m[1])).toEqual(all.map((w) => w.iso_week).reverse());
  expect(html).toContain('data-testid="chart"');
  expect(html).toMatch(/<a href="http:\/\/localhost:8787\/x\/v1\.[\w.-]+\.csv">CSV of the kept history<\/a>/);
});

it('keeps the week of a brand and market that only an export link names, and the digest group keeps its week', async () => {
  vi.setSystemTime(plusDays(MONDAY, 0, -7));
  await mintExport({ operation: 'listTopics', params: { market: 'us' } });
  await cronAt(plusDays(MONDAY, 0, -6));
  expect((await readHistory(env.DB, 1, 11)).map((w) => [w.iso_week, w.source])).toEqual([[isoWeek(dayOf(MONDAY)), 'cron']]);

  // A subscription due this hour: the cron plans its digest and leaves the week to it; the digest group's read keeps it.
  await clearHistory();
  await clearReports();
  await seedSubscriptions([{ email: 'lead@example.com' }]);
  vi.setSystemTime(MONDAY);
  const queue = new FakeQueue();
  // The digest is sent to a local fake of Resend: no request leaves the test.
  const resend = new FakeResend().install();
  await runCron(MONDAY.toISOString(), testEnv(queue));
  expect(await readHistory(env.DB, 1, 11)).toEqual([]);
  expect(queue.sent).toHaveLength(1);
  await deliver(queue.sent, testEnv(queue));
  expect((await readHistory(env.DB, 1, 11)).map((w) => [w.iso_week, w.source])).toEqual([[queue.sent[0]!.iso_week, 'digest']]);
  expect(resend.delivered.map((email) => email.to)).toEqual([['lead@example.com']]);
});

it('a pair whose reads fail is tried at most 3 times a week', async () => {
  await seedSubscriptions([{ email: 'lead@example.com', key: 'demo_revoked' }]);
  for (let hour = 1; hour <= 5; hour++) await cronAt(plusDays(MONDAY, 0, hour - 8));
  const miss = await env.DB.prepare('SELECT tries FROM weekly_history_misses WHERE brand_id = 1 AND market_id = 11').first<{ tries: number }>();
  expect(miss?.tries).toBe(3);
  expect(await readHistory(env.DB, 1, 11)).toEqual([]);
});

it('a signed report link opens the same history, its CSV link expiring with the report link', async () => {
  await seedSubscriptions([{ email: 'lead@example.com' }]);
  await cronAt(plusDays(MONDAY, 0, -7));
  vi.setSystemTime(plusDays(MONDAY, 0, -6));
  const { mintLink } = await import('./reports-helpers');
  const report = await mintLink({ expires_in_days: 3 });
  const page = await call(`${report.path}/history`);
  expect(page.status).toBe(200);
  const html = await page.text();
  // The week the cron kept, and the API's 12 weeks kept when the link was made (the history starts full).
  const kept = (await readHistory(env.DB, 1, 11)).map((w) => w.iso_week);
  expect(kept).toContain(isoWeek(dayOf(MONDAY)));
  expect(kept.length).toBeGreaterThanOrEqual(12);
  expect([...html.matchAll(/<tr data-week="([^"]+)"/g)].map((m) => m[1])).toEqual([...kept].reverse());
  // Opening the page makes no CSV link; its form does.
  expect(html).not.toContain('class="copy-csv"');
  const made = await (await postForm(`${report.path}/history/csv`)).text();
  const csvUrl = /class="copy-csv" data-url="([^"]+)"/.exec(made)![1]!;
  expect((await readCsv(csvUrl)).records.map((r) => r.iso_week)).toEqual(kept);
  const row = await env.DB.prepare("SELECT expires_at FROM report_links WHERE purpose = 'export' AND kind = 'history'").first<{ expires_at: string }>();
  expect(Date.parse(row!.expires_at)).toBeLessThanOrEqual(Date.parse(report.expires_at));
  // The report page itself links to it.
  expect(await (await call(report.path)).text()).toContain(`href="${report.url}/history"`);
  // A changed token (one character of its claims): 403, as on the report itself.
  const changed = report.path.replace(/^(\/r\/v1\.\w{4})(\w)/, (_, head: string, c: string) => `${head}${c === 'A' ? 'B' : 'A'}`);
  expect((await call(`${changed}/history`)).status).toBe(403);
});

it("starts full: the first read for a person or a link keeps the API's 12 weeks, the cron completes this week", async () => {
  vi.setSystemTime(plusDays(MONDAY, 0, -6));
  // A fresh install: nothing kept. Opening the history page (or the report, subscribing, making a link) keeps them.
  expect(await readHistory(env.DB, 1, 11)).toEqual([]);
  const visibility = (await (await SELF.fetch(`${BASE}/api/v1/visibility?market=us`, { headers: { authorization: 'Bearer demo_pro_single' } })).json()) as ResponseOf<'getVisibility'>;
  expect((await call('/reports/history?market=us', { key: 'demo_pro_single' })).status).toBe(200);
  const kept = await readHistory(env.DB, 1, 11);
  expect(kept.map((w) => [w.period_from, w.period_to, w.score, w.answered_runs, w.source])).toEqual(visibility.history.map((p) => [p.week_start, p.week_end, p.score, p.answered_runs, 'api']));
  expect(kept.every((w) => w.won === null && w.naming_runs === null && w.engines.length === 0)).toBe(true);
  // Its CSV has the rows; the columns the API's points do not give are empty.
  const csv = await readCsv((await mintExport({ operation: 'history', params: { market: 'us' } })).url);
  expect(csv.records).toHaveLength(12);
  expect(csv.records[0]!.won).toBe('');
  // The week's full read (the hourly cron, for a brand and market with a subscription) completes this week's row.
  await seedSubscriptions([{ email: 'lead@example.com', timezone: 'America/Los_Angeles' }]);
  await cronAt(plusDays(MONDAY, 0, -5));
  const latest = (await readHistory(env.DB, 1, 11)).at(-1)!;
  expect([latest.source, latest.won !== null, latest.engines.length]).toEqual(['cron', true, 6]);
  expect(await readHistory(env.DB, 1, 11)).toHaveLength(12);
});
