/**
 * `X-Content-Type-Options: nosniff` on every JSON answer of the Worker, over
 * requests derived from the tables rather than listed by hand: every
 * operation of the contract table at /api/v1 (a read, its HIT, HEAD, a
 * method it does not take, no key) and at /origin/api/v1, both OpenAPI
 * documents, the proxy's answers to a failing upstream, and each method of
 * every route the product documents (`documentedRoutes`: the product, dev,
 * admin and MCP routes, and OAuth's for MCP), without and with a key; then
 * 404s, a feature that is off and a misconfigured env. Every route that
 * answers JSON must have been seen doing so, so the check cannot pass by
 * meeting no JSON at all.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { documentedRoutes } from '../src/app/routes';
import type { Route } from '../src/lib/router';
import { API_BASE, examplePath, operationList } from '../src/contract/operations';
import { ADMIN_BASE } from '../src/proxy';
import { isOAuthPath, MCP_PATH } from '../src/mcp';
import { clearDigests } from './digests-helpers';
import { KEYS, ORIGIN_API } from './helpers';
import { FakeUpstream, type Fault, freshKey, restoreUpstream } from './proxy-upstream';
import { clearReports } from './reports-helpers';
import worker from './worker';

const BASE = 'https://edge.test';
/** Every route the Worker serves beside /api/v1; each is a route table's entry, so it says how it answers. */
const routes = documentedRoutes as readonly Pick<Route<never>, 'path' | 'methods' | 'answers'>[];
const isJson = (response: Response) => /^application\/json\b/i.test(response.headers.get('content-type') ?? '');

/** Reads the answer and, when it is JSON, checks the header; says whether it was JSON. */
async function checked(what: string, response: Response): Promise<boolean> {
  await response.arrayBuffer();
  if (!isJson(response)) return false;
  expect(response.headers.get('x-content-type-options'), `${what} (${response.status})`).toBe('nosniff');
  return true;
}

async function fetchWith(testEnv: Env, path: string): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch!(new Request(`${BASE}${path}`) as Request<unknown, IncomingRequestCfProperties>, testEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

beforeEach(async () => {
  await clearDigests();
  await clearReports();
});
afterEach(() => restoreUpstream());

describe('X-Content-Type-Options: nosniff on every JSON answer', () => {
  it('the operations of the contract table, at /api/v1 and /origin/api/v1, and the documents', async () => {
    const asked: [method: string, key: string | null][] = [
      ['GET', KEYS.pro],
      ['GET', KEYS.pro],
      ['HEAD', KEYS.pro],
      ['POST', KEYS.pro],
      ['GET', null],
    ];
    for (const base of [API_BASE, ORIGIN_API]) {
      for (const path of [...operationList.map((op) => examplePath(op)), '/openapi.json', '/nothing']) {
        for (const [method, key] of asked) {
          const what = `${method} ${base}${path}${key ? '' : ' (no key)'}`;
          const response = await SELF.fetch(`${BASE}${base}${path}`, { method, headers: key ? { authorization: `Bearer ${key}` } : {} });
          expect(await checked(what, response), `${what} answers JSON`).toBe(true);
        }
      }
    }
  });

  it("the proxy's answers to a failing upstream: its error passed through, its HTML made JSON, a redirect, a stale copy", async () => {
    const up = new FakeUpstream().install();
    const stale = freshKey('nosniff-stale');
    expect(await checked('stored', await SELF.fetch(`${BASE}${API_BASE}/visibility`, { headers: { authorization: `Bearer ${stale}` } }))).toBe(true);
    const faults: Fault[] = [
      { status: 503 },
      { status: 504, body: '<html>Gateway Time-out</html>', headers: { 'content-type': 'text/html' } },
      { status: 302, body: '', headers: { location: 'https://elsewhere.test/' } },
    ];
    for (const fault of faults) {
      up.fault = fault;
      for (const [key, headers] of [
        [freshKey('nosniff'), {}],
        [stale, { 'cache-control': 'no-cache' }],
      ] as const) {
        const response = await SELF.fetch(`${BASE}${API_BASE}/visibility`, { headers: { authorization: `Bearer ${key}`, ...headers } });
        expect(await checked(`upstream ${JSON.stringify(fault)}`, response)).toBe(true);
      }
    }
  });

  it('each method of every documented route, HEAD with GET and one it does not take, without and with a key', async () => {
    const sawJson = new Set<string>();
    const answersJson = routes.filter((route) => route.answers === 'json').map((route) => route.path);
    expect(answersJson.length).toBeGreaterThanOrEqual(10);
    for (const route of routes) {
      const methods = Object.keys(route.methods);
      // Dev routes that would do work (plan the digests, evaluate alerts now) get a parameter that stops them at validation.
      const path = route.path.replace(/\{\w+\}/g, 'x') + (route.path.startsWith('/dev/') ? '?at=nonsense' : '');
      // `/mcp` and its OAuth answer only the hosts they are given (in dev, localhost too).
      const bases = route.path === MCP_PATH || isOAuthPath(route.path) ? [BASE, 'http://localhost'] : [BASE];
      const keys = [null, KEYS.pro, ...(route.path.startsWith(ADMIN_BASE) ? [env.ADMIN_TOKEN] : [])];
      for (const base of bases) {
        for (const method of [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'PATCH']) {
          for (const key of keys) {
            const what = `${method} ${base}${path}${key ? ' (key)' : ''}`;
            const response = await SELF.fetch(`${base}${path}`, { method, headers: key ? { authorization: `Bearer ${key}` } : {} });
            if (await checked(what, response)) sawJson.add(route.path);
          }
        }
      }
    }
    expect(answersJson.filter((path) => !sawJson.has(path))).toEqual([]);
  });

  it('404s anywhere, a feature that is off, and a misconfigured env', async () => {
    for (const path of ['/', '/nothing', '/digests/nothing', '/reports/nothing', '/admin/cache/nothing', '/origin/nothing']) {
      expect(await checked(path, await SELF.fetch(`${BASE}${path}`)), path).toBe(true);
    }
    const base = env as unknown as Record<string, unknown>;
    const reportsOff = { ...base, SIGNING_SECRET: '' } as unknown as Env;
    expect(await checked('reports off', await fetchWith(reportsOff, '/reports/weekly'))).toBe(true);
    const broken = { ...base, ADMIN_TOKEN: '' } as unknown as Env;
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await checked('misconfigured', await fetchWith(broken, '/reports/weekly'))).toBe(true);
    } finally {
      quiet.mockRestore();
    }
  });
});
