/**
 * Abuse (issue 7): a flood of random or revoked keys cannot spend the
 * upstream's budget or create unbounded state. Random keys from one address
 * are cut off after UNVERIFIED_PER_MINUTE upstream reads; a key that failed
 * is refused at the edge for a minute, remembered in KV for every isolate.
 */
import { env } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAILED_AUTH_TTL_S, UNVERIFIED_PER_MINUTE } from '../src/proxy/abuse';
import { hashApiKey } from '../src/proxy/request';
import { FakeUpstream, freshKey, get, restoreUpstream } from './proxy-upstream';

let upstream: FakeUpstream;
beforeEach(() => {
  upstream = new FakeUpstream().install();
});
afterEach(() => restoreUpstream());

const from = (address: string) => ({ 'cf-connecting-ip': address });

describe('a flood of random keys from one address', () => {
  it('reaches the upstream at most UNVERIFIED_PER_MINUTE times, then gets 429 at the edge', async () => {
    upstream.fault = { status: 401, code: 'invalid_api_key' };
    const statuses: number[] = [];
    for (let i = 0; i < UNVERIFIED_PER_MINUTE + 30; i++) statuses.push((await get('/visibility', freshKey('flood'), from('198.51.100.7'))).status);
    expect(upstream.calls).toBe(UNVERIFIED_PER_MINUTE);
    expect(statuses.filter((s) => s === 401)).toHaveLength(UNVERIFIED_PER_MINUTE);
    expect(statuses.slice(UNVERIFIED_PER_MINUTE).every((s) => s === 429)).toBe(true);
  });

  it('does not stop another address, nor a key already verified at the flooded one', async () => {
    const good = freshKey('good');
    upstream.fault = 'ok';
    expect((await get('/visibility', good, from('198.51.100.8'))).status).toBe(200);
    upstream.fault = { status: 401, code: 'invalid_api_key' };
    for (let i = 0; i < UNVERIFIED_PER_MINUTE + 5; i++) await get('/visibility', freshKey('flood'), from('198.51.100.8'));
    const callsAfterFlood = upstream.calls;
    upstream.fault = 'ok';
    // The verified key still reads, from cache and from the upstream.
    expect((await get('/visibility', good, from('198.51.100.8'))).status).toBe(200);
    expect((await get('/topics', good, from('198.51.100.8'))).status).toBe(200);
    expect(upstream.calls).toBe(callsAfterFlood + 1);
    expect((await get('/visibility', freshKey('other'), from('198.51.100.9'))).status).toBe(200);
  });
});

describe('a key that failed authentication', () => {
  it('is refused at the edge for a minute, without another upstream call, and remembered in KV for other isolates', async () => {
    const revoked = freshKey('revoked');
    upstream.byKey.set(revoked, { status: 401, code: 'invalid_api_key' });
    expect((await get('/visibility', revoked, from('192.0.2.10'))).status).toBe(401);
    expect(upstream.calls).toBe(1);
    for (const path of ['/visibility', '/topics', '/prompts']) expect((await get(path, revoked, from('192.0.2.10'))).status).toBe(401);
    expect(upstream.calls).toBe(1);
    const hash = await hashApiKey(revoked);
    await expect.poll(() => env.CACHE.getWithMetadata(`authfail:v1:${hash}`).then((r) => r.value)).toBe('1');
    expect(FAILED_AUTH_TTL_S).toBe(60);
  });
});
