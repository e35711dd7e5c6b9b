/**
 * A hostile upstream, through the Worker: answers larger than
 * UPSTREAM_MAX_BYTES (declared by `Content-Length`, or chunked without it),
 * a body that never ends. Each is abandoned at the limit, its stream
 * cancelled, and answered 502 `upstream_error` naming the limit; nothing is
 * stored in any tier, so the next read goes upstream again. The upstream is
 * the tests' fake (test/proxy-upstream.ts): no request leaves the process.
 */
import { env } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { API_BASE } from '../src/contract/operations';
import { matchOperation } from '../src/contract/request';
import { sha256Hex } from '../src/lib/hash';
import { cacheKeyOf, validate } from '../src/proxy/cache-key';
import { CACHE_URL_BASE, DEFAULT_UPSTREAM_MAX_BYTES } from '../src/proxy/policy';
import { FakeUpstream, freshKey, read, restoreUpstream, settled } from './proxy-upstream';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const MiB = 1024 * 1024;
/** What the network hands over at a time, roughly. */
const CHUNK = 64 * 1024;
const PATH = '/topics';

let up: FakeUpstream;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
  up = new FakeUpstream().install();
});
afterEach(() => {
  restoreUpstream();
  vi.useRealTimers();
});

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
  return cacheKeyOf(key, await sha256Hex(key), validate(matchOperation(url.pathname)!, url, Date.now()).canonical);
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
    up.answerWith = () => new Response(huge.stream, { headers: { 'content-type': 'application/json', 'content-length': String(30 * MiB) } });
    const answer = await read(await settled(PATH, key));
    expectTooLarge(answer);
    expect(huge.seen.cancelled).toBe(true);
    // What the stream queued by itself, never the body.
    expect(huge.seen.produced).toBeLessThanOrEqual(CHUNK);
    await expectNothingStored(key, PATH);

    up.answerWith = undefined;
    vi.setSystemTime(T0 + 3_000);
    const next = await read(await settled(PATH, key));
    expect(next).toMatchObject({ status: 200, cache: 'MISS' });
    expect(JSON.parse(next.text)).toMatchObject({ brand_id: 1 });
    expect((await read(await settled(PATH, key))).cache).toBe('HIT');
  });

  it('chunked, without Content-Length (30 MiB): read no further than the limit, cancelled, 502, nothing stored', async () => {
    const key = freshKey('huge-chunked');
    const huge = hugeBody(30 * MiB);
    up.answerWith = () => new Response(huge.stream, { headers: { 'content-type': 'application/json' } });
    expectTooLarge(await read(await settled(PATH, key)));
    expect(huge.seen.cancelled).toBe(true);
    expect(huge.seen.produced).toBeLessThanOrEqual(DEFAULT_UPSTREAM_MAX_BYTES + 2 * CHUNK);
    await expectNothingStored(key, PATH);
    // Not a HIT of a cut copy: the next read asks the upstream again.
    up.answerWith = undefined;
    vi.setSystemTime(T0 + 3_000);
    expect(await read(await settled(PATH, key))).toMatchObject({ status: 200, cache: 'MISS' });
    expect(up.calls).toBe(2);
  });

  it('a body that never ends: 502 at the limit, not at the timeout (which never passes here)', async () => {
    const key = freshKey('endless');
    const endless = hugeBody(Infinity);
    up.answerWith = () => new Response(endless.stream, { headers: { 'content-type': 'application/json' } });
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
    up.answerWith = () => new Response(hugeBody(30 * MiB).stream, { headers: { 'content-type': 'application/json' } });
    const response = await settled(PATH, key);
    expect(response.headers.get('cache-status')).toContain('detail=too_large');
    expect(await read(response)).toMatchObject({ status: 200, cache: 'STALE', text: stored.text });
  });

  it('follows the setting: an answer of exactly the limit is served, one byte more is not', async () => {
    const limit = 4096;
    up.install(10_000, limit);
    const body = (size: number) => `{"brand_id": 1, "pad": "${'a'.repeat(size - 26)}"}`;
    expect(body(limit)).toHaveLength(limit);
    up.answerWith = () => new Response(body(limit), { headers: { 'content-type': 'application/json' } });
    expect(await read(await settled(PATH, freshKey('limit')))).toMatchObject({ status: 200, cache: 'MISS', text: body(limit) });
    up.answerWith = () => new Response(body(limit + 1), { headers: { 'content-type': 'application/json' } });
    expectTooLarge(await read(await settled(PATH, freshKey('limit-and-one'))), limit);
  });
});
