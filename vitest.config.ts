import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { runStart } from './test/run-start';

/** Test secrets, so `npm test` needs no .dev.vars (it is git-ignored and absent on a clean clone). */
export const TEST_SECRETS = {
  ADMIN_TOKEN: 'test_admin_token',
  SIGNING_SECRET: 'test_signing_secret',
  ENCRYPTION_KEY: 'dGVzdF9lbmNyeXB0aW9uX2tleV8zMl9ieXRlc19vayE=',
};

/**
 * The Worker the tests (and `npm run bench -- digests`) run in workerd: the
 * product's, built with the tests' seams (test/worker.ts; wrangler.toml's
 * main has none), with the migrations for test/setup.ts, the test secrets,
 * and `DEV_ROUTES: 'on'` (the tests read the dev outbox; a test that needs a
 * deployment's env sets it to ''). The mail settings are set too, so that a
 * `.dev.vars` left by `npm run dev` changes nothing here.
 */
export async function testWorker(bindings: Record<string, string> = {}) {
  const migrations = await readD1Migrations('migrations');
  // The run's clock, fixed once here for every worker of the run (test/run-clock.ts): one day, whichever worker reads it.
  const now = Date.now();
  const offset = String(runStart(now, bindings.TEST_DAY) - now);
  return cloudflareTest({
    wrangler: { configPath: './wrangler.toml' },
    main: './test/worker.ts',
    miniflare: { bindings: { TEST_MIGRATIONS: migrations, ...TEST_SECRETS, DEV_ROUTES: 'on', DIGEST_FROM: '', RESEND_API_KEY: '', RUN_OFFSET: offset, ...bindings } },
  });
}

/** The day the suite runs as, set by `npm test -- days` (scripts/test-days.mjs, test/run-clock.ts); unset, today. */
const day = process.env.TEST_DAY;

/** Every test config's setup: the run's clock first (test/run-clock.ts: one day for the whole run), then the demo data. */
export const SETUP_FILES = ['./test/run-clock.ts', './test/setup.ts'];

/** The unit test left in test/ (the rest of the unit project is every `*.test.ts` of src/, beside the code): the run clock's own, a helper of test/. */
const UNIT_IN_TEST = ['test/run-clock.unit.test.ts'];

/**
 * Two projects, the unit one first (`groupOrder`; `npm test` runs it alone first, so a failure there stops before
 * the Worker starts): `unit` is every test beside the code (a `*.test.ts` of src/) in plain Node, no bindings, no demo
 * data, no Worker, only the run's clock (its offset passed as `RUN_OFFSET`); `worker` is test/ in workerd, behind the
 * demo data and the Worker's warm-ups (test/setup.ts). docs/tests.md has the measurements.
 */
export default defineConfig(async () => {
  const now = Date.now();
  const offset = String(runStart(now, day) - now);
  return {
    test: {
      // The files' order is shuffled by a fixed seed (`TEST_SEED=N` for another): the suite passes in any order, and a run is repeatable.
      sequence: { shuffle: { files: true, tests: false }, seed: Number(process.env.TEST_SEED ?? 20261128) },
      // Two at a time, at the root and in each project: a project does not take the root's, and its own default here is one.
      maxWorkers: 2,
      projects: [
        {
          extends: false,
          // Modules that define a Durable Object import its base class: a stand-in that refuses to construct one.
          resolve: { alias: { 'cloudflare:workers': fileURLToPath(new URL('./test/cloudflare-workers-node.ts', import.meta.url).href) } },
          test: {
            name: 'unit',
            environment: 'node',
            include: ['src/**/*.test.ts', ...UNIT_IN_TEST],
            setupFiles: ['./test/run-clock.ts'],
            env: { RUN_OFFSET: offset, ...(day ? { TEST_DAY: day } : {}) },
            sequence: { groupOrder: 0 },
            // One module graph per worker for its files, as in the worker project: 4 s for the project, not 12 (docs/tests.md).
            isolate: false,
            maxWorkers: 2,
            testTimeout: 10_000,
            hookTimeout: 10_000,
          },
        },
        {
          extends: false,
          plugins: [await testWorker(day ? { TEST_DAY: day, RUN_OFFSET: offset } : { RUN_OFFSET: offset })],
          test: {
            name: 'worker',
            setupFiles: SETUP_FILES,
            include: ['test/**/*.test.ts'],
            exclude: UNIT_IN_TEST,
            sequence: { groupOrder: 1 },
            // Two workers, each one Worker and one storage for its files, one after another: the demo dataset is loaded
            // once per worker (about 7 s), not per file.
            isolate: false,
            fileParallelism: true,
            maxWorkers: 2,
            testTimeout: 30_000,
            hookTimeout: 120_000,
          },
        },
      ],
    },
  };
});
