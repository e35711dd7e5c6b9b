/**
 * What an operation's response builder receives (`response: (zod) => ...` in
 * src/contract/operations.ts): the schema sets a response is picked from.
 */
export { coreSchemas } from './core';
export { insightSchemas } from './insights';
