/** What the alert jobs need: the subscriptions' deps and the Queue of deliveries. */
import { z } from 'zod';
import type { SubscriptionDeps } from '../subscriptions';

/** One Queue message: one delivery record (one subscription's bundle of one evaluation's events). */
export const AlertJob = z.object({ v: z.literal(1), delivery_id: z.number().int().positive() });
export type AlertJob = z.infer<typeof AlertJob>;

export interface AlertDeps extends SubscriptionDeps {
  alertQueue: Pick<Queue<AlertJob>, 'sendBatch'>;
}
