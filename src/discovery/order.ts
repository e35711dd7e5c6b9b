/**
 * The contract's list orders as evidence (src/contract/list-orders.ts): of a
 * field's candidates in a list the contract orders by it ("most cited
 * first"), the one whose values keep that order in every list, moving at
 * least twice, is taken; a count beside it (a sample weight, a shard) breaks
 * it somewhere. Two that keep it, or none, stay a question.
 */
import type * as z from 'zod';
import { LIST_ORDERS, orderKept } from '../contract/list-orders';
import type { OperationId } from '../contract/operations';
import { settleQuestions } from './rules';
import type { Json, Walk } from './walk';
import type { ToConfirm } from './report';

/** Strict steps a reading must make before its order is evidence: one could be chance. */
const MIN_STEPS = 2;

export function settleByOrder(id: OperationId, schema: z.ZodType, body: Json, walk: Walk): void {
  const orders = LIST_ORDERS.filter((order) => order.operation === id);
  if (orders.length === 0) return;
  const orderOf = (item: ToConfirm) => orders.find((o) => item.path === `${o.list}[].${o.by}`);
  settleQuestions(
    schema,
    body,
    walk,
    (item, read) => {
      const kept = orderKept(read, orderOf(item)!);
      return kept.broken === 0 && kept.steps >= MIN_STEPS;
    },
    (item) => orderOf(item) !== undefined,
  );
}
