/**
 * The MCP server of one request: every tool registered on a new `McpServer`,
 * each reading with the caller's key through `apiFor()` (the client it is
 * given), so repeated calls are cache hits and never pass the key's upstream
 * budget. Stateless: nothing outlives the request.
 */
import { McpServer } from '@modelcontextprotocol/server';
import type { ApiClient, WithMeta } from '../client';
import { bodyResult, failureResult } from './results';
import { READ_ONLY, type ToolDefinition, toolsOfOperations } from './tools';
import { weeklyReport, weeklyReportTool } from './weekly';

export const SERVER_INFO = { name: 'brand-ai-visibility-edge', title: 'Brand AI visibility', version: '1.0.0' };

/** Read by clients that pass server instructions to the model. */
export const INSTRUCTIONS = [
  'Read-only tools over the Brand AI-Visibility Read API: how AI answer engines (ChatGPT, Perplexity, Gemini, Claude, Copilot, Google AI Overviews) name, recommend and cite the brands of this API key, per market.',
  'Start with `list_brands` when the key has several brands (`brand_id` is then required) and `list_markets` for market codes (default: the primary market). `weekly_report` summarises a week; `get_overview` is the home view; the other tools go into one area each.',
  'A refused call is a result with `isError`: `error.code` says why (`feature_not_in_plan`: the plan lacks it; `integration_not_connected`: connect the integration; `rate_limited`: wait `retry_after` seconds; `brand_required`: pass `brand_id`).',
].join('\n');

type Read = (params: Record<string, unknown>) => Promise<WithMeta<object>>;

function register(server: McpServer, tool: ToolDefinition, call: (args: Record<string, unknown>) => Promise<ReturnType<typeof bodyResult>>): void {
  server.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: { title: tool.title, ...READ_ONLY } }, (args) => call(args));
}

/** A new server with every tool, reading with `client` (the caller's key, through `apiFor()`). */
export function mcpServer(client: ApiClient, now: () => Date): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  for (const tool of toolsOfOperations()) {
    // The body as the API sent it: an assistant reads any implementation of the spec, as the proxy serves it.
    const read = client.unchecked[tool.operation] as Read;
    register(server, tool, async (args) => {
      try {
        return bodyResult((await read(args)).data);
      } catch (error) {
        return failureResult(error, tool.name);
      }
    });
  }
  register(server, weeklyReportTool, (args) => weeklyReport(client, args, now()));
  return server;
}
