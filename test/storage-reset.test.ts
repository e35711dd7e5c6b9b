/** The reset that starts every test file but a worker's first (test/storage-reset.ts): what one file leaves, the next never reads. */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { API_BASE } from '../src/contract/operations';
import { api, DEMO, json, KEYS } from './helpers';
import { DEMO_WRITES, restoreStorage } from './storage-reset';

const brandName = async (id: number) => (await env.DB.prepare('SELECT name FROM brands WHERE id = ?').bind(id).first<{ name: string }>())?.name;

describe('the per-file reset', () => {
  it('copies back the demo tables a file changed, and the API reads them as loaded', async () => {
    const loaded = await brandName(DEMO.proBrand);
    await env.DB.prepare('UPDATE brands SET name = ? WHERE id = ?').bind('Renamed by a test', DEMO.proBrand).run();
    await env.DB.prepare("UPDATE topics SET name = name || ' (edited)' WHERE brand_id = ?").bind(DEMO.proBrand).run();
    const keys = () => env.DB.prepare('SELECT count(*) AS n FROM api_keys').first<number>('n');
    const loadedKeys = await keys();
    await env.DB.prepare("INSERT INTO api_keys (account_id, key_hash, label, created_at) VALUES (1, 'a-hash', 'a test key', '2026-01-01T00:00:00Z')").run();

    expect(await restoreStorage()).toEqual(['api_keys', 'brands', 'topics']);

    expect(await keys()).toBe(loadedKeys);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM topics WHERE name LIKE '% (edited)'").first('n')).toBe(0);

    expect(await brandName(DEMO.proBrand)).toBe(loaded);
    const { brands } = await json<{ brands: { id: number; name: string }[] }>(await api('/brands'));
    expect(brands.find((brand) => brand.id === DEMO.proBrand)?.name).toBe(loaded);
    // The copying back is not taken for a file's write.
    expect(await env.DB.prepare(`SELECT count(*) AS n FROM ${DEMO_WRITES}`).first('n')).toBe(0);
  });

  it("empties the product's tables, the KV namespaces and the proxy's cache, and leaves the demo tables alone when no file wrote them", async () => {
    const sessions = () => env.DB.prepare('SELECT count(*) AS n FROM account_sessions').first<number>('n');
    await env.DB.prepare(
      "INSERT INTO account_sessions (id_hash, key_sealed, key_hash, secret_tag, created_at, expires_at) SELECT 'reset-test', '', key_hash, '', '2026-01-01T00:00:00Z', '2099-01-01T00:00:00Z' FROM api_keys LIMIT 1",
    ).run();
    await env.OAUTH_KV.put('grant:reset-test', '{}');
    const first = await api('/brands', { base: API_BASE, key: KEYS.pro });
    await first.arrayBuffer();
    const second = await api('/brands', { base: API_BASE, key: KEYS.pro });
    await second.arrayBuffer();
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(await sessions()).toBeGreaterThan(0);

    expect(await restoreStorage()).toEqual([]);

    expect(await sessions()).toBe(0);
    expect(await env.OAUTH_KV.get('grant:reset-test')).toBeNull();
    expect((await env.CACHE.list()).keys).toEqual([]);
    const after = await api('/brands', { base: API_BASE, key: KEYS.pro });
    await after.arrayBuffer();
    expect(after.headers.get('x-cache')).toBe('MISS');
  });
});
