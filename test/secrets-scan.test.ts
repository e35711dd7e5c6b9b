/**
 * Isolation and secrets (issue 7): after real traffic with a distinctive
 * key through the proxy, the origin, the digest subscriptions, a digest send
 * through the Worker's cron and queue handlers, a minted report link and its
 * `/r/` page (read with the stored key), the digest's own "view in browser"
 * link (read with the subscriber's stored key), a send-now and a discovery
 * of the upstream map (the key in its body), the key
 * appears in no log line, no KV name, value or metadata, no D1 row, no
 * response body, no email sent and no Queue message. Only its hash and its
 * AES-GCM-sealed form may be stored.
 */
import { env, SELF } from 'cloudflare:test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_BASE } from '../src/contract/operations';
import { sha256Hex } from '../src/lib/hash';
import { clearDigests, deliver, FakeQueue, FakeResend, runCron, seedSubscriptions, testEnv } from './digests-helpers';
import { kvKeys, tableNames } from './helpers';
import { callWith, clearReports } from './reports-helpers';

const SECRET_KEY = 'scan_me_7Qx9Lm2Vb8Np4Kd1';
const logged: string[] = [];
const bodies: string[] = [];
/** Everything the Worker handed to Resend (bodies, headers, idempotency keys) and to the Queue. */
const sentOut: string[] = [];
const DAY_MS = 86_400_000;

/** Monday 08:00 UTC of last week: a digest is due then for a UTC subscriber, and the demo data covers its week. */
function lastWeeksMonday(today = new Date()): Date {
  const weekAgo = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) - 7 * DAY_MS;
  return new Date(weekAgo - ((new Date(weekAgo).getUTCDay() || 7) - 1) * DAY_MS + 8 * 3_600_000);
}

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const response = await SELF.fetch(`https://edge.test${path}`, { ...init, headers: { authorization: `Bearer ${SECRET_KEY}`, ...init.headers } });
  bodies.push(await response.clone().text());
  return response;
}

/** A request to the Worker with Resend faked (through `testEnv`), recorded like `call`'s. */
async function callFaked(digestEnv: Env, path: string, o: { method?: string; key?: string | null } = {}): Promise<Response> {
  const response = await callWith(digestEnv, path, { key: o.key === undefined ? SECRET_KEY : o.key, ...(o.method ? { method: o.method } : {}) });
  bodies.push(await response.clone().text());
  return response;
}

const statuses: Record<string, number> = {};
let resend: FakeResend;

beforeAll(async () => {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args.map((a) => (typeof a === 'string' ? a : (JSON.stringify(a) ?? String(a)))).join(' '));
    });
  }
  await clearDigests();
  await clearReports();
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

  // A confirmed subscriber whose stored key is the scanned one, and the weekly run for it: the cron plans,
  // the queue handler unseals the key, reads with it and sends through (fake) Resend.
  await seedSubscriptions([{ email: 'scan-digest@example.com', key: SECRET_KEY, timezone: 'UTC' }]);
  const queue = new FakeQueue();
  const digestEnv = testEnv(queue);
  resend = new FakeResend().install();
  const monday = lastWeeksMonday();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(monday);
  try {
    await runCron(monday.toISOString(), digestEnv);
    statuses.planned = queue.sent.length;
    await deliver(queue.sent, digestEnv);
  } finally {
    vi.useRealTimers();
  }
  statuses.digestsSent = resend.delivered.filter((m) => m.to.includes('scan-digest@example.com')).length;

  // The digest's "view in browser" link: /r/ with `sub:<id>`, read with the subscriber's stored key.
  const viewLink = /https:\/\/edge\.test(\/r\/v1\.[\w.-]+)/.exec(resend.delivered[0]?.html ?? '')?.[1];
  statuses.subscriberLink = viewLink ? (await callFaked(digestEnv, `${viewLink}?format=json`, { key: null })).status : 0;

  // A minted report link and its page, read with the minting key as stored.
  const minted = await call('/reports/links', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ market: 'us' }) });
  statuses.mint = minted.status;
  const link = ((await minted.json()) as { link?: { url: string } }).link?.url;
  statuses.mintedLink = link ? (await SELF.fetch(link)).status : 0;
  if (link) bodies.push(await (await SELF.fetch(link)).text(), await (await SELF.fetch(`${link}?format=json`)).text());
  statuses.report = (await call('/reports/weekly?market=us&format=json')).status;

  // Send now, to the confirmed subscriber, through (fake) Resend.
  statuses.sendNow = (await callFaked(digestEnv, '/reports/weekly/send?brand_id=1&market=us', { method: 'POST' })).status;

  // Discovering the upstream map with the key in the body: every operation read with it, through the cache.
  const discovered = await SELF.fetch('https://edge.test/admin/upstream/discover', {
    method: 'POST',
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: SECRET_KEY }),
  });
  statuses.discover = discovered.status;
  bodies.push(await discovered.text());

  for (const c of resend.calls) sentOut.push(JSON.stringify(c));
  for (const job of queue.sent) sentOut.push(JSON.stringify(job));
  vi.unstubAllGlobals();

  // Revocation: the proxy's next upstream check answers 401 and drops the key's entries.
  await env.DB.prepare("UPDATE api_keys SET revoked_at = '2026-01-02T00:00:00Z' WHERE key_hash = ?")
    .bind(await sha256Hex(SECRET_KEY))
    .run();
  await call(`${API_BASE}/visibility`, { headers: { 'cache-control': 'no-cache' } });
});

afterAll(() => vi.restoreAllMocks());

describe('the API key of a caller, stored for a subscriber and a report link', () => {
  it('was really used: reads succeeded, subscriptions stored, a digest sent by the queue, links read, a send made, the cache written', async () => {
    expect(bodies.some((b) => b.includes('"score"'))).toBe(true);
    const subscriptions = await env.DB.prepare("SELECT count(*) AS n FROM digest_subscriptions WHERE email = 'scan@example.com'").first<{ n: number }>();
    expect(subscriptions?.n).toBe(1);
    expect(statuses).toEqual({ planned: 1, digestsSent: 1, subscriberLink: 200, mint: 201, mintedLink: 200, report: 200, sendNow: 202, discover: 200 });
    // The send-now reached the subscriber too: two emails to the address whose key is the scanned one.
    expect(resend.delivered.filter((m) => m.to.includes('scan-digest@example.com'))).toHaveLength(2);
    expect((await env.CACHE.list()).keys.length).toBeGreaterThan(0);
  });

  it('appears in no log line', () => {
    expect(logged.filter((line) => line.includes(SECRET_KEY))).toEqual([]);
  });

  it('appears in no response body', () => {
    expect(bodies.length).toBeGreaterThan(20);
    expect(bodies.filter((body) => body.includes(SECRET_KEY))).toEqual([]);
  });

  it('appears in no email, email header or idempotency key sent to Resend, nor in any Queue message', () => {
    expect(sentOut.length).toBeGreaterThanOrEqual(3);
    expect(sentOut.filter((out) => out.includes(SECRET_KEY))).toEqual([]);
  });

  it('appears in no KV name, value or metadata', async () => {
    const found: string[] = [];
    for await (const key of kvKeys(env.CACHE)) {
      const value = await env.CACHE.get(key.name);
      if (`${key.name}${value}${JSON.stringify(key.metadata)}`.includes(SECRET_KEY)) found.push(key.name);
    }
    expect(found).toEqual([]);
  });

  it('appears in no row of any D1 table', async () => {
    const tables = (await tableNames()).filter((name) => !['runs', 'run_rivals', 'run_citations'].includes(name));
    expect(tables.length).toBeGreaterThan(10);
    const found: string[] = [];
    for (const name of tables) {
      const { results } = await env.DB.prepare(`SELECT * FROM "${name}"`).all();
      if (JSON.stringify(results).includes(SECRET_KEY)) found.push(name);
    }
    expect(found).toEqual([]);
  });
});
