/**
 * The MCP server: every tool, prompt and the app's view registered on an
 * `McpServer`, each reading with the caller's key through `apiFor()` (the
 * request's client, from its reader: reader.ts), so repeated calls are cache
 * hits and never pass the key's upstream budget. One server per request, as
 * the SDK asks (http.ts): `mcpServer(reader)` builds it for the request's
 * reader, which its tools, prompts, completions and resource read with. What
 * does not depend on the request is built once per isolate (`toolsServed`,
 * the tools' schemas and validators), so a server costs little to build.
 *
 * A tool reads its body as the features do, checked against the contract
 * (`withMeta`): our origin's bodies pass as sent, another implementation's
 * are brought onto the contract's field names (case conventions, an
 * envelope, the upstream map: docs/upstream.md), so `structuredContent` is
 * always the contract's shape and satisfies the tool's output schema. A body
 * that cannot be read so is a 502 result naming the field.
 */
import { registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import { McpServer } from '@modelcontextprotocol/server';
import type { ApiClient, WithMeta } from '../client';
import { OFFSET_ARG, pageOf } from './pages';
import { registerPrompts } from './prompts';
import type { Reader } from './reader';
import { bodyResult, failureResult } from './results';
import { type OperationTool, READ_ONLY, type ToolDefinition, toolsOfOperations } from './tools';
import { weeklyReport, weeklyReportTool } from './weekly';
import { registerWeeklyView, VIEW_TOOL_META, VIEW_TOOLS } from './weekly-view';

export const SERVER_INFO = { name: 'brand-ai-visibility-edge', title: 'Brand AI visibility', version: '1.0.0' };

/** Read by clients that pass server instructions to the model: what every tool shares, said once rather than on each. */
export const INSTRUCTIONS = [
  'Read-only tools over the Brand AI-Visibility Read API: how AI answer engines (ChatGPT, Perplexity, Gemini, Claude, Copilot, Google AI Overviews) name, recommend and cite the brands of this API key, per market.',
  'Arguments every tool shares: `brand_id` (from `list_brands`; required when the key has several brands), `market` (a code such as `us` or `de`, or an id, from `list_markets`; default: the primary market); windowed tools take `days` back to today, or `from` and `to` (YYYY-MM-DD, at most 90 days apart).',
  '`weekly_report` summarises a week; `get_overview` is the home view; the other tools go into one area each. A list longer than 25 rows comes back 25 at a time with `page` (`total`, `next_offset`): call again with `offset` set to `page.next_offset` for more.',
  'A refused call is a result with `isError`: `error.code` says why (`feature_not_in_plan`: the plan lacks it; `integration_not_connected`: connect the integration; `rate_limited`: wait `retry_after` seconds; `brand_required`: pass `brand_id`).',
].join('\n');

type Read = (params: Record<string, unknown>) => Promise<WithMeta<Record<string, unknown>>>;
type Result = ReturnType<typeof bodyResult>;

/** A tool as registered: what it says (built once per isolate) and its call, given the request's client. */
interface ServedTool {
  name: string;
  config: { title: string; description: string; inputSchema: ToolDefinition['input']; outputSchema: ToolDefinition['output']; annotations: typeof READ_ONLY; _meta?: typeof VIEW_TOOL_META };
  call: (client: ApiClient, args: Record<string, unknown>, now: () => Date) => Promise<Result>;
}

const served = (tool: ToolDefinition, call: ServedTool['call']): ServedTool => ({
  name: tool.name,
  config: {
    title: tool.title,
    description: tool.description,
    inputSchema: tool.input,
    outputSchema: tool.output,
    annotations: READ_ONLY,
    // The MCP App's view of the result (weekly-view.ts), for the hosts that show apps.
    ...(VIEW_TOOLS.has(tool.name) ? { _meta: VIEW_TOOL_META } : {}),
  },
  call,
});

/** A tool of the contract table: its body read with the request's key, checked against the contract, its list paged. */
function operationCall(tool: OperationTool): ServedTool['call'] {
  return async (client, { [OFFSET_ARG]: offset, ...params }) => {
    try {
      const { data } = await (client.withMeta[tool.operation] as unknown as Read)(params);
      return bodyResult(tool.rows ? pageOf(data, tool.rows, offset as number | undefined) : data);
    } catch (error) {
      return failureResult(error, tool.name);
    }
  };
}

let servedTools: readonly ServedTool[] | undefined;

/** Every tool, built once per isolate: nothing in it depends on the request (the client is given to each call). */
function toolsServed(): readonly ServedTool[] {
  servedTools ??= [...toolsOfOperations().map((tool) => served(tool, operationCall(tool))), served(weeklyReportTool, (client, args, now) => weeklyReport(client, args, now()))];
  return servedTools;
}

/**
 * Its lists never change while it serves (one request), so it tells clients none will:
 * without this the SDK declares `listChanged: true` for tools, prompts and resources.
 */
const CAPABILITIES = { tools: { listChanged: false }, prompts: { listChanged: false }, resources: { listChanged: false } };

/**
 * The server of one request: every tool and prompt and the weekly report's
 * view (the resource `weekly_report` and `get_visibility` link), reading with
 * `reader` (the request's key, clock and static assets).
 */
export function mcpServer(reader: Reader): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, capabilities: CAPABILITIES });
  for (const tool of toolsServed()) {
    const call = (args: Record<string, unknown>) => tool.call(reader.client, args, reader.now);
    const { _meta, ...config } = tool.config;
    if (_meta) registerAppTool(server, tool.name, { ...config, _meta }, call);
    else server.registerTool(tool.name, config, call);
  }
  registerWeeklyView(server, reader.assets);
  registerPrompts(server, reader.client);
  return server;
}
