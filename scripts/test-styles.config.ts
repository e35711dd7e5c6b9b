/**
 * `npm run test:styles`: test/styles.test.ts inside workerd with the real D1
 * and the demo data, like the tests (same Worker and setup file), with
 * `STYLES_COUNT`, `STYLES_SEED` and `STYLES_DETAIL` (`--detail`: the entries left and the report's differences) as bindings: only its run over that many
 * house styles, one `STYLE {json}` line each (scripts/test-styles.mjs prints
 * them and the summary).
 */
import { defineConfig } from 'vitest/config';
import { SETUP_FILES, testWorker } from '../vitest.config';

export default defineConfig(async () => ({
  plugins: [
    await testWorker({
      STYLES_COUNT: process.env.STYLES_COUNT ?? '50',
      STYLES_SEED: process.env.STYLES_SEED ?? '1',
      STYLES_DETAIL: process.env.STYLES_DETAIL ?? 'off',
      STYLES_CLASS: process.env.STYLES_CLASS ?? 'open',
      // The run's day, as `npm test -- days` sets it (test/run-clock.ts): the demo data moves with it.
      ...(process.env.TEST_DAY ? { TEST_DAY: process.env.TEST_DAY } : {}),
    }),
  ],
  test: {
    setupFiles: SETUP_FILES,
    include: ['test/styles.test.ts'],
    isolate: false,
    fileParallelism: false,
    testTimeout: 0,
    hookTimeout: 300_000,
    // Only the styles' lines: the Worker's own log lines are left out.
    onConsoleLog: (log: string) => log.startsWith('STYLE '),
  },
}));
