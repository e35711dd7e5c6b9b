#!/usr/bin/env node
// `npm run bench -- <name> [args]`: one benchmark, its args passed on; no name, the list. Each runs as an npm
// script would (node_modules/.bin first on PATH, WRANGLER_SEND_METRICS=false; scripts/steps.mjs). What each
// prints and its targets: docs/benchmarks.md.
//
// `npm run bench -- quick`: every benchmark below in its quick mode (`BENCH_QUICK=1`: a few hundred requests or
// rows, seconds not minutes), one after another, so a benchmark that breaks fails CI the day it breaks (.ci/run
// runs this after `npm test`). A quick mode runs the same code and the same checks as the full run: its oracle is
// correctness (every answer as expected, reads per group, deliveries per subscription, zero errors, no call
// upstream where none is due), never a time: the times it prints are not judged.
import { spawnSync } from 'node:child_process';
import { stepEnv } from './steps.mjs';

const BENCHES = {
  digests: [['vitest', ['run', '--config', 'scripts/bench-digests.config.ts']], 'the weekly digest jobs inside workerd'],
  origin: [['node', ['scripts/bench-origin.mjs']], 'p50/p95 of every operation of the reference origin'],
  proxy: [['node', ['scripts/bench-proxy.mjs']], 'the edge proxy in workerd: HIT, MISS, revalidation'],
  'proxy-instructions': [['node', ['scripts/bench-proxy-instructions.mjs']], 'instructions of a cache HIT under valgrind'],
  load: [['node', ['scripts/bench-load.mjs']], 'the running Worker under load (wrangler dev on loopback)'],
  mcp: [['node', ['scripts/bench-mcp.mjs']], 'an MCP tool call on a cache hit beside an /api/v1 HIT'],
  'mcp-instructions': [['node', ['scripts/bench-mcp-instructions.mjs']], 'instructions of a tools/call under valgrind'],
  exports: [['node', ['scripts/bench-exports.mjs']], 'a CSV export link on the 600,000-run set'],
  startup: [['node', ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', 'scripts/bench-startup.mjs']], 'what a fresh isolate costs [-- <other checkout>...]'],
};

/** A quick run that takes longer than this has hung: it fails. */
const QUICK_TIMEOUT_MS = 5 * 60_000;

function quick() {
  const results = [];
  for (const [name, [[command, args]]] of Object.entries(BENCHES)) {
    const started = Date.now();
    const run = spawnSync(command, args, { env: stepEnv({ BENCH_QUICK: '1' }), encoding: 'utf8', timeout: QUICK_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    const ok = run.status === 0;
    results.push({ name, ok });
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name} (${seconds} s)`);
    if (!ok) console.log(`${run.error ? `${run.error.message}\n` : ''}${(run.stdout ?? '').slice(-3000)}\n${(run.stderr ?? '').slice(-3000)}`);
  }
  const failed = results.filter((r) => !r.ok);
  console.log(`\n${results.length - failed.length} of ${results.length} benchmarks passed their quick mode${failed.length ? `; failed: ${failed.map((r) => r.name).join(', ')}` : ''}.`);
  process.exit(failed.length === 0 ? 0 : 1);
}

const [name, ...rest] = process.argv.slice(2);
if (name === undefined || name === '--list') {
  console.log('npm run bench -- <name> [args]:');
  for (const [bench, [, what]] of Object.entries(BENCHES)) console.log(`  ${bench.padEnd(18)} ${what}`);
  console.log(`  ${'quick'.padEnd(18)} every benchmark above in its quick mode (CI)`);
  process.exit(0);
}
if (name === 'quick') quick();
else if (BENCHES[name]) {
  const [[command, args]] = BENCHES[name];
  const argv = [...args, ...(rest[0] === '--' ? rest.slice(1) : rest)];
  console.log(`> bench ${name}: ${command} ${argv.join(' ')}`);
  const run = spawnSync(command, argv, { env: stepEnv(), stdio: 'inherit' });
  if (run.error) console.error(`bench ${name}: ${run.error.message}`);
  process.exit(run.error ? 127 : (run.status ?? 1));
} else {
  console.error(`bench.mjs: no benchmark named "${name}"; the benchmarks: ${Object.keys(BENCHES).join(', ')}, quick.`);
  process.exit(2);
}
