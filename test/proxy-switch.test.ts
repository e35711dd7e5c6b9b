/**
 * Switching the upstream (`UPSTREAM_URL`) never serves the previous service's
 * bodies: every entry's name carries the service it came from, in every tier
 * (memory, Cache API, KV), and the gate reads the service the Worker names the
 * entry after. Two services on one fetch mock, told apart by their address;
 * nothing leaves the isolate.
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freshKey, read, settled } from './proxy-upstream';
import { useUpstreamForTests } from './seams';
import { sha256Hex } from '../src/lib/hash';
import { upstreamTagOf } from '../src/proxy/cache-key';

const A = 'https://service-a.test/api/v1';
const B = 'https://service-b.test/api/v1';

/** The Worker configured for one service: the env `wrangler dev` or a deployment would give it. */
const envFor = (url: string) => ({ ...env, UPSTREAM_URL: url }) as Env;

describe('switching the upstream', () => {
  /** Each service's requests, by the address the gate sent them to. */
  let seen: string[];

  beforeEach(() => {
    seen = [];
    // Wraps the upstream the gate built from what the Worker named: only the transport is a mock, so the address read is the Worker's own.
    useUpstreamForTests(() => ({
      transport: async (request: Request) => {
        seen.push(request.url);
        const service = request.url.startsWith(A) ? 'A' : request.url.startsWith(B) ? 'B' : 'other';
        return Response.json({ service, brand_id: 1 }, { headers: { 'ratelimit-limit': '60', 'ratelimit-remaining': '59', 'ratelimit-reset': '60' } });
      },
      startTimeout: () => () => {},
    }));
  });
  afterEach(() => useUpstreamForTests());

  it("a body cached from service A is never served once the Worker reads service B, in any tier; switching back finds A's", async () => {
    const key = freshKey('switch');
    const first = await read(await settled('/visibility', key, {}, { env: envFor(A) }));
    expect(first).toMatchObject({ status: 200, cache: 'MISS', body: { service: 'A' } });
    // The memory copy answers now, KV and the Cache API hold it too.
    expect(await read(await settled('/visibility', key, {}, { env: envFor(A) }))).toMatchObject({ cache: 'HIT', body: { service: 'A' } });

    const afterSwitch = await read(await settled('/visibility', key, {}, { env: envFor(B) }));
    expect(afterSwitch).toMatchObject({ status: 200, cache: 'MISS', body: { service: 'B' } });
    expect(await read(await settled('/visibility', key, {}, { env: envFor(B) }))).toMatchObject({ cache: 'HIT', body: { service: 'B' } });
    expect(seen).toEqual([`${A}/visibility`, `${B}/visibility`]);

    // Back to A: its own entry, still fresh, and no read of either service.
    expect(await read(await settled('/visibility', key, {}, { env: envFor(A) }))).toMatchObject({ cache: 'HIT', body: { service: 'A' } });
    expect(seen).toHaveLength(2);

    // One entry per service in KV, under the key's prefix (a purge or a revocation finds both), each named by its service.
    const prefix = `v1:${await sha256Hex(key)}:`;
    const names = (await env.CACHE.list({ prefix })).keys.map((k) => k.name.slice(prefix.length).split(':')[0]);
    expect(names.sort()).toEqual([await upstreamTagOf(envFor(A)), await upstreamTagOf(envFor(B))].sort());
    const purge = await SELF.fetch('https://edge.test/admin/cache/purge', {
      method: 'POST',
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key }),
    });
    expect(await purge.json()).toEqual({ purged: 2 });
    expect((await env.CACHE.list({ prefix })).keys).toHaveLength(0);
  });

  it("the stale copy of service A is not served as stale-if-error after the switch: B failing is B's 502", async () => {
    const key = freshKey('switch-fail');
    expect(await read(await settled('/visibility', key, {}, { env: envFor(A) }))).toMatchObject({ cache: 'MISS', body: { service: 'A' } });
    useUpstreamForTests(() => ({
      transport: async (request: Request) => {
        seen.push(request.url);
        return new Response(JSON.stringify({ error: { code: 'upstream_error', message: 'down' } }), { status: 503, headers: { 'content-type': 'application/json' } });
      },
      startTimeout: () => () => {},
    }));
    const answer = await read(await settled('/visibility', key, {}, { env: envFor(B) }));
    expect(answer.status).toBe(503);
    expect(answer.text).not.toContain('"service"');
    expect(seen.at(-1)).toBe(`${B}/visibility`);
  });

  it("the tag is the service's: the same address (a trailing slash aside) is one service, the embedded origin another", async () => {
    expect(await upstreamTagOf(envFor(`${A}/`))).toBe(await upstreamTagOf(envFor(A)));
    expect(await upstreamTagOf(envFor(''))).not.toBe(await upstreamTagOf(envFor(A)));
    expect(await upstreamTagOf(envFor(A))).toMatch(/^[0-9a-f]{12}$/);
  });
});
