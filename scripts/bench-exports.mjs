#!/usr/bin/env node
// `npm run bench -- exports`: how long a CSV export link takes on the 600,000-run set (one brand, 500 questions,
// 6 engines, 2 runs a day, 100 days), in workerd through Miniflare with a local D1. Every list-shaped operation
// of the contract table (its example request; windowed ones over 90 days) is exported once to find the largest
// CSV; that one is then timed over BENCH_READS sequential reads, as JSON (`/api/v1`, the origin's read) and as
// CSV (the same read, then src/exports/table.ts); and the CSV's own work alone, on the same body in Node. Workerd's clock does
// not move during computation, so times are taken outside, around each request.
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { bundle, start } from './bench/miniflare.mjs';
import { fetchOperations, withQuery } from './bench/operations.mjs';

/** `BENCH_QUICK=1` (npm run bench -- quick): the demo set instead of the 600,000 runs, 2 reads, the same checks. */
const QUICK = process.env.BENCH_QUICK === '1';
const READS = Number(process.env.BENCH_READS ?? (QUICK ? 2 : 25));
const KEYS = 200;
let turn = 0;
const auth = () => ({ authorization: `Bearer bench_key_${(turn++ % KEYS) + 1}` });

const mf = await start(QUICK ? 'exports-demo' : 'exports-large', QUICK ? 'demo' : 'large', await bundle('scripts/bench/exports-worker.ts', 'exports-worker'));
const csvPath = (id, path) => `/__bench/csv?op=${id}&path=${encodeURIComponent(path)}`;

async function timed(path) {
  const started = performance.now();
  const response = await mf.dispatchFetch(`http://bench${path}`, { headers: auth() });
  const body = await response.text();
  return { ms: performance.now() - started, status: response.status, body };
}

// The operations with rows are those whose example the exports Worker accepts: it answers 400 for any other.
const sizes = [];
for (const { id, example, window } of await fetchOperations('http://bench/api/v1/openapi.json', (url) => mf.dispatchFetch(url))) {
  const path = window.kind === 'dated' || window.kind === 'trailing' ? withQuery(example, { days: 90 }) : example;
  const r = await timed(csvPath(id, path));
  if (r.status === 400 && r.body === 'unknown op') continue;
  if (r.status !== 200) throw new Error(`${id}: ${r.status} ${r.body.slice(0, 200)}`);
  sizes.push({ id, path, bytes: r.body.length, rows: r.body.split('\r\n').length - 2 });
}
sizes.sort((a, b) => b.bytes - a.bytes);
console.log('\nCSV size per list-shaped operation on the 600,000-run set (example request; windowed ones over 90 days)\n');
console.log('| operation | rows | CSV bytes |');
console.log('|---|---|---|');
for (const s of sizes) console.log(`| ${s.id} | ${s.rows.toLocaleString('en')} | ${s.bytes.toLocaleString('en')} |`);

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
async function measure(path) {
  await timed(path);
  const times = [];
  for (let i = 0; i < READS; i++) times.push((await timed(path)).ms);
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95) };
}
const largest = sizes[0];
const json = await measure(`/api/v1${largest.path}`);
const csv = await measure(csvPath(largest.id, largest.path));
console.log(`\nLargest: ${largest.id} ${largest.path} (${largest.rows.toLocaleString('en')} rows, ${(largest.bytes / 1024).toFixed(0)} KiB of CSV), ms over ${READS} sequential reads\n`);
console.log('| answer | p50 | p95 |');
console.log('|---|---|---|');
console.log(`| JSON (the origin's read) | ${json.p50.toFixed(1)} | ${json.p95.toFixed(1)} |`);
console.log(`| CSV (the read, flattened, toCsv) | ${csv.p50.toFixed(1)} | ${csv.p95.toFixed(1)} |`);

// The CSV's own cost, apart from the read and the noise around it: the same code (src/exports/table.ts) on the
// same JSON body, in Node's V8 (workerd's engine), where the clock moves during computation.
await build({
  stdin: {
    contents: "export { csvColumns, tableRows, toCsv } from './src/exports/table.ts'; export { operations } from './src/contract/operations.ts'; export { zodSide } from './src/contract/zod-side.ts';",
    resolveDir: process.cwd(),
    loader: 'ts',
  },
  bundle: true,
  format: 'esm',
  platform: 'node',
  packages: 'external',
  outfile: 'dist/bench/table.mjs',
  logLevel: 'error',
});
const { csvColumns, tableRows, toCsv, operations, zodSide } = await import(pathToFileURL('dist/bench/table.mjs').href);
const zs = await zodSide();
const body = JSON.parse((await timed(`/api/v1${largest.path}`)).body);
const op = { id: largest.id, ...operations[largest.id] };
const own = [];
for (let i = 0; i < READS + 1; i++) {
  const started = performance.now();
  const columns = csvColumns(zs, op);
  toCsv(columns, tableRows(op.csv, columns, body));
  if (i > 0) own.push(performance.now() - started);
}
own.sort((a, b) => a - b);
console.log(`| the CSV's own work (flatten + toCsv, Node, same body) | ${quantile(own, 0.5).toFixed(1)} | ${quantile(own, 0.95).toFixed(1)} |`);
// The oracle: the Worker's CSV of the largest table is the table's code's on the same body, one row per item.
const columns = csvColumns(zs, op);
const expected = toCsv(columns, tableRows(op.csv, columns, body));
const served = (await timed(csvPath(largest.id, largest.path))).body;
await mf.dispose();
if (served !== expected || largest.rows < 1) {
  console.error(`\nbench:exports failed: the CSV of ${largest.id} (${largest.rows} rows) is not the table of its JSON body (${served.length} bytes served, ${expected.length} expected)`);
  process.exit(1);
}
