/**
 * Digest benchmark (`npm run bench -- digests`), run inside workerd:
 *
 * 1. Render time per digest: the real template over the demo's real report, p50 and p95.
 * 2. The weekly run at scale: 10,000 active subscriptions over 200 groups
 *    (8 demo brand/market pairs x 25 API keys each), planned by the Worker's
 *    cron handler, then every Queue message processed by its queue handler,
 *    reading through `apiFor` (the proxy; upstream reads counted at the
 *    gate's transport) and the real
 *    Resend SDK pointed at a local fake (calls counted). Resend's pacing
 *    (220 ms between calls of one group) is left out of the wall time and
 *    reported separately.
 *
 * 3. Change alerts at scale (the last test; see its comment).
 *
 * Targets: render p50 <= 25 ms; 7 reads per group (`WEEK_READS`: the week's
 * four and the plan's three, read once for all of its subscribers); Resend
 * calls = sum over groups of ceil(recipients / 100).
 */
import { createExecutionContext, createMessageBatch, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import { afterAll, expect, it, vi } from 'vitest';
import { createClient } from '../src/client';
import { EMBEDDED_BASE_URL, originTransport } from '../src/origin/transport';
import type { DigestJob } from '../src/digests/deps';
import { MIN_CALL_SPACING_MS } from '../src/mail/mailer';
import { plainText } from '../src/mail/plain-text';
import { createElement } from 'react';
import DigestEmail from '../emails/digest';
import { renderDigest } from '../src/mail/render';
import { WEEK_READS } from '../src/weekly-report/read';
import { renderHtml } from '../src/mail/templates';
import { seal } from '../src/lib/sealing';
import { sha256Hex } from '../src/lib/hash';
import { buildReport } from '../src/weekly-report/model';
import { addDays, toDay } from '../src/contract/window';
import { isoWeek } from '../src/weekly-report/week';
import { AlertQueue, changedDay2, clearAlerts, skipHistoryPass, FakeEndpoints, FixtureApi, fixtureDay } from '../test/alerts-helpers';
import { clearDigests, FakeQueue, FakeResend, RESEND_BASE, testEnv } from '../test/digests-helpers';
import { useServicesForTests, useUpstreamForTests } from '../test/seams';
import worker from '../test/worker';

/** `BENCH_QUICK=1` (npm run bench -- quick): one key per pair, 8 groups and 400 subscriptions, the same code and checks. */
const QUICK = (env as { BENCH_QUICK?: string }).BENCH_QUICK === '1';
const KEYS_PER_PAIR = QUICK ? 1 : 25;
/** Recipients per group, cycled: averages 50, and some groups need two batches. */
const GROUP_SIZES = [10, 30, 50, 70, 90, 101, 40, 9];
/** 10,000 in the full run: 8 brand/market pairs x 25 keys, the sizes cycled (400 per cycle of 8). */
const SUBSCRIPTIONS = 400 * KEYS_PER_PAIR;
const RENDERS = QUICK ? 10 : 200;

const lines: string[] = [];
const report = (line: string) => {
  lines.push(line);
};
/** The Monday of this ISO week: digests are planned at 08:00 on it and read the demo data of the days before. */
const THIS_MONDAY = addDays(toDay(new Date()), -((new Date().getUTCDay() + 6) % 7));
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

afterAll(() => {
  console.log(`\n=== bench:digests ===\n${lines.join('\n')}\n`);
});

it('renders a digest', async () => {
  const client = createClient({ apiKey: 'demo_pro_single', transport: originTransport(env.DB), baseUrl: EMBEDDED_BASE_URL });
  const [visibility, history, topics] = await Promise.all([client.getVisibility(), client.getAnswerHistory(), client.listTopics()]);
  const model = buildReport({ brand: { id: 1, name: 'Brightdesk' }, week: { isoWeek: isoWeek(THIS_MONDAY), monday: THIS_MONDAY }, kinds: ['visibility', 'won_lost'], visibility, history, topics });
  const links = { viewInBrowser: 'https://edge.test/r/x', unsubscribe: 'https://edge.test/digests/unsubscribe?token=x' };
  for (let i = 0; i < 10; i++) await renderDigest({ report: model, links }); // warm up
  const times: number[] = [];
  let size = 0;
  for (let i = 0; i < RENDERS; i++) {
    // workerd freezes timers during pure CPU work; performance.now() advances only across I/O, so each render is bracketed by one.
    await scheduler.wait(0);
    const started = Date.now();
    const mail = await renderDigest({ report: model, links });
    await scheduler.wait(0);
    times.push(Date.now() - started);
    size = mail.html.length + mail.text.length;
  }
  // The two halves: React Email's HTML, then the text part converted from it.
  const htmlTimes: number[] = [];
  const textTimes: number[] = [];
  const element = createElement(DigestEmail, { report: model, links });
  for (let i = 0; i < 50; i++) {
    await scheduler.wait(0);
    let t = Date.now();
    const html = await renderHtml(element);
    await scheduler.wait(0);
    htmlTimes.push(Date.now() - t);
    t = Date.now();
    plainText(html);
    await scheduler.wait(0);
    textTimes.push(Date.now() - t);
  }
  htmlTimes.sort((a, b) => a - b);
  textTimes.sort((a, b) => a - b);
  times.sort((a, b) => a - b);
  report(`  React build: ${process.env.NODE_ENV ?? 'unset'}; ${(await renderHtml(element)).split('<').length - 1} tags per digest`);
  report(`  of which HTML (React's prerender, renderHtml) p50 ${quantile(htmlTimes, 0.5)} ms, text (plainText) p50 ${quantile(textTimes, 0.5)} ms`);
  report(`render (HTML + text, full digest, ${RENDERS} runs): p50 ${quantile(times, 0.5)} ms, p95 ${quantile(times, 0.95)} ms, max ${times.at(-1)} ms; ${Math.round(size / 1024)} KiB per email`);
  expect(quantile(times, 0.5)).toBeLessThanOrEqual(25);
});

it(`plans, builds and sends ${SUBSCRIPTIONS.toLocaleString('en')} subscriptions over ${8 * KEYS_PER_PAIR} groups`, async () => {
  await clearDigests();
  const { results: pairs } = await env.DB.prepare(
    `SELECT b.id AS brand_id, b.name AS brand_name, b.account_id, m.id AS market_id, m.code FROM brands b JOIN markets m ON m.brand_id = b.id
      WHERE b.id IN (1, 2, 3, 4) AND m.code IN ('us', 'de') ORDER BY b.id, m.code DESC`,
  ).all<{ brand_id: number; brand_name: string; account_id: number; market_id: number; code: string }>();
  expect(pairs).toHaveLength(8);

  // 25 keys per brand/market pair, each its own group.
  const now = new Date().toISOString();
  const keyRows: D1PreparedStatement[] = [];
  const groups: { pair: (typeof pairs)[number]; key: string; size: number }[] = [];
  let g = 0;
  for (const pair of pairs) {
    for (let k = 0; k < KEYS_PER_PAIR; k++) {
      const key = `bench_${pair.brand_id}_${pair.code}_${k}`;
      keyRows.push(env.DB.prepare('INSERT OR IGNORE INTO api_keys (account_id, key_hash, label, created_at) VALUES (?, ?, ?, ?)').bind(pair.account_id, await sha256Hex(key), 'bench', now));
      groups.push({ pair, key, size: GROUP_SIZES[g++ % GROUP_SIZES.length]! });
    }
  }
  await env.DB.batch(keyRows);
  expect(groups.reduce((sum, x) => sum + x.size, 0)).toBe(SUBSCRIPTIONS);

  const insert = env.DB.prepare(
    `INSERT INTO digest_subscriptions (id, email, email_key, brand_id, brand_name, market_id, market_code, kinds, timezone, status, key_hash, key_sealed, created_at, updated_at, confirmed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'UTC', 'active', ?, ?, ?, ?, ?)`,
  );
  const rows: D1PreparedStatement[] = [];
  let n = 0;
  for (const group of groups) {
    const hash = await sha256Hex(group.key);
    for (let i = 0; i < group.size; i++) {
      const id = `sub_b${String(++n).padStart(6, '0')}`;
      const email = `reader${n}@bench.example.com`;
      const kinds = n % 3 === 0 ? 'won_lost' : n % 3 === 1 ? 'visibility,won_lost' : 'visibility';
      rows.push(
        insert.bind(id, email, email, group.pair.brand_id, group.pair.brand_name, group.pair.market_id, group.pair.code, kinds, hash, await seal(env.ENCRYPTION_KEY, group.key, id), now, now, now),
      );
    }
  }
  for (let i = 0; i < rows.length; i += 500) await env.DB.batch(rows.slice(i, i + 500));

  const resend = new FakeResend().install();
  const queue = new FakeQueue();
  const config = testEnv(queue);
  const readsByGroup = new Map<string, number>();
  useServicesForTests({ sleep: async () => {} });
  useUpstreamForTests((configured) => ({
    transport: (request: Request) => {
      const apiKey = request.headers.get('authorization') ?? '';
      readsByGroup.set(apiKey, (readsByGroup.get(apiKey) ?? 0) + 1);
      return configured.transport(request);
    },
  }));

  let started = Date.now();
  const planCtx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: new Date(`${THIS_MONDAY}T08:00:00Z`), cron: '0 * * * *' }), config, planCtx);
  await waitOnExecutionContext(planCtx);
  const planMs = Date.now() - started;
  expect(queue.sent).toHaveLength(groups.length);

  started = Date.now();
  const jobs: DigestJob[] = queue.sent;
  for (let i = 0; i < jobs.length; i++) {
    // Rate limits of the reference origin are per minute per key; each group has its own key, as in production.
    const batch = createMessageBatch('digest-sends', [{ id: `bench-${i}`, timestamp: new Date(), attempts: 1, body: jobs[i]! }]);
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<unknown>, config, ctx);
    await waitOnExecutionContext(ctx);
  }
  const sendMs = Date.now() - started;
  vi.unstubAllGlobals();
  useServicesForTests();
  useUpstreamForTests();

  const expectedCalls = groups.reduce((sum, x) => sum + Math.ceil(x.size / 100), 0);
  const reads = [...readsByGroup.values()];
  const sent = await env.DB.prepare(`SELECT status, COUNT(*) AS n FROM digest_sends GROUP BY status`).all<{ status: string; n: number }>();
  report(`weekly run: ${SUBSCRIPTIONS} subscriptions, ${groups.length} groups (8 brand/market pairs x ${KEYS_PER_PAIR} keys), group sizes ${GROUP_SIZES.join('/')}`);
  report(`  plan (cron handler): ${planMs} ms, ${queue.sent.length} Queue messages`);
  report(`  build + send (queue handler, groups one after another): ${(sendMs / 1000).toFixed(1)} s wall, ${(sendMs / groups.length).toFixed(0)} ms per group`);
  report(`  API reads: ${reads.reduce((a, b) => a + b, 0)} (${Math.min(...reads)}-${Math.max(...reads)} per group; target ${WEEK_READS})`);
  report(
    `  Resend calls: ${resend.calls.length} (target sum of ceil(recipients/100) = ${expectedCalls}); max batch ${Math.max(...resend.calls.map((c) => c.emails.length))}; emails accepted ${resend.delivered.length}`,
  );
  report(
    `  + Resend pacing in production: ${resend.calls.length - groups.length} extra calls within groups x ${MIN_CALL_SPACING_MS} ms = ${(((resend.calls.length - groups.length) * MIN_CALL_SPACING_MS) / 1000).toFixed(1)} s`,
  );
  report(`  send records: ${sent.results.map((r) => `${r.status} ${r.n}`).join(', ')}`);
  expect(resend.calls.length).toBe(expectedCalls);
  expect(resend.delivered.length).toBe(SUBSCRIPTIONS);
  expect(reads.every((r) => r === WEEK_READS)).toBe(true);
  await clearDigests();
  await env.DB.prepare(`DELETE FROM api_keys WHERE label = 'bench'`).run();
});

/**
 * 3. Change alerts at scale: 10,000 alert subscriptions over the same 200
 *    groups (a third each to email, Slack and a webhook), evaluated by the
 *    Worker's cron handler on two days (the first only stores), then every
 *    delivery processed by its queue handler. The API is the demo brand's
 *    fixture changed by hand on day 2 (four events per group), read through
 *    the `api` seam and counted per key; Slack, the webhook receiver and
 *    DNS-over-HTTPS are local fakes, Resend the digests' fake.
 *
 * Targets: 3 reads per group and evaluation, and 2 more on a day with a lost
 * question (its action line: /content-gaps and /tasks); one delivery per subscription,
 * a group's emails in one Resend call; nothing more the same day.
 */
it(`evaluates ${SUBSCRIPTIONS.toLocaleString('en')} alert subscriptions over ${8 * KEYS_PER_PAIR} groups and delivers`, async () => {
  await clearAlerts();
  await clearDigests();
  const { results: pairs } = await env.DB.prepare(
    `SELECT b.id AS brand_id, b.account_id, m.id AS market_id, m.code FROM brands b JOIN markets m ON m.brand_id = b.id WHERE b.id IN (1, 2, 3, 4) AND m.code IN ('us', 'de') ORDER BY b.id, m.code DESC`,
  ).all<{
    brand_id: number;
    account_id: number;
    market_id: number;
    code: string;
  }>();
  const now = new Date().toISOString();
  const subscriptions: D1PreparedStatement[] = [];
  const channels: D1PreparedStatement[] = [];
  const insert = env.DB.prepare(
    `INSERT INTO digest_subscriptions (id, email, email_key, brand_id, brand_name, market_id, market_code, kinds, timezone, status, key_hash, key_sealed, created_at, updated_at, confirmed_at)
     VALUES (?, ?, ?, ?, 'Brightdesk', ?, ?, 'alerts', 'UTC', 'active', ?, ?, ?, ?, ?)`,
  );
  const channel = env.DB.prepare(`INSERT INTO alert_channels (subscription_id, type, url, secret_sealed, quiet_start, quiet_end, created_at, updated_at) VALUES (?, ?, ?, ?, 1320, 420, ?, ?)`);
  const TYPES = ['email', 'slack', 'webhook'] as const;
  let n = 0;
  let g = 0;
  for (const pair of pairs) {
    for (let k = 0; k < KEYS_PER_PAIR; k++) {
      const key = `bench_alerts_${pair.brand_id}_${pair.code}_${k}`;
      const hash = await sha256Hex(key);
      const size = GROUP_SIZES[g++ % GROUP_SIZES.length]!;
      for (let i = 0; i < size; i++) {
        const id = `sub_a${String(++n).padStart(6, '0')}`;
        const type = TYPES[n % 3]!;
        const email = `owner${n}@bench.example.com`;
        subscriptions.push(insert.bind(id, email, type === 'email' ? email : `${type}:${n}`, pair.brand_id, pair.market_id, pair.code, hash, await seal(env.ENCRYPTION_KEY, key, id), now, now, now));
        const url = type === 'slack' ? `https://hooks.slack.com/services/T/B/${n}` : type === 'webhook' ? `https://receiver.example.com/hooks/${n}` : null;
        const secret = type === 'webhook' ? await seal(env.ENCRYPTION_KEY, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', `${id}:webhook`) : null;
        channels.push(channel.bind(id, type, url, secret, now, now));
      }
    }
  }
  for (let i = 0; i < subscriptions.length; i += 500) await env.DB.batch(subscriptions.slice(i, i + 500));
  for (let i = 0; i < channels.length; i += 500) await env.DB.batch(channels.slice(i, i + 500));
  expect(n).toBe(SUBSCRIPTIONS);

  const resend = new FakeResend();
  const endpoints = new FakeEndpoints((request) => (request.url.startsWith(RESEND_BASE) ? resend.handle(request) : undefined)).install();
  const api = new FixtureApi();
  const readsByKey = api.readsByKey;
  const alertQueue = new AlertQueue();
  const config = testEnv(new FakeQueue(), { ALERT_QUEUE: alertQueue });
  useServicesForTests({ api: api.client, sleep: async () => {} });
  const cron = async (when: string) => {
    await skipHistoryPass(when);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: new Date(when), cron: '0 * * * *' }), config, ctx);
    await waitOnExecutionContext(ctx);
  };

  api.bodies = fixtureDay(0);
  let started = Date.now();
  await cron(`${THIS_MONDAY}T07:00:00Z`);
  const firstMs = Date.now() - started;
  // The hand-worked changes, keeping the spec's rules (an implausible day would be held, and deliver nothing).
  api.bodies = changedDay2();
  started = Date.now();
  await cron(`${addDays(THIS_MONDAY, 1)}T07:00:00Z`);
  const secondMs = Date.now() - started;
  const jobs = alertQueue.take();
  const enqueued = jobs.reduce((sum, j) => sum + j.delivery_ids.length, 0);

  started = Date.now();
  for (let i = 0; i < jobs.length; i += 10) {
    const batch = createMessageBatch(
      'alert-deliveries',
      jobs.slice(i, i + 10).map((body, j) => ({ id: `alert-${i + j}`, timestamp: new Date(), attempts: 1, body })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<unknown>, config, ctx);
    await waitOnExecutionContext(ctx);
  }
  const deliverMs = Date.now() - started;
  const readsBefore = [...readsByKey.values()].reduce((a, b) => a + b, 0);
  await cron(`${addDays(THIS_MONDAY, 1)}T08:00:00Z`);
  const readsAgain = [...readsByKey.values()].reduce((a, b) => a + b, 0) - readsBefore;
  vi.unstubAllGlobals();
  useServicesForTests();

  const reads = [...readsByKey.values()];
  const records = await env.DB.prepare(`SELECT status, COUNT(*) AS n FROM alert_deliveries GROUP BY status`).all<{ status: string; n: number }>();
  const byChannel = {
    email: resend.delivered.length,
    slack: endpoints.posts.filter((p) => p.url.includes('hooks.slack.com')).length,
    webhook: endpoints.posts.filter((p) => p.url.includes('receiver.example.com')).length,
  };
  report(`alerts: ${SUBSCRIPTIONS} subscriptions (email, Slack, webhook by thirds), ${readsByKey.size} groups`);
  report(`  evaluation day 1 (stores only): ${firstMs} ms; day 2 (4 events per group): ${secondMs} ms, ${enqueued} deliveries enqueued in ${jobs.length} Queue messages`);
  report(
    `  API reads: ${reads.reduce((a, b) => a + b, 0)} over two days (${Math.min(...reads)}-${Math.max(...reads)} per group; target 3 per evaluation and 2 for day 2's lost question); a second run the same day: ${readsAgain}`,
  );
  report(
    `  deliveries (queue handler, 10 messages a batch): ${(deliverMs / 1000).toFixed(1)} s wall, ${(deliverMs / enqueued).toFixed(1)} ms per delivery; email ${byChannel.email} (${resend.calls.length} Resend calls, max batch ${Math.max(...resend.calls.map((c) => c.emails.length))}), Slack ${byChannel.slack}, webhook ${byChannel.webhook}; DNS-over-HTTPS queries ${endpoints.dnsQueries.length}`,
  );
  report(`  delivery records: ${records.results.map((r) => `${r.status} ${r.n}`).join(', ')}`);
  expect(enqueued).toBe(SUBSCRIPTIONS);
  expect(resend.calls).toHaveLength(readsByKey.size);
  expect(reads.every((r) => r === 3 + 3 + 2)).toBe(true);
  expect(readsAgain).toBe(0);
  expect(byChannel.email + byChannel.slack + byChannel.webhook).toBe(SUBSCRIPTIONS);
  await clearAlerts();
  await clearDigests();
});
