/**
 * One way upstream: the digest queue reads through `apiFor`, the proxy's own
 * pipeline, so a group's reads spend its key's exact gate budget, and a fresh
 * copy is served from the cache to anyone else who reads the same thing.
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { sha256Hex } from '../src/lib/hash';
import { isoWeek } from '../src/weekly-report/week';
import { WEEK_READS } from '../src/weekly-report/read';
import { clearDigests, dayOf, deliver, demoMonday, FakeQueue, FakeResend, RecordingApi, runCron, seedSubscriptions, sendRecords, testEnv } from './digests-helpers';
import { useServicesForTests, useUpstreamForTests } from './seams';

const MONDAY = demoMonday();
/** A key of its own (of demo_pro_single's account): no other test has spent its gate budget or filled its cache. */
const KEY = `api_for_${crypto.randomUUID()}`;

const gateOf = async (key: string) => env.UPSTREAM_GATE.get(env.UPSTREAM_GATE.idFromName(await sha256Hex(key)));

let upstream: RecordingApi;

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(MONDAY);
  await clearDigests();
  upstream = new RecordingApi();
  useUpstreamForTests(upstream.upstream);
  useServicesForTests({ sleep: async () => {} });
  await env.DB.prepare("INSERT OR IGNORE INTO api_keys (account_id, key_hash, label, created_at) VALUES (1, ?, 'api-for test', '2026-01-01T00:00:00Z')")
    .bind(await sha256Hex(KEY))
    .run();
});
afterEach(() => {
  useUpstreamForTests();
  useServicesForTests();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

it("spends the key's gate budget for a digest group's reads, and the cache serves them afterwards", async () => {
  const resend = new FakeResend().install();
  const queue = new FakeQueue();
  const testEnvironment = testEnv(queue);
  await seedSubscriptions([
    { email: 'one@example.com', key: KEY },
    { email: 'two@example.com', key: KEY },
  ]);
  await runCron(MONDAY.toISOString(), testEnvironment);
  expect(queue.sent).toHaveLength(1);

  const gate = await gateOf(KEY);
  const before = await gate.remaining();
  await deliver(queue.sent, testEnvironment);
  expect((await sendRecords()).map((r) => r.status)).toEqual(['sent', 'sent']);
  expect(resend.delivered).toHaveLength(2);

  // Seven upstream reads for the group (the week's four and the plan's three), each counted by the key's gate.
  expect(upstream.requests.map((r) => r.split('?')[0]).sort()).toEqual(['/answers/history', '/content-gaps', '/pages', '/prompts', '/tasks', '/topics', '/visibility']);
  expect(before - (await gate.remaining())).toBe(WEEK_READS);

  // The same reads by a dashboard through /api/v1 are now cache hits: no upstream read, no budget spent.
  const topicsQuery = upstream.requests.find((r) => r.startsWith('/topics'))!.split('?')[1];
  for (const path of ['/visibility?brand_id=1&market=11', '/answers/history?brand_id=1&market=11', '/prompts?brand_id=1&market=11', `/topics?${topicsQuery}`]) {
    const response = await SELF.fetch(`https://edge.test/api/v1${path}`, { headers: { authorization: `Bearer ${KEY}` } });
    expect([path, response.status, response.headers.get('x-cache')]).toEqual([path, 200, 'HIT']);
  }
  expect(upstream.requests).toHaveLength(WEEK_READS);
  expect(before - (await gate.remaining())).toBe(WEEK_READS);

  // A second delivery of the same week (a redelivered message) reads nothing: the group's snapshot is kept.
  await deliver(queue.sent, testEnvironment);
  expect(upstream.requests).toHaveLength(WEEK_READS);
  expect(resend.delivered).toHaveLength(2);
  expect(isoWeek(dayOf(MONDAY))).toBe(queue.sent[0]!.iso_week);
});
