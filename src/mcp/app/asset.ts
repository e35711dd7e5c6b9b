/**
 * Where the view's document is among the Worker's static assets (wrangler.toml
 * `[assets]`): scripts/build-mcp-app.mjs writes it there, and `resources/read`
 * of its `ui://` resource reads it from there (weekly-view.ts, through the
 * ASSETS binding). Every request still goes to the Worker first
 * (`run_worker_first`), so the path is not a public URL of its own.
 */
export const VIEW_ASSET_PATH = '/mcp-app/weekly-report.html';
