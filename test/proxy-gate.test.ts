/**
 * The upstream gate, through the Worker: one Durable Object per API key holds
 * the key's 60 upstream calls per rolling minute and coalesces identical
 * misses in flight.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { env } from 'cloudflare:test';
import { rateLimitOf, ratePolicyOf } from './helpers';
import { FakeUpstream, freshKey, get, read, restoreUpstream, settled } from './proxy-upstream';

const T0 = Date.parse('2026-11-20T10:00:00Z');
let up: FakeUpstream;

beforeEach(() => {
  up = new FakeUpstream().install();
  vi.setSystemTime(T0);
});
afterEach(() => {
  restoreUpstream();
  vi.useRealTimers();
});

/** The Worker's env with the gate binding watched: `onCall` runs as each request is handed to the key's gate. */
function watchingGate(onCall: () => void): Env {
  const gates = env.UPSTREAM_GATE;
  const watched = {
    idFromName: (name: string) => gates.idFromName(name),
    get: (id: DurableObjectId) => {
      const gate = gates.get(id);
      return {
        call: (request: Parameters<typeof gate.call>[0]) => {
          onCall();
          return gate.call(request);
        },
      };
    },
  };
  return { ...env, UPSTREAM_GATE: watched } as unknown as Env;
}

it('turns 100 concurrent identical misses into exactly one upstream call', async () => {
  const key = freshKey();
  let release!: () => void;
  up.hold = new Promise<void>((resolve) => (release = resolve));
  // The upstream answers once every request has been handed to the gate: all 100 are misses in flight together.
  let atGate = 0;
  const testEnv = watchingGate(() => {
    if (++atGate === 100) release();
  });
  const answers = await Promise.all(Array.from({ length: 100 }, () => settled('/topics?days=14', key, {}, { env: testEnv }).then(read)));
  expect(atGate).toBe(100);
  expect(up.calls).toBe(1);
  expect(new Set(answers.map((a) => a.cache))).toEqual(new Set(['MISS']));
  expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
  expect(new Set(answers.map((a) => a.text)).size).toBe(1);
  expect(new Set(answers.map((a) => a.etag)).size).toBe(1);
});

it('spends at most 60 upstream calls per key per rolling minute: the 61st distinct miss is 429 rate_limited with Retry-After', async () => {
  const key = freshKey();
  const answers = [];
  for (let id = 1; id <= 61; id++) {
    vi.setSystemTime(T0 + id * 100);
    answers.push(await read(await get(`/topics/${id}`, key)));
  }
  expect(up.calls).toBe(60);
  expect(answers.slice(0, 60).every((a) => a.status === 200 && a.cache === 'MISS')).toBe(true);
  const refused = answers[60]!;
  expect(refused).toMatchObject({ status: 429, cache: 'BYPASS', body: { error: { code: 'rate_limited' } } });
  // The oldest call (at T0 + 0.1 s) leaves the window at T0 + 60.1 s; it is now T0 + 6.1 s.
  expect(refused.retryAfter).toBe('54');
  // Its RateLimit fields say the key's budget is spent until then.
  const again = await get('/topics/62', key);
  expect([ratePolicyOf(again), rateLimitOf(again)]).toEqual(['q=60;w=60', { r: 0, t: 54 }]);
  expect([again.headers.get('ratelimit'), again.headers.get('retry-after'), again.headers.get('cache-status')]).toEqual([
    '"upstream";r=0;t=54',
    '54',
    '"brand-ai-visibility-edge"; detail=over-budget',
  ]);
  // Cached answers need no budget.
  expect((await read(await get('/topics/1', key))).cache).toBe('HIT');
  // Another key has its own budget.
  expect((await read(await get('/topics/61', freshKey()))).status).toBe(200);
  // Once the first calls leave the rolling minute, the key goes upstream again.
  vi.setSystemTime(T0 + 60_101);
  expect((await read(await get('/topics/61', key))).cache).toBe('MISS');
  expect(up.calls).toBe(62);
});

it('counts concurrent distinct misses exactly: 61 at once, 60 upstream calls', async () => {
  const key = freshKey();
  const answers = await Promise.all(Array.from({ length: 61 }, (_, i) => get(`/tasks/${i + 1}`, key).then(read)));
  expect(up.calls).toBe(60);
  expect(answers.filter((a) => a.status === 200)).toHaveLength(60);
  expect(answers.filter((a) => a.status === 429 && a.body?.error?.code === 'rate_limited')).toHaveLength(1);
});

it('serves stale past the budget when it has it', async () => {
  const key = freshKey();
  const stored = await read(await get('/activity', key));
  // Past stale-while-revalidate (2 x 300 s), with the budget spent by 60 other misses.
  vi.setSystemTime(T0 + 601_000);
  for (let id = 1; id <= 60; id++) await get(`/tasks/${id}`, key);
  expect(up.calls).toBe(61);
  const stale = await read(await get('/activity', key));
  expect(stale).toMatchObject({ status: 200, cache: 'STALE', age: '601' });
  expect(stale.text).toBe(stored.text);
  expect(up.calls).toBe(61);
});
