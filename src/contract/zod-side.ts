/**
 * zod, and every schema of the contract (src/contract/schemas), loaded at
 * their first use: a fresh isolate answering `/api/v1` from the cache never
 * evaluates them (issue 24; `npm run size` checks it). Every other request
 * and every event awaits `loadSchemas()` where it enters (src/app/worker.ts;
 * in the proxy, before anything but a HIT), and code beyond that point reads
 * them synchronously with `schemas()`: the table's `op.query` and
 * `op.response` do.
 */
import { loadOnce } from '../lib/lazy';

type SchemasModule = typeof import('./schemas/index');

let loaded: SchemasModule | undefined;

export const loadSchemas = loadOnce(async () => (loaded = await import('./schemas/index')));

/** `loadOnce` for a lazily loaded part that reads the contract's schemas: they load first. */
export const loadWithSchemas = <T>(load: () => Promise<T>): (() => Promise<T>) =>
  loadOnce(async () => {
    await loadSchemas();
    return load();
  });

/** The contract's schemas; throws when no caller awaited `loadSchemas()` first (a missing load point is a bug, named). */
export function schemas(): SchemasModule {
  if (!loaded) throw new Error('The contract\'s schemas are read before loadSchemas() resolved: await it where this request or event enters (src/contract/zod-side.ts).');
  return loaded;
}
