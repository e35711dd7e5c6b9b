/** What the report routes need: the subscriptions' deps (storage, mail, secrets, public URL, clock, `api`). */
import type { SubscriptionDeps } from '../subscriptions';

export type ReportDeps = SubscriptionDeps;
