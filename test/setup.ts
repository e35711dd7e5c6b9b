/**
 * Runs before every test file. The files of one worker share one Worker
 * (`isolate: false`, vitest.config.ts), so the demo dataset is loaded once per
 * worker, by its first file; every later file starts from the storage as it
 * was right after that load (`resetStorage`): what one file leaves, no other
 * file reads.
 */
import { applyD1Migrations, env, evictDurableObject, runInDurableObject, SELF } from 'cloudflare:test';
import { beforeEach } from 'vitest';
import { ConfirmSubscriptionEmail } from '../emails/confirm-subscription';
import { toDay } from '../src/contract/window';
import { zodSide } from '../src/contract/zod-side';
import { sha256Hex } from '../src/lib/hash';
import { renderConfirmation } from '../src/mail/render';
import { forgetUpstreamMap } from '../src/proxy/upstream-map';
import { DEMO_ACCOUNTS } from '../src/origin/demo/catalog';
import { isEmpty, seedDemo } from '../src/origin/demo/load';
import { kvKeys, tableNames } from './helpers';

// The contract's zod side (src/contract/zod-side.ts), first of the parts the Worker loads at their first use (below):
// tests read its schemas (`await zodSide()`).
await zodSide();

// applyD1Migrations only applies what is missing, so running it per file is safe.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
if (await isEmpty(env.DB)) await seedDemo(env.DB, { today: toDay(new Date()) });

// The parts the Worker loads at their first use (src/lib/lazy.ts), each started once here, one after the other:
// under the test runner, requests that start the same import() together can hang (workers-sdk issue 5387).
await (await SELF.fetch('http://localhost/openapi.json')).arrayBuffer(); // src/app/product.ts (the document itself: a static asset)
await (await SELF.fetch('http://localhost/mcp')).arrayBuffer(); // src/mcp/http.ts
await (await SELF.fetch('http://localhost/api/v1/openapi.json')).arrayBuffer(); // the proxy's document, a static asset (src/contract/documents.ts)
await (await SELF.fetch('http://localhost/.well-known/oauth-authorization-server')).arrayBuffer(); // src/mcp/oauth-routes.ts
await renderConfirmation(ConfirmSubscriptionEmail.PreviewProps); // src/mail/templates.ts

/**
 * The storage as the demo load left it, for every file after the worker's first: the D1 tables the load left empty
 * (subscriptions, links, sessions, alerts, deliveries, ...) emptied again, both KV namespaces emptied (the cache's
 * entries, the upstream map, the OAuth grants), and the proxy's cache purged in every tier (its isolate's memory and
 * the Cache API too, which no binding lists). The demo tables are left as loaded: no test writes them.
 */
async function resetStorage(emptyAfterLoad: readonly string[]): Promise<void> {
  const purge = await SELF.fetch('http://localhost/admin/cache/purge', {
    method: 'POST',
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ all: true }),
  });
  if (purge.status !== 200) throw new Error(`the per-file reset could not purge the cache: ${purge.status} ${await purge.text()}`);
  for (const kv of [env.CACHE, env.OAUTH_KV]) for await (const key of kvKeys(kv)) await kv.delete(key.name);
  forgetUpstreamMap();
  // One transaction; its foreign keys are checked at its end, when every table named is empty.
  await env.DB.batch([env.DB.prepare('PRAGMA defer_foreign_keys = on'), ...emptyAfterLoad.map((table) => env.DB.prepare(`DELETE FROM "${table}"`))]);
}

/** The tables the demo load left empty: the product's own, which tests write. */
async function emptyTables(): Promise<string[]> {
  const empty = await Promise.all((await tableNames()).map(async (name) => ((await env.DB.prepare(`SELECT 1 FROM "${name}" LIMIT 1`).first()) === null ? name : undefined)));
  return empty.filter((name): name is string => name !== undefined);
}

const worker = globalThis as unknown as { emptyAfterLoad?: readonly string[] };
if (worker.emptyAfterLoad === undefined) worker.emptyAfterLoad = await emptyTables();
else await resetStorage(worker.emptyAfterLoad);

/** The upstream gates of the demo keys, which many tests share (tests that count a gate's calls use keys of their own). */
const demoGates = await Promise.all(DEMO_ACCOUNTS.map(async (account) => env.UPSTREAM_GATE.idFromName(await sha256Hex(account.key))));

// Every test starts with a fresh per-minute budget and quota, whatever ran before it: the origin's
// (rate_hits, usage) and the proxy's (each demo key's gate: its stored calls, then its memory).
beforeEach(async () => {
  await env.DB.batch([env.DB.prepare('DELETE FROM rate_hits'), env.DB.prepare('DELETE FROM usage')]);
  for (const id of demoGates) {
    const gate = env.UPSTREAM_GATE.get(id);
    await runInDurableObject(gate, (_, state) => state.storage.deleteAll());
    await evictDurableObject(gate);
  }
});
