#!/usr/bin/env node
// `npm test` runs this first: the Worker as `wrangler deploy` builds it (one esbuild bundle, whose lazily loaded
// parts are module initialisers run at their first use), each kind of request the first one of a fresh isolate.
//
// The vitest integration runs the sources through Vite, not this bundle, and test/setup.ts loads every lazy part
// before the tests (workers-sdk issue 5387), so no test sees a part loaded by the request that needs it. Here each
// case starts a new workerd process (Miniflare) over the same stored demo data and sends one request, or one cron
// run: the part it loads must load, and the answer must be the one expected, never a 500 or a hang.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { buildAsDeployed, miniflareModules } from './bench/deployed.mjs';
import { deployedBindings, migrationStatements } from './bench/miniflare.mjs';

const KEY = 'demo_pro_single';
const ADMIN = 'check-admin';
const auth = { authorization: `Bearer ${KEY}` };
const json = { 'content-type': 'application/json' };
const mcpHeaders = { ...auth, ...json, accept: 'application/json, text/event-stream' };
const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'check', version: '1' } } });

/** Each case: what the first request is, the part of the Worker it loads first, and the status it must answer. */
const CASES = [
  { name: 'an /api/v1 read, a MISS answered by the embedded origin', path: '/api/v1/visibility', init: { headers: auth }, status: 200 },
  { name: "the API's OpenAPI document (built into the static assets; src/contract/documents.ts)", path: '/api/v1/openapi.json', status: 200 },
  { name: 'an /api/v1 refusal: a parameter the operation does not take', path: '/api/v1/visibility?nope=1', init: { headers: auth }, status: 400 },
  { name: "the product's OpenAPI document (built into the static assets; src/app/product.ts)", path: '/openapi.json', status: 200 },
  { name: "the admin's cache stats", path: '/admin/cache/stats', init: { headers: { authorization: `Bearer ${ADMIN}` } }, status: 200 },
  { name: 'the embedded origin itself', path: '/origin/api/v1/brands', init: { headers: auth }, status: 200 },
  {
    name: 'a digest subscription: its confirmation email rendered (src/mail/templates.ts)',
    path: '/digests/subscriptions',
    init: { method: 'POST', headers: { ...auth, ...json }, body: JSON.stringify({ email: 'first-request@example.com' }) },
    status: 201,
  },
  { name: 'a report page link that is not one (src/reports/page.ts)', path: '/r/not-a-token', status: 400 },
  { name: 'MCP: initialize (src/mcp/http.ts, the MCP SDK)', path: '/mcp', init: { method: 'POST', headers: mcpHeaders, body: initialize }, status: 200 },
  {
    name: 'MCP: a tool call',
    path: '/mcp',
    init: {
      method: 'POST',
      headers: { ...mcpHeaders, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_visibility', arguments: {} } }),
    },
    status: 200,
  },
  { name: 'OAuth metadata (src/mcp/oauth-routes.ts, the provider)', path: '/.well-known/oauth-authorization-server', status: 200 },
  { name: 'the consent page for an unknown client', path: '/oauth/authorize?response_type=code&client_id=unknown&redirect_uri=https%3A%2F%2Fexample.com%2Fcb', status: 400 },
  { name: 'the hourly cron: digests planned, history kept, alerts evaluated', cron: '0 * * * *' },
];

const persist = mkdtempSync(path.join(tmpdir(), 'first-requests-'));
const vars = { ADMIN_TOKEN: ADMIN, MCP_ALLOWED_HOSTS: '127.0.0.1,localhost' };

/**
 * A workerd process running the Worker over the stored data: a fresh isolate. Its Durable Objects (the key's gate,
 * which calls the embedded origin, and the stats) run in a second Worker of the process, a fresh isolate of their
 * own: on Cloudflare an object need not share its isolate with the request that calls it, so nothing the request's
 * isolate loaded is loaded there.
 */
async function start(worker, extraVars = {}) {
  const bound = (objectsIn) => deployedBindings({ database: 'first-requests', kv: ['CACHE', 'OAUTH_KV'], ...(objectsIn ? { objectsIn } : {}), vars: { ...vars, ...extraVars } });
  const modules = miniflareModules(worker.modules);
  const workers = [
    { name: 'worker', modulesRoot: '/', modules, ...bound('objects') },
    { name: 'objects', modulesRoot: '/', modules, ...bound() },
  ];
  const mf = new Miniflare(convertV4MiniflareOptions({ workers, resourcePersistencePath: persist, port: 0 }));
  return { mf, url: await mf.ready };
}

/** Waits at most `ms` for `work`: a part whose import never settles hangs its request, and that is a failure too. */
const within = (ms, work) => Promise.race([work, new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);

console.error('Building the Worker as wrangler deploy does...');
const worker = buildAsDeployed();
try {
  {
    const { mf, url } = await start(worker, { DEMO_DATA: 'on-empty' });
    const db = await mf.getD1Database('DB');
    await db.batch(migrationStatements().map((s) => db.prepare(s)));
    // The demo data, loaded by the first request (DEMO_DATA = "on-empty").
    await (await fetch(new URL('/api/v1/brands', url), { headers: auth })).arrayBuffer();
    await mf.dispose();
  }
  const failures = [];
  for (const check of CASES) {
    const { mf, url } = await start(worker);
    try {
      if (check.cron) {
        const outcome = await within(30_000, (await mf.getWorker()).scheduled({ cron: check.cron }));
        if (outcome.outcome !== 'ok') failures.push(`${check.name}: the run ended ${outcome.outcome}`);
      } else {
        const response = await within(30_000, fetch(new URL(check.path, url), check.init));
        const body = await response.text();
        if (response.status !== check.status) failures.push(`${check.name}: ${check.init?.method ?? 'GET'} ${check.path} answered ${response.status}, not ${check.status}: ${body.slice(0, 300)}`);
      }
    } catch (error) {
      failures.push(`${check.name}: ${error.message}`);
    } finally {
      await mf.dispose();
    }
  }
  if (failures.length > 0) {
    console.error(`The first request of a fresh isolate failed:\n  ${failures.join('\n  ')}`);
    process.exitCode = 1;
  } else {
    console.error(`First requests of fresh isolates: ${CASES.length} kinds, each answered as expected.`);
  }
} finally {
  rmSync(persist, { recursive: true, force: true });
}
