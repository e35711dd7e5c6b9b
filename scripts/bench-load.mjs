#!/usr/bin/env node
// `npm run bench -- load`: drives the running Worker (`wrangler dev` on loopback,
// its own state directory, demo data) with two workloads and prints what held:
//   dashboard: 20 clients sharing 5 API keys, each loading all operations of
//              the contract (23; their example requests, read from the
//              Worker's /api/v1/openapi.json) every 10 s;
//   burst:     500 concurrent connections (autocannon) on cached reads.
// Bounded in time and count; only 127.0.0.1 is ever contacted.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { fetchOperations, withQuery } from './bench/operations.mjs';

const PORT = Number(process.env.BENCH_PORT ?? 8791);
const BASE = `http://127.0.0.1:${PORT}`;
/** `BENCH_QUICK=1` (npm run bench -- quick): one poll of the dashboard and a 2-second burst, the same checks. */
const QUICK = process.env.BENCH_QUICK === '1';
const DASHBOARD_SECONDS = Number(process.env.DASHBOARD_SECONDS ?? (QUICK ? 10 : 120));
const BURST_SECONDS = Number(process.env.BURST_SECONDS ?? (QUICK ? 2 : 10));
const STATE = '.wrangler/bench-load';
const ADMIN = 'bench_admin_token';
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' };
const wrangler = (args, opts = {}) => spawnSync('npx', ['wrangler', ...args, '--persist-to', STATE], { env, encoding: 'utf8', ...opts });

rmSync(STATE, { recursive: true, force: true });
const migrated = wrangler(['d1', 'migrations', 'apply', 'DB', '--local']);
if (migrated.status !== 0) throw new Error(migrated.stderr);

const vars = { DEMO_DATA: 'on-empty', ADMIN_TOKEN: ADMIN, SIGNING_SECRET: 'bench_signing_secret', ENCRYPTION_KEY: 'YmVuY2hfZW5jcnlwdGlvbl9rZXlfMzJfYnl0ZXNfISE=' };
// Its own process group: stopping it stops wrangler and workerd under npx too, so no server outlives the run.
const dev = spawn('npx', ['wrangler', 'dev', '--port', String(PORT), '--ip', '127.0.0.1', '--persist-to', STATE, ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}:${v}`])], {
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true,
});
let devLog = '';
dev.stdout.on('data', (d) => (devLog += d));
dev.stderr.on('data', (d) => (devLog += d));
const stop = () => {
  try {
    process.kill(-dev.pid, 'SIGTERM');
  } catch {}
};
process.on('exit', stop);

/** Up, and the demo data loaded: the demo key reads its brands (the keys below belong to its account). */
async function waitReady() {
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${BASE}/api/v1/brands`, { headers: { authorization: 'Bearer demo_pro_single' } })).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`wrangler dev did not start:\n${devLog.slice(-2000)}`);
}
await waitReady();
// The demo data is loaded (waitReady); four more keys of account 1 make five.
const sha = (k) => createHash('sha256').update(k).digest('hex');
const extra = [
  ['bench_key_a', 1],
  ['bench_key_b', 1],
  ['bench_key_c', 1],
  ['bench_key_d', 1],
];
const inserted = wrangler([
  'd1',
  'execute',
  'DB',
  '--local',
  '--command',
  extra.map(([k, a]) => `INSERT INTO api_keys (account_id, key_hash, label, created_at) VALUES (${a}, '${sha(k)}', '${k}', '2026-01-01T00:00:00Z');`).join(' '),
]);
if (inserted.status !== 0) throw new Error(inserted.stderr);

/**
 * Five keys and the brand and market each reads. The contract's example
 * requests name items (topic, task, question, rival) of demo_pro_single's
 * brand 1 in its market `us`, so every key is one of account 1's.
 */
const KEYS = [
  ['demo_pro_single', 1, 'us'],
  ['bench_key_a', 1, 'us'],
  ['bench_key_b', 1, 'us'],
  ['bench_key_c', 1, 'us'],
  ['bench_key_d', 1, 'us'],
];

const get = (path, key) => fetch(`${BASE}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });

const OPERATIONS = await fetchOperations(`${BASE}/api/v1/openapi.json`);

/** Every operation's example request, with the key's brand and market where the operation takes them. */
function dashboardPaths(brand, market) {
  return OPERATIONS.map((o) => withQuery(o.example, { ...(o.params.includes('brand_id') ? { brand_id: brand } : {}), ...(o.params.includes('market') ? { market } : {}) }));
}

const stats = async () => (await fetch(`${BASE}/admin/cache/stats`, { headers: { authorization: `Bearer ${ADMIN}` } })).json();

/** Peak resident memory of this run's workerd (the descendants of our `wrangler dev`), sampled every second. */
let peakRss = 0;
function descendantsRss(root) {
  const rows = spawnSync('ps', ['-e', '-o', 'pid=,ppid=,rss=,comm='], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/));
  const children = new Map();
  for (const [pid, ppid] of rows) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const mine = new Set();
  const walk = (pid) => (children.get(pid) ?? []).forEach((c) => (mine.add(c), walk(c)));
  walk(String(root));
  return rows.filter(([pid, , , comm]) => mine.has(pid) && comm?.startsWith('workerd')).reduce((sum, [, , rss]) => sum + Number(rss) * 1024, 0);
}
const sampler = setInterval(() => (peakRss = Math.max(peakRss, descendantsRss(dev.pid))), 1000);

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const statusLine = (m) => JSON.stringify(Object.fromEntries([...m].sort()));

// Dashboard workload.
const pathsByKey = KEYS.map(([, brand, market]) => dashboardPaths(brand, market));
const before = await stats();
const latencies = [];
const statuses = new Map();
let lost = 0;
const started = Date.now();
const clients = Array.from({ length: 20 }, async (_, c) => {
  const k = c % KEYS.length;
  const [key] = KEYS[k];
  // Clients start spread over the first 10 s, as real dashboards do.
  await new Promise((r) => setTimeout(r, (c * 10_000) / 20));
  while (Date.now() - started < DASHBOARD_SECONDS * 1000) {
    const round = Date.now();
    await Promise.all(
      pathsByKey[k].map(async (path) => {
        const t = performance.now();
        try {
          const response = await get(path, key);
          await response.arrayBuffer();
          latencies.push(performance.now() - t);
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        } catch {
          lost++;
        }
      }),
    );
    await new Promise((r) => setTimeout(r, Math.max(0, 10_000 - (Date.now() - round))));
  }
});
await Promise.all(clients);
const after = await stats();
const seconds = (Date.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const upstream = after.upstream_calls - before.upstream_calls;
console.log(`\nDashboard: 20 clients, ${KEYS.length} keys, ${OPERATIONS.length} operations every 10 s, ${seconds.toFixed(0)} s`);
console.log(
  `  requests ${latencies.length + lost} (${((latencies.length / seconds) * 60).toFixed(0)}/min), p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms`,
);
console.log(`  statuses ${statusLine(statuses)}, lost ${lost}`);
console.log(
  `  upstream calls ${upstream} (${(upstream / KEYS.length / (seconds / 60)).toFixed(1)} per key per minute; budget 60), cache hits ${after.hits - before.hits}, misses ${after.misses - before.misses}, stale ${after.stale - before.stale}`,
);

// Burst workload: 500 concurrent connections on cached reads of one key.
const [burstKey, burstBrand] = KEYS[0];
const burstPaths = pathsByKey[0];
const beforeBurst = await stats();
const burst = await autocannon({
  url: BASE,
  connections: 500,
  duration: BURST_SECONDS,
  requests: burstPaths.map((path) => ({ method: 'GET', path: `/api/v1${path}`, headers: { authorization: `Bearer ${burstKey}` } })),
});
const afterBurst = await stats();
console.log(`\nBurst: 500 concurrent connections for ${BURST_SECONDS} s, brand ${burstBrand}, ${burstPaths.length} operations`);
console.log(`  requests ${burst.requests.total} (${burst.requests.average.toFixed(0)}/s), p50 ${burst.latency.p50} ms, p99 ${burst.latency.p99} ms`);
console.log(`  2xx ${burst['2xx']}, non-2xx ${burst.non2xx} (4xx ${burst['4xx']}, 5xx ${burst['5xx']}), errors ${burst.errors}, timeouts ${burst.timeouts}`);
console.log(`  upstream calls ${afterBurst.upstream_calls - beforeBurst.upstream_calls}`);
clearInterval(sampler);
console.log(`\nPeak workerd memory: ${(peakRss / 1048576).toFixed(0)} MiB`);
const failed = (statuses.get(500) ?? 0) + (statuses.get(502) ?? 0) + lost + burst['5xx'] + burst.errors + burst.timeouts;
console.log(failed === 0 ? 'Held: zero 5xx, zero lost requests.' : `NOT HELD: ${failed} failed or lost requests.`);
stop();
process.exit(failed === 0 ? 0 : 1);
