/**
 * The MCP server at `/mcp`. What the Worker loads with the isolate is this
 * file: the path, the route, and `handleMcp`, which loads the rest at the
 * first request to `/mcp`: the endpoint (http.ts), the tools (tools.ts,
 * weekly.ts), their output schemas (schemas.ts), long lists in pages
 * (pages.ts), results (results.ts), prompts (prompts.ts), argument
 * completion (completions.ts) and the MCP SDK under them; and
 * `handleOAuth`, which loads OAuth for it (oauth-routes.ts, oauth.ts,
 * consent.ts and the provider) at the first request to one of its paths.
 * /api/v1 needs none of it, so a fresh isolate does not evaluate it.
 */
import { loadOnce } from '../lib/lazy';
import type { Route } from '../lib/router';
import type { ProxyEnv, ProxyRuntime } from '../proxy';
import type { McpOptions } from './http';
import { OAUTH_PATHS } from './oauth-paths';

export type { McpOptions } from './http';

export const MCP_PATH = '/mcp';

const endpoint = loadOnce(() => import('./http'));
const oauthEndpoints = loadOnce(() => import('./oauth-routes'));

/** Whether the path is one of OAuth's for `/mcp` (oauth-paths.ts): the consent page, the provider's endpoints, the metadata. */
export const isOAuthPath = (pathname: string) => OAUTH_PATHS.has(pathname);

/** The answer to a request to an OAuth path (oauth-routes.ts: the consent page, metadata, token, registration). */
export async function handleOAuth(request: Request, env: ProxyEnv, runtime: ProxyRuntime, options: McpOptions): Promise<Response> {
  const { serveOAuth } = await oauthEndpoints();
  return serveOAuth(request, env, runtime, options);
}

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
