/**
 * The MCP server at `/mcp`. What the Worker loads with the isolate is this
 * file: the path, the route, and `handleMcp`, which loads the rest at the
 * first request to `/mcp`: the endpoint (http.ts), the tools (tools.ts,
 * weekly.ts), their output schemas (schemas.ts), long lists in pages
 * (pages.ts), results (results.ts), prompts (prompts.ts), argument
 * completion (completions.ts) and the MCP SDK under them. /api/v1
 * needs none of it, so a fresh isolate does not evaluate it.
 */
import { loadOnce } from '../lib/lazy';
import type { Route } from '../lib/router';
import type { ProxyEnv, ProxyRuntime } from '../proxy';
import type { McpOptions } from './http';

export type { McpOptions } from './http';

export const MCP_PATH = '/mcp';

const endpoint = loadOnce(() => import('./http'));

/** The answer to any request to `/mcp` (http.ts: checks, key, a server per request). */
export async function handleMcp(request: Request, env: ProxyEnv, runtime: ProxyRuntime, options: McpOptions): Promise<Response> {
  const { serveMcp } = await endpoint();
  return serveMcp(request, env, runtime, options);
}

/** What `/mcp` runs with: the proxy's env and runtime (it needs nothing else), and its options. */
export interface McpContext {
  env: ProxyEnv;
  runtime: ProxyRuntime;
  options: McpOptions;
}

const serveRoute = (request: Request, _: Record<string, string>, { env, runtime, options }: McpContext) => handleMcp(request, env, runtime, options);

/**
 * `/mcp` as a route table, for the product's OpenAPI document: the methods the
 * MCP spec gives the endpoint (POST, and GET and DELETE, which a stateless
 * server answers 405). The Worker calls `handleMcp` for the path whatever the
 * method, and the SDK answers the others 405 too.
 */
export const mcpRoutes: Route<McpContext>[] = [{ path: MCP_PATH, answers: 'json', methods: { POST: serveRoute, GET: serveRoute, DELETE: serveRoute } }];
