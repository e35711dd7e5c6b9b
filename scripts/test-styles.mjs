#!/usr/bin/env node
// `npm run test:styles [-- --count N] [--seed S]`: discovery alone in front of N services in house styles (test/styles/,
// issue 43 item 4), the styles of seeds S to S+N-1 (by default 50 from 1: the fixed sample of `npm test`). Runs
// test/styles.test.ts inside workerd (scripts/test-styles.config.ts, STYLES_COUNT and STYLES_SEED as bindings), and
// prints one line per style (seed, entries left for a person, the weekly report's fields equal to the origin's, the
// operations whose wrong figures the check called right, the style) and then a summary. `--json FILE` keeps every line;
// `--detail` adds to each kept line the entries left, the report's first differences and the wrong figures called right.
// Exit 0 when the run completed, whatever the figures; 1 when it did not.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const count = Number(option('count', '50'));
const seed = Number(option('seed', '1'));
const jsonOut = option('json', undefined);
const detail = args.includes('--detail');
const classic = args.includes('--classic');
if (!Number.isInteger(count) || count < 1 || !Number.isInteger(seed) || seed < 1) {
  console.error('Usage: npm run test:styles -- [--count N] [--seed S] [--json FILE]   (N >= 1, S >= 1)');
  process.exit(2);
}

const results = [];
const started = Date.now();
const child = spawn('npx', ['vitest', 'run', '--config', 'scripts/test-styles.config.ts'], {
  env: { ...process.env, STYLES_COUNT: String(count), STYLES_SEED: String(seed), STYLES_DETAIL: detail ? 'on' : 'off', STYLES_CLASS: classic ? 'classic' : 'open', WRANGLER_SEND_METRICS: 'false' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
let pending = '';
const plain = (text) => text.replace(/\x1b\[[0-9;]*m/g, '');
child.stdout.on('data', (chunk) => {
  const text = plain(String(chunk));
  output += text;
  pending += text;
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    const at = line.indexOf('STYLE {');
    if (at < 0) continue;
    const r = JSON.parse(line.slice(at + 'STYLE '.length));
    results.push(r);
    if (r.error) console.log(`seed ${r.seed} · ERROR ${r.error}`);
    else {
      const report = `${r.reportFields.equal}/${r.reportFields.total}${r.reportFailed ? ' (read failed)' : ''}`;
      console.log(
        `seed ${r.seed} · left ${r.entriesLeft}${r.unread ? ` (+${r.unread} ops unread)` : ''} · report ${report} · wrong-called-right ${r.wrongCalledRight} · stored ${r.stored - r.wrongStored}/${r.stored} right · ${r.description}`,
      );
    }
  }
});
child.stderr.on('data', (chunk) => (output += plain(String(chunk))));
child.on('close', (status) => {
  const done = results.filter((r) => !r.error);
  const named = done.filter((r) => !r.tokenNamed);
  const tokens = done.filter((r) => r.tokenNamed);
  const left = named.map((r) => r.entriesLeft).sort((a, b) => a - b);
  const median = (xs) => (xs.length === 0 ? NaN : xs.length % 2 ? xs[(xs.length - 1) / 2] : (xs[xs.length / 2 - 1] + xs[xs.length / 2]) / 2);
  const pct = (n, d) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(0)}%`);
  const equal = done.filter((r) => r.reportEqual).length;
  const namedEqual = named.filter((r) => r.reportEqual).length;
  const fields = done.reduce((s, r) => s + r.reportFields.equal, 0);
  const total = done.reduce((s, r) => s + r.reportFields.total, 0);
  const tokenLeft = tokens.map((r) => r.entriesLeft).sort((a, b) => a - b);
  console.log('');
  console.log(
    `${done.length} of ${count} styles run (seeds ${seed} to ${seed + count - 1}), ${named.length} named, ${tokens.length} token-named, in ${Math.round((Date.now() - started) / 1000)} s${results.length - done.length ? `; ${results.length - done.length} failed to run` : ''}`,
  );
  console.log(
    `named styles: entries left median ${median(left)}, max ${left.at(-1) ?? '-'} (target: at most 5 each, median at most 1); ${named.filter((r) => r.entriesLeft <= 5).length} at most 5; ${named.filter((r) => r.unread > 0).length} with operations discovery did not read`,
  );
  console.log(`token-named styles: entries left median ${median(tokenLeft)}, max ${tokenLeft.at(-1) ?? '-'}`);
  console.log(
    `weekly report equal to the origin's: ${equal} of ${done.length} styles (${pct(equal, done.length)}; named ${namedEqual} of ${named.length}); fields equal ${fields} of ${total} (${pct(fields, total)}); ${done.filter((r) => r.reportFailed).length} reads failed`,
  );
  const answeredEqual = (rs) => rs.filter((r) => r.answeredReportEqual).length;
  console.log(
    `weekly report equal once the entries left are answered from the true map: ${answeredEqual(done)} of ${done.length} (named ${answeredEqual(named)} of ${named.length}; token-named ${answeredEqual(tokens)} of ${tokens.length}, target 100%)`,
  );
  const answeredOps = (rs) => rs.filter((r) => r.answeredUnequal === 0).length;
  console.log(
    `every body equal to the origin's once answered: ${answeredOps(done)} of ${done.length} styles (named ${answeredOps(named)} of ${named.length}; token-named ${answeredOps(tokens)} of ${tokens.length}); ${done.reduce((s, r) => s + r.answeredUnequal, 0)} operations not`,
  );
  console.log(`wrong figures called right: ${done.reduce((s, r) => s + r.wrongCalledRight, 0)} operations in all (token-named: ${tokens.reduce((s, r) => s + r.wrongCalledRight, 0)}, target 0)`);
  const stored = done.reduce((s, r) => s + r.stored, 0);
  const wrongStored = done.reduce((s, r) => s + r.wrongStored, 0);
  console.log(
    `stored placements right: ${stored - wrongStored} of ${stored} (${pct(stored - wrongStored, stored)}; target 100%); ${done.filter((r) => r.wrongStored > 0).length} styles with a wrong one`,
  );
  if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify(results, null, 1)}\n`);
  if (status !== 0 || done.length < count) {
    console.log(
      `\nvitest exited ${status}; its output:\n${output
        .split('\n')
        .filter((l) => !l.includes('STYLE {'))
        .slice(-60)
        .join('\n')}`,
    );
    process.exit(1);
  }
});
