/**
 * The OAuth endpoints beside `/mcp` (index.ts routes them here, loaded at
 * their first request): the consent page (consent.ts), the provider's
 * authorization server metadata, token (and revocation) and registration
 * endpoints, and `/mcp`'s protected resource metadata, at its path-aware
 * address and, for clients that look there, at the root. They answer only
 * for the hosts `/mcp` answers for (the issuer is the request's origin),
 * and only with `OAUTH_KV` bound; otherwise 404 in the API's error shape.
 * The provider answers CORS for its metadata, token and registration
 * endpoints (browser-based clients call them).
 */
import { ApiError, errorResponse } from '../contract/errors';
import { apiFor, clientAddressOf, type ProxyEnv, type ProxyRuntime } from '../proxy';
import { serveConsent } from './consent';
import { allowedHostsOf, type McpOptions } from './http';
import { type OAuthServers, oauthServersFor } from './oauth';
import { OAUTH_ENDPOINTS, WELL_KNOWN } from './oauth-paths';

const notHere = (message: string) => errorResponse(new ApiError('not_found', message));

export async function serveOAuth(request: Request, env: ProxyEnv, runtime: ProxyRuntime, options: McpOptions): Promise<Response> {
  if (!options.oauthKv) return notHere('OAuth is not configured on this deployment: bind OAUTH_KV (docs/mcp.md). /mcp takes the API key as `Authorization: Bearer <key>`.');
  const url = new URL(request.url);
  if (!allowedHostsOf(options.hosts, options.dev).includes(url.hostname)) return notHere('OAuth answers on the hosts of MCP_ALLOWED_HOSTS only.');
  let servers: OAuthServers;
  try {
    servers = oauthServersFor(url.origin);
  } catch {
    // The provider refuses an issuer that is not https (http only on loopback).
    return notHere('OAuth answers over https only.');
  }
  const store = { OAUTH_KV: options.oauthKv };
  const ctx = { waitUntil: runtime.waitUntil, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
  if (url.pathname === OAUTH_ENDPOINTS.authorize) {
    const clientOf = apiFor(env, runtime, { clientAddress: clientAddressOf(request), retry: { attempts: 1 } });
    return serveConsent(request, { oauth: servers.authorization.getOAuthApi(store), clientOf });
  }
  if (url.pathname === WELL_KNOWN.protectedResource || url.pathname.startsWith(`${WELL_KNOWN.protectedResource}/`)) {
    // The root address serves the one resource's document too: some clients look there first.
    const document = new Request(new URL(WELL_KNOWN.mcpResource, url.origin), request);
    const nothing = () => Promise.reject(new Error('metadata requests carry no token'));
    return nosniff(await servers.protectedResource.fetch(document, { validate: nothing, serve: nothing }, ctx));
  }
  return nosniff(await servers.authorization.fetch(request, store, ctx));
}

/** The provider's JSON answers without it get `nosniff`, as every JSON answer of the Worker has (JSON_HEADERS, lib/http.ts). */
function nosniff(response: Response): Response {
  if (!/^application\/json\b/i.test(response.headers.get('content-type') ?? '')) return response;
  const answer = new Response(response.body, response);
  answer.headers.set('x-content-type-options', 'nosniff');
  return answer;
}
