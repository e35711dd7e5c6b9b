/** What the alert jobs need: the subscriptions' deps and the Queue of deliveries. */
import * as z from 'zod';
import type { SubscriptionDeps } from '../subscriptions';

/**
 * One Queue message: delivery records (each one subscription's bundle of one
 * evaluation's events). One record for Slack and webhooks; for email, up to
 * 100 of one group and evaluation, sent as one Resend batch.
 */
export const AlertJob = z.object({ v: z.literal(1), delivery_ids: z.array(z.number().int().positive()).min(1).max(100) });
export type AlertJob = z.infer<typeof AlertJob>;

export interface AlertDeps extends SubscriptionDeps {
  alertQueue: Pick<Queue<AlertJob>, 'sendBatch'>;
}
