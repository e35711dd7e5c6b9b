/**
 * `npm run bench -- digests`: the digest benchmark, inside workerd with the real
 * D1 and the demo data, like the tests (same Worker and setup file), but not
 * part of `npm test`.
 */
import { defineConfig } from 'vitest/config';
import { SETUP_FILES, testWorker } from '../vitest.config';

export default defineConfig(async () => ({
  // The production JSX runtime, to match React's production build below.
  oxc: { jsx: { runtime: 'automatic' as const, development: false } },
  // NODE_ENV=production (read from process.env, populated from bindings under nodejs_compat) makes React load its
  // production build, as `wrangler deploy` bundles it; without it vitest runs React's development build.
  plugins: [await testWorker({ NODE_ENV: 'production', BENCH_QUICK: process.env.BENCH_QUICK ?? '' })],
  test: {
    setupFiles: SETUP_FILES,
    include: ['scripts/bench-digests.run.ts'],
    isolate: false,
    fileParallelism: false,
    testTimeout: 900_000,
    hookTimeout: 300_000,
    // One JSON line per processed group is the Worker's log; the benchmark prints its own summary.
    onConsoleLog: (log: string) => !log.includes('"msg":"digest') && !log.includes('"msg":"alert'),
  },
}));
