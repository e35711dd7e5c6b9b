// The steps `npm test` (scripts/test.mjs) and `npm run check` (scripts/check.mjs) run, each a command by name,
// and the one way to run them: printed first, then run with its output shown, the first failure ending the run
// with that step's exit code. A step runs as an npm script would: node_modules/.bin first on PATH (so `node` is
// the Node 22 of the `node` package, and `biome`, `tsc`, `vitest` are the installed ones) and
// WRANGLER_SEND_METRICS=false.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = path.join(root, 'node_modules', '.bin');

/** The environment of every step: PATH as `npm run` sets it, no metrics sent by wrangler. */
export function stepEnv(extra = {}) {
  const parts = (process.env.PATH ?? '').split(path.delimiter);
  const PATH = parts[0] === bin ? process.env.PATH : [bin, ...parts].join(path.delimiter);
  return { ...process.env, PATH, WRANGLER_SEND_METRICS: 'false', ...extra };
}

const node = (script, ...args) => ['node', [script, ...args]];

/** Each step: its commands, run in order. */
export const STEPS = {
  lint: [['biome', ['ci', '.']]],
  typecheck: [
    ['tsc', ['--noEmit', '-p', '.']],
    ['tsc', ['--noEmit', '-p', 'src/mcp/app']],
  ],
  layers: [node('scripts/check-layers.mjs')],
  html: [node('scripts/check-html.mjs')],
  words: [node('scripts/check-words.mjs')],
  docs: [node('scripts/check-docs.mjs')],
  unit: [['vitest', ['run', '--project', 'unit']]],
  build: [node('scripts/build-assets.mjs')],
  size: [node('scripts/size.mjs')],
  openapi: [node('scripts/check-openapi.mjs')],
  'upstream-discover': [node('scripts/check-upstream-discover.mjs')],
  deploy: [node('scripts/check-deploy.mjs')],
  'first-requests': [node('scripts/check-first-requests.mjs')],
  worker: [['vitest', ['run', '--project', 'worker']]],
  browser: [node('scripts/test-browser.mjs')],
  days: [node('scripts/test-days.mjs')],
  mcp: [node('scripts/mcp-conformance.mjs')],
};

/** Runs the steps named, `extra` appended to the last command of the last one; exits with the first failure's code. */
export function runSteps(names, extra = []) {
  const started = Date.now();
  names.forEach((name, i) => {
    const commands = STEPS[name];
    commands.forEach(([command, args], j) => {
      const last = i === names.length - 1 && j === commands.length - 1;
      const argv = last ? [...args, ...extra] : args;
      console.log(`\n> [${i + 1}/${names.length}] ${name}: ${command} ${argv.join(' ')}`);
      const run = spawnSync(command, argv, { cwd: root, env: stepEnv(), stdio: 'inherit' });
      const code = run.error ? 127 : (run.status ?? 1);
      if (code !== 0) {
        console.error(`\n${name} failed (${run.error ? run.error.message : `exit ${run.status ?? run.signal}`}); the steps after it did not run.`);
        process.exit(code);
      }
    });
  });
  console.log(`\nok: ${names.join(', ')} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
