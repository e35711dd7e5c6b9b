/**
 * Abuse (issue 7): a flood of random or revoked keys cannot spend the
 * upstream's budget or create unbounded state. Random keys from one address
 * are cut off after UNVERIFIED_PER_MINUTE upstream reads; a key that failed
 * is refused at the edge for a minute, remembered in KV for every isolate;
 * the gate objects a flood creates hold their storage one window, then none;
 * the isolate's memory of keys is bounded.
 */
import { createExecutionContext, env, evictDurableObject, listDurableObjectIds, runDurableObjectAlarm, runInDurableObject, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { FAILED_AUTH_TTL_S, PROBE_INTERVAL_MS, refusedAtEdge, REMEMBERED_MAX, rememberedHere, rememberFailedAuth, UNVERIFIED_PER_MINUTE } from '../src/proxy/abuse';
import { RATE_WINDOW_MS } from '../src/contract/rate-limit';
import { hashApiKey } from '../src/proxy/cache-key';
import { fakeUpstreamEachTest, freshKey, get, settled } from './proxy-upstream';
import worker from './worker';
import { inOneLimiterWindow as inLimiterWindow, ratePolicyOf } from './helpers';

/**
 * An hour ahead of the real clock: the alarms the gates set from this clock
 * lie in the real future, so workerd's scheduler (real time) never runs them
 * by itself and `runDurableObjectAlarm` decides when they run.
 */
const T0 = Date.now() + 3_600_000;

const fake = fakeUpstreamEachTest(T0);

const from = (address: string) => ({ 'cf-connecting-ip': address });

/** `inOneLimiterWindow` (helpers.ts), with the fake upstream's record cleared before each run. */
const inOneLimiterWindow = <T>(prefix: string, flood: (address: string) => Promise<T>) => inLimiterWindow(prefix, flood, () => void (fake.up.requests.length = 0));

describe('a flood of random keys from one address', () => {
  it('reaches the upstream at most UNVERIFIED_PER_MINUTE times, then gets 429 at the edge', async () => {
    fake.up.fault = { status: 401, code: 'invalid_api_key' };
    const { statuses, last } = await inOneLimiterWindow('198.51.101', async (address) => {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < UNVERIFIED_PER_MINUTE + 30; i++) {
        last = await get('/visibility', freshKey('flood'), from(address));
        statuses.push(last.status);
      }
      return { statuses, last };
    });
    expect(fake.up.calls).toBe(UNVERIFIED_PER_MINUTE);
    expect(statuses.filter((s) => s === 401)).toHaveLength(UNVERIFIED_PER_MINUTE);
    expect(statuses.slice(UNVERIFIED_PER_MINUTE).every((s) => s === 429)).toBe(true);
    // The refusal says when to come back, and that the limit that refused is spent.
    expect(Object.fromEntries(['retry-after', 'ratelimit-policy', 'ratelimit'].map((h) => [h, last!.headers.get(h)]))).toEqual({
      'retry-after': '60',
      'ratelimit-policy': `"address";q=${UNVERIFIED_PER_MINUTE};w=60`,
      ratelimit: '"address";r=0;t=60',
    });
  });

  it("with invalid parameters too: the reads that learn each key's refusal count against the address", async () => {
    fake.up.fault = { status: 401, code: 'invalid_api_key' };
    const statuses = await inOneLimiterWindow('198.51.110', async (address) => {
      const statuses: number[] = [];
      for (let i = 0; i < UNVERIFIED_PER_MINUTE + 30; i++) statuses.push((await get('/topics?days=0', freshKey('flood'), from(address))).status);
      return statuses;
    });
    expect(fake.up.calls).toBe(UNVERIFIED_PER_MINUTE);
    expect(new Set(fake.up.requests.map((r) => new URL(r.url).pathname))).toEqual(new Set(['/api/v1/brands']));
    // Each key the upstream was asked about is refused as it would be; past the limit the parameter error stands.
    expect(statuses.slice(0, UNVERIFIED_PER_MINUTE).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(UNVERIFIED_PER_MINUTE).every((s) => s === 400)).toBe(true);
  });

  it('does not stop another address, nor a key already verified at the flooded one', async () => {
    const good = freshKey('good');
    fake.up.fault = 'ok';
    expect((await get('/visibility', good, from('198.51.100.8'))).status).toBe(200);
    fake.up.fault = { status: 401, code: 'invalid_api_key' };
    for (let i = 0; i < UNVERIFIED_PER_MINUTE + 5; i++) await get('/visibility', freshKey('flood'), from('198.51.100.8'));
    const callsAfterFlood = fake.up.calls;
    fake.up.fault = 'ok';
    // The verified key still reads, from cache and from the upstream.
    expect((await get('/visibility', good, from('198.51.100.8'))).status).toBe(200);
    expect((await get('/topics', good, from('198.51.100.8'))).status).toBe(200);
    expect(fake.up.calls).toBe(callsAfterFlood + 1);
    expect((await get('/visibility', freshKey('other'), from('198.51.100.9'))).status).toBe(200);
  });
});

describe("a flood of random keys to the embedded origin's own mount (/origin/api/v1)", () => {
  /** The test env with D1 wrapped to count the statements the origin prepares (one per authentication of an unknown key). */
  function countingEnv() {
    const counter = { prepared: 0 };
    const db = new Proxy(env.DB, {
      get(target, name) {
        if (name === 'prepare') counter.prepared++;
        const value = Reflect.get(target, name) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { counter, env: { ...env, DB: db } as unknown as Env };
  }
  async function origin(testEnv: Env, path: string, key: string, address: string): Promise<Response> {
    const ctx = createExecutionContext();
    const response = await worker.fetch!(
      new Request(`https://edge.test/origin/api/v1${path}`, { headers: { authorization: `Bearer ${key}`, ...from(address) } }) as Request<unknown, IncomingRequestCfProperties>,
      testEnv,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return response;
  }

  it('sits behind the same limits as /api/v1: UNVERIFIED_PER_MINUTE D1 reads from one address, then 429 at the edge', async () => {
    const { counter, env: counted } = countingEnv();
    const { statuses, last, prepared, address } = await inOneLimiterWindow('198.51.120', async (address) => {
      counter.prepared = 0;
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < UNVERIFIED_PER_MINUTE + 30; i++) {
        last = await origin(counted, '/visibility', freshKey('origin-flood'), address);
        statuses.push(last.status);
      }
      return { statuses, last, prepared: counter.prepared, address };
    });
    // Before: 150 random keys, 150 D1 queries, no 429.
    expect(prepared).toBe(UNVERIFIED_PER_MINUTE);
    expect(statuses.slice(0, UNVERIFIED_PER_MINUTE).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(UNVERIFIED_PER_MINUTE).every((s) => s === 429)).toBe(true);
    expect(((await last!.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(Object.fromEntries(['retry-after', 'ratelimit', 'x-request-id'].map((h) => [h, last!.headers.get(h) !== null]))).toEqual({
      'retry-after': true,
      ratelimit: true,
      'x-request-id': true,
    });
    expect(ratePolicyOf(last!)).toBe(`q=${UNVERIFIED_PER_MINUTE};w=60`);
    // One limit per address, whichever mount spends it: /api/v1 from there is held too.
    fake.up.fault = { status: 401, code: 'invalid_api_key' };
    expect((await get('/visibility', freshKey('api'), from(address))).status).toBe(429);
    expect(fake.up.calls).toBe(0);
  });

  it('a key the origin refused is refused at the edge for a minute, one probe per PROBE_INTERVAL_MS; keyless requests and the document pass as they are', async () => {
    const { counter, env: counted } = countingEnv();
    const revoked = freshKey('origin-revoked');
    expect((await origin(counted, '/visibility', revoked, '198.51.121.1')).status).toBe(401);
    const afterFirst = counter.prepared;
    const again = await origin(counted, '/visibility', revoked, '198.51.121.1');
    expect(again.status).toBe(401);
    // The origin's own answer to an unknown key, given at the edge: same code, same RateLimit fields.
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    expect(ratePolicyOf(again)).toBe('q=60;w=60');
    expect(counter.prepared).toBe(afterFirst);
    vi.setSystemTime(T0 + PROBE_INTERVAL_MS);
    expect((await origin(counted, '/visibility', revoked, '198.51.121.1')).status).toBe(401);
    expect(counter.prepared).toBe(afterFirst + 1);
    // The failure is the proxy's too: the origin is its upstream.
    expect(refusedAtEdge(await hashApiKey(revoked), T0 + PROBE_INTERVAL_MS + 1)).toBe(true);

    // Requests without a key and the document cost no D1 read and pass as they are.
    expect((await SELF.fetch('https://edge.test/origin/api/v1/visibility', { headers: from('198.51.121.1') })).status).toBe(401);
    expect((await SELF.fetch('https://edge.test/origin/api/v1/openapi.json', { headers: { authorization: `Bearer ${revoked}`, ...from('198.51.121.1') } })).status).toBe(200);
    expect((await origin(env, '/visibility', 'demo_pro_single', '198.51.121.1')).status).toBe(200);
  });
});

/** A request to the Worker outside /api/v1 (the reports), from `address`. */
function report(path: string, key: string, address: string, o: { method?: string; body?: unknown } = {}): Promise<Response> {
  const headers = new Headers({ authorization: `Bearer ${key}`, ...from(address) });
  if (o.body !== undefined) headers.set('content-type', 'application/json');
  return SELF.fetch(`https://edge.test${path}`, { method: o.method ?? 'GET', headers, ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}) });
}

describe('a flood of random keys through the reports (in-process reads through the proxy)', () => {
  it("/reports/weekly: the reads count against the caller's address, like /api/v1: at most UNVERIFIED_PER_MINUTE upstream calls, then 429", async () => {
    fake.up.fault = { status: 401, code: 'invalid_api_key' };
    const { address, answers } = await inOneLimiterWindow('198.51.102', async (address) => {
      const answers: { status: number; code?: string; retryAfter: string | null }[] = [];
      for (let i = 0; i < 150; i++) {
        const response = await report('/reports/weekly?format=json', freshKey('report-flood'), address);
        answers.push({ status: response.status, code: ((await response.json()) as { error?: { code: string } }).error?.code, retryAfter: response.headers.get('retry-after') });
      }
      return { address, answers };
    });
    // Each report is four reads at once; before this fix 150 reports made 600 upstream calls and no 429.
    expect(fake.up.calls).toBeLessThanOrEqual(UNVERIFIED_PER_MINUTE);
    expect(new Set(answers.map((a) => `${a.status} ${a.code}`))).toEqual(new Set(['401 invalid_api_key', '429 rate_limited']));
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(150 - UNVERIFIED_PER_MINUTE);
    expect(limited.every((a) => Number(a.retryAfter) > 0)).toBe(true);
    expect(answers.at(-1)!.status).toBe(429);
    // One limit per address, whichever route spends it: /api/v1 from there is held too.
    const calls = fake.up.calls;
    expect((await get('/visibility', freshKey('api'), from(address))).status).toBe(429);
    expect(fake.up.calls).toBe(calls);
  });

  it('/reports/links: the same limit', async () => {
    fake.up.fault = { status: 401, code: 'invalid_api_key' };
    const statuses = await inOneLimiterWindow('198.51.103', async (address) => {
      const statuses: number[] = [];
      for (let i = 0; i < UNVERIFIED_PER_MINUTE + 10; i++) statuses.push((await report('/reports/links', freshKey('link-flood'), address, { method: 'POST', body: { market: 'us' } })).status);
      return statuses;
    });
    expect(fake.up.calls).toBe(UNVERIFIED_PER_MINUTE);
    expect(statuses.slice(0, UNVERIFIED_PER_MINUTE).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(UNVERIFIED_PER_MINUTE).every((s) => s === 429)).toBe(true);
  });

  it('a key that failed on /api/v1 is refused by the reports without an upstream call, and the reverse', async () => {
    const [a, b] = [freshKey('failed-api'), freshKey('failed-report')];
    fake.up.fault = { status: 401, code: 'invalid_api_key' };
    expect((await get('/visibility', a, from('192.0.2.30'))).status).toBe(401);
    expect((await report('/reports/weekly?format=json', b, '192.0.2.31')).status).toBe(401);
    const calls = fake.up.calls;
    expect((await report('/reports/weekly?format=json', a, '192.0.2.32')).status).toBe(401);
    expect((await report('/reports/links', a, '192.0.2.32', { method: 'POST', body: {} })).status).toBe(401);
    expect((await get('/topics', b, from('192.0.2.33'))).status).toBe(401);
    expect(fake.up.calls).toBe(calls);
  });
});

describe('a key that failed authentication', () => {
  it('is refused at the edge for a minute, without another upstream call, and remembered in KV for other isolates', async () => {
    const revoked = freshKey('revoked');
    fake.up.byKey.set(revoked, { status: 401, code: 'invalid_api_key' });
    expect((await get('/visibility', revoked, from('192.0.2.10'))).status).toBe(401);
    expect(fake.up.calls).toBe(1);
    for (const path of ['/visibility', '/topics', '/prompts']) expect((await get(path, revoked, from('192.0.2.10'))).status).toBe(401);
    expect(fake.up.calls).toBe(1);
    const hash = await hashApiKey(revoked);
    await expect.poll(() => env.CACHE.getWithMetadata(`authfail:v1:${hash}`).then((r) => r.value)).toBe('1');
    expect(FAILED_AUTH_TTL_S).toBe(60);
  });

  it('is served again within seconds once the upstream accepts it again: one probe per interval goes upstream', async () => {
    const blip = freshKey('blip');
    fake.up.byKey.set(blip, { status: 401, code: 'invalid_api_key' });
    expect((await get('/visibility', blip, from('192.0.2.11'))).status).toBe(401);
    // The upstream is well again, but within the probe interval the edge still refuses, without asking it.
    fake.up.byKey.delete(blip);
    vi.setSystemTime(T0 + PROBE_INTERVAL_MS - 1);
    expect((await get('/visibility', blip, from('192.0.2.11'))).status).toBe(401);
    expect(fake.up.calls).toBe(1);
    // The next request is the probe: it reads, and the key is served from then on; the KV flag is gone.
    vi.setSystemTime(T0 + PROBE_INTERVAL_MS);
    expect((await settled('/visibility', blip, from('192.0.2.11'))).status).toBe(200);
    expect((await get('/topics', blip, from('192.0.2.11'))).status).toBe(200);
    expect(fake.up.calls).toBe(3);
    const hash = await hashApiKey(blip);
    await expect.poll(() => env.CACHE.get(`authfail:v1:${hash}`)).toBeNull();
  });

  it('a key still revoked costs the upstream one probe per interval, however often it is sent', async () => {
    const revoked = freshKey('still-revoked');
    fake.up.byKey.set(revoked, { status: 401, code: 'invalid_api_key' });
    for (let second = 0; second < 20; second++) {
      vi.setSystemTime(T0 + second * 1000);
      for (let i = 0; i < 5; i++) expect((await get('/visibility', revoked, from('192.0.2.12'))).status).toBe(401);
    }
    // 100 requests over 20 s: the first, then one probe every 5 s.
    expect(fake.up.calls).toBe(1 + Math.floor(19_000 / PROBE_INTERVAL_MS));
  });
});

describe('a key whose plan is inactive', () => {
  it("costs a page's reads once, then one probe per interval: ten report pages a second apart cost at most 4 + 2 upstream reads", async () => {
    const inactive = freshKey('inactive');
    fake.up.byKey.set(inactive, { status: 403, code: 'plan_inactive' });
    for (let second = 0; second < 10; second++) {
      vi.setSystemTime(T0 + second * 1000);
      const page = await SELF.fetch('https://edge.test/reports/weekly?market=us', { headers: { authorization: `Bearer ${inactive}` } });
      expect([second, page.status]).toEqual([second, 403]);
      expect(((await page.json()) as { error: { code: string } }).error.code).toBe('plan_inactive');
      const read = await get('/visibility', inactive, from('192.0.2.13'));
      expect(((await read.json()) as { error: { code: string } }).error.code).toBe('plan_inactive');
    }
    // The first page's four reads (in parallel, before any answer), then a probe at 5 s: the refusal is answered at the edge meanwhile.
    expect(fake.up.calls).toBeLessThanOrEqual(4 + Math.ceil(10_000 / PROBE_INTERVAL_MS));
  });

  it('is served again within seconds once its plan is active again', async () => {
    const renewed = freshKey('renewed');
    fake.up.byKey.set(renewed, { status: 403, code: 'plan_inactive' });
    expect((await get('/visibility', renewed, from('192.0.2.14'))).status).toBe(403);
    fake.up.byKey.delete(renewed);
    vi.setSystemTime(T0 + PROBE_INTERVAL_MS - 1);
    expect((await get('/topics', renewed, from('192.0.2.14'))).status).toBe(403);
    expect(fake.up.calls).toBe(1);
    vi.setSystemTime(T0 + PROBE_INTERVAL_MS);
    expect((await settled('/topics', renewed, from('192.0.2.14'))).status).toBe(200);
    expect((await get('/prompts', renewed, from('192.0.2.14'))).status).toBe(200);
    expect(fake.up.calls).toBe(3);
  });

  it('a refusal of one operation (feature_not_in_plan) is not taken for the whole key', async () => {
    const starter = freshKey('starter');
    fake.up.byKey.set(starter, { status: 403, code: 'feature_not_in_plan' });
    expect((await get('/topics', starter, from('192.0.2.15'))).status).toBe(403);
    fake.up.byKey.delete(starter);
    expect((await get('/visibility', starter, from('192.0.2.15'))).status).toBe(200);
    expect(fake.up.calls).toBe(2);
  });
});

/** What a gate object holds in storage: its tables, its alarm, its KV entries. */
async function storageOf(stub: DurableObjectStub) {
  return runInDurableObject(stub, async (_, state) => ({
    tables: state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'")
      .toArray()
      .map((r) => r.name),
    rows:
      state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE name = 'calls'").one().n === 1
        ? state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM calls').one().n
        : 0,
    alarm: await state.storage.getAlarm(),
    kv: (await state.storage.list()).size,
  }));
}

const gateOf = async (key: string) => env.UPSTREAM_GATE.get(env.UPSTREAM_GATE.idFromName(await hashApiKey(key)));
const NOTHING = { tables: [], rows: 0, alarm: null, kv: 0 };

describe('the state a flood leaves behind', () => {
  it("a random key's gate object keeps its upstream call one window, then holds no storage", async () => {
    fake.up.fault = { status: 401, code: 'invalid_api_key' };
    const key = freshKey('random');
    expect((await get('/visibility', key, from('198.51.100.20'))).status).toBe(401);
    expect(fake.up.calls).toBe(1);
    const gate = await gateOf(key);
    expect(await storageOf(gate)).toEqual({ tables: ['calls'], rows: 1, alarm: T0 + RATE_WINDOW_MS, kv: 0 });
    vi.setSystemTime(T0 + RATE_WINDOW_MS);
    expect(await runDurableObjectAlarm(gate)).toBe(true);
    expect(await storageOf(gate)).toEqual(NOTHING);
  });

  it('each upstream call moves the alarm to one window after it; a key in use keeps its budget, across an eviction too', async () => {
    const key = freshKey('busy');
    await get('/visibility', key);
    vi.setSystemTime(T0 + 30_000);
    await get('/topics', key);
    const gate = await gateOf(key);
    expect(await storageOf(gate)).toMatchObject({ rows: 2, alarm: T0 + 30_000 + RATE_WINDOW_MS });
    await evictDurableObject(gate);
    expect(await gate.remaining()).toBe(58);
    vi.setSystemTime(T0 + 30_000 + RATE_WINDOW_MS);
    expect(await runDurableObjectAlarm(gate)).toBe(true);
    expect(await storageOf(gate)).toEqual(NOTHING);
    // The object still works after its cleanup: the next call is stored again.
    expect((await get('/prompts', key)).status).toBe(200);
    expect(await storageOf(gate)).toMatchObject({ rows: 1, alarm: T0 + 30_000 + 2 * RATE_WINDOW_MS });
  });

  it('a flood of random keys from one address creates at most UNVERIFIED_PER_MINUTE gate objects, all empty one window later', async () => {
    fake.up.fault = { status: 401, code: 'invalid_api_key' };
    const created = await inOneLimiterWindow('198.51.104', async (address) => {
      const before = new Set((await listDurableObjectIds(env.UPSTREAM_GATE)).map(String));
      for (let i = 0; i < UNVERIFIED_PER_MINUTE + 30; i++) await get('/visibility', freshKey('flood'), from(address));
      return (await listDurableObjectIds(env.UPSTREAM_GATE)).filter((id) => !before.has(String(id)));
    });
    expect(created).toHaveLength(UNVERIFIED_PER_MINUTE);
    vi.setSystemTime(T0 + RATE_WINDOW_MS);
    const left = [];
    for (const id of created) {
      const gate = env.UPSTREAM_GATE.get(id);
      expect(await runDurableObjectAlarm(gate)).toBe(true);
      left.push(await storageOf(gate));
    }
    expect(left.filter((s) => s.tables.length > 0 || s.alarm !== null)).toEqual([]);
  });

  it("keeps the isolate's memory of failed keys bounded: the oldest are forgotten first (KV still knows them)", () => {
    // A stand-in KV: this checks the isolate's map, not KV's writes.
    const quiet = { CACHE: { put: async () => undefined } as unknown as KVNamespace, UNVERIFIED_KEYS: env.UNVERIFIED_KEYS };
    const hashes = Array.from({ length: REMEMBERED_MAX + 500 }, (_, i) => `flood-${T0}-${i}`);
    for (const hash of hashes) rememberFailedAuth(quiet, hash, T0, () => undefined);
    expect(rememberedHere().failed).toBe(REMEMBERED_MAX);
    expect(refusedAtEdge(hashes.at(-1)!, T0)).toBe(true);
    expect(refusedAtEdge(hashes[0]!, T0)).toBe(false);
    expect(rememberedHere().verified).toBeLessThanOrEqual(REMEMBERED_MAX);
  });
});
