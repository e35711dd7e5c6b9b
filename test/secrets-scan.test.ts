/**
 * Isolation and secrets (issue 7): after real traffic with a distinctive
 * key through the proxy, the origin and the digest subscriptions, the key
 * appears in no log line, no KV name, value or metadata, no D1 row and no
 * response body. Only its hash may be stored.
 */
import { env, SELF } from 'cloudflare:test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_BASE } from '../src/contract/operations';
import { sha256Hex } from '../src/hash';

const SECRET_KEY = 'scan_me_7Qx9Lm2Vb8Np4Kd1';
const logged: string[] = [];
const bodies: string[] = [];

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const response = await SELF.fetch(`https://edge.test${path}`, { ...init, headers: { authorization: `Bearer ${SECRET_KEY}`, ...init.headers } });
  bodies.push(await response.clone().text());
  return response;
}

beforeAll(async () => {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a) ?? String(a))).join(' '));
    });
  }
  // A key of demo_pro_single's account, used for nothing but this scan.
  await env.DB.prepare("INSERT OR IGNORE INTO api_keys (account_id, key_hash, label, created_at) VALUES (1, ?, 'scan', '2026-01-01T00:00:00Z')")
    .bind(await sha256Hex(SECRET_KEY))
    .run();
  for (const path of ['/visibility', '/topics', '/answers/history', '/prompts', '/visibility', '/topics?days=400', '/nope', '/tasks/999999']) {
    await call(`${API_BASE}${path}`);
    await call(`/origin${API_BASE}${path}`);
  }
  await call('/digests/subscriptions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'scan@example.com', kinds: ['visibility'], timezone: 'Europe/Berlin' }),
  });
  await call('/digests/subscriptions');
  // Revocation: the proxy's next upstream check answers 401 and drops the key's entries.
  await env.DB.prepare("UPDATE api_keys SET revoked_at = '2026-01-02T00:00:00Z' WHERE key_hash = ?").bind(await sha256Hex(SECRET_KEY)).run();
  await call(`${API_BASE}/visibility`, { headers: { 'cache-control': 'no-cache' } });
});

afterAll(() => vi.restoreAllMocks());

describe('the API key of a caller', () => {
  it('was really used: reads succeeded, a subscription was stored, the cache was written', async () => {
    expect(bodies.some((b) => b.includes('"score"'))).toBe(true);
    const subscriptions = await env.DB.prepare("SELECT count(*) AS n FROM digest_subscriptions WHERE email = 'scan@example.com'").first<{ n: number }>();
    expect(subscriptions?.n).toBe(1);
    expect((await env.CACHE.list()).keys.length).toBeGreaterThan(0);
  });

  it('appears in no log line', () => {
    expect(logged.filter((line) => line.includes(SECRET_KEY))).toEqual([]);
  });

  it('appears in no response body', () => {
    expect(bodies.filter((body) => body.includes(SECRET_KEY))).toEqual([]);
  });

  it('appears in no KV name, value or metadata', async () => {
    const found: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await env.CACHE.list({ cursor });
      for (const key of page.keys) {
        const value = await env.CACHE.get(key.name);
        if (`${key.name}${value}${JSON.stringify(key.metadata)}`.includes(SECRET_KEY)) found.push(key.name);
      }
      cursor = page.list_complete ? undefined : page.cursor;
    } while (cursor);
    expect(found).toEqual([]);
  });

  it('appears in no row of any D1 table', async () => {
    const { results: tables } = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT IN ('runs', 'run_rivals', 'run_citations')").all<{ name: string }>();
    expect(tables.length).toBeGreaterThan(10);
    const found: string[] = [];
    for (const { name } of tables) {
      const { results } = await env.DB.prepare(`SELECT * FROM "${name}"`).all();
      if (JSON.stringify(results).includes(SECRET_KEY)) found.push(name);
    }
    expect(found).toEqual([]);
  });
});
