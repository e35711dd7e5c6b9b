#!/usr/bin/env node
// `npm run bench:proxy:instructions`: the cache HIT against its floors in
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
// The upstream is a loopback server answering the demo's /visibility body to
// every read (the first read of the key is the only one it sees: a HIT never
// reads the upstream).
// Env: BENCH_N (requests per counted window, default 500), BENCH_WINDOWS (5), BENCH_CONCURRENCY (1), BENCH_WARM (2000:
// with 300, V8 still compiles and deoptimizes the HIT path during the count).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import workerd from 'workerd';
import { HIT_HEADERS, startProductWorker, startTrivialWorker } from './bench/miniflare.mjs';

const N = Number(process.env.BENCH_N ?? 500);
// About how much slower a request runs under callgrind (40 ms against 0.9 ms one at a time): the product Worker's
// clock runs as much slower (scripts/bench-proxy-worker.ts), so that its memory copy is renewed every few thousand
// requests, as natively, not every hundred.
const SLOWDOWN = 40;
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 5);
// Requests in flight at once (1: sequential). bench:proxy loads with 10 connections; concurrent requests in one
// isolate interleave their awaits, which a sequential count does not see.
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const WARM = Number(process.env.BENCH_WARM ?? 2000);

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('bench:proxy:instructions needs valgrind (Debian: apt-get install valgrind).');
  process.exit(1);
}

// The upstream answers every read with the demo's /visibility body, read first from the embedded origin in a
// Worker that runs natively: under callgrind, loading the demo data into D1 takes minutes.
const demo = await startProductWorker({ name: 'instructions-demo' });
await (await fetch(new URL('/__bench/seed?keys=1', demo.url))).json();
const demoRead = await fetch(new URL('/api/v1/visibility', demo.url), { headers: { authorization: 'Bearer bench_1' } });
const upstreamBody = await demoRead.text();
await demo.mf.dispose();
if (demoRead.status !== 200) throw new Error(`the demo read failed: ${demoRead.status} ${upstreamBody}`);
const upstream = createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', etag: '"v1-visibility"', 'ratelimit-policy': '"default";q=60;w=60', ratelimit: '"default";r=59;t=60' });
  response.end(upstreamBody);
});
await new Promise((done) => upstream.listen(0, '127.0.0.1', done));

// Miniflare starts workerd through this wrapper (MINIFLARE_WORKERD_PATH): callgrind, zeroed and dumped by the markers.
const outDir = resolve('dist/bench/callgrind');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const wrapper = `${outDir}/workerd.sh`;
writeFileSync(
  wrapper,
  `#!/bin/sh
exec valgrind --tool=callgrind --smc-check=all-non-file \\
  --zero-before='workerd::api::SubtleCrypto::timingSafeEqual*' \\
  --dump-before='workerd::api::ServiceWorkerGlobalScope::structuredClone*' \\
  --callgrind-out-file=${outDir}/callgrind.out.%p --log-file=${outDir}/valgrind.%p.log \\
  ${workerd.default} "$@"
`,
);
chmodSync(wrapper, 0o755);
process.env.MINIFLARE_WORKERD_PATH = wrapper;
// V8 compiles hot functions on background threads; under valgrind, which runs one thread at a time, those jobs
// hardly ever finish, and the code measured would stay in the interpreter where natively it is optimized within
// milliseconds. Compiled on the main thread instead, at the same cost in instructions, all three Workers reach the
// steady state they reach natively.
// (workerd then says "per-isolate bootstrap compile cache failed its compatibility check": flags other than its
// build's; it compiles its own scripts at start-up instead, before anything is counted.)
process.env.MINIFLARE_WORKERD_V8_FLAGS = '--no-concurrent-recompilation --no-concurrent-sparkplug --no-concurrent-osr';

console.error('starting the product Worker and two floors under callgrind (about a minute)');
const { mf: proxy, url: proxyUrl } = await startProductWorker({
  name: 'instructions',
  vars: { UPSTREAM_URL: `http://127.0.0.1:${upstream.address().port}/api/v1`, UPSTREAM_TIMEOUT_MS: '', TTL_WINDOWED: '', TTL_FIXED: '', CORS_ORIGINS: '', BENCH_CLOCK_SLOWDOWN: String(SLOWDOWN) },
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

const dumps = () => new Set(readdirSync(outDir).filter((f) => /^callgrind\.out\.\d+\.\d+$/.test(f)));

/** Instructions of the dump the marker just wrote: its `totals:` line. */
async function counted(base, work) {
  const before = dumps();
  const marker = async (name) => (await fetch(new URL(`/__bench/${name}`, base))).arrayBuffer();
  await marker('zero');
  await work();
  await marker('dump');
  const [file] = [...dumps()].filter((f) => !before.has(f));
  if (!file) throw new Error('callgrind wrote no dump');
  return Number(/^totals: (\d+)$/m.exec(readFileSync(`${outDir}/${file}`, 'utf8'))[1]);
}

/**
 * Instructions per request of `url`, markers taken off: the mean over WINDOWS counted windows of N requests
 * each. A window's own figure moves by up to 5% with the garbage collections that fall in it (young-generation
 * collections come every thousand requests or so); the mean over all of them moves by well under 1% from run to
 * run.
 */
async function perRequest(url, base) {
  const one = async () => (await fetch(url, { headers: auth })).arrayBuffer();
  for (let i = 0; i < WARM; i++) await one();
  const markers = await counted(base, async () => {});
  const windows = [];
  for (let w = 0; w < WINDOWS; w++) {
    const total = await counted(base, async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next++ < N) await one();
        }),
      );
    });
    windows.push((total - markers) / N);
  }
  return { mean: windows.reduce((a, b) => a + b, 0) / windows.length, min: Math.min(...windows), max: Math.max(...windows) };
}

const started = Date.now();
const results = {
  floor: await perRequest(floor.url, floor.url),
  floorWithHeaders: await perRequest(floorWithHeaders.url, floorWithHeaders.url),
  hit: await perRequest(hitUrl, proxyUrl),
};
const check = await fetch(hitUrl, { headers: auth });
await check.arrayBuffer();
if (check.headers.get('x-cache') !== 'HIT') throw new Error(`expected the counted reads to be HITs, got X-Cache ${check.headers.get('x-cache')}`);

const k = (n) => `${(n / 1000).toFixed(1)}k`;
const pct = (a, b) => `${((a / b) * 100).toFixed(1)}%`;
const spread = (r) => `${k(r.min)} to ${k(r.max)}`;
console.log(`\nEdge proxy, instructions per request (callgrind, every thread of each workerd process): GET /api/v1/visibility, ${CONCURRENCY === 1 ? 'sequential' : `${CONCURRENCY} at a time`}, ${WARM} requests to warm up, then ${WINDOWS} windows of ${N}; ${((Date.now() - started) / 1000).toFixed(0)} s.\n`);
console.log('| run | instructions per request (mean) | range of the windows | floor / run: the throughput ratio at equal instructions per cycle |');
console.log('|---|---|---|---|');
console.log(`| floor: trivial Worker, same JSON body | ${k(results.floor.mean)} | ${spread(results.floor)} | 100% |`);
console.log(`| floor with the HIT's ${HIT_HEADERS.length} headers | ${k(results.floorWithHeaders.mean)} | ${spread(results.floorWithHeaders)} | ${pct(results.floor.mean, results.floorWithHeaders.mean)} |`);
console.log(`| proxy, cache HIT | ${k(results.hit.mean)} | ${spread(results.hit)} | ${pct(results.floor.mean, results.hit.mean)} |`);
const bare = results.floor.mean / results.hit.mean;
const same = results.floorWithHeaders.mean / results.hit.mean;
console.log(`\nHIT vs the bare floor: ${pct(results.floor.mean, results.hit.mean)} (target ≥ 85%): ${bare >= 0.85 ? 'met' : 'NOT met'}.`);
console.log(`HIT vs the floor with the same headers: ${pct(results.floorWithHeaders.mean, results.hit.mean)} (target ≥ 97%): ${same >= 0.97 ? 'met' : 'NOT met'}. The proxy's own work: ${k(results.hit.mean - results.floorWithHeaders.mean)} instructions per HIT.`);
console.log(`Per-function counts: callgrind_annotate ${outDir}/callgrind.out.<pid>.<n> (dump 1 of each process is its markers, the next ones its windows).`);

await floor.mf.dispose();
await floorWithHeaders.mf.dispose();
await proxy.dispose();
upstream.close();
