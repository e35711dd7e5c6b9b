/**
 * Runs before every test file. The files of one worker share one Worker
 * (`isolate: false`, vitest.config.ts), so the demo dataset is loaded once per
 * worker, by its first file; every later file starts from the storage as it
 * was right after that load (test/storage-reset.ts): what one file leaves, no
 * other file reads.
 */
import { applyD1Migrations, env, evictDurableObject, runInDurableObject, SELF } from 'cloudflare:test';
import { beforeEach } from 'vitest';
import { ConfirmSubscriptionEmail } from '../emails/confirm-subscription';
import { zodSide } from '../src/contract/zod-side';
import { sha256Hex } from '../src/lib/hash';
import { renderConfirmation } from '../src/mail/render';
import { DEMO_ACCOUNTS } from '../src/origin/demo/catalog';
import { startFile } from './storage-reset';

// The contract's zod side (src/contract/zod-side.ts), first of the parts the Worker loads at their first use (below):
// tests read its schemas (`await zodSide()`).
await zodSide();

// applyD1Migrations only applies what is missing, so running it per file is safe.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// The demo data in the worker's first file; in every later one, the storage as that load left it (test/storage-reset.ts).
await startFile();

// The parts the Worker loads at their first use (src/lib/lazy.ts), each started once here, one after the other:
// under the test runner, requests that start the same import() together can hang (workers-sdk issue 5387).
await (await SELF.fetch('http://localhost/openapi.json')).arrayBuffer(); // src/app/product.ts (the document itself: a static asset)
await (await SELF.fetch('http://localhost/mcp')).arrayBuffer(); // src/mcp/http.ts
await (await SELF.fetch('http://localhost/api/v1/openapi.json')).arrayBuffer(); // the proxy's document, a static asset (src/contract/documents.ts)
await (await SELF.fetch('http://localhost/.well-known/oauth-authorization-server')).arrayBuffer(); // src/mcp/oauth-routes.ts
await renderConfirmation(ConfirmSubscriptionEmail.PreviewProps); // src/mail/templates.ts

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
