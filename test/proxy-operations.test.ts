/**
 * Every operation of the table through the proxy, with the embedded origin as
 * the upstream: its example request (the table's) answers 200 from the origin
 * and through the proxy with the same body, then HITs. This is what keeps the
 * examples true to the demo data.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { API_BASE, operationList } from '../src/contract/operations';
import { api, KEYS, ratePolicyOf, rateLimitOf, validPath } from './helpers';
import { restoreUpstream } from './proxy-upstream';

afterEach(() => restoreUpstream());

const viaProxy = (path: string, key: string, headers: Record<string, string> = {}) => api(path, { key, base: API_BASE, headers });

describe.each(operationList)('$id ($path) through the proxy', (op) => {
  it('answers its example request with 200 from the origin and through the proxy alike, then from the cache', async () => {
    const path = validPath(op.id);
    const direct = await api(path);
    const miss = await viaProxy(path, KEYS.pro, { 'cache-control': 'no-cache' });
    const [missBody, directBody] = [(await miss.json()) as Record<string, unknown>, (await direct.json()) as Record<string, unknown>];
    expect({ path, origin: direct.status }, JSON.stringify(directBody)).toEqual({ path, origin: 200 });
    expect({ path, proxy: miss.status }, JSON.stringify(missBody)).toEqual({ path, proxy: 200 });
    expect({ ...missBody, generated_at: 'x' }).toEqual({ ...directBody, generated_at: 'x' });
    expect(['MISS', 'REVALIDATED']).toContain(miss.headers.get('x-cache'));
    expect(ratePolicyOf(miss)).toBe('q=60;w=60');
    expect(miss.headers.get('ratelimit-remaining')).toBeNull();
    const hit = await viaProxy(path, KEYS.pro);
    expect(hit.status).toBe(200);
    expect(hit.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(hit.headers.get('x-request-id')).toBeTruthy();
    expect(((await hit.json()) as Record<string, unknown>).generated_at).toBe(missBody.generated_at);
  });

  it("passes the origin's errors through, uncached", async () => {
    const path = validPath(op.id);
    const revoked = await viaProxy(path, KEYS.revoked);
    expect(revoked.status).toBe(401);
    const inactive = await viaProxy(path, KEYS.inactive);
    expect(inactive.status).toBe(403);
    expect(((await inactive.json()) as { error: { code: string } }).error.code).toBe('plan_inactive');
    expect(inactive.headers.get('x-cache')).toBe('BYPASS');
  });
});

describe('an invalid request through the proxy', () => {
  it("gets the origin's own refusal, in the check order of DESIGN section 3", async () => {
    const cases: [string, string][] = [
      ['/topics?days=0', 'not_a_key'],
      ['/visibility?bogus=1', KEYS.inactive],
      ['/topics?days=0', KEYS.growth],
      ['/topics?brand_id=1&days=0', KEYS.growth],
      ['/tasks?limit=0', KEYS.starter],
      ['/topics?days=0', KEYS.pro],
    ];
    const seen: string[] = [];
    for (const [path, key] of cases) {
      const [viaEdge, direct] = [await viaProxy(path, key), await api(path, { key })];
      const [a, b] = [(await viaEdge.json()) as { error: { code: string } }, (await direct.json()) as { error: { code: string } }];
      expect({ path, key, status: viaEdge.status, code: a.error.code }).toEqual({ path, key, status: direct.status, code: b.error.code });
      // The budget fields stay within one window, though learned by a read that began after this one.
      expect(rateLimitOf(viaEdge)!.t).toBeLessThanOrEqual(60);
      seen.push(a.error.code);
    }
    expect(seen).toEqual(['invalid_api_key', 'plan_inactive', 'brand_required', 'brand_not_found', 'feature_not_in_plan', 'invalid_parameter']);
  });
});
