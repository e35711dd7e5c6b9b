/**
 * The edge proxy's cache rules (DESIGN section 6), through the Worker, with a
 * counting, fault-injecting upstream: HIT after one upstream call, per-key
 * partitioning, revocation, stale-while-revalidate and stale-if-error, 304,
 * errors never stored, the UTC-midnight rollover, `no-cache`.
 */
import { env } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sha256Hex } from '../src/lib/hash';
import { KEY_RECHECK_MS } from '../src/proxy/policy';
import { rateLimitOf, ratePolicyOf } from './helpers';
import { FakeUpstream, freshKey, get, read, restoreUpstream, settled } from './proxy-upstream';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const SECOND = 1000;
/** /activity: windowless, fresh for 300 s, so only the clock decides its state. */
const WINDOWLESS = '/activity';

let up: FakeUpstream;
const at = (ms: number) => {
  vi.setSystemTime(ms);
};

beforeEach(() => {
  up = new FakeUpstream().install();
  at(T0);
});
afterEach(() => {
  restoreUpstream();
  vi.useRealTimers();
});

/** Entries of a key in KV. */
async function entriesOf(key: string): Promise<number> {
  return (await env.CACHE.list({ prefix: `v1:${await sha256Hex(key)}:` })).keys.length;
}

describe('caching', () => {
  it('answers the second read from the cache: one upstream call, X-Cache HIT, Age, ETag, private max-age', async () => {
    const key = freshKey();
    const first = await read(await get('/topics?days=28', key));
    expect(first).toMatchObject({ status: 200, cache: 'MISS', age: '0', cacheControl: 'private, max-age=300' });
    expect(first.etag).toMatch(/^"[0-9a-f]{32}"$/);
    at(T0 + 42 * SECOND);
    const second = await read(await get('/topics?days=28', key));
    expect(second).toMatchObject({ status: 200, cache: 'HIT', age: '42', etag: first.etag, cacheControl: 'private, max-age=258' });
    expect(second.text).toBe(first.text);
    expect(up.calls).toBe(1);
    // The upstream got the caller's key and the caller's path and query, as written.
    expect(up.requests[0]!.headers.get('authorization')).toBe(`Bearer ${key}`);
    expect(new URL(up.requests[0]!.url).pathname + new URL(up.requests[0]!.url).search).toBe('/api/v1/topics?days=28');
  });

  it('treats equivalent queries as one entry: defaults explicit, order, case', async () => {
    const key = freshKey();
    expect((await read(await get('/sources', key))).cache).toBe('MISS');
    expect((await read(await get('/sources?limit=15', key))).cache).toBe('HIT');
    expect((await read(await get('/sources?market=US&limit=15', key))).cache).toBe('MISS');
    expect((await read(await get('/sources?limit=15&market=us', key))).cache).toBe('HIT');
    expect(up.calls).toBe(2);
  });

  it('never lets two keys share an entry, even for the same brand', async () => {
    const [a, b] = [freshKey('a'), freshKey('b')];
    const fromA = await read(await settled('/visibility', a));
    const fromB = await read(await settled('/visibility', b));
    expect([fromA.cache, fromB.cache]).toEqual(['MISS', 'MISS']);
    expect([fromA.body?.n, fromB.body?.n]).toEqual([1, 2]);
    expect((await read(await get('/visibility', a))).body?.n).toBe(1);
    expect((await read(await get('/visibility', b))).body?.n).toBe(2);
    expect(up.calls).toBe(2);
    // Only hashes in the names: the key itself appears nowhere in KV.
    const names = (await env.CACHE.list({ prefix: 'v1:' })).keys.map((k) => k.name).join('\n');
    expect(names).not.toContain(a);
    expect(await entriesOf(a)).toBe(1);
  });

  it('revalidates on Cache-Control: no-cache (REVALIDATED, one more upstream call)', async () => {
    const key = freshKey();
    await get(WINDOWLESS, key);
    at(T0 + 3 * SECOND);
    const again = await read(await get(WINDOWLESS, key, { 'cache-control': 'no-cache' }));
    expect(again).toMatchObject({ status: 200, cache: 'REVALIDATED', age: '0' });
    expect(again.body?.n).toBe(2);
    expect((await read(await get(WINDOWLESS, key))).body?.n).toBe(2);
    expect(up.calls).toBe(2);
  });

  it('honours the other request directives: max-age=N (token or quoted), Pragma: no-cache in any case without Cache-Control, no-store', async () => {
    const key = freshKey();
    await settled(WINDOWLESS, key);
    at(T0 + 42 * SECOND);
    const cache = async (headers: Record<string, string>) => (await read(await settled(WINDOWLESS, key, headers))).cache;
    expect(await cache({ 'cache-control': 'max-age=60' })).toBe('HIT');
    expect(await cache({ 'cache-control': 'max-age=30' })).toBe('REVALIDATED');
    at(T0 + 52 * SECOND);
    expect(await cache({ 'cache-control': 'MAX-AGE="5"' })).toBe('REVALIDATED');
    // Each revalidation a few seconds after the last: the gate shares an upstream 200 for 2 s.
    at(T0 + 55 * SECOND);
    expect(await cache({ pragma: 'NO-CACHE' })).toBe('REVALIDATED');
    at(T0 + 58 * SECOND);
    // Cache-Control present: Pragma is ignored (RFC 9111, 5.4).
    expect(await cache({ 'cache-control': 'private', pragma: 'no-cache' })).toBe('HIT');
    expect(await cache({ 'cache-control': 'no-store' })).toBe('BYPASS');
    expect(up.calls).toBe(5);
  });

  it("speaks HTTP's current headers: Cache-Status (RFC 9211) and the draft's RateLimit and RateLimit-Policy on every answer", async () => {
    const key = freshKey();
    const fields = (r: Response) => ({ status: r.headers.get('cache-status'), limit: r.headers.get('ratelimit'), policy: r.headers.get('ratelimit-policy') });
    const name = '"brand-ai-visibility-edge"';
    expect(fields(await get('/topics?days=28', key))).toEqual({ status: `${name}; fwd=miss; fwd-status=200; stored; ttl=300`, limit: '"upstream";r=59;t=60', policy: '"upstream";q=60;w=60' });
    at(T0 + 42 * SECOND);
    expect(fields(await get('/topics?days=28', key))).toMatchObject({ status: `${name}; hit; ttl=258`, limit: '"upstream";r=59;t=18' });
    expect((await get('/topics?days=28', key, { 'cache-control': 'no-cache' })).headers.get('cache-status')).toBe(`${name}; fwd=request; fwd-status=200; stored; ttl=300`);
    // Past fresh: served stale while revalidating, a hit with a negative ttl (the key was accepted upstream a minute ago, so no check is due).
    at(T0 + 280 * SECOND);
    await settled('/prompts', key);
    at(T0 + 42 * SECOND + 301 * SECOND);
    expect((await get('/topics?days=28', key)).headers.get('cache-status')).toBe(`${name}; hit; ttl=-1`);
    // Refused at the edge, never forwarded; an upstream error passed on.
    expect(fields(await get('/topics?days=0', key)).status).toBe(`${name}; detail=refused`);
    up.fault = { status: 404, code: 'not_found' };
    expect((await get('/topics/999', key)).headers.get('cache-status')).toBe(`${name}; fwd=miss; fwd-status=404`);
    // The draft's older fields, which this fake upstream still sends, are read for the budget and not repeated.
    const hit = await get('/topics?days=28', key);
    expect(['limit', 'remaining', 'reset'].map((f) => hit.headers.get(`ratelimit-${f}`))).toEqual([null, null, null]);
  });

  it("carries the key's upstream budget, as the upstream last reported it, on answers from the cache", async () => {
    const key = freshKey();
    // The fake upstream reports 59 of 60 left, resetting in 60 s.
    const miss = await get(WINDOWLESS, key);
    expect([ratePolicyOf(miss), rateLimitOf(miss)]).toEqual(['q=60;w=60', { r: 59, t: 60 }]);
    const hit = await get(WINDOWLESS, key);
    expect(hit.headers.get('x-cache')).toBe('HIT');
    const { r, t } = rateLimitOf(hit)!;
    expect(r).toBe(59);
    expect(t).toBeGreaterThan(0);
    expect(t).toBeLessThanOrEqual(60);
    const { etag } = await read(await get(WINDOWLESS, key));
    expect(rateLimitOf(await get(WINDOWLESS, key, { 'if-none-match': etag! }))!.r).toBe(59);
    // A key the upstream has not reported on has its whole budget.
    expect(rateLimitOf(await get('/nope', freshKey()))).toEqual({ r: 60, t: 0 });
    expect(up.calls).toBe(1);
  });

  it('answers 304 to a matching If-None-Match, 200 otherwise', async () => {
    const key = freshKey();
    const { etag } = await read(await get(WINDOWLESS, key));
    const notModified = await get(WINDOWLESS, key, { 'if-none-match': etag! });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');
    expect(notModified.headers.get('etag')).toBe(etag);
    expect(notModified.headers.get('x-cache')).toBe('HIT');
    expect((await get(WINDOWLESS, key, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await get(WINDOWLESS, key, { 'if-none-match': '"other"' })).status).toBe(200);
    expect(up.calls).toBe(1);
  });

  it('rolls a relative window over at UTC midnight, and keys explicit dates like the relative ones', async () => {
    const key = freshKey();
    at(Date.parse('2026-11-20T23:59:00Z'));
    expect((await read(await get('/topics?days=7', key))).cache).toBe('MISS');
    expect((await read(await get('/topics?from=2026-11-14&to=2026-11-20', key))).cache).toBe('HIT');
    expect((await read(await get(WINDOWLESS, key))).cache).toBe('MISS');
    at(Date.parse('2026-11-20T23:59:59Z'));
    expect((await read(await get('/topics?days=7', key))).cache).toBe('HIT');
    at(Date.parse('2026-11-21T00:00:01Z'));
    expect((await read(await get('/topics?days=7', key))).cache).toBe('MISS');
    // A read without a window is the same entry across midnight.
    expect((await read(await get(WINDOWLESS, key))).cache).toBe('HIT');
    // Fixed windows roll over too.
    expect(up.calls).toBe(3);
  });
});

describe('errors', () => {
  it('never stores an error: each upstream 4xx is asked again', async () => {
    const key = freshKey();
    up.fault = { status: 404, code: 'not_found' };
    for (let i = 0; i < 2; i++) {
      const r = await read(await get('/topics/77', key));
      expect(r).toMatchObject({ status: 404, cache: 'BYPASS', cacheControl: 'no-store', body: { error: { code: 'not_found' } } });
    }
    up.fault = { status: 409, code: 'integration_not_connected' };
    expect((await read(await get('/search-performance', key))).status).toBe(409);
    expect((await read(await get('/search-performance', key))).status).toBe(409);
    expect(up.calls).toBe(4);
    expect(await entriesOf(key)).toBe(0);
  });

  // What the spec makes invalid; the values it leaves open (a `limit` over this origin's maximum, an unknown engine) go upstream: test/proxy-foreign.test.ts.
  it("refuses invalid requests at the edge, with the origin's errors, sending none of them upstream", async () => {
    const key = freshKey();
    const cases: [string, string | null, number, string, string?][] = [
      ['/topics?days=0', key, 400, 'invalid_parameter', 'days'],
      ['/visibility?days=7', key, 400, 'invalid_parameter', 'days'],
      ['/topics?from=2026-02-30', key, 400, 'invalid_parameter', 'from'],
      ['/topics?to=2026-11-21', key, 400, 'invalid_parameter', 'to'],
      ['/sources?limit=0', key, 400, 'invalid_parameter', 'limit'],
      ['/sources?bogus=1', key, 400, 'invalid_parameter', 'bogus'],
      ['/sources?limit=1&limit=2', key, 400, 'invalid_parameter', 'limit'],
      ['/answers/runs', key, 400, 'invalid_parameter', 'prompt'],
      ['/tasks/abc', key, 400, 'invalid_parameter', 'id'],
      ['/nope', key, 404, 'not_found'],
      ['/visibility', null, 401, 'invalid_api_key'],
    ];
    for (const [path, k, status, code, param] of cases) {
      const r = await read(await get(path, k));
      expect({ path, status: r.status, code: r.body?.error?.code, param: (r.body?.error as { param?: string })?.param, cache: r.cache }).toEqual({ path, status, code, param, cache: 'BYPASS' });
    }
    const post = await get('/visibility', key, {}, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    // The one upstream call is the key's /brands, read once (and cached) to learn whether the key, brand
    // and plan would refuse first; no invalid request went upstream.
    expect(up.requests.map((r) => new URL(r.url).pathname)).toEqual(['/api/v1/brands']);
  });

  it('answers an invalid request as the upstream would: key, brand and plan before parameters (DESIGN section 3)', async () => {
    const revoked = freshKey('revoked');
    up.byKey.set(revoked, { status: 401, code: 'invalid_api_key' });
    const r = await read(await get('/topics?days=0', revoked));
    expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status: 401, code: 'invalid_api_key' });
    // Remembered: the next invalid request of that key is refused without asking again.
    await get('/sources?limit=0', revoked);
    expect(up.calls).toBe(1);

    const inactive = freshKey('inactive');
    up.byKey.set(inactive, { status: 403, code: 'plan_inactive' });
    const i = await read(await get('/visibility?days=7', inactive));
    expect({ status: i.status, code: i.body?.error?.code }).toEqual({ status: 403, code: 'plan_inactive' });
  });

  it('stops serving a revoked key at its next upstream check, and drops its entries', async () => {
    const key = freshKey();
    await settled('/visibility', key);
    await settled(WINDOWLESS, key);
    expect(await entriesOf(key)).toBe(2);
    up.byKey.set(key, { status: 401, code: 'invalid_api_key' });
    // Until the upstream is asked, the fresh entry is what the key could read.
    expect((await read(await get(WINDOWLESS, key))).cache).toBe('HIT');
    at(T0 + 3 * SECOND);
    const checked = await read(await get('/visibility', key, { 'cache-control': 'no-cache' }));
    expect(checked).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
    expect(await entriesOf(key)).toBe(0);
    // The other entry, still fresh a moment ago, is unusable at once, and no upstream call is spent on it.
    expect((await read(await get(WINDOWLESS, key))).status).toBe(401);
    expect(up.calls).toBe(3);
  });

  it('stops serving a revoked key once a background revalidation meets the 401', async () => {
    const key = freshKey();
    await get(WINDOWLESS, key);
    // Another read a little later: the upstream accepted the key then, so no check is due at the stale read below.
    at(T0 + 200 * SECOND);
    await settled('/prompts', key);
    up.byKey.set(key, { status: 401, code: 'invalid_api_key' });
    at(T0 + 301 * SECOND);
    // Stale-while-revalidate: this one is still answered from the cache while the upstream is asked.
    expect((await read(await settled(WINDOWLESS, key))).cache).toBe('STALE');
    // The refresh met the 401: the entry is gone and the key refused.
    expect(await entriesOf(key)).toBe(0);
    expect((await read(await get(WINDOWLESS, key))).status).toBe(401);
    expect(up.calls).toBe(3);
  });

  it('checks a key served only from the cache with the upstream 5 minutes after it last accepted it: a revoked key stops within that bound', async () => {
    const key = freshKey();
    await settled('/visibility', key); // fixed window: fresh for 1 h
    up.byKey.set(key, { status: 401, code: 'invalid_api_key' });
    at(T0 + KEY_RECHECK_MS - SECOND);
    expect((await read(await get('/visibility', key))).cache).toBe('HIT');
    expect(up.calls).toBe(1);
    at(T0 + KEY_RECHECK_MS);
    // The check: the key's own /brands, through its gate; the 401 drops its entries and this answer.
    expect(await read(await settled('/visibility', key))).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
    expect(up.requests.map((r) => new URL(r.url).pathname)).toEqual(['/api/v1/visibility', '/api/v1/brands']);
    expect(await entriesOf(key)).toBe(0);
  });

  it('a key the upstream still accepts costs one check per 5 minutes, and is served meanwhile', async () => {
    const key = freshKey();
    await settled('/visibility', key);
    for (const minute of [1, 2, 3, 4, 5, 6, 7, 8, 9]) {
      at(T0 + minute * 60 * SECOND);
      expect((await read(await settled('/visibility', key))).status).toBe(200);
    }
    // The first read, then /brands at minute 5 (and not again before minute 10).
    expect(up.requests.map((r) => new URL(r.url).pathname)).toEqual(['/api/v1/visibility', '/api/v1/brands']);
  });
});

describe('stale entries', () => {
  it('serves stale while revalidating in the background (stale-while-revalidate)', async () => {
    const key = freshKey();
    await get(WINDOWLESS, key);
    // The key is in use: the upstream accepted it recently (another read), so its stale entry needs no key check first.
    at(T0 + 200 * SECOND);
    await settled('/prompts', key);
    at(T0 + 301 * SECOND);
    const stale = await read(await settled(WINDOWLESS, key));
    expect(stale).toMatchObject({ status: 200, cache: 'STALE', age: '301', cacheControl: 'private, max-age=0' });
    expect(stale.body?.n).toBe(1);
    // Once the background refresh is done, the refreshed answer is fresh.
    const fresh = await read(await get(WINDOWLESS, key));
    expect(fresh).toMatchObject({ cache: 'HIT', age: '0', body: { n: 3 } });
    expect(up.calls).toBe(3);
  });

  it("revalidates a quiet key's stale entry before answering: the revalidation is its key check", async () => {
    const key = freshKey();
    await get(WINDOWLESS, key);
    at(T0 + 301 * SECOND);
    const revalidated = await read(await settled(WINDOWLESS, key));
    expect(revalidated).toMatchObject({ status: 200, cache: 'REVALIDATED', age: '0', body: { n: 2 } });
    expect(up.calls).toBe(2);
  });

  // 'hang': the upstream never answers and the request's timeout passes (the fake upstream runs that timer: no real wait).
  for (const fault of [{ status: 502, code: 'upstream_error' }, { status: 503 }, 'hang', 'network'] as const) {
    it(`serves stale past the revalidation window when the upstream fails (${JSON.stringify(fault)}), up to 24 h`, async () => {
      const key = freshKey();
      const original = await read(await get(WINDOWLESS, key));
      up.fault = fault;
      at(T0 + 601 * SECOND);
      const stale = await read(await get(WINDOWLESS, key));
      expect(stale).toMatchObject({ status: 200, cache: 'STALE', age: '601', etag: original.etag });
      expect(stale.text).toBe(original.text);
      at(T0 + 24 * 3600 * SECOND - SECOND);
      expect((await read(await get(WINDOWLESS, key))).cache).toBe('STALE');
      at(T0 + 24 * 3600 * SECOND + SECOND);
      const dead = await read(await get(WINDOWLESS, key));
      // An upstream error with an error body passes through as sent; silence is 502 upstream_error.
      expect(dead).toMatchObject({ status: typeof fault === 'object' ? fault.status : 502, cache: 'BYPASS', body: { error: { code: 'upstream_error' } } });
    });
  }

  it('answers 502 upstream_error when nothing is stored and the upstream fails or hangs', async () => {
    const key = freshKey();
    for (const fault of [{ status: 502, code: 'upstream_error' }, { status: 504, body: '<html>Gateway Timeout</html>' }, 'hang', 'network'] as const) {
      up.fault = fault;
      const r = await read(await get(WINDOWLESS, key));
      expect({ fault, status: r.status, code: r.body?.error?.code, cache: r.cache }).toEqual({ fault, status: 502, code: 'upstream_error', cache: 'BYPASS' });
    }
  });

  it('passes an upstream 429 on with its Retry-After, then holds the key back until then; a stored answer is served instead', async () => {
    const key = freshKey();
    const stored = await read(await get(WINDOWLESS, key));
    up.fault = { status: 429, code: 'rate_limited', headers: { 'retry-after': '30' } };
    const limited = await read(await get('/visibility', key));
    expect(limited).toMatchObject({ status: 429, retryAfter: '30', body: { error: { code: 'rate_limited' } } });
    expect(up.calls).toBe(2);
    at(T0 + 10 * SECOND);
    // The gate replays the 429 without asking the upstream again, counting down Retry-After.
    const held = await read(await get('/prompts', key));
    expect(held).toMatchObject({ status: 429, retryAfter: '20' });
    expect(up.calls).toBe(2);
    // With something stored, stale-if-error: the cached answer instead of the 429.
    at(T0 + 20 * SECOND);
    const stale = await read(await get(WINDOWLESS, key, { 'cache-control': 'no-cache' }));
    expect(stale).toMatchObject({ status: 200, cache: 'STALE' });
    expect(stale.text).toBe(stored.text);
    // After Retry-After the key goes upstream again.
    up.fault = 'ok';
    at(T0 + 31 * SECOND);
    expect((await read(await get('/prompts', key))).cache).toBe('MISS');
    expect(up.calls).toBe(3);
  });

  it('passes quota_exceeded on untouched', async () => {
    const key = freshKey();
    up.fault = { status: 429, code: 'quota_exceeded', headers: { 'retry-after': '86400' } };
    expect(await read(await get('/visibility', key))).toMatchObject({ status: 429, retryAfter: '86400', body: { error: { code: 'quota_exceeded' } } });
  });
});

describe('the fake upstream of these tests', () => {
  it("answers a demo key from the embedded origin, uncounted: a demo key's read (a refresh begun before it was installed) never stores its body", async () => {
    // On the real clock, as every other file reads the demo keys: the entry this stores is theirs.
    vi.useRealTimers();
    const revalidated = await read(await settled('/visibility', 'demo_pro_single', { 'cache-control': 'no-cache' }));
    expect(revalidated.status).toBe(200);
    const hit = await read(await settled('/visibility', 'demo_pro_single'));
    for (const answer of [revalidated, hit]) expect(answer.body).toMatchObject({ brand_id: 1, score: expect.any(Number) });
    // The fake's bodies carry its call number.
    expect(hit.body).not.toHaveProperty('n');
    expect(up.calls).toBe(0);
  });
});
