#!/usr/bin/env node
// `npm run bench -- startup [-- <other checkout>...]`: what a fresh isolate costs, the product Worker as `wrangler
// deploy` builds it (scripts/bench/deployed.mjs) beside a trivial Worker, in one run.
//
// workerd compiles every module of a Worker when it loads the Worker (a syntax error in a module that is only
// import()ed fails the start); its first request then evaluates the main module's global scope and answers. So:
//   - compile: the time V8 takes to compile the main module, in this Node process (the same source; V8 as Node
//     has it), median of BENCH_RUNS compiles;
//   - global scope: the CPU time of evaluating the main module in workerd (via Miniflare), from a V8 CPU profile
//     of its import alone, as `wrangler check startup` measures it (active = sampled - idle);
//   - first answer: the wall time of a fresh isolate's first request, `GET /api/v1/visibility` with a demo key,
//     from Node over loopback, the workerd process started and ready before: evaluating the main module, then
//     answering. The product answers from its cache (the Cache API or KV, filled by a warm-up run and kept on
//     disk; a fresh isolate's memory tier is empty); the trivial Worker answers the same body from a constant, and
//     a second trivial Worker from the Cache API (the floor of any Worker that answers from a cache: in Miniflare
//     the Cache API is another service, a loopback round trip away).
// Each Worker runs behind the same small entry module, which import()s the Worker's main module at the first
// request and hands every request to it (the way `wrangler check startup` loads it). Medians of BENCH_RUNS
// (default 10) fresh workerd processes per Worker, the Workers alternating. Each extra argument is another
// checkout whose Worker is measured in the same run (e.g. an earlier commit's).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { buildAsDeployed, miniflareModules } from './bench/deployed.mjs';
import { compatibilityDate, compatibilityFlags, deployedBindings, migrationStatements } from './bench/miniflare.mjs';

/** `BENCH_QUICK=1` (npm run bench -- quick): one run of each, the same checks of the first answer. */
const RUNS = Number(process.env.BENCH_RUNS ?? (process.env.BENCH_QUICK === '1' ? 1 : 10));
const KEY = 'demo_pro_single';
const PATH = '/api/v1/visibility';
const IMPORT_PATH = '/__startup/import';

/** The entry in front of every measured Worker: it loads the Worker at the first request. */
const entry = (main) => `let worker;
const load = () => (worker ??= import(${JSON.stringify(`./${main}`)}));
export default {
  async fetch(request, env, ctx) {
    const loaded = await load();
    if (request.url.endsWith(${JSON.stringify(IMPORT_PATH)})) return new Response('loaded');
    return loaded.default.fetch(request, env, ctx);
  },
};`;

const persist = mkdtempSync(path.join(tmpdir(), 'bench-startup-'));

/** The bindings the product parses; its Durable Objects live in a second Worker (`objects`). */
const productBindings = (objects) => deployedBindings({ database: 'bench-startup', ...(objects ? {} : { objectsIn: 'objects' }), vars: { DEMO_DATA: '' } });

/**
 * A workerd process running `worker` behind the loading entry. The product's Durable Objects run in a second
 * Worker of the same process (its own isolate, loaded at start-up and not measured): the measured isolate only
 * binds to them. Storage persists across processes, so the cache filled by the warm-up answers fresh isolates.
 */
async function start(worker, { inspector = false, vars = {} } = {}) {
  const measured = { name: 'measured', modulesRoot: '/', modules: [{ type: 'ESModule', path: '/__entry.mjs', contents: entry(worker.main) }, ...miniflareModules(worker.modules)] };
  const bound = productBindings(false);
  const workers = worker.product
    ? [
        { ...measured, ...bound, bindings: { ...bound.bindings, ...vars } },
        { name: 'objects', modulesRoot: '/', modules: miniflareModules(worker.modules), ...productBindings(true) },
      ]
    : [{ ...measured, compatibilityDate, compatibilityFlags }];
  const mf = new Miniflare(convertV4MiniflareOptions({ workers, resourcePersistencePath: persist, port: 0, ...(inspector ? { inspectorPort: 0 } : {}) }));
  const url = await mf.ready;
  return { mf, url };
}

const auth = { authorization: `Bearer ${KEY}` };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads the measured request through to the upstream, so the cache holds it anew; the writes run in waitUntil. */
async function refresh(url) {
  await (await fetch(new URL(PATH, url), { headers: { ...auth, 'cache-control': 'no-cache' } })).arrayBuffer();
  await sleep(500);
}

/** The first answer of a fresh isolate, in ms; it must be a cache HIT for the product. */
async function firstAnswer(worker) {
  const { mf, url } = await start(worker);
  try {
    const started = performance.now();
    const response = await fetch(new URL(PATH, url), { headers: auth });
    await response.arrayBuffer();
    const ms = performance.now() - started;
    if (response.status !== 200) throw new Error(`${worker.label}: ${PATH} answered ${response.status}`);
    if (worker.cached && response.headers.get('x-cache') === 'MISS') throw new Error(`${worker.label}: the first answer was not from the Cache API`);
    if (worker.product && response.headers.get('x-cache') !== 'HIT')
      throw new Error(`${worker.label}: the first answer was ${response.headers.get('x-cache')}, not a HIT: ${response.headers.get('cache-status')}`);
    // Stored anew for the next isolate: a HIT on an entry older than KEY_RECHECK_MS (5 min) would check the key upstream first.
    if (worker.product) await refresh(url);
    return ms;
  } finally {
    await mf.dispose();
  }
}

/** The CPU time (ms) of evaluating the main module in a fresh isolate: a V8 profile of its import alone. */
async function globalScope(worker) {
  const { mf, url } = await start(worker, { inspector: true });
  try {
    const socket = new WebSocket(new URL('/core:user:measured', await mf.getInspectorURL()));
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = reject;
    });
    let id = 0;
    const pending = new Map();
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      pending.get(message.id)?.(message.result);
    };
    const send = (method, params = {}) =>
      new Promise((resolve) => {
        pending.set(++id, resolve);
        socket.send(JSON.stringify({ id, method, params }));
      });
    await send('Profiler.enable');
    await send('Profiler.setSamplingInterval', { interval: 100 });
    await send('Profiler.start');
    await (await fetch(new URL(IMPORT_PATH, url))).arrayBuffer();
    const { profile } = await send('Profiler.stop');
    socket.close();
    const names = new Map(profile.nodes.map((node) => [node.id, node.callFrame.functionName]));
    let active = 0;
    profile.timeDeltas.forEach((delta, i) => {
      if (names.get(profile.samples[i]) !== '(idle)') active += delta;
    });
    return active / 1000;
  } finally {
    await mf.dispose();
  }
}

/** The time (ms) V8 takes to compile the main module's source as a module (each time a new source: no cache). */
function compile(worker) {
  const source = worker.modules.find((m) => m.name === worker.main).content.toString();
  const started = performance.now();
  new vm.SourceTextModule(`${source}\n// ${Math.random()}`);
  return performance.now() - started;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => x.toFixed(1);

// The Workers: this checkout's product, any other checkouts', and the trivial Worker answering the same body.
console.error('Building the Worker (wrangler deploy --dry-run)...');
const products = [{ label: 'product (this checkout)', ...buildAsDeployed(), product: true }];
for (const dir of process.argv.slice(2)) products.push({ label: `product (${dir})`, ...buildAsDeployed(path.resolve(dir)), product: true });

// Warm-up: the demo data into the persisted D1, and the measured read into the persisted cache.
console.error('Warming up: loading the demo data and caching the read (about a minute)...');
let body;
{
  const { mf, url } = await start(products[0], { vars: { DEMO_DATA: 'on-empty' } });
  const db = await mf.getD1Database('DB');
  await db.batch(migrationStatements().map((s) => db.prepare(s)));
  await refresh(url);
  const again = await fetch(new URL(PATH, url), { headers: auth });
  body = await again.text();
  if (again.headers.get('x-cache') !== 'HIT') throw new Error(`warm-up: the second read was ${again.headers.get('x-cache')}`);
  await mf.dispose();
}
const trivialSource = `const BODY = ${JSON.stringify(body)};
export default { fetch() { return new Response(BODY, { headers: { 'content-type': 'application/json; charset=utf-8' } }); } };`;
const trivial = { label: 'trivial Worker (same body)', modules: [{ name: 'trivial.js', content: Buffer.from(trivialSource) }], main: 'trivial.js', product: false };
// The floor a fresh isolate of any caching Worker pays: the same body read from the Cache API (a loopback round
// trip to another service in Miniflare), stored there by the warm-up.
const cachedSource = `const BODY = ${JSON.stringify(body)};
const KEY = 'https://floor.invalid/visibility';
export default {
  async fetch() {
    const hit = await caches.default.match(KEY);
    if (hit) return hit;
    const response = new Response(BODY, { headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'max-age=86400' } });
    await caches.default.put(KEY, response.clone());
    return new Response(BODY, { headers: { 'content-type': 'application/json; charset=utf-8', 'x-cache': 'MISS' } });
  },
};`;
const cached = { label: 'trivial Worker reading the body from the Cache API', modules: [{ name: 'cached.js', content: Buffer.from(cachedSource) }], main: 'cached.js', product: false, cached: true };
{
  const { mf, url } = await start(cached);
  await (await fetch(new URL(PATH, url))).arrayBuffer();
  await mf.dispose();
}

const workers = [trivial, cached, ...products];
const results = new Map(workers.map((w) => [w, { compile: [], scope: [], answer: [] }]));
for (let run = 0; run < RUNS; run++) {
  const order = run % 2 ? [...workers].reverse() : workers;
  for (const worker of order) results.get(worker).compile.push(compile(worker));
  for (const worker of order) results.get(worker).scope.push(await globalScope(worker));
  for (const worker of order) results.get(worker).answer.push(await firstAnswer(worker));
  console.error(`run ${run + 1}/${RUNS}`);
}
rmSync(persist, { recursive: true, force: true });

const floor = results.get(trivial);
const range = (xs) => `${ms(median(xs))} (${ms(Math.min(...xs))}-${ms(Math.max(...xs))})`;
const ratio = (a, b) => `${(a / b).toFixed(1)}x`;
console.log(`\nFresh isolates: ${RUNS} of each Worker, alternating. Median (min-max), ms.`);
console.log('compile: V8 compiling the main module (in Node); global scope: its evaluation in workerd, CPU (V8 profile);');
console.log(`first answer: GET ${PATH} (${KEY}), the isolate's first request, wall time over loopback (the product answers from its cache).\n`);
console.log('| Worker | main module | compile | global scope | first answer | first answer vs trivial | first answer vs the Cache API floor | compile + first answer vs trivial |');
console.log('|---|---|---|---|---|---|---|---|');
for (const worker of workers) {
  const { compile: c, scope, answer } = results.get(worker);
  const size = worker.modules.find((m) => m.name === worker.main).content.length;
  const cold = median(c) + median(answer);
  const floorCold = median(floor.compile) + median(floor.answer);
  console.log(
    `| ${worker.label} | ${(size / 1024).toFixed(0)} KiB | ${range(c)} | ${range(scope)} | ${range(answer)} | ${ratio(median(answer), median(floor.answer))} | ${ratio(median(answer), median(results.get(cached).answer))} | ${ratio(cold, floorCold)} |`,
  );
}
