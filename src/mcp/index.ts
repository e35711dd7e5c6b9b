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
import { loadWithSchemas } from '../contract/zod-side';
import type { Method, Route } from '../lib/router';
import type { ProxyEnv, ProxyRuntime } from '../proxy';
import type { McpOptions } from './http';
import { OAUTH_ENDPOINTS, WELL_KNOWN } from './oauth-paths';

export type { McpOptions } from './http';

export const MCP_PATH = '/mcp';

// Each with the contract's schemas (the tools' input and output schemas, the client's checks), which /api/v1 loads only past a HIT.
const endpoint = loadWithSchemas(() => import('./http'));
const oauthEndpoints = loadWithSchemas(() => import('./oauth-routes'));

/** How a pasted key is checked (consent.ts), for the sign-in of the pages for people; loaded with OAuth's code, at its first use. */
export const checkPastedKey = async (...args: Parameters<typeof import('./consent').checkKey>) => (await oauthEndpoints()).checkKey(...args);

/** The answer to a request to an OAuth path (oauth-routes.ts: the consent page, metadata, token, registration); `ctx` is the Worker's. */
export async function handleOAuth(request: Request, env: ProxyEnv, runtime: ProxyRuntime, options: McpOptions, ctx: ExecutionContext): Promise<Response> {
  const { serveOAuth } = await oauthEndpoints();
  return serveOAuth(request, env, runtime, options, ctx);
}

/** The answer to any request to `/mcp` (http.ts: checks, key, a server per request); `url` is the request's, as the Worker parsed it; `ctx` the Worker's. */
export async function handleMcp(request: Request, url: URL, env: ProxyEnv, runtime: ProxyRuntime, options: McpOptions, ctx: ExecutionContext): Promise<Response> {
  const { serveMcp } = await endpoint();
  return serveMcp(request, url, env, runtime, options, ctx);
}

/** What `/mcp` runs with: the proxy's env and runtime (it needs nothing else), its options, and the Worker's execution context. */
export interface McpContext {
  env: ProxyEnv;
  runtime: ProxyRuntime;
  options: McpOptions;
  ctx: ExecutionContext;
}

const serveRoute = (request: Request, _: Record<string, string>, { env, runtime, options, ctx }: McpContext, url: URL) => handleMcp(request, url, env, runtime, options, ctx);

/**
 * `/mcp` as a route table, for the product's OpenAPI document: the methods the
 * MCP spec gives the endpoint (POST, and GET and DELETE, which a stateless
 * server answers 405; OPTIONS aside, the CORS preflight). The Worker calls `handleMcp` for the path whatever the
 * method, and the SDK answers the others 405 too.
 */
export const mcpRoutes: Route<McpContext>[] = [{ path: MCP_PATH, answers: 'json', methods: { POST: serveRoute, GET: serveRoute, DELETE: serveRoute } }];

const serveOAuthRoute = (request: Request, _: Record<string, string>, { env, runtime, options, ctx }: McpContext) => handleOAuth(request, env, runtime, options, ctx);
const oauthRoute = (path: string, answers: 'json' | 'page', methods: Method[]): Route<McpContext> => ({ path, answers, methods: Object.fromEntries(methods.map((m) => [m, serveOAuthRoute])) });

/**
 * OAuth's paths for `/mcp` (oauth-paths.ts) with the methods each answers
 * (the provider's, and the consent page's; OPTIONS aside, the provider's CORS
 * preflight): what the Worker routes to `handleOAuth`, and what the product's
 * OpenAPI document lists. As for `/mcp`, the Worker calls `handleOAuth` for
 * the path whatever the method; the endpoint answers the others 405.
 */
export const oauthRoutes: Route<McpContext>[] = [
  oauthRoute(WELL_KNOWN.authorizationServer, 'json', ['GET']),
  oauthRoute(WELL_KNOWN.protectedResource, 'json', ['GET']),
  oauthRoute(WELL_KNOWN.mcpResource, 'json', ['GET']),
  oauthRoute(OAUTH_ENDPOINTS.register, 'json', ['POST']),
  oauthRoute(OAUTH_ENDPOINTS.token, 'json', ['POST']),
  oauthRoute(OAUTH_ENDPOINTS.authorize, 'page', ['GET', 'POST']),
];

const OAUTH_PATHS: ReadonlySet<string> = new Set(oauthRoutes.map((route) => route.path));

/** Whether the path is one of OAuth's for `/mcp`: the consent page, the provider's endpoints, the metadata. */
export const isOAuthPath = (pathname: string) => OAUTH_PATHS.has(pathname);
