#!/usr/bin/env node
// `npm run bench -- proxy`: the edge proxy in workerd (Miniflare), one process.
//   1. cache HIT latency and throughput through the proxy, beside the floor: a
//      trivial Worker answering the same JSON body on the same runtime and
//      platform configuration (the static assets bound, so the asset router
//      stands in front of both), and, for the record, without the router;
//   2. misses: every request a new cache key, answered by the embedded origin;
//   3. the dashboard workload: 20 clients sharing 5 API keys, each polling all
//      operations of the contract (23; their example requests, read from the
//      Worker's /api/v1/openapi.json) every 10 s for 2 minutes; upstream calls
//      per key per rolling minute, 429s and errors seen by the clients.
// Env: BENCH_SECONDS (per throughput run, default 20), BENCH_ROUNDS (10),
// BENCH_CONNECTIONS (10), BENCH_DASHBOARD_SECONDS (120).
import autocannon from 'autocannon';
import { fetchOperations } from './bench/operations.mjs';
import { cpuNs, HIT_HEADERS, startProductWorker, startTrivialWorker, workerdPids } from './bench/miniflare.mjs';

/** `BENCH_QUICK=1` (npm run bench -- quick): seconds instead of minutes, the same runs and the same oracle (no time target). */
const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 2 : 20));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 2 : 10));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DASHBOARD_SECONDS = Number(process.env.BENCH_DASHBOARD_SECONDS ?? (QUICK ? 12 : 120));
const MISS_KEYS = QUICK ? 30 : 300;
const DASHBOARD_KEYS = 5;
const DASHBOARD_CLIENTS = 20;
const POLL_MS = 10_000;
// The miss run uses 300 fresh keys from one address, which the real limit (120/min per address) would cut off: this measures the proxy, not its abuse limit.
const { mf: proxy, url: proxyUrl } = await startProductWorker({ name: 'proxy', vars: { UPSTREAM_TIMEOUT_MS: '', TTL_WINDOWED: '', TTL_FIXED: '', CORS_ORIGINS: '' }, unverifiedPerMinute: 1_000_000 });
const seedStarted = Date.now();
await (await fetch(new URL(`/__bench/seed?keys=${MISS_KEYS + DASHBOARD_KEYS + 1}`, proxyUrl))).json();
console.error(`demo data and ${MISS_KEYS + DASHBOARD_KEYS + 1} bench keys loaded in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);

const key = (i) => `bench_${i}`;
const get = async (path, k, headers = {}) => {
  const started = performance.now();
  const response = await fetch(new URL(`/api/v1${path}`, proxyUrl), { headers: { authorization: `Bearer ${k}`, ...headers } });
  const body = await response.text();
  return { ms: performance.now() - started, status: response.status, cache: response.headers.get('x-cache'), body };
};

// The body a HIT answers with, so the floor answers the same bytes.
const HIT_KEY = key(MISS_KEYS + DASHBOARD_KEYS + 1);
const warm = await get('/visibility', HIT_KEY);
if (warm.status !== 200) throw new Error(`the first read failed: ${warm.status} ${warm.body}`);
await new Promise((r) => setTimeout(r, 200));
const hitBody = (await get('/visibility', HIT_KEY)).body;

// The floor of the target. Beside it, the same with the headers a HIT must
// carry (Cache-Status, X-Cache, Age, ETag, Cache-Control, X-Request-Id,
// RateLimit-Policy and RateLimit, and Vary: Authorization): each header costs
// the runtime's HTTP layers (workerd and Miniflare's entry Worker copy them) a
// fixed amount.
const floor = await startTrivialWorker(hitBody, { 'content-type': 'application/json; charset=utf-8' });
const hitResponse = await fetch(new URL('/api/v1/visibility', proxyUrl), { headers: { authorization: `Bearer ${HIT_KEY}` } });
const hitHeaders = Object.fromEntries(HIT_HEADERS.map((name) => [name, hitResponse.headers.get(name)]));
await hitResponse.arrayBuffer();
if (Object.values(hitHeaders).includes(null)) throw new Error(`a HIT lacks one of ${HIT_HEADERS.join(', ')}`);
const floorWithHeaders = await startTrivialWorker(hitBody, hitHeaders);
// The floors run as the product runs, behind the asset router (STATIC_ASSETS); this one without it says what the router costs.
const floorNoRouter = await startTrivialWorker(hitBody, { 'content-type': 'application/json; charset=utf-8' }, { router: false });
const floorUrl = floor.url;
const [proxyPid, floorPid, floorWithHeadersPid, floorNoRouterPid] = workerdPids();
await fetch(new URL('/__bench/fixed-body', proxyUrl), { method: 'POST', body: hitBody });

/** Throughput and latency under load: autocannon, CONNECTIONS connections; and the workerd CPU time the run cost. */
async function cannon(url, headers, seconds, pid) {
  const cpuBefore = cpuNs(pid);
  const r = await autocannon({ url: url.href, connections: CONNECTIONS, duration: seconds, headers });
  return { requests: r.requests.total, seconds: r.duration, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, cpuNs: cpuNs(pid) - cpuBefore };
}

/** Latency with sub-millisecond resolution, one request at a time. */
async function sequential(url, headers, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    times.push(performance.now() - started);
  }
  return times;
}

// The machine is shared (a VM whose steal time moves by the second): floor,
// fixed route and HIT runs alternate in short rounds, and a ratio is the
// median of the rounds' ratios, each taken between runs seconds apart.
// Every run sends the same request, API key included: the floor ignores it.
const sameRequest = { authorization: `Bearer ${HIT_KEY}` };
const targets = {
  floor: [floorUrl, sameRequest, floorPid],
  hit: [new URL('/api/v1/visibility', proxyUrl), sameRequest, proxyPid],
  fixed: [new URL('/__bench/fixed', proxyUrl), sameRequest, proxyPid],
  floorWithHeaders: [floorWithHeaders.url, sameRequest, floorWithHeadersPid],
  floorNoRouter: [floorNoRouter.url, sameRequest, floorNoRouterPid],
};
const runs = { floor: [], hit: [], fixed: [], floorWithHeaders: [], floorNoRouter: [] };
const single = { floor: [], hit: [], fixed: [], floorWithHeaders: [], floorNoRouter: [] };
for (const [url, headers, pid] of Object.values(targets)) await cannon(url, headers, 2, pid); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  // Floor and HIT are always neighbours; which goes first alternates.
  for (const name of round % 2 ? ['hit', 'floor', 'floorNoRouter', 'fixed', 'floorWithHeaders'] : ['floorWithHeaders', 'fixed', 'floorNoRouter', 'floor', 'hit']) {
    const [url, headers, pid] = targets[name];
    runs[name].push(await cannon(url, headers, SECONDS / ROUNDS, pid));
    single[name].push(...(await sequential(url, headers, 100)));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rate = (r) => r.requests / r.seconds;
/** Median over rounds of a's throughput over b's in the same round. */
const pairedRatio = (a, b) => median(runs[a].map((r, i) => rate(r) / rate(runs[b][i])));
const summarize = (name) => {
  const r = runs[name];
  const rps = r.reduce((a, b) => a + b.requests, 0) / r.reduce((a, b) => a + b.seconds, 0);
  const s = [...single[name]].sort((a, b) => a - b);
  const cpuUs = r.reduce((a, b) => a + b.cpuNs, 0) / 1000 / r.reduce((a, b) => a + b.requests, 0);
  return {
    rps,
    cpuUs,
    p50: median(r.map((x) => x.p50)),
    p99: median(r.map((x) => x.p99)),
    p50One: s[Math.floor(s.length / 2)],
    p99One: s[Math.floor(s.length * 0.99)],
    non2xx: r.reduce((a, b) => a + b.non2xx, 0),
    errors: r.reduce((a, b) => a + b.errors, 0),
  };
};
const floorRun = summarize('floor');
const hitRun = summarize('hit');
const fixedRun = summarize('fixed');
const floorWithHeadersRun = summarize('floorWithHeaders');
const floorNoRouterRun = summarize('floorNoRouter');
const check = await get('/visibility', HIT_KEY);
if (check.cache !== 'HIT') throw new Error(`expected the HIT run to read the cache, got X-Cache ${check.cache}: ${check.status} ${check.body}`);

// Misses: each of MISS_KEYS keys reads /visibility once, CONNECTIONS at a time.
const missTimes = [];
const missStatuses = {};
const missStarted = performance.now();
let next = 1;
await Promise.all(
  Array.from({ length: CONNECTIONS }, async () => {
    while (next <= MISS_KEYS) {
      const r = await get('/visibility', key(next++));
      missTimes.push(r.ms);
      missStatuses[`${r.status} ${r.cache}`] = (missStatuses[`${r.status} ${r.cache}`] ?? 0) + 1;
    }
  }),
);
const missSeconds = (performance.now() - missStarted) / 1000;
missTimes.sort((a, b) => a - b);
const q = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const missRun = { p50: q(missTimes, 0.5), p99: q(missTimes, 0.99), rps: MISS_KEYS / missSeconds };

console.log(
  `\nEdge proxy benchmark: workerd via Miniflare, GET /api/v1/visibility. Under load: autocannon, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds, ${SECONDS} s in all per run. One at a time: ${single.floor.length} sequential requests.\n`,
);
console.log('| run | p50 ms (load) | p99 ms (load) | req/s (load) | workerd CPU µs/request | p50 ms (one at a time) | p99 ms (one at a time) |');
console.log('|---|---|---|---|---|---|---|');
const row = (label, r) => `| ${label} | ${r.p50} | ${r.p99} | ${r.rps.toFixed(0)} | ${r.cpuUs ? r.cpuUs.toFixed(0) : 'n/a'} | ${r.p50One.toFixed(2)} | ${r.p99One.toFixed(2)} |`;
console.log(row('floor: trivial Worker, same JSON body, behind the asset router as the product', floorRun));
console.log(row('floor without the asset router (for the record)', floorNoRouterRun));
console.log(row(`floor with the HIT's ${Object.keys(hitHeaders).length} headers (for the record)`, floorWithHeadersRun));
console.log(row('proxy Worker, fixed JSON route (same isolate, no proxy work)', fixedRun));
console.log(row('proxy, cache HIT', hitRun));
console.log(`| proxy, MISS to the embedded origin (${MISS_KEYS} keys, ${CONNECTIONS} at a time) | ${missRun.p50.toFixed(1)} | ${missRun.p99.toFixed(1)} | ${missRun.rps.toFixed(0)} | | | |`);
const throughput = pairedRatio('hit', 'floor');
const roundRatios = runs.hit.map((r, i) => `${((rate(r) / rate(runs.floor[i])) * 100).toFixed(0)}%`).join(', ');
const p50Ratio = hitRun.p50One / floorRun.p50One;
console.log(`\nHIT vs floor, throughput per round: ${roundRatios}; over the whole run: ${((hitRun.rps / floorRun.rps) * 100).toFixed(0)}%.`);
console.log(
  `HIT vs floor: throughput ${(throughput * 100).toFixed(0)}% (median of ${ROUNDS} rounds; target ≥ 85%), p50 one at a time ${p50Ratio.toFixed(2)}x, p50 under load ${(hitRun.p50 / floorRun.p50).toFixed(2)}x (target ≤ 1.3x): ${throughput >= 0.85 && p50Ratio <= 1.3 ? 'met' : 'NOT met'}.`,
);
if (hitRun.cpuUs)
  console.log(
    `HIT vs floor in workerd CPU per request (immune to steal): the floor's cost is ${((floorRun.cpuUs / hitRun.cpuUs) * 100).toFixed(0)}% of the HIT's, the throughput ratio a machine of its own would show.`,
  );
console.log(
  `HIT vs the floor with the same headers (the proxy's own work): throughput ${(pairedRatio('hit', 'floorWithHeaders') * 100).toFixed(0)}%${hitRun.cpuUs ? `, CPU ${((floorWithHeadersRun.cpuUs / hitRun.cpuUs) * 100).toFixed(0)}%` : ''}.`,
);
console.log(
  `HIT vs the fixed route of the same Worker (the HIT path's own cost): throughput ${(pairedRatio('hit', 'fixed') * 100).toFixed(0)}%, p50 one at a time ${(hitRun.p50One / fixedRun.p50One).toFixed(2)}x.`,
);
console.log(
  `What the asset router in front of a Worker costs a request (the floor with it against the floor without): throughput ${(pairedRatio('floor', 'floorNoRouter') * 100).toFixed(0)}%, p50 one at a time +${(floorRun.p50One - floorNoRouterRun.p50One).toFixed(2)} ms${floorRun.cpuUs && floorNoRouterRun.cpuUs ? `, workerd CPU +${(floorRun.cpuUs - floorNoRouterRun.cpuUs).toFixed(0)} µs` : ''}.`,
);
console.log(`HIT non-2xx: ${hitRun.non2xx}, errors: ${hitRun.errors}; misses: ${JSON.stringify(missStatuses)}`);
/** The oracle (correctness, never a time): every HIT a 2xx, every miss a 200 read upstream; the dashboard's below. */
const failures = [];
if (hitRun.non2xx > 0 || hitRun.errors > 0) failures.push(`HIT run: ${hitRun.non2xx} non-2xx, ${hitRun.errors} errors`);
if (Object.keys(missStatuses).some((s) => s !== '200 MISS')) failures.push(`misses: ${JSON.stringify(missStatuses)}`);
const finish = () => {
  if (failures.length === 0) return;
  console.error(`\nbench:proxy failed:\n${failures.join('\n')}`);
  process.exit(1);
};

if (DASHBOARD_SECONDS <= 0) {
  await floor.mf.dispose();
  await floorWithHeaders.mf.dispose();
  await floorNoRouter.mf.dispose();
  await proxy.dispose();
  finish();
  process.exit(0);
}

// The dashboard workload: every operation's example request (the bench keys are demo account 1's, the examples' brand).
const paths = (await fetchOperations(new URL('/api/v1/openapi.json', proxyUrl))).map((o) => o.example);
const dashboardKeys = Array.from({ length: DASHBOARD_KEYS }, (_, i) => key(MISS_KEYS + i + 1));
const seen = { requests: 0, rateLimited: 0, errors: 0, byCache: {}, byStatus: {}, times: [] };
const dashStarted = Date.now();
console.error(`dashboard workload: ${DASHBOARD_CLIENTS} clients, ${DASHBOARD_KEYS} keys, ${paths.length} operations every ${POLL_MS / 1000} s for ${DASHBOARD_SECONDS} s`);
await Promise.all(
  Array.from({ length: DASHBOARD_CLIENTS }, async (_, client) => {
    const k = dashboardKeys[client % DASHBOARD_KEYS];
    const offset = (client * POLL_MS) / DASHBOARD_CLIENTS;
    for (let tick = 0; offset + tick * POLL_MS < DASHBOARD_SECONDS * 1000; tick++) {
      const due = dashStarted + offset + tick * POLL_MS;
      await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
      const answers = await Promise.all(paths.map((p) => get(p, k).catch((e) => ({ status: 0, cache: String(e), ms: 0 }))));
      for (const a of answers) {
        seen.requests++;
        seen.times.push(a.ms);
        seen.byStatus[a.status] = (seen.byStatus[a.status] ?? 0) + 1;
        seen.byCache[a.cache] = (seen.byCache[a.cache] ?? 0) + 1;
        if (a.status === 429) seen.rateLimited++;
        else if (a.status !== 200) seen.errors++;
      }
    }
  }),
);
const upstream = await (await fetch(new URL('/__bench/upstream', proxyUrl))).json();
const stats = await (await fetch(new URL('/admin/cache/stats', proxyUrl), { headers: { authorization: 'Bearer bench-admin' } })).json();
seen.times.sort((a, b) => a - b);
const minutes = (Date.now() - dashStarted) / 60_000;
console.log(`\nDashboard workload: ${DASHBOARD_CLIENTS} clients, ${DASHBOARD_KEYS} keys, all ${paths.length} operations every ${POLL_MS / 1000} s, ${DASHBOARD_SECONDS} s\n`);
console.log('| key | upstream calls | max upstream calls in any 60 s |');
console.log('|---|---|---|');
for (const k of dashboardKeys) console.log(`| ${k} | ${upstream[k]?.calls ?? 0} | ${upstream[k]?.max_per_rolling_minute ?? 0} |`);
console.log(`\nrequests: ${seen.requests} (${(seen.requests / minutes).toFixed(0)}/min), p50 ${q(seen.times, 0.5).toFixed(1)} ms, p99 ${q(seen.times, 0.99).toFixed(1)} ms`);
console.log(`X-Cache: ${JSON.stringify(seen.byCache)}; statuses: ${JSON.stringify(seen.byStatus)}`);
console.log(`429s seen by clients: ${seen.rateLimited}; other errors: ${seen.errors}`);
console.log(`proxy stats: ${JSON.stringify(stats)}`);
const maxPerMinute = Math.max(...dashboardKeys.map((k) => upstream[k]?.max_per_rolling_minute ?? 0));
console.log(`Target (≤ 60 upstream calls/min per key, zero 429s, zero errors): ${maxPerMinute <= 60 && seen.rateLimited === 0 && seen.errors === 0 ? 'met' : 'NOT met'}`);

await floor.mf.dispose();
await floorWithHeaders.mf.dispose();
await floorNoRouter.mf.dispose();
await proxy.dispose();
if (maxPerMinute > 60 || seen.rateLimited > 0 || seen.errors > 0) failures.push(`dashboard: ${maxPerMinute} upstream calls in a minute for one key, ${seen.rateLimited} 429s, ${seen.errors} errors`);
finish();
