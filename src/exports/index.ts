/**
 * The CSV export links (`POST /exports/links`, `/x/<token>.csv`, routes.ts)
 * and the cron's share of the kept weekly history (history-cron.ts), mounted
 * by the Worker (src/app/worker.ts).
 */
export type { ExportDeps } from './deps';
export { keepWeeklyHistory, type HistoryRun } from './history-cron';
export { exportRoutes, mintExportLinkAs } from './routes';
export { EXPORT_KINDS, tableOperation } from './target';
export { EXPORT_LINK_BASE, EXPORTS_BASE } from '../links/export-links';
