/** What the digest jobs need: the subscriptions' deps and the Queue of planned sends. */
import * as z from 'zod';
import type { SubscriptionDeps } from '../subscriptions';

/** One Queue message: one brand + market + key group, for one ISO week. */
export const DigestJob = z.object({
  v: z.literal(1),
  iso_week: z.string().regex(/^\d{4}-W\d{2}$/),
  week_monday: z.iso.date(),
  group_key: z.string().regex(/^\d+:\d+:[0-9a-f]{1,64}$/),
  brand_id: z.number().int().positive(),
  market_id: z.number().int().positive(),
});
export type DigestJob = z.infer<typeof DigestJob>;

export interface DigestDeps extends SubscriptionDeps {
  queue: Pick<Queue<DigestJob>, 'sendBatch'>;
}
