/**
 * `npm run bench:digests`: the digest benchmark, inside workerd with the real
 * D1 and the demo data, like the tests (same setup file), but not part of
 * `npm test`.
 */
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { TEST_SECRETS } from '../vitest.config';

export default defineConfig(async () => {
  const migrations = await readD1Migrations('migrations');
  return {
    // The production JSX runtime, to match React's production build below.
    oxc: { jsx: { runtime: 'automatic' as const, development: false } },
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        // The Worker with the tests' seams: upstream reads are counted at the gate.
        main: './test/worker.ts',
        miniflare: {
          // NODE_ENV=production (read from process.env, populated from bindings under nodejs_compat) makes React load its
          // production build, as `wrangler deploy` bundles it; without it vitest runs React's development build.
          bindings: {
            TEST_MIGRATIONS: migrations,
            NODE_ENV: 'production',
            // The tests' secrets, so the benchmark needs no .dev.vars either.
            ...TEST_SECRETS,
          },
        },
      }),
    ],
    test: {
      setupFiles: ['./test/setup.ts'],
      include: ['scripts/bench-digests.run.ts'],
      isolate: false,
      fileParallelism: false,
      testTimeout: 900_000,
      hookTimeout: 300_000,
      // One JSON line per processed group is the Worker's log; the benchmark prints its own summary.
      onConsoleLog: (log: string) => !log.includes('"msg":"digest'),
    },
  };
});
