/**
 * The contract's zod side, as one part loaded at its first use
 * (src/contract/zod-side.ts): every zod schema of the contract is built from
 * here or from a module that imports zod itself, never by what a fresh
 * isolate evaluates to answer `/api/v1` from the cache.
 */
export { commonSchemas } from './common';
export { coreSchemas } from './core';
export { insightSchemas } from './insights';
export { enumSchemas } from './enums';
export { errorBodySchema } from './errors';
export { upstreamMapSchemas } from './upstream-map';
export { paramSchema, paramsObject } from './params';
