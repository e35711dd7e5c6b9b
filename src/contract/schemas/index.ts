/**
 * The contract's zod side, as one part loaded at its first use: the value
 * `await zodSide()` gives (src/contract/zod-side.ts). Every zod schema of the
 * contract is built from here or from a module that imports zod itself,
 * never by what a fresh isolate evaluates to answer `/api/v1` from the
 * cache. The upstream map's schemas (upstream-map.ts) are not here: only
 * lazily loaded parts read them, directly.
 */
export { coreSchemas, insightSchemas } from './builders';
export { errorBodySchema } from './errors';
export { response, type ResponseSchema } from './responses';
