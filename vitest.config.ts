import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

/** Test secrets, so `npm test` needs no .dev.vars (it is git-ignored and absent on a clean clone). */
export const TEST_SECRETS = {
  ADMIN_TOKEN: 'test_admin_token',
  SIGNING_SECRET: 'test_signing_secret',
  ENCRYPTION_KEY: 'dGVzdF9lbmNyeXB0aW9uX2tleV8zMl9ieXRlc19vayE=',
};

export default defineConfig(async () => {
  const migrations = await readD1Migrations('migrations');
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        // The product's Worker with the tests' seams (test/seams.ts); wrangler.toml's main has none.
        main: './test/worker.ts',
        miniflare: {
          bindings: {
            // Test-only: the migrations, applied by test/setup.ts.
            TEST_MIGRATIONS: migrations,
            ...TEST_SECRETS,
          },
        },
      }),
    ],
    test: {
      setupFiles: ['./test/setup.ts'],
      include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
      // One Worker and one storage for all files: the demo dataset is loaded once (about 15 s), not per file.
      isolate: false,
      fileParallelism: false,
      testTimeout: 30_000,
      hookTimeout: 120_000,
    },
  };
});
