/**
 * Runs before every test file. Files share one Worker and its storage
 * (`isolate: false`), so the demo dataset is loaded once, by the first file.
 */
import { applyD1Migrations, env } from 'cloudflare:test';
import { beforeEach } from 'vitest';
import { toDay } from '../src/contract/window';
import { isEmpty, seedDemo } from '../src/origin/demo/load';

// applyD1Migrations only applies what is missing, so running it per file is safe.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
if (await isEmpty(env.DB)) await seedDemo(env.DB, { today: toDay(new Date()) });

// Every test starts with a fresh per-minute budget and quota, whatever ran before it.
beforeEach(async () => {
  await env.DB.batch([env.DB.prepare('DELETE FROM rate_hits'), env.DB.prepare('DELETE FROM usage')]);
});
