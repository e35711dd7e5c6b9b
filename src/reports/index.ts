/**
 * On-demand reports: `GET /reports/weekly`, `POST /reports/links`,
 * `GET /r/<token>` and `POST /reports/weekly/send` (routes.ts), mounted by the
 * Worker (src/app/worker.ts).
 */
export type { ReportDeps } from './deps';
export { LINK_BASE, type MintedReportLink, mintReportLinkAs, REPORTS_BASE, reportRoutes, sendNowAs, type SendNowAnswer, weeklyAs } from './routes';
export { historyAs } from './history';
export type { PageLinks } from './page';
export { type ListedReportLink, listReportLinks, revokeReportLink } from './links';
export { viewAs, VIEWS_BASE } from './view-routes';
export { siblingsNav, type ViewLinks } from './view-page';
