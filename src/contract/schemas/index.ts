/**
 * The contract's zod side, as one part loaded at its first use
 * (src/contract/zod-side.ts): every zod schema of the contract is built from
 * here or from a module that imports zod itself, never by what a fresh
 * isolate evaluates to answer `/api/v1` from the cache. The upstream map's
 * schemas (upstream-map.ts) are not here: they read the operations table,
 * which reads this part, and only lazily loaded parts read them, directly.
 */
// What the eagerly evaluated modules read through `schemas()`; lazily loaded modules import the rest directly.
export { coreSchemas } from './core';
export { insightSchemas } from './insights';
export { errorBodySchema } from './errors';
export { paramsObject } from './params';
