/**
 * zod, and every schema of the contract (src/contract/schemas), loaded at
 * their first use: a fresh isolate answering `/api/v1` from the cache never
 * evaluates them (issue 24; `npm run check -- size` checks it). There is no
 * synchronous way to them from here: a reader holds the value
 * `await zodSide()` gives (`zs.response(id)`, `zs.errorBodySchema()`), so a
 * reader that did not await does not compile. A lazily loaded part that
 * imports zod itself may import src/contract/schemas directly: loading it
 * loads them.
 */
import { loadOnce } from '../lib/lazy';

/** The loaded zod side: the operations' response schemas (`response(id)`, built once each), the error body's, the schema sets. */
export type ZodSide = typeof import('./schemas/index');

export const zodSide: () => Promise<ZodSide> = loadOnce(() => import('./schemas/index'));

/** `loadOnce` for a lazily loaded part that reads the contract's schemas: they load first. */
export const loadWithSchemas = <T>(load: () => Promise<T>): (() => Promise<T>) =>
  loadOnce(async () => {
    await zodSide();
    return load();
  });
