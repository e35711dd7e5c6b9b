/** POST /admin/cache/purge and GET /admin/cache/stats, through the Worker. */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import worker from './worker';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeUpstream, freshKey, get, read, restoreUpstream, settled } from './proxy-upstream';

let up: FakeUpstream;
beforeEach(() => {
  up = new FakeUpstream().install();
  vi.setSystemTime(Date.parse('2026-11-20T10:00:00Z'));
});
afterEach(() => {
  restoreUpstream();
  vi.useRealTimers();
});

function admin(path: string, o: { token?: string | null; method?: string; body?: unknown } = {}): Promise<Response> {
  const headers = new Headers({ 'content-type': 'application/json' });
  const token = o.token === undefined ? env.ADMIN_TOKEN : o.token;
  if (token) headers.set('authorization', `Bearer ${token}`);
  return SELF.fetch(`https://edge.test/admin/cache${path}`, { method: o.method ?? 'POST', headers, ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}) });
}

/** Reads once, waiting for the background work (the cache write, a refresh), then once more: a HIT. */
async function cached(path: string, key: string): Promise<void> {
  await settled(path, key);
  expect((await read(await get(path, key))).cache).toBe('HIT');
}

describe('purge', () => {
  it('needs the admin token', async () => {
    for (const token of [null, 'wrong', 'demo_pro_single']) {
      const response = await admin('/purge', { token, body: { all: true } });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    }
    expect((await admin('/stats', { token: null, method: 'GET' })).status).toBe(401);
  });

  it('refuses a body that names no target', async () => {
    for (const body of [{}, { brand_id: 'x' }, { all: false }, { api_key: 'k', all: true }]) {
      const response = await admin('/purge', { body });
      expect(response.status).toBe(400);
    }
  });

  it("purges one key's entries, leaving other keys' alone", async () => {
    const [a, b] = [freshKey('a'), freshKey('b')];
    await cached('/visibility', a);
    await cached('/activity', a);
    await cached('/visibility', b);
    const response = await admin('/purge', { body: { api_key: a } });
    expect(await response.json()).toEqual({ purged: 2 });
    expect((await read(await get('/visibility', a))).cache).toBe('MISS');
    expect((await read(await get('/visibility', b))).cache).toBe('HIT');
  });

  it('purges by brand, across keys', async () => {
    const [a, b] = [freshKey('a'), freshKey('b')];
    up.brandId = 9001;
    await cached('/visibility', a);
    await cached('/visibility', b);
    up.brandId = 9002;
    await cached('/activity', a);
    expect(await (await admin('/purge', { body: { brand_id: 9001 } })).json()).toEqual({ purged: 2 });
    expect((await read(await get('/visibility', a))).cache).toBe('MISS');
    expect((await read(await get('/visibility', b))).cache).toBe('MISS');
    expect((await read(await get('/activity', a))).cache).toBe('HIT');
  });

  it('purges everything', async () => {
    const key = freshKey();
    await cached('/visibility', key);
    const { purged } = (await (await admin('/purge', { body: { all: true } })).json()) as { purged: number };
    expect(purged).toBeGreaterThanOrEqual(1);
    expect((await env.CACHE.list({ prefix: 'v1:' })).keys).toHaveLength(0);
    expect((await read(await get('/visibility', key))).cache).toBe('MISS');
  });
});

describe('stats', () => {
  it('counts hits, misses, stale serves, upstream calls, coalesced reads and errors', async () => {
    const before = (await (await admin('/stats', { method: 'GET' })).json()) as Record<string, number>;
    const key = freshKey();
    await cached('/activity', key); // a miss, then a hit
    vi.setSystemTime(Date.parse('2026-11-20T10:04:00Z'));
    await get('/prompts', key); // a miss: the key is in use, so its stale entry below needs no key check first
    vi.setSystemTime(Date.parse('2026-11-20T10:05:01Z'));
    await cached('/activity', key); // stale while the background refresh runs, then a hit
    up.fault = { status: 502, code: 'upstream_error' };
    await get('/visibility', key); // an upstream error, passed through
    const after = (await (await admin('/stats', { method: 'GET' })).json()) as Record<string, number>;
    const delta = (name: string) => after[name]! - before[name]!;
    expect(delta('misses')).toBe(2);
    expect(delta('hits')).toBe(2);
    expect(delta('stale')).toBe(1);
    expect(delta('upstream_calls')).toBe(4);
    expect(delta('upstream_errors')).toBe(1);
    expect(typeof after.since).toBe('string');
  });

  it('counts the requests refused at the edge without an upstream call as rejected', async () => {
    const before = (await (await admin('/stats', { method: 'GET' })).json()) as Record<string, number>;
    const key = freshKey('refused');
    up.fault = { status: 401, code: 'invalid_api_key' };
    expect((await get('/visibility', key)).status).toBe(401); // the upstream says so: not a refusal
    expect((await get('/topics', key)).status).toBe(401); // remembered: refused at the edge
    expect((await get('/prompts', key)).status).toBe(401);
    const after = (await (await admin('/stats', { method: 'GET' })).json()) as Record<string, number>;
    expect({ rejected: after.rejected! - before.rejected!, upstream_calls: after.upstream_calls! - before.upstream_calls! }).toEqual({ rejected: 2, upstream_calls: 1 });
  });
});

describe('CORS', () => {
  const dash = 'https://dash.example';
  const withCors = { ...env, CORS_ORIGINS: dash } as unknown as Env;
  async function fromDashboard(path: string, init: { method: string; headers?: Record<string, string>; body?: string }): Promise<Response> {
    const ctx = createExecutionContext();
    const request = new Request(`https://edge.test${path}`, { ...init, headers: { origin: dash, ...init.headers } });
    const response = await worker.fetch!(request as Request<unknown, IncomingRequestCfProperties>, withCors, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  }
  const corsHeaders = (response: Response) => [...response.headers].filter(([name, value]) => name.startsWith('access-control-') || (name === 'vary' && /origin/i.test(value)));

  it('admin routes carry no CORS headers, even for an origin CORS_ORIGINS allows on /api/v1', async () => {
    // The same env grants the dashboard /api/v1: CORS is on, and the admin routes still say nothing.
    const api = await fromDashboard('/api/v1/visibility', { method: 'GET', headers: { authorization: `Bearer ${freshKey()}` } });
    expect(api.headers.get('access-control-allow-origin')).toBe(dash);
    const token = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
    const answers = {
      stats: await fromDashboard('/admin/cache/stats', { method: 'GET', headers: token }),
      purge: await fromDashboard('/admin/cache/purge', { method: 'POST', headers: { ...token, 'content-type': 'application/json' }, body: JSON.stringify({ api_key: freshKey() }) }),
      'no token': await fromDashboard('/admin/cache/stats', { method: 'GET' }),
      'wrong method': await fromDashboard('/admin/cache/purge', { method: 'GET', headers: token }),
      unknown: await fromDashboard('/admin/cache/nope', { method: 'GET', headers: token }),
      preflight: await fromDashboard('/admin/cache/purge', {
        method: 'OPTIONS',
        headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      }),
    };
    expect(Object.fromEntries(Object.entries(answers).map(([what, r]) => [what, r.status]))).toEqual({ stats: 200, purge: 200, 'no token': 401, 'wrong method': 405, unknown: 404, preflight: 401 });
    expect(Object.fromEntries(Object.entries(answers).map(([what, r]) => [what, corsHeaders(r)]))).toEqual({ stats: [], purge: [], 'no token': [], 'wrong method': [], unknown: [], preflight: [] });
  });
});
