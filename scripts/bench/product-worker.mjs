// The product Worker as the benchmarks run it (scripts/bench-proxy-worker.ts:
// the Worker as deployed, plus a seeding route and an upstream-call counter),
// bundled and started in workerd through Miniflare with every binding it
// parses, a local D1 with the migrations applied. Used by bench:proxy and
// bench:mcp.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';

export const compatibilityDate = /compatibility_date\s*=\s*"([^"]+)"/.exec(readFileSync('wrangler.toml', 'utf8'))[1];

/** The vars and secrets every bench run gives the Worker (its env parses with them; mail is never sent). */
export const BENCH_VARS = { UPSTREAM_URL: '', DEMO_DATA: '', ADMIN_TOKEN: 'bench-admin', SIGNING_SECRET: 'bench', ENCRYPTION_KEY: 'YmVuY2hfZW5jcnlwdGlvbl9rZXlfMzJfYnl0ZXNfX18=', DIGEST_FROM: 'bench@example.com' };

/** The migrations as single statements; a trigger's body (BEGIN ... END;) stays one statement. */
export function migrationStatements() {
  const statements = [];
  for (const file of readdirSync('migrations').filter((f) => f.endsWith('.sql')).sort()) {
    let current = '';
    for (const part of readFileSync(`migrations/${file}`, 'utf8').replace(/--[^\n]*/g, '').split(';')) {
      current += `${part};`;
      const open = /\bBEGIN\b/i.test(current) && !/\bEND\s*;$/i.test(current.trim());
      if (!open) {
        if (current.replace(/;/g, '').trim()) statements.push(current.trim());
        current = '';
      }
    }
  }
  return statements;
}

/**
 * Bundles and starts the Worker; returns Miniflare and its address once D1 is
 * migrated. `name` names the bundle and the database; `vars` are added to
 * `BENCH_VARS`; `unverifiedPerMinute` is the address limit on unverified keys
 * (wrangler.toml's 120 unless a run needs more).
 */
export async function startProductWorker({ name, vars = {}, unverifiedPerMinute = 120 }) {
  mkdirSync('dist/bench', { recursive: true });
  const scriptPath = `dist/bench/${name}-worker.js`;
  await build({
    entryPoints: ['scripts/bench-proxy-worker.ts'],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    outfile: scriptPath,
    logLevel: 'error',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'import'],
    external: ['cloudflare:*', 'node:*'],
  });
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      scriptPath,
      compatibilityDate,
      compatibilityFlags: ['nodejs_compat'],
      d1Databases: { DB: `bench-${name}` },
      kvNamespaces: ['CACHE'],
      ratelimits: { UNVERIFIED_KEYS: { namespace_id: '1001', simple: { limit: unverifiedPerMinute, period: 60 } } },
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
