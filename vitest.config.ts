import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

export default defineConfig(async () => {
  const migrations = await readD1Migrations('migrations');
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          // Test-only: the migrations, applied by test/setup.ts.
          bindings: { TEST_MIGRATIONS: migrations },
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
