#!/usr/bin/env node
// `npm run bench:quick`: every benchmark of package.json (each `bench:*` script) in its quick mode (`BENCH_QUICK=1`:
// a few hundred requests or rows, seconds not minutes), one after another, so a benchmark that breaks fails CI the
// day it breaks (.ci/run runs this after `npm test`). A quick mode runs the same code and the same checks as the
// full run: its oracle is correctness (every answer as expected, reads per group, deliveries per subscription,
// zero errors, no call upstream where none is due), never a time: the times it prints are not judged. The full
// benchmarks stay as they are, run by hand, their figures in docs/benchmarks.md.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A quick run that takes longer than this has hung: it fails. */
const TIMEOUT_MS = 5 * 60_000;

const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts;
const benches = Object.keys(scripts).filter((name) => name.startsWith('bench:') && name !== 'bench:quick');
const results = [];
for (const name of benches) {
  const started = Date.now();
  const run = spawnSync('npm', ['run', '--silent', name], {
    env: { ...process.env, BENCH_QUICK: '1', WRANGLER_SEND_METRICS: 'false' },
    encoding: 'utf8',
    timeout: TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const ok = run.status === 0;
  results.push({ name, ok, seconds });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name} (${seconds} s)`);
  if (!ok) console.log(`${run.error ? `${run.error.message}\n` : ''}${(run.stdout ?? '').slice(-3000)}\n${(run.stderr ?? '').slice(-3000)}`);
}
const failed = results.filter((r) => !r.ok);
console.log(`\n${results.length - failed.length} of ${results.length} benchmarks passed their quick mode${failed.length ? `; failed: ${failed.map((r) => r.name).join(', ')}` : ''}.`);
process.exit(failed.length === 0 ? 0 : 1);
