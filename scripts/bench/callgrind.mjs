// What the instruction benchmarks share (bench:proxy:instructions, bench:mcp:instructions): workerd started under
// valgrind's callgrind, counters zeroed and dumped around the requests counted, and an upstream on loopback that
// answers with the demo's bodies.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import workerd from 'workerd';
import { startProductWorker } from './miniflare.mjs';

/**
 * About how much slower a request runs under callgrind (40 ms against 0.9 ms one at a time): the product Worker's
 * clock runs as much slower (scripts/bench-proxy-worker.ts, `BENCH_CLOCK_SLOWDOWN`), so that its memory copy is
 * renewed every few thousand requests, as natively, not every hundred.
 */
export const SLOWDOWN = 40;

export const outDir = resolve('dist/bench/callgrind');

/** Stops the run with what to install when valgrind is missing. */
export function requireValgrind(script) {
  if (spawnSync('valgrind', ['--version']).status === 0) return;
  console.error(`${script} needs valgrind (Debian: apt-get install valgrind).`);
  process.exit(1);
}

/**
 * The bodies of the demo key's reads, `{ path: body }`, read from the embedded origin in a Worker that runs
 * natively: under callgrind, loading the demo data into D1 takes minutes.
 */
export async function demoBodies(paths) {
  const demo = await startProductWorker({ name: 'instructions-demo' });
  try {
    await (await fetch(new URL('/__bench/seed?keys=1', demo.url))).json();
    const bodies = {};
    for (const path of paths) {
      const response = await fetch(new URL(`/api/v1${path}`, demo.url), { headers: { authorization: 'Bearer bench_1' } });
      bodies[path] = await response.text();
      if (response.status !== 200) throw new Error(`the demo read of ${path} failed: ${response.status} ${bodies[path]}`);
    }
    return bodies;
  } finally {
    await demo.mf.dispose();
  }
}

/**
 * A loopback upstream answering each path of `bodies` (`/visibility`, `/brands`, ...) with its body, as a 200 with
 * the API's headers; returns its base URL (`.../api/v1`) and `close`.
 */
export async function bodyUpstream(bodies) {
  const server = createServer((request, response) => {
    const path = new URL(request.url, 'http://upstream').pathname.replace(/^\/api\/v1/, '');
    const body = bodies[path];
    if (body === undefined) {
      response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ error: { code: 'not_found', message: `The bench's upstream does not answer ${path}.` } }));
      return;
    }
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      etag: `"v1${path.replaceAll('/', '-')}"`,
      'ratelimit-policy': '"default";q=60;w=60',
      ratelimit: '"default";r=59;t=60',
    });
    response.end(body);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${server.address().port}/api/v1`, close: () => server.close() };
}

/**
 * From here on, Miniflare starts workerd under callgrind (`MINIFLARE_WORKERD_PATH`, a wrapper in `outDir`), its
 * counters zeroed before `SubtleCrypto::timingSafeEqual` and dumped before `structuredClone`: the one runtime
 * function each of the /__bench/zero and /__bench/dump markers calls (scripts/bench-proxy-worker.ts, and the
 * trivial Worker of miniflare.mjs).
 *
 * `collectFirst`: the product Worker's zero marker runs a full garbage collection first (V8's `gc`, exposed), so
 * that every counted window starts from the same heap and pays for the collections its own calls cause. Without
 * it a window's figure moves by ±25% with the collections of the calls before it (bench:mcp:instructions, where a
 * call allocates far more than a HIT).
 */
export function startWorkersUnderCallgrind({ collectFirst = false } = {}) {
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
  // milliseconds. Compiled on the main thread instead, at the same cost in instructions, the Workers reach the
  // steady state they reach natively.
  // (workerd then says "per-isolate bootstrap compile cache failed its compatibility check": flags other than its
  // build's; it compiles its own scripts at start-up instead, before anything is counted.)
  process.env.MINIFLARE_WORKERD_V8_FLAGS = `--no-concurrent-recompilation --no-concurrent-sparkplug --no-concurrent-osr${collectFirst ? ' --expose-gc' : ''}`;
}

const dumps = () => new Set(readdirSync(outDir).filter((f) => /^callgrind\.out\.\d+\.\d+$/.test(f)));

/** Instructions the Worker at `base` executed while `work` ran: the `totals:` line of the dump its markers wrote. */
export async function counted(base, work) {
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
 * Instructions per call of `one` on the Worker at `base`, markers taken off: `windows` counted windows of `n`
 * calls each, after `warm` calls (V8 tiers up). Returns each window's figure, their mean, min and max. A window's
 * figure moves with the garbage collections that fall in it; the mean over several moves far less.
 */
export async function perCall(base, one, { warm, windows, n, concurrency = 1 }) {
  for (let i = 0; i < warm; i++) await one();
  const markers = await counted(base, async () => {});
  const figures = [];
  for (let w = 0; w < windows; w++) figures.push(((await counted(base, () => inFlight(one, n, concurrency))) - markers) / n);
  return summary(figures);
}

/** `n` calls of `one`, `concurrency` at a time. */
export async function inFlight(one, n, concurrency = 1) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) await one();
    }),
  );
}

export const summary = (figures) => ({ figures, mean: figures.reduce((a, b) => a + b, 0) / figures.length, min: Math.min(...figures), max: Math.max(...figures) });

/** Thousands, one decimal: `1643.2k`. */
export const k = (n) => `${(n / 1000).toFixed(1)}k`;
