#!/usr/bin/env node
// `npm run bench -- origin`: p50 and p95 latency of every operation of the
// reference origin, on the demo data and on a large generated set (one brand,
// 500 questions, 6 engines, 2 runs a day, 100 days = 600,000 runs), in
// workerd through Miniflare with a local D1. Prints a Markdown table. The
// operations and their example requests are read from the origin's
// /api/v1/openapi.json (generated from the contract table); windowed ones are
// read with their default window and over 90 days.
import { bundle, start as startWith } from './bench/miniflare.mjs';
import { fetchOperations, withQuery } from './bench/operations.mjs';

/** `BENCH_QUICK=1` (npm run bench -- quick): the demo set alone, 2 reads of each request, the same oracle. */
const QUICK = process.env.BENCH_QUICK === '1';
const READS = Number(process.env.BENCH_READS ?? (QUICK ? 2 : 25));
const KEYS = 200;
const script = await bundle('scripts/bench/origin-worker.ts', 'origin-worker');
const start = (label, profile) => startWith(label, profile, script);
let keyTurn = 0;
/** Round-robin over the bench keys: each stays under its 60 requests a minute. */
const nextKey = () => `bench_key_${(keyTurn++ % KEYS) + 1}`;

async function get(mf, path) {
  const started = performance.now();
  const response = await mf.dispatchFetch(`http://bench/api/v1${path}`, { headers: { authorization: `Bearer ${nextKey()}` } });
  const body = await response.text();
  return { ms: performance.now() - started, status: response.status, body };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function measure(mf, path) {
  await get(mf, path); // warm the statement cache
  const times = [];
  let status = 0;
  for (let i = 0; i < READS; i++) {
    const r = await get(mf, path);
    times.push(r.ms);
    status = r.status;
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95), status };
}

/**
 * The requests measured, per operation of the contract: its example request
 * (valid on both sets: the large one is brand 1's world made bigger, with
 * the same ids and texts), labelled by its window; a dated or trailing
 * window is also read over 90 days.
 */
function requests(operations) {
  return operations.flatMap(({ id, example, window }) => {
    if (window.kind === 'none') return [[id, example, 'none']];
    if (window.kind === 'fixed') return [[id, example, 'fixed']];
    return [
      [id, example, `${window.defaultDays} days`],
      [id, withQuery(example, { days: 90 }), '90 days'],
    ];
  });
}

const demo = await start('demo', 'demo');
const large = QUICK ? null : await start('large', 'large');
const rows = [];
const failures = [];
const list = requests(await fetchOperations('http://bench/api/v1/openapi.json', (url) => demo.dispatchFetch(url)));
for (const [id, path, window] of list) {
  const a = await measure(demo, path);
  const b = large ? await measure(large, path) : null;
  // The oracle: every example request answers 200 on each set.
  if (a.status !== 200) failures.push(`${id} (${window}) answered ${a.status} on the demo set`);
  if (b && b.status !== 200) failures.push(`${id} (${window}) answered ${b.status} on the large set`);
  const target = window === '90 days' ? 150 : window === 'fixed' || window === '7 days' ? 50 : null;
  const verdict =
    a.status !== 200 ? `HTTP ${a.status} on the demo set` : !b ? '' : b.status !== 200 ? `HTTP ${b.status}` : target === null ? '' : b.p50 <= target ? `ok (≤ ${target})` : `MISSED (target ${target})`;
  rows.push(`| ${id} | ${window} | ${a.p50.toFixed(1)} / ${a.p95.toFixed(1)} | ${b ? `${b.p50.toFixed(1)} / ${b.p95.toFixed(1)}` : '–'} | ${verdict} |`);
}
console.log(`\nOrigin latency in ms, p50 / p95 over ${READS} sequential reads (workerd via Miniflare, local D1; large = 600,000 runs${QUICK ? ', not run in the quick mode' : ''})\n`);
console.log('| operation | window | demo p50 / p95 | large p50 / p95 | large vs target |');
console.log('|---|---|---|---|---|');
console.log(rows.join('\n'));
await demo.dispose();
await large?.dispose();
if (failures.length > 0) {
  console.error(`\nbench:origin failed:\n${failures.join('\n')}`);
  process.exit(1);
}
