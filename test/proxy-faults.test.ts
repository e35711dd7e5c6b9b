/**
 * Fault injection between the proxy and the upstream, beyond the cache
 * tests: bodies that are truncated or not a JSON object, and 429 storms. The
 * proxy never stores such a body, serves stale when it has it, otherwise 502
 * upstream_error, and recovers with the upstream. A JSON object whose fields
 * are not the ones this product names is the upstream's business: stored and
 * served as it is.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { fakeUpstreamEachTest, freshKey, get, read, settled } from './proxy-upstream';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const fake = fakeUpstreamEachTest(T0);

const BROKEN_BODIES = {
  truncated: '{"brand_id": 1, "market": {"id": 11, "code": "us"}, "score": 4',
  'not JSON': '<html>502 Bad Gateway</html>',
  'a bare array': '[1, 2, 3]',
  'a bare string': '"ok"',
};

/** Well-formed JSON objects that another implementation of the spec may answer: not this product's field names. */
const FOREIGN_BODIES = {
  'a field missing': '{"brand_id": 1, "generated_at": "2026-11-20T10:00:00Z"}',
  'a field of another type': JSON.stringify({ brand_id: 'one', market: { id: 11, code: 'us' } }),
  'camelCase names': JSON.stringify({ brandId: 1, market: { id: 11, code: 'us' }, generatedAt: '2026-11-20T10:00:00Z', score: 41.2 }),
};

describe.each(Object.entries(FOREIGN_BODIES))('an upstream 200 with %s', (_, body) => {
  it('is stored and served as it is: the proxy does not judge bodies', async () => {
    const key = freshKey('foreign');
    fake.up.fault = { status: 200, body };
    const first = await read(await get('/visibility', key));
    expect(first).toMatchObject({ status: 200, cache: 'MISS' });
    expect(first.text).toBe(body);
    const again = await read(await get('/visibility', key));
    expect(again).toMatchObject({ status: 200, cache: 'HIT' });
    expect(again.text).toBe(body);
    expect(fake.up.calls).toBe(1);
  });
});

describe.each(Object.entries(BROKEN_BODIES))('an upstream 200 with %s', (_, body) => {
  it('is a 502 upstream_error saying what is wrong, never stored, asked again next time', async () => {
    const key = freshKey('broken');
    fake.up.fault = { status: 200, body };
    const first = await read(await get('/visibility', key));
    expect(first).toMatchObject({ status: 502, body: { error: { code: 'upstream_error' } } });
    expect(first.body?.error?.message).toMatch(/not a JSON object/);
    // Within 2 s the gate shares its last answer (checked again, refused again); after that it asks again.
    expect((await read(await get('/visibility', key))).status).toBe(502);
    expect(fake.up.calls).toBe(1);
    vi.setSystemTime(T0 + 3_000);
    expect((await read(await get('/visibility', key))).status).toBe(502);
    expect(fake.up.calls).toBe(2);
    // The upstream recovers: the next read is a MISS, then a HIT.
    fake.up.fault = 'ok';
    vi.setSystemTime(T0 + 6_000);
    expect((await read(await get('/visibility', key))).cache).toBe('MISS');
    expect((await read(await get('/visibility', key))).cache).toBe('HIT');
  });

  it('leaves a stored answer in place: stale is served instead', async () => {
    const key = freshKey('stale');
    const stored = await read(await get('/visibility', key));
    expect(stored.status).toBe(200);
    // Past fresh (1 h) and stale-while-revalidate (1 h more): the proxy must revalidate first.
    vi.setSystemTime(T0 + 2 * 3_600_000 + 1_000);
    fake.up.fault = { status: 200, body };
    const served = await read(await get('/visibility', key));
    expect(served).toMatchObject({ status: 200, cache: 'STALE' });
    expect(served.text).toBe(stored.text);
  });
});

describe('a 429 storm', () => {
  it('costs one upstream call per key while the upstream asks to wait, then recovers', async () => {
    fake.up.fault = { status: 429, code: 'rate_limited', headers: { 'retry-after': '30' } };
    const keys = Array.from({ length: 20 }, () => freshKey('storm'));
    const statuses = [];
    for (let round = 0; round < 5; round++) for (const key of keys) statuses.push((await read(await get('/prompts', key))).status);
    expect(statuses.every((s) => s === 429)).toBe(true);
    expect(fake.up.calls).toBe(keys.length);
    // After Retry-After, with the upstream well again, every key reads.
    vi.setSystemTime(T0 + 31_000);
    fake.up.fault = 'ok';
    for (const key of keys) expect((await read(await get('/prompts', key))).status).toBe(200);
    expect(fake.up.calls).toBe(2 * keys.length);
  });
});

describe('a slow body', () => {
  it('that stalls after its headers is cut by the upstream timeout: 502, nothing stored', async () => {
    let cut = false;
    const key = freshKey('slow');
    // Headers at once, half a body, then nothing until the deadline passes: the timeout must cover reading the body too.
    fake.up.answerWith = (_, deadline) =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"brand_id": 1, "market": '));
          },
          // Asked for more once the proxy has read the first half: it stalls, and its deadline passes.
          pull() {
            deadline.pass();
            return new Promise<void>(() => {});
          },
          cancel() {
            cut = true;
          },
        }),
        { headers: { 'content-type': 'application/json; charset=utf-8' } },
      );
    const answer = await read(await settled('/visibility', key));
    expect(answer).toMatchObject({ status: 502, body: { error: { code: 'upstream_error' } } });
    expect(answer.body?.error?.message).toMatch(/did not answer within 10000 ms/);
    expect(cut).toBe(true);
    // Nothing stored: the next read asks again (after the gate's 2 s of sharing a 200, which this was not).
    fake.up.answerWith = undefined;
    expect((await read(await settled('/visibility', key))).cache).toBe('MISS');
    expect(fake.up.calls).toBe(2);
  });
});

describe('a KV outage', () => {
  it('costs the cache, not the read: answers come from the upstream, with no 500', async () => {
    const failing = () => Promise.reject(new Error('KV is unavailable'));
    const brokenKv = { get: failing, getWithMetadata: failing, put: failing, list: failing, delete: failing };
    const brokenEnv = { ...env, CACHE: brokenKv } as unknown as Env;
    const key = freshKey('kv-down');
    for (let i = 0; i < 2; i++) {
      const r = await read(await settled('/visibility', key, {}, { env: brokenEnv }));
      expect(r).toMatchObject({ status: 200 });
    }
    expect(fake.up.calls).toBeGreaterThanOrEqual(1);
  });
});
