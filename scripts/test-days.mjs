#!/usr/bin/env node
// `npm test -- days [-- <day>... | --year]`: the vitest suite as if it ran on each day given, one run per day, by
// default the next seven; `--year`, the last day of each month of next year. A day is YYYY-MM-DD (the real time of day kept) or an instant (2026-12-31T23:59:30Z); only days
// from today on (test/run-clock.ts says why). The demo data is generated for the day a run falls on, so a test
// can pass today and fail next week (which rival wins a question this week, which engines a report's lead names);
// CI runs on whatever day a change lands. Prints each day's failed tests and counts, keeps each run's whole output
// in a file it names, and exits 1 when any day failed. About two minutes a day.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const DAY_MS = 86_400_000;
const today = Date.now() - (Date.now() % DAY_MS);
const args = process.argv.slice(2);
/** `--year`: the last day of each month of next year (month ends, a leap day's absence, the year's turn). */
const nextYear = () => {
  const year = new Date(today).getUTCFullYear() + 1;
  return Array.from({ length: 12 }, (_, m) => new Date(Date.UTC(year, m + 1, 0)).toISOString().slice(0, 10));
};
const days = args.includes('--year') ? nextYear() : args.length > 0 ? args : Array.from({ length: 7 }, (_, i) => new Date(today + (i + 1) * DAY_MS).toISOString().slice(0, 10));
const bad = days.filter((day) => Number.isNaN(Date.parse(day)));
if (bad.length > 0) {
  console.error(`Not a day or an instant: ${bad.join(', ')}. Use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ.`);
  process.exit(2);
}

const outputs = mkdtempSync(path.join(tmpdir(), 'test-days-'));
const plain = (text) => text.replace(/\x1b\[[0-9;]*m/g, '');
let failed = 0;
for (const day of days) {
  const run = spawnSync('vitest', ['run'], { env: { ...process.env, TEST_DAY: day, WRANGLER_SEND_METRICS: 'false' }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const output = plain(`${run.stdout}${run.stderr}`);
  const file = path.join(outputs, `${day.replaceAll(':', '')}.txt`);
  writeFileSync(file, output);
  const lines = output.split('\n');
  const summary = lines.filter((line) => /^ FAIL |^\s+(Test Files|Tests)\s/.test(line));
  if (run.status !== 0) failed++;
  console.log(`${day}: ${run.status === 0 ? 'passed' : 'FAILED'} (${file})`);
  if (run.error) console.log(`  ${run.error.message}`);
  for (const line of summary) console.log(`  ${line.trim()}`);
}
console.log(failed === 0 ? `All ${days.length} days passed.` : `${failed} of ${days.length} days failed.`);
process.exit(failed === 0 ? 0 : 1);
