/**
 * A hostile upstream, through the Worker: answers larger than
 * UPSTREAM_MAX_BYTES (declared by `Content-Length`, or chunked without it),
 * a body that never ends, a redirect to a private address (refused, and
 * named only in the operator's log). Each is abandoned at the limit, its stream
 * cancelled, and answered 502 `upstream_error` naming the limit; nothing is
 * stored in any tier, so the next read goes upstream again. A stored copy
 * that is not whole (cut in the Cache API or in KV, written there by the
 * test) is never served, and a write that fails leaves no copy; the
 * isolate's memory copies stay within their size budget. The upstream is
 * the tests' fake (test/proxy-upstream.ts): no request leaves the process.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { API_BASE } from '../src/contract/operations';
import { matchOperation } from '../src/contract/request';
import { sha256Hex } from '../src/lib/hash';
import { cacheKeyOf, upstreamTagOf, validate } from '../src/proxy/cache-key';
import { CACHE_URL_BASE, DEFAULT_UPSTREAM_MAX_BYTES, MEMORY_TIER_MAX_CHARS } from '../src/proxy/policy';
import { CacheStore, makeEntry } from '../src/proxy/store';
import { fakeUpstreamEachTest, freshKey, read, settled } from './proxy-upstream';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const MiB = 1024 * 1024;
/** What the network hands over at a time, roughly. */
const CHUNK = 64 * 1024;
const PATH = '/topics';

const fake = fakeUpstreamEachTest(T0);

/**
 * A valid JSON object of `total` bytes (Infinity: a body that never ends),
 * made chunk by chunk as it is read, recording how much was made and whether
 * the reader cancelled it.
 */
function hugeBody(total: number) {
  const seen = { produced: 0, cancelled: false };
  const encoder = new TextEncoder();
  const head = encoder.encode('{"brand_id": 1, "pad": "');
  const tail = encoder.encode('"}');
  const pad = new Uint8Array(CHUNK).fill(0x61);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const left = total - seen.produced;
      const chunk = seen.produced === 0 ? head : left <= tail.length ? tail.subarray(0, left) : pad.subarray(0, Math.min(CHUNK, left - tail.length));
      if (left <= 0) return controller.close();
      seen.produced += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

/** The entry name of `path` for `key` (policy.ts's layout), to look in KV and the Cache API. */
async function entryName(key: string, path: string): Promise<string> {
  const url = new URL(`https://edge.test${API_BASE}${path}`);
  return cacheKeyOf(key, await sha256Hex(key), await upstreamTagOf(env), validate(matchOperation(url.pathname)!, url, Date.now()).canonical);
}

/** Nothing of `path` for `key` in KV or this location's Cache API. */
async function expectNothingStored(key: string, path: string): Promise<void> {
  const name = await entryName(key, path);
  expect(await env.CACHE.get(name)).toBeNull();
  expect(await caches.default.match(CACHE_URL_BASE + name)).toBeUndefined();
}

/** The 502 of an answer over the limit: the API's error shape, naming the setting and its value. */
function expectTooLarge(answer: Awaited<ReturnType<typeof read>>, limit = DEFAULT_UPSTREAM_MAX_BYTES) {
  expect(answer).toMatchObject({ status: 502, cache: 'BYPASS', body: { error: { code: 'upstream_error' } } });
  expect(answer.body?.error?.message).toContain(`UPSTREAM_MAX_BYTES (${limit} bytes)`);
}

describe('an upstream answer over UPSTREAM_MAX_BYTES', () => {
  it('is at most 4 MiB by default', () => {
    expect(DEFAULT_UPSTREAM_MAX_BYTES).toBeLessThanOrEqual(8 * MiB);
  });

  it('declared by Content-Length (30 MiB of valid JSON): refused unread, 502, nothing stored, the next read a MISS of the whole answer', async () => {
    const key = freshKey('huge-declared');
    const huge = hugeBody(30 * MiB);
    fake.up.answerWith = () => new Response(huge.stream, { headers: { 'content-type': 'application/json', 'content-length': String(30 * MiB) } });
    const answer = await read(await settled(PATH, key));
    expectTooLarge(answer);
    expect(huge.seen.cancelled).toBe(true);
    // What the stream queued by itself, never the body.
    expect(huge.seen.produced).toBeLessThanOrEqual(CHUNK);
    await expectNothingStored(key, PATH);

    fake.up.answerWith = undefined;
    vi.setSystemTime(T0 + 3_000);
    const next = await read(await settled(PATH, key));
    expect(next).toMatchObject({ status: 200, cache: 'MISS' });
    expect(JSON.parse(next.text)).toMatchObject({ brand_id: 1 });
    expect((await read(await settled(PATH, key))).cache).toBe('HIT');
  });

  it('chunked, without Content-Length (30 MiB): read no further than the limit, cancelled, 502, nothing stored', async () => {
    const key = freshKey('huge-chunked');
    const huge = hugeBody(30 * MiB);
    fake.up.answerWith = () => new Response(huge.stream, { headers: { 'content-type': 'application/json' } });
    expectTooLarge(await read(await settled(PATH, key)));
    expect(huge.seen.cancelled).toBe(true);
    expect(huge.seen.produced).toBeLessThanOrEqual(DEFAULT_UPSTREAM_MAX_BYTES + 2 * CHUNK);
    await expectNothingStored(key, PATH);
    // Not a HIT of a cut copy: the next read asks the upstream again.
    fake.up.answerWith = undefined;
    vi.setSystemTime(T0 + 3_000);
    expect(await read(await settled(PATH, key))).toMatchObject({ status: 200, cache: 'MISS' });
    expect(fake.up.calls).toBe(2);
  });

  it('a body that never ends: 502 at the limit, not at the timeout (which never passes here)', async () => {
    const key = freshKey('endless');
    const endless = hugeBody(Infinity);
    fake.up.answerWith = () => new Response(endless.stream, { headers: { 'content-type': 'application/json' } });
    expectTooLarge(await read(await settled(PATH, key)));
    expect(endless.seen.cancelled).toBe(true);
    expect(endless.seen.produced).toBeLessThanOrEqual(DEFAULT_UPSTREAM_MAX_BYTES + 2 * CHUNK);
    await expectNothingStored(key, PATH);
  });

  it('leaves a stored copy in place: stale is served, as for any upstream failure', async () => {
    const key = freshKey('huge-stale');
    const stored = await read(await settled(PATH, key));
    // Past fresh (5 min) and stale-while-revalidate (5 min more): the proxy must ask the upstream first.
    vi.setSystemTime(T0 + 11 * 60_000);
    fake.up.answerWith = () => new Response(hugeBody(30 * MiB).stream, { headers: { 'content-type': 'application/json' } });
    const response = await settled(PATH, key);
    expect(response.headers.get('cache-status')).toContain('detail=too_large');
    expect(await read(response)).toMatchObject({ status: 200, cache: 'STALE', text: stored.text });
  });

  it('follows the setting: an answer of exactly the limit is served, one byte more is not', async () => {
    const limit = 4096;
    fake.up.install(10_000, limit);
    const body = (size: number) => `{"brand_id": 1, "pad": "${'a'.repeat(size - 26)}"}`;
    expect(body(limit)).toHaveLength(limit);
    fake.up.answerWith = () => new Response(body(limit), { headers: { 'content-type': 'application/json' } });
    expect(await read(await settled(PATH, freshKey('limit')))).toMatchObject({ status: 200, cache: 'MISS', text: body(limit) });
    fake.up.answerWith = () => new Response(body(limit + 1), { headers: { 'content-type': 'application/json' } });
    expectTooLarge(await read(await settled(PATH, freshKey('limit-and-one'))), limit);
  });
});

describe('a redirect to a private address', () => {
  const METADATA = 'http://169.254.169.254';

  it.each([
    ['an absolute URL', `${METADATA}/latest/meta-data/iam/security-credentials/`, METADATA],
    ['a scheme-relative URL', '//10.0.0.7:8080/internal?token=abc', 'https://10.0.0.7:8080'],
  ])("given as %s: 502 saying the upstream redirected and nothing was followed, the target in the operator's log only", async (_, location, origin) => {
    const key = freshKey('redirect');
    fake.up.answerWith = () => new Response(null, { status: 302, headers: { location } });
    const warned: string[] = [];
    const spy = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warned.push(args.map(String).join(' ')));
    let response: Response;
    try {
      response = await settled(PATH, key);
    } finally {
      spy.mockRestore();
    }
    const answer = await read(response);
    expect(answer).toMatchObject({ status: 502, body: { error: { code: 'upstream_error' } } });
    expect(answer.body?.error?.message).toMatch(/^The upstream redirected elsewhere; nothing was followed/);
    // Neither the body nor any header names where it pointed.
    const host = new URL(origin).hostname;
    expect(answer.text).not.toContain(host);
    for (const [name, value] of response.headers) expect(`${name}: ${value}`).not.toContain(host);
    // Only the fake upstream was asked: nothing went to the address (a fake transport: nothing would leave the process anyway).
    expect(fake.up.requests.map((r) => new URL(r.url).origin)).toEqual(['https://upstream.test']);
    // The operator's log has the origin it pointed to, never its path, query or the key.
    const line = warned.find((l) => l.includes('redirected to another origin'));
    expect(line && JSON.parse(line)).toMatchObject({ target: origin });
    expect(warned.join('\n')).not.toMatch(/meta-data|token=|internal/);
    expect(warned.join('\n')).not.toContain(key);
  });

  it('an upstream error whose Content-Type says more than a media type: the 502 repeats the media type only', async () => {
    fake.up.fault = { status: 500, body: '<html>down</html>', headers: { 'content-type': `text/html; see=${METADATA}/` } };
    const answer = await read(await settled(PATH, freshKey('type')));
    expect(answer).toMatchObject({ status: 502, body: { error: { code: 'upstream_error' } } });
    expect(answer.body?.error?.message).toContain('HTTP 500 with text/html,');
    expect(answer.text).not.toContain('169.254');
  });
});

describe('a stored copy that is not whole', () => {
  /** Past the isolate's copy (5 s), well within fresh: the next read looks in the Cache API, then KV. */
  const PAST_MEMORY = 6_000;

  /** Stores the answer of `path` for a new key; returns the key, the entry's name and the whole body. */
  async function stored(label: string, path = PATH) {
    const key = freshKey(label);
    const first = await read(await settled(path, key));
    expect(first).toMatchObject({ status: 200, cache: 'MISS' });
    const name = await entryName(key, path);
    expect(await env.CACHE.get(name)).not.toBeNull();
    expect(await caches.default.match(CACHE_URL_BASE + name)).toBeDefined();
    vi.setSystemTime(T0 + PAST_MEMORY);
    return { key, name, whole: first.text };
  }

  /** Replaces the Cache API copy's body with its first half, its headers (length included) kept. */
  async function cutEdgeCopy(name: string): Promise<void> {
    const copy = (await caches.default.match(CACHE_URL_BASE + name))!;
    const body = await copy.text();
    await caches.default.put(CACHE_URL_BASE + name, new Response(body.slice(0, body.length >> 1), { headers: copy.headers }));
  }

  it("in the Cache API (its body cut): not served, dropped, and KV's whole copy answers", async () => {
    const { key, name, whole } = await stored('cut-edge');
    await cutEdgeCopy(name);
    expect(await read(await settled(PATH, key))).toMatchObject({ status: 200, cache: 'HIT', text: whole });
    expect(fake.up.calls).toBe(1);
    // The cut copy went; KV's whole one took its place.
    expect(await (await caches.default.match(CACHE_URL_BASE + name))?.text()).toBe(whole);
  });

  it.each([
    ['cut mid-value (not JSON)', (value: string) => value.slice(0, value.length >> 1)],
    ['with a shorter body (valid JSON)', (value: string) => JSON.stringify({ ...JSON.parse(value), body: '{"brand_id": 1}' })],
  ])('in KV, %s: not served, dropped, the upstream asked again', async (_, spoil) => {
    const { key, name } = await stored('cut-kv');
    await caches.default.delete(CACHE_URL_BASE + name);
    const { value, metadata } = await env.CACHE.getWithMetadata(name, 'text');
    await env.CACHE.put(name, spoil(value!), { metadata });
    // The upstream fails now: with the spoiled copy dropped there is nothing to serve, not even as stale.
    fake.up.fault = { status: 503 };
    expect(await read(await settled(PATH, key))).toMatchObject({ status: 503, cache: 'BYPASS' });
    expect(await env.CACHE.get(name)).toBeNull();
    fake.up.fault = 'ok';
    vi.setSystemTime(T0 + 2 * PAST_MEMORY);
    expect(await read(await settled(PATH, key))).toMatchObject({ status: 200, cache: 'MISS' });
  });

  it("in both tiers: not served; the answer is the upstream's, whole", async () => {
    const { key, name } = await stored('cut-both');
    await cutEdgeCopy(name);
    const { value, metadata } = await env.CACHE.getWithMetadata(name, 'text');
    await env.CACHE.put(name, value!.slice(0, -10), { metadata });
    const answer = await read(await settled(PATH, key));
    expect(answer).toMatchObject({ status: 200, cache: 'MISS' });
    expect(JSON.parse(answer.text)).toMatchObject({ brand_id: 1, n: 2 });
  });

  it('a write that fails in one tier leaves no copy in the other', async () => {
    const failingPut = { ...env.CACHE, put: () => Promise.reject(new Error('KV: value too large')) } as unknown as KVNamespace;
    // The real namespace's methods, bound: only `put` fails.
    for (const method of ['get', 'getWithMetadata', 'list', 'delete'] as const) (failingPut as unknown as Record<string, unknown>)[method] = env.CACHE[method].bind(env.CACHE);
    const testEnv = { ...env, CACHE: failingPut } as unknown as Env;
    const key = freshKey('failed-write');
    expect(await read(await settled(PATH, key, {}, { env: testEnv }))).toMatchObject({ status: 200, cache: 'MISS' });
    await expectNothingStored(key, PATH);
  });
});

describe("the isolate's memory copies", () => {
  it('hold at most MEMORY_TIER_MAX_CHARS of bodies, the oldest going first, however large the answers', async () => {
    const kv = { put: async () => {}, delete: async () => {} } as unknown as KVNamespace;
    const work: Promise<unknown>[] = [];
    const store = new CacheStore(kv, (w) => work.push(w));
    const now = Date.now();
    const body = `{"pad": "${'a'.repeat(MEMORY_TIER_MAX_CHARS / 2 - 20)}"}`;
    // Dead within the second: kept in memory, too short-lived for a Cache API copy.
    const brief = { storedAt: now, freshUntil: now + 999, revalidateUntil: now + 999, staleUntil: now + 999 };
    const names = ['first', 'second', 'third'].map((n) => `test-memory:${n}`);
    for (const name of names) store.write(name, makeEntry(body, '"e"', brief, undefined), now);
    await Promise.all(work);
    expect(names.map((name) => store.recall(name, now) !== undefined)).toEqual([false, true, true]);
    for (const name of names) await store.delete(name);
  });
});
