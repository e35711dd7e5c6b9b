/**
 * The weekly report as an MCP App (SEP-1865, `@modelcontextprotocol/ext-apps`):
 * `weekly_report` and `get_visibility` name, in `_meta.ui.resourceUri`, the
 * view `ui://brand-ai-visibility/weekly-report.html`, a resource of type
 * `text/html;profile=mcp-app` served by `resources/read` (and listed by
 * `resources/list`). A host that shows apps (Claude, ChatGPT, VS Code, Goose)
 * renders it in a sandboxed frame beside the call and hands it the result's
 * `structuredContent`, which it draws in the digest's look: the score, the
 * 12-week chart, the engines, the questions lost and won. A host without apps
 * ignores `_meta` and shows the text result, which is the same either way.
 *
 * The document (app/document.ts around the view's script, which uses the
 * package's `App`) is built by scripts/build-mcp-app.mjs into the Worker's
 * static assets, not into the Worker: `resources/read` reads it through the
 * ASSETS binding each time, so the Worker's bundle holds none of it. It makes
 * no request of its own, so its CSP metadata declares no domain, and it asks
 * the host for a border (`prefersBorder`: a card like the digest's).
 *
 * Without the binding (a deployment not made from wrangler.toml), or without
 * the document in it, `resources/read` answers an MCP error saying so; the
 * tools still link the view, and their text results are whole either way.
 */
import type { McpUiResourceMeta } from '@modelcontextprotocol/ext-apps';
import { RESOURCE_MIME_TYPE, registerAppResource } from '@modelcontextprotocol/ext-apps/server';
import { type McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { VIEW_ASSET_PATH } from './app/asset';
import { toolName } from './tools';
import { weeklyReportTool } from './weekly';

export const WEEKLY_VIEW_URI = 'ui://brand-ai-visibility/weekly-report.html';

/** The tools whose results the view shows: the weekly report, and the score with its 12 weeks. */
export const VIEW_TOOLS: ReadonlySet<string> = new Set([weeklyReportTool.name, toolName('getVisibility')]);

/** What a linked tool carries in `_meta` (`registerAppTool` adds the older flat key `ui/resourceUri` for hosts that read it). */
export const VIEW_TOOL_META = { ui: { resourceUri: WEEKLY_VIEW_URI } } as const;

/** No domain to reach or load from (the host's default CSP forbids every request), and a visible border. */
export const VIEW_RESOURCE_UI: McpUiResourceMeta = { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true };

/** What the host is told when the view cannot be read; the operator's log says why. */
const VIEW_UNAVAILABLE = 'The weekly report view is not available on this server. The tool results carry the same figures as text.';

/** The view's document from the static assets (`assets`: the ASSETS binding), or an MCP error. */
export async function readViewDocument(assets: Fetcher | undefined): Promise<string> {
  const response = assets ? await assets.fetch(new Request(`https://assets.invalid${VIEW_ASSET_PATH}`)) : undefined;
  if (response?.ok) return response.text();
  await response?.body?.cancel();
  const why = assets ? `the static assets answer ${response!.status} for ${VIEW_ASSET_PATH} (is it built? scripts/build-mcp-app.mjs)` : 'no ASSETS binding (wrangler.toml [assets])';
  console.warn(JSON.stringify({ msg: 'mcp app view unavailable', why }));
  throw new ProtocolError(ProtocolErrorCode.InternalError, VIEW_UNAVAILABLE);
}

/** Registers the view's resource on a request's server; `assets` (the request's ASSETS binding) hold its document. */
export function registerWeeklyView(server: McpServer, assets: Fetcher | undefined): void {
  registerAppResource(
    server,
    'weekly_report_view',
    WEEKLY_VIEW_URI,
    {
      title: 'Weekly report view',
      description: 'The weekly report (or the visibility score) drawn as in the digest: score, 12-week chart, engines, questions lost and won.',
      _meta: { ui: VIEW_RESOURCE_UI },
    },
    async () => ({ contents: [{ uri: WEEKLY_VIEW_URI, mimeType: RESOURCE_MIME_TYPE, text: await readViewDocument(assets), _meta: { ui: VIEW_RESOURCE_UI } }] }),
  );
}
