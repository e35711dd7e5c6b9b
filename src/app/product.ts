/**
 * Everything the Worker serves beside /api/v1 and /mcp, loaded by worker.ts at
 * its first use (`import()`), not with the isolate: the cache and upstream
 * admin, the embedded origin's own mount, the product's routes and their
 * OpenAPI document, the cron, the queues and Email Routing, with the features,
 * the mailer and the services under them, and the demo data's loader (dev's
 * `DEMO_DATA = "on-empty"`). A fresh isolate's first /api/v1 answer waits for
 * none of it.
 */
import { ACCOUNT_BASE, ACCOUNT_PATHS } from '../account';
import { DEV_ALERTS_PATH } from '../alerts';
import { DEV_PLAN_PATH } from '../digests';
import { EXPORT_LINK_BASE, EXPORTS_BASE } from '../exports';
import { LINK_BASE, REPORTS_BASE } from '../reports';
import { under } from '../lib/router';
import { SUBSCRIPTIONS_BASE } from '../subscriptions';
import type { Features } from './features';

export { consumeAlertBatch, isAlertQueue, runAlertEvaluation } from '../alerts';
export { consumeDigestBatch, runDigestPlanner } from '../digests';
export { keepWeeklyHistory } from '../exports';
export { ensureDemoData } from '../origin/demo/auto';
export { handleOrigin } from '../origin/handler';
export { ADMIN_BASE, handleAdmin, UPSTREAM_ADMIN_BASE } from '../proxy/admin';
export { unsubscribeByMail } from '../subscriptions';
export { frontDoor, notFoundPage, SESSION_COOKIE } from '../account';
export { PRODUCT_OPENAPI } from '../contract/documents';
export { allAdminRoutes, handleProductRoute, serveProductDocument } from './routes';
export { buildServices } from './services';

/** The optional feature that owns a product path, if any: its routes answer 404 while it is off. Without dev routes, `/dev/*` is nobody's. */
export function featureOfPath(pathname: string, features: Features): 'reports' | 'exports' | 'digests' | 'alerts' | undefined {
  if (features.devRoutes && under(pathname, DEV_ALERTS_PATH)) return 'alerts';
  if (under(pathname, SUBSCRIPTIONS_BASE) || under(pathname, ACCOUNT_PATHS.subscriptions) || (features.devRoutes && under(pathname, DEV_PLAN_PATH))) return 'digests';
  // Signing in keeps sessions in D1 under both secrets: the reports' needs.
  if (under(pathname, REPORTS_BASE) || under(pathname, LINK_BASE) || under(pathname, ACCOUNT_BASE)) return 'reports';
  if (under(pathname, EXPORTS_BASE) || under(pathname, EXPORT_LINK_BASE)) return 'exports';
  return undefined;
}
