/**
 * The contract's zod side, as one part loaded at its first use
 * (src/contract/zod-side.ts): every zod schema of the contract is built from
 * here or from a module that imports zod itself, never by what a fresh
 * isolate evaluates to answer `/api/v1` from the cache. The upstream map's
 * schemas (upstream-map.ts) are not here: they read the operations table,
 * which reads this part, and only lazily loaded parts read them, directly.
 */
export { commonSchemas } from './common';
export { coreSchemas } from './core';
export { insightSchemas } from './insights';
export { enumSchemas } from './enums';
export { errorBodySchema } from './errors';
export { paramSchema, paramsObject } from './params';
