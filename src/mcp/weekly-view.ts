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
 * The document (app/document.ts, with the view's bundled script) is loaded at
 * the first `resources/read`, never with the isolate or the tools. It makes
 * no request of its own, so its CSP metadata declares no domain, and it asks
 * the host for a border (`prefersBorder`: a card like the digest's).
 */
import type { McpUiResourceMeta } from '@modelcontextprotocol/ext-apps';
import { RESOURCE_MIME_TYPE, registerAppResource } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { loadOnce } from '../lib/lazy';
import { toolName } from './tools';
import { weeklyReportTool } from './weekly';

export const WEEKLY_VIEW_URI = 'ui://brand-ai-visibility/weekly-report.html';

/** The tools whose results the view shows: the weekly report, and the score with its 12 weeks. */
export const VIEW_TOOLS: ReadonlySet<string> = new Set([weeklyReportTool.name, toolName('getVisibility')]);

/** What a linked tool carries in `_meta` (`registerAppTool` adds the older flat key `ui/resourceUri` for hosts that read it). */
export const VIEW_TOOL_META = { ui: { resourceUri: WEEKLY_VIEW_URI } } as const;

/** No domain to reach or load from (the host's default CSP forbids every request), and a visible border. */
export const VIEW_RESOURCE_UI: McpUiResourceMeta = { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true };

const viewDocument = loadOnce(() => import('./app/document'));

/** Registers the view's resource on a request's server. */
export function registerWeeklyView(server: McpServer): void {
  registerAppResource(
    server,
    'weekly_report_view',
    WEEKLY_VIEW_URI,
    {
      title: 'Weekly report view',
      description: 'The weekly report (or the visibility score) drawn as in the digest: score, 12-week chart, engines, questions lost and won.',
      _meta: { ui: VIEW_RESOURCE_UI },
    },
    async () => ({ contents: [{ uri: WEEKLY_VIEW_URI, mimeType: RESOURCE_MIME_TYPE, text: (await viewDocument()).viewDocument(), _meta: { ui: VIEW_RESOURCE_UI } }] }),
  );
}
