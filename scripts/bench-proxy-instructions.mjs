#!/usr/bin/env node
// `npm run bench -- proxy-instructions`: the cache HIT against its floors in
// machine instructions per request, counted by valgrind's callgrind in every
// thread of the workerd process. A count does not move with the VM's steal
// time, its neighbours or the CPU's clock, which move bench:proxy's req/s and
// CPU-µs figures by more than the gap being measured; two runs agree within
// a fraction of a percent. What it does not see: cache misses and branch
// mispredictions, which cost time but no instructions.
//
// Each of three workerd processes (the product Worker, the bare floor, the
// floor with the HIT's headers) runs under callgrind. A request to
// /__bench/zero zeroes its counters (callgrind's --zero-before on the one
// function it calls), WARM requests before it let V8 tier up, and a request
// to /__bench/dump writes the counts of the N requests since (--dump-before).
// The same pair with no request between them measures the two markers, which
// are taken off.
//
// The upstream is a loopback server answering /visibility with the demo's body
// (the first read of the key is the only one it sees: a HIT never reads the
// upstream).
// Env: BENCH_N (requests per counted window, default 500), BENCH_WINDOWS (5), BENCH_CONCURRENCY (1), BENCH_WARM (2000:
// with 300, V8 still compiles and deoptimizes the HIT path during the count).
import { HIT_HEADERS, startProductWorker, startTrivialWorker } from './bench/miniflare.mjs';
import { bodyUpstream, demoBodies, k, outDir, perCall, requireValgrind, SLOWDOWN, startWorkersUnderCallgrind } from './bench/callgrind.mjs';

/** `BENCH_QUICK=1` (npm run bench -- quick): a few requests in one window, the same checks. */
const QUICK = process.env.BENCH_QUICK === '1';
const N = Number(process.env.BENCH_N ?? (QUICK ? 20 : 500));
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? (QUICK ? 1 : 5));
// Requests in flight at once (1: sequential). bench:proxy loads with 10 connections; concurrent requests in one
// isolate interleave their awaits, which a sequential count does not see.
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const WARM = Number(process.env.BENCH_WARM ?? (QUICK ? 50 : 2000));

requireValgrind('bench:proxy:instructions');
const upstream = await bodyUpstream(await demoBodies(['/visibility']));
startWorkersUnderCallgrind();

console.error('starting the product Worker and two floors under callgrind (about a minute)');
const { mf: proxy, url: proxyUrl } = await startProductWorker({
  name: 'instructions',
  vars: { UPSTREAM_URL: upstream.url, UPSTREAM_TIMEOUT_MS: '', TTL_WINDOWED: '', TTL_FIXED: '', CORS_ORIGINS: '', BENCH_CLOCK_SLOWDOWN: String(SLOWDOWN) },
});
const auth = { authorization: 'Bearer bench_1' };
const hitUrl = new URL('/api/v1/visibility', proxyUrl);
const first = await fetch(hitUrl, { headers: auth });
const hitBody = await first.text();
const hit = await fetch(hitUrl, { headers: auth });
await hit.arrayBuffer();
if (first.status !== 200 || hit.headers.get('x-cache') !== 'HIT') throw new Error(`expected a MISS then a HIT, got ${first.status} then X-Cache ${hit.headers.get('x-cache')}`);
const hitHeaders = Object.fromEntries(HIT_HEADERS.map((name) => [name, hit.headers.get(name)]));
const floor = await startTrivialWorker(hitBody, { 'content-type': 'application/json; charset=utf-8' });
const floorWithHeaders = await startTrivialWorker(hitBody, hitHeaders);

/**
 * Instructions per request of `url`: the mean over WINDOWS counted windows of N requests each. A window's own
 * figure moves by up to 5% with the garbage collections that fall in it (young-generation collections come every
 * thousand requests or so); the mean over all of them moves by well under 1% from run to run.
 */
const perRequest = (url, base) => perCall(base, async () => (await fetch(url, { headers: auth })).arrayBuffer(), { warm: WARM, windows: WINDOWS, n: N, concurrency: CONCURRENCY });

const started = Date.now();
const results = {
  floor: await perRequest(floor.url, floor.url),
  floorWithHeaders: await perRequest(floorWithHeaders.url, floorWithHeaders.url),
  hit: await perRequest(hitUrl, proxyUrl),
};
const check = await fetch(hitUrl, { headers: auth });
await check.arrayBuffer();
if (check.headers.get('x-cache') !== 'HIT') throw new Error(`expected the counted reads to be HITs, got X-Cache ${check.headers.get('x-cache')}`);

const pct = (a, b) => `${((a / b) * 100).toFixed(1)}%`;
const spread = (r) => `${k(r.min)} to ${k(r.max)}`;
console.log(
  `\nEdge proxy, instructions per request (callgrind, every thread of each workerd process): GET /api/v1/visibility, ${CONCURRENCY === 1 ? 'sequential' : `${CONCURRENCY} at a time`}, ${WARM} requests to warm up, then ${WINDOWS} windows of ${N}; ${((Date.now() - started) / 1000).toFixed(0)} s.\n`,
);
console.log('| run | instructions per request (mean) | range of the windows | floor / run: the throughput ratio at equal instructions per cycle |');
console.log('|---|---|---|---|');
console.log(`| floor: trivial Worker, same JSON body | ${k(results.floor.mean)} | ${spread(results.floor)} | 100% |`);
console.log(
  `| floor with the HIT's ${HIT_HEADERS.length} headers | ${k(results.floorWithHeaders.mean)} | ${spread(results.floorWithHeaders)} | ${pct(results.floor.mean, results.floorWithHeaders.mean)} |`,
);
console.log(`| proxy, cache HIT | ${k(results.hit.mean)} | ${spread(results.hit)} | ${pct(results.floor.mean, results.hit.mean)} |`);
const bare = results.floor.mean / results.hit.mean;
const same = results.floorWithHeaders.mean / results.hit.mean;
console.log(`\nHIT vs the bare floor: ${pct(results.floor.mean, results.hit.mean)} (target ≥ 85%): ${bare >= 0.85 ? 'met' : 'NOT met'}.`);
console.log(
  `HIT vs the floor with the same headers: ${pct(results.floorWithHeaders.mean, results.hit.mean)} (target ≥ 97%): ${same >= 0.97 ? 'met' : 'NOT met'}. The proxy's own work: ${k(results.hit.mean - results.floorWithHeaders.mean)} instructions per HIT.`,
);
console.log(`Per-function counts: callgrind_annotate ${outDir}/callgrind.out.<pid>.<n> (dump 1 of each process is its markers, the next ones its windows).`);

await floor.mf.dispose();
await floorWithHeaders.mf.dispose();
await proxy.dispose();
upstream.close();
