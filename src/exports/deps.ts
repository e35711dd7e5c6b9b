/** What the export routes and the history cron need: the subscriptions' deps (storage, secrets, public URL, clock, `api`). */
import type { SubscriptionDeps } from '../subscriptions';

export type ExportDeps = SubscriptionDeps;
