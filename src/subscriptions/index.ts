/** Subscriptions: subscribe, confirm, unsubscribe (routes.ts: the key's API, api-routes.ts, and the link pages, link-pages.ts), their rows and links, and the digest as each subscriber gets it. */
export type { SubscriptionDeps } from './deps';
export { digestEmails } from './digest-emails';
export { confirmUrl, reportUrl, SUBSCRIPTIONS_BASE, unsubscribeHeaders, unsubscribeUrl } from './links';
export { unsubscribeByMail } from './mailto';
export { subscriptionRoutes } from './routes';
export { type Caller, type ListedSubscription, listAs, removeAs, subscribeAs, type Subscribed } from './api-routes';
export {
  confirmedSubscribers,
  generationOf,
  GETS_DIGEST_SQL,
  groupApiKey,
  groupKeyOf,
  hhmm,
  kindsOf,
  linkedSubscription,
  SUBSCRIPTION_END,
  subscriptionById,
  type SubscriptionEnd,
  type SubscriptionRow,
  unsubscribeById,
  UNREADABLE_KEY,
  wantsAlerts,
} from './store';
export { webhookSecretBinding } from './alert-channels';
