// The benchmarks' Miniflare, one place: bench Workers bundled with esbuild, a local D1 with the migrations
// applied, and either a dataset loaded through /__bench/seed (scripts/bench/origin-worker.ts: `demo`, or `large`,
// one brand, 500 questions, 6 engines, 2 runs a day, 100 days = 600,000 runs; bench:origin and bench:exports) or
// the product Worker with every binding it parses (scripts/bench-proxy-worker.ts; bench:proxy and bench:mcp).
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { ASSETS_DIRECTORY } from '../assets-dir.mjs';

const wranglerToml = readFileSync('wrangler.toml', 'utf8');
export const compatibilityDate = /compatibility_date\s*=\s*"([^"]+)"/.exec(wranglerToml)[1];
/** wrangler.toml's flags (a TOML array of strings reads as JSON). */
export const compatibilityFlags = JSON.parse(/^compatibility_flags\s*=\s*(\[[^\]]*\])/m.exec(wranglerToml)[1]);

/** Bundles `entry` for workerd into dist/bench/<name>.js. */
export async function bundle(entry, name) {
  mkdirSync('dist/bench', { recursive: true });
  const outfile = `dist/bench/${name}.js`;
  await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    outfile,
    logLevel: 'error',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'import'],
    external: ['cloudflare:*', 'node:*'],
  });
  return outfile;
}

/** The migration files as single statements, comments dropped; a trigger's body keeps its inner semicolons. */
export function migrationStatements() {
  const parts = readdirSync('migrations')
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .flatMap((f) =>
      readFileSync(`migrations/${f}`, 'utf8')
        .replace(/--[^\n]*/g, '')
        .split(';'),
    );
  const statements = [];
  for (const part of parts) {
    const open = statements.at(-1);
    if (open && /^\s*CREATE\s+TRIGGER/i.test(open) && !/\bEND\s*$/i.test(open)) statements[statements.length - 1] = `${open};${part}`;
    else statements.push(part);
  }
  return statements.map((s) => s.trim()).filter(Boolean);
}

/** A Miniflare running `scriptPath` over a fresh D1 holding the `profile` dataset. */
export async function start(label, profile, scriptPath) {
  const mf = new Miniflare(convertV4MiniflareOptions({ modules: true, scriptPath, compatibilityDate, compatibilityFlags, d1Databases: { DB: `bench-${label}` }, assets: STATIC_ASSETS }));
  await mf.ready;
  const db = await mf.getD1Database('DB');
  await db.batch(migrationStatements().map((s) => db.prepare(s)));
  const seeded = await (await mf.dispatchFetch(`http://bench/__bench/seed?profile=${profile}`)).json();
  console.error(`${label}: loaded ${seeded.runs.toLocaleString('en')} runs (${seeded.rows.toLocaleString('en')} rows) in ${seeded.seconds.toFixed(1)} s`);
  return mf;
}

/**
 * The static assets as wrangler.toml binds them (`[assets]`, `run_worker_first`): the MCP App's view and the OpenAPI
 * documents, built by scripts/build-assets.mjs (which wrangler's dry run runs first), read through `ASSETS`.
 */
export const STATIC_ASSETS = {
  directory: ASSETS_DIRECTORY,
  binding: 'ASSETS',
  routerConfig: { has_user_worker: true, invoke_user_worker_ahead_of_assets: true },
};

/** The vars and secrets every bench run gives the product Worker (its env parses with them; mail is never sent). */
export const BENCH_VARS = {
  UPSTREAM_URL: '',
  DEMO_DATA: '',
  ADMIN_TOKEN: 'bench-admin',
  SIGNING_SECRET: 'bench',
  ENCRYPTION_KEY: 'YmVuY2hfZW5jcnlwdGlvbl9rZXlfMzJfYnl0ZXNfX18=',
  DIGEST_FROM: 'bench@example.com',
};

/**
 * The bindings the product parses (wrangler.toml's, locally), for the Worker as `wrangler deploy` builds it
 * (scripts/bench/deployed.mjs) run in Miniflare: its Durable Objects live in the Worker named `objectsIn` when
 * given (a second Worker of the process, so that the measured isolate only binds to them), else in this one.
 */
export function deployedBindings({ database, objectsIn, kv = ['CACHE'], vars = {} }) {
  const where = objectsIn ? { scriptName: objectsIn } : {};
  return {
    compatibilityDate,
    compatibilityFlags,
    d1Databases: { DB: database },
    kvNamespaces: kv,
    ratelimits: { UNVERIFIED_KEYS: { namespace_id: '1001', simple: { limit: 120, period: 60 } }, OAUTH_WRITES: { namespace_id: '1002', simple: { limit: 10, period: 60 } } },
    durableObjects: { UPSTREAM_GATE: { className: 'UpstreamGate', useSQLite: true, ...where }, PROXY_STATS: { className: 'ProxyStats', useSQLite: true, ...where } },
    queueProducers: { DIGEST_QUEUE: { queueName: 'bench-digests' } },
    bindings: { ...BENCH_VARS, ...vars },
    assets: STATIC_ASSETS,
  };
}

/**
 * Bundles and starts the product Worker; returns Miniflare and its address once D1 is migrated. `name` names the
 * bundle and the database; `vars` are added to `BENCH_VARS`; `unverifiedPerMinute` is the address limit on
 * unverified keys (wrangler.toml's 120 unless a run needs more).
 */
export async function startProductWorker({ name, vars = {}, unverifiedPerMinute = 120 }) {
  const scriptPath = await bundle('scripts/bench-proxy-worker.ts', `${name}-worker`);
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      scriptPath,
      compatibilityDate,
      compatibilityFlags,
      d1Databases: { DB: `bench-${name}` },
      assets: STATIC_ASSETS,
      // OAUTH_KV as deployed: /mcp then answers through the OAuth resource server, a pasted key too.
      kvNamespaces: ['CACHE', 'OAUTH_KV'],
      ratelimits: { UNVERIFIED_KEYS: { namespace_id: '1001', simple: { limit: unverifiedPerMinute, period: 60 } }, OAUTH_WRITES: { namespace_id: '1002', simple: { limit: 10, period: 60 } } },
      durableObjects: { UPSTREAM_GATE: { className: 'UpstreamGate', useSQLite: true }, PROXY_STATS: { className: 'ProxyStats', useSQLite: true } },
      // The Worker's other bindings (digests): present so the env parses, unused here.
      queueProducers: { DIGEST_QUEUE: { queueName: 'bench-digests' } },
      bindings: { ...BENCH_VARS, ...vars },
      port: 0,
    }),
  );
  const url = new URL(await mf.ready);
  const db = await mf.getD1Database('DB');
  await db.batch(migrationStatements().map((s) => db.prepare(s)));
  return { mf, url };
}

/** The headers a cache HIT carries: the floor "with the same headers" answers these, with the HIT's values. */
export const HIT_HEADERS = ['content-type', 'x-content-type-options', 'etag', 'age', 'cache-control', 'cache-status', 'vary', 'x-cache', 'x-request-id', 'ratelimit-policy', 'ratelimit'];

/**
 * A trivial Worker on the proxy's runtime and flags, answering `body` with `headers`: the floor the HIT is
 * measured against. Like the product's bench wrapper (scripts/bench-proxy-worker.ts), it reads the request's URL
 * once to tell its /__bench/ routes from measured requests, so that this read is no part of the difference: the
 * markers `zero` and `dump` (callgrind, bench:proxy:instructions) and nothing else. With the product's platform
 * configuration: its static assets bound, so the asset router stands in front of it as in front of the product;
 * `router: false` leaves it out, to measure what the router costs a request.
 */
export async function startTrivialWorker(body, headers, { router = true } = {}) {
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: `const BODY = ${JSON.stringify(body)};
const HEADERS = ${JSON.stringify(headers)};
function marker(url) {
  if (url.endsWith('/__bench/zero')) crypto.subtle.timingSafeEqual(new Uint8Array(1), new Uint8Array(1));
  else structuredClone(1);
  return new Response(null, { status: 204 });
}
export default { fetch(request) { return request.url.includes('/__bench/') ? marker(request.url) : new Response(BODY, { headers: HEADERS }); } };`,
      compatibilityDate,
      compatibilityFlags,
      ...(router ? { assets: STATIC_ASSETS } : {}),
      port: 0,
    }),
  );
  return { mf, url: new URL(await mf.ready) };
}

/**
 * The workerd processes this Node process's Miniflares started, oldest first (bench:proxy: the proxy's, the
 * floor's, the floor's with headers). Linux only; elsewhere the CPU figures are left out.
 */
export function workerdPids() {
  if (!existsSync('/proc/self/task')) return [];
  const children = (pid) => readdirSync(`/proc/${pid}/task`).flatMap((t) => readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  return children(process.pid)
    .filter((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'workerd')
    .sort((a, b) => a - b);
}

/**
 * CPU time a process has run, in ns, over all its threads (schedstat). Unlike
 * wall time, it leaves out the time the VM's host took the core away (steal),
 * which moves throughput by tens of percent from one second to the next here.
 */
export function cpuNs(pid) {
  if (pid === undefined) return 0;
  return readdirSync(`/proc/${pid}/task`).reduce((sum, t) => sum + Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]), 0);
}
