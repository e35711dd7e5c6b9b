// The benchmarks' Miniflare: a bench Worker bundled with esbuild, a local D1 with the migrations applied, and a
// dataset loaded through the Worker's /__bench/seed route (scripts/bench/origin-worker.ts): `demo`, or `large`
// (one brand, 500 questions, 6 engines, 2 runs a day, 100 days = 600,000 runs). Used by bench:origin and
// bench:exports.
import { readFileSync, readdirSync, mkdirSync } from 'node:fs';
import { build } from 'esbuild';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';

const wrangler = readFileSync('wrangler.toml', 'utf8');
const compatibilityDate = /compatibility_date\s*=\s*"([^"]+)"/.exec(wrangler)[1];

/** Bundles `entry` for workerd into dist/bench/<name>.js. */
export async function bundle(entry, name) {
  mkdirSync('dist/bench', { recursive: true });
  const outfile = `dist/bench/${name}.js`;
  await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'neutral', target: 'es2022', outfile, logLevel: 'error', mainFields: ['module', 'main'], conditions: ['workerd', 'worker', 'import'] });
  return outfile;
}

/** The migration files as single statements, comments dropped; a trigger's body keeps its inner semicolons. */
function migrationStatements() {
  const parts = readdirSync('migrations')
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .flatMap((f) => readFileSync(`migrations/${f}`, 'utf8').replace(/--[^\n]*/g, '').split(';'));
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
  const mf = new Miniflare(
    convertV4MiniflareOptions({ modules: true, scriptPath, compatibilityDate, compatibilityFlags: ['nodejs_compat'], d1Databases: { DB: `bench-${label}` } }),
  );
  await mf.ready;
  const db = await mf.getD1Database('DB');
  await db.batch(migrationStatements().map((s) => db.prepare(s)));
  const seeded = await (await mf.dispatchFetch(`http://bench/__bench/seed?profile=${profile}`)).json();
  console.error(`${label}: loaded ${seeded.runs.toLocaleString('en')} runs (${seeded.rows.toLocaleString('en')} rows) in ${seeded.seconds.toFixed(1)} s`);
  return mf;
}
