/**
 * The response schema of each operation, built from its entry's builder at
 * the first read and kept: `response(id)`. It is part of the zod side, so a
 * module reaches it only by awaiting `zodSide()` (src/contract/zod-side.ts)
 * or by importing zod itself (a lazily loaded part, which `npm run check -- size`
 * keeps out of what a fresh isolate evaluates).
 */
import type * as z from 'zod';
import { type OperationId, operations, type Operations } from '../operations';
import * as builders from './builders';

/** The response schema of operation `Id`, as its entry builds it. */
export type ResponseSchema<Id extends OperationId> = ReturnType<Operations[Id]['buildResponse']>;

const built = new Map<OperationId, z.ZodType>();

export function response<Id extends OperationId>(id: Id): ResponseSchema<Id> {
  let schema = built.get(id);
  if (!schema) built.set(id, (schema = operations[id].buildResponse(builders)));
  return schema as ResponseSchema<Id>;
}
