/** Shared by the Worker tests: demo keys, a request helper, and a valid request for every operation (the contract table's example). */
import { env, SELF } from 'cloudflare:test';
import { expect, vi } from 'vitest';
import type { CheckAnswer } from '../src/app/upstream-check';
import { API_BASE, examplePath, type OperationId, operations } from '../src/contract/operations';
import { DEMO_ACCOUNTS } from '../src/origin/demo/catalog';
import { originTransport } from '../src/origin/transport';

export const KEYS = {
  pro: 'demo_pro_single',
  growth: 'demo_growth_multi',
  starter: 'demo_starter',
  inactive: 'demo_inactive',
  revoked: 'demo_revoked',
} as const;

/** Every demo account's key: the fake upstreams answer them from the embedded origin (proxy-upstream.ts, reshape.ts). */
export const DEMO_KEYS: ReadonlySet<string> = new Set(DEMO_ACCOUNTS.map((account) => account.key));

/** Every key of a KV namespace (under `prefix`), page by page. */
export async function* kvKeys(kv: KVNamespace, prefix?: string): AsyncGenerator<KVNamespaceListKey<unknown>> {
  let cursor: string | undefined;
  do {
    const page = await kv.list({ ...(prefix ? { prefix } : {}), ...(cursor ? { cursor } : {}) });
    yield* page.keys;
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
}

/** The D1 tables the migrations made (not SQLite's, Cloudflare's, the migrations' record or test/storage-reset.ts's own). */
export async function tableNames(): Promise<string[]> {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'test_%' AND name <> 'd1_migrations'",
  ).all<{ name: string }>();
  return results.map(({ name }) => name);
}

/** The embedded origin's answer to the path and query of `url`, read with `key`: what the fake upstreams read the demo data with. */
export function readOrigin(url: URL, key: string): Promise<Response> {
  return originTransport(env.DB)(new Request(`http://origin.internal${url.pathname}${url.search}`, { headers: { authorization: `Bearer ${key}` } }));
}

/** Demo ids (see src/origin/demo): brand 1 is demo_pro_single's, market 11 its `us`, topics 1101.., questions 1101001... */
export const DEMO = {
  proBrand: 1,
  growthBrandA: 2,
  growthBrandB: 3,
  starterBrand: 4,
  proUsMarket: 11,
  proTopic: 1101,
  proRival: 'Helpwave',
} as const;

export interface Call {
  key?: string | null;
  headers?: Record<string, string>;
  method?: string;
  base?: string;
}

/**
 * The embedded origin's own mount (src/index.ts). /api/v1 is the caching edge
 * proxy, whose HITs would hide the origin's rate limit and quota; the origin
 * tests read the origin itself. Pass `base: API_BASE` to go through the proxy.
 */
export const ORIGIN_API = `/origin${API_BASE}`;

/** A request to the Worker under test (the embedded origin by default). `path` includes the query string. */
export function api(path: string, call: Call = {}): Promise<Response> {
  const headers = new Headers(call.headers);
  const key = call.key === undefined ? KEYS.pro : call.key;
  if (key) headers.set('authorization', `Bearer ${key}`);
  return SELF.fetch(`https://edge.test${call.base ?? ORIGIN_API}${path}`, { method: call.method ?? 'GET', headers });
}

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/**
 * A valid path (with query, without the API base) for each operation, for
 * demo_pro_single's brand in its primary market: the example request of the
 * contract table.
 */
export const validPath = (id: OperationId): string => examplePath(operations[id]);

/** Appends a parameter to a path that may already have a query string. */
/** The `RateLimit` field's parameters (`"api";r=57;t=42`), read apart from the product's own parser. */
export function rateLimitOf(response: Response): { r: number; t: number } | undefined {
  const found = /^"[\w-]+";r=(\d+);t=(\d+)$/.exec(response.headers.get('ratelimit') ?? '');
  return found ? { r: Number(found[1]), t: Number(found[2]) } : undefined;
}
/** The limit `RateLimit-Policy` names: `q` per `w` seconds. */
export const ratePolicyOf = (response: Response) => response.headers.get('ratelimit-policy')?.replace(/^"[\w-]+";/, '');

export const withParam = (path: string, name: string, value: string) => `${path}${path.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}`;

/** `PUT /admin/upstream/map` as an operator does it: with the version just read (a stored map is never replaced unread). */
export async function putUpstreamMap(map: { operations: unknown }): Promise<Response> {
  const headers = { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const { version } = (await (await SELF.fetch('https://edge.test/admin/upstream/map', { headers })).json()) as { version: number };
  return SELF.fetch('https://edge.test/admin/upstream/map', { method: 'PUT', headers, body: JSON.stringify({ ...map, version }) });
}

/** `POST /admin/upstream/check` with `key` for the market `us`: the verdicts, after asserting the check answered 200. */
export async function checkVerdicts(key: string): Promise<CheckAnswer> {
  const response = await SELF.fetch('https://edge.test/admin/upstream/check', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${env.ADMIN_TOKEN}` },
    body: JSON.stringify({ api_key: key, market: 'us' }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as CheckAnswer;
}

/**
 * Runs `flood` from a fresh address (`<prefix>.<round>`, or the next of `addresses`) until one run fits in
 * one wall-clock minute (`before` runs before each). The local rate-limiting
 * bindings (UNVERIFIED_KEYS, OAUTH_WRITES) count in windows aligned to the
 * real clock's minute, which no fake Date moves: a flood that straddles a
 * minute boundary is counted in two windows, and its last request is let
 * through. A run is repeated only then, so at most once in practice.
 */
export async function inOneLimiterWindow<T>(addresses: string | (() => string), flood: (address: string) => Promise<T>, before: () => void = () => {}): Promise<T> {
  const minute = () => Math.floor(vi.getRealSystemTime() / 60_000);
  for (let round = 1; ; round++) {
    const window = minute();
    before();
    const result = await flood(typeof addresses === 'string' ? `${addresses}.${round}` : addresses());
    if (minute() === window || round === 3) return result;
  }
}
