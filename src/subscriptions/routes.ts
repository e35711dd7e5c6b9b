/**
 * The subscriptions' routes, one table: the key's JSON API (api-routes.ts:
 * subscribe, list, remove) and the link pages opened from the emails
 * (link-pages.ts: confirm, unsubscribe, subscribe again).
 */
import type { Route } from '../lib/router';
import { subscriptionApiRoutes } from './api-routes';
import type { SubscriptionDeps } from './deps';
import { subscriptionLinkRoutes } from './link-pages';

export { SUBSCRIPTIONS_BASE } from './links';

export const subscriptionRoutes: Route<SubscriptionDeps>[] = [...subscriptionApiRoutes, ...subscriptionLinkRoutes];
