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
 *
 * What writes to `OAUTH_KV` on an anonymous request is counted per client
 * address (`OAUTH_WRITES`, the rate-limiting binding): a registration, and
 * each consent page shown or answered (a `HEAD` writes nothing). Past the
 * limit: 429 with `Retry-After`. A refresh is checked for reuse before the
 * provider sees it (`refusedRefresh`, oauth.ts).
 */
import { ApiError, errorResponse } from '../contract/errors';
import { readBodyUpTo } from '../lib/http';
import { apiFor, clientAddressOf, type ProxyEnv, type ProxyRuntime } from '../proxy';
import { serveConsent } from './consent';

export { checkKey } from './consent';
import { consentErrorHtml, consentHeaders } from './consent-page';
import { allowedHostsOf, type McpOptions } from './http';
import { type OAuthServers, type OAuthStore, oauthServersFor, protectedResource, refusedRefresh } from './oauth';
import { OAUTH_ENDPOINTS, OAUTH_WRITES_PER_MINUTE, WELL_KNOWN } from './oauth-paths';

const notHere = (message: string) => errorResponse(new ApiError('not_found', message));

/** The answer to a request to an OAuth path; `ctx` is the Worker's, for the provider's servers. */
export async function serveOAuth(request: Request, env: ProxyEnv, runtime: ProxyRuntime, options: McpOptions, ctx: ExecutionContext): Promise<Response> {
  const { oauthKv, oauthSecret, oauthWrites } = options;
  if (!oauthKv || !oauthSecret || !oauthWrites)
    return notHere('OAuth is not configured on this deployment: bind OAUTH_KV and OAUTH_WRITES and set SIGNING_SECRET (docs/mcp.md). /mcp takes the API key as `Authorization: Bearer <key>`.');
  const url = new URL(request.url);
  if (!allowedHostsOf(options.hosts, options.dev).includes(url.hostname)) return notHere('OAuth answers on the hosts of MCP_ALLOWED_HOSTS only.');
  let servers: OAuthServers;
  try {
    servers = oauthServersFor(url.origin);
  } catch {
    // The provider refuses an issuer that is not https (http only on loopback).
    return notHere('OAuth answers over https only.');
  }
  const store = { OAUTH_KV: oauthKv };
  const address = clientAddressOf(request);
  // Without an address (local tools, the tests' own requests) there is no one to hold a flood against, as for /api/v1.
  const spent = async (purpose: string) => address !== null && !(await oauthWrites.limit({ key: `${purpose}:${address}` })).success;
  if (url.pathname === OAUTH_ENDPOINTS.authorize) {
    if (request.method !== 'HEAD' && (await spent('consent'))) return tooManyPages();
    const clientOf = apiFor(env, runtime, { clientAddress: address, retry: { attempts: 1 } });
    return serveConsent(request, { oauth: servers.authorization.getOAuthApi(store), store, clientOf, secret: oauthSecret, now: runtime.now });
  }
  if (url.pathname === OAUTH_ENDPOINTS.register && request.method === 'POST' && (await spent('register'))) {
    return errorResponse(
      new ApiError('rate_limited', `Too many client registrations from this address: at most ${OAUTH_WRITES_PER_MINUTE} a minute. Retry after the time in \`Retry-After\`.`, { retryAfter: 60 }),
    );
  }
  if (url.pathname === OAUTH_ENDPOINTS.token && request.method === 'POST') {
    const checked = await checkRefresh(request, servers, store);
    if (checked instanceof Response) return nosniff(checked);
    return nosniff(await servers.authorization.fetch(checked, store, ctx));
  }
  if (url.pathname === WELL_KNOWN.protectedResource || url.pathname.startsWith(`${WELL_KNOWN.protectedResource}/`)) {
    // The root address serves the one resource's document too: some clients look there first.
    const document = new Request(new URL(WELL_KNOWN.mcpResource, url.origin), request);
    const nothing = () => Promise.reject(new Error('metadata requests carry no token'));
    return nosniff(await protectedResource(servers, nothing, nothing).fetch(document, store, ctx));
  }
  return nosniff(await servers.authorization.fetch(request, store, ctx));
}

function tooManyPages(): Response {
  const headers = consentHeaders('');
  headers.set('retry-after', '60');
  return new Response(consentErrorHtml('Too many attempts', 'This address opened or answered this page too often in the last minute. Wait a minute, then try again.'), { status: 429, headers });
}

/** A token request is a few short fields. */
const TOKEN_BODY_BYTES = 16 * 1024;

/**
 * A token request, read once (up to its limit) and handed on as read, unless it presents a refresh token
 * that was rotated out: then the grant ends and the answer is `invalid_grant` (`refusedRefresh`).
 */
async function checkRefresh(request: Request, servers: OAuthServers, store: OAuthStore): Promise<Request | Response> {
  let text: string;
  try {
    text = await readBodyUpTo(request, TOKEN_BODY_BYTES, () => new Error('too large'));
  } catch {
    return Response.json({ error: 'invalid_request', error_description: `The request body must be at most ${TOKEN_BODY_BYTES} bytes.` }, { status: 413, headers: { 'cache-control': 'no-store' } });
  }
  const form = /^application\/x-www-form-urlencoded\b/i.test(request.headers.get('content-type') ?? '') ? new URLSearchParams(text) : undefined;
  const refreshToken = form?.get('grant_type') === 'refresh_token' ? form.get('refresh_token') : null;
  const refused = refreshToken ? await refusedRefresh(servers, store, refreshToken) : undefined;
  if (refused) return Response.json({ error: 'invalid_grant', error_description: refused }, { status: 400, headers: { 'cache-control': 'no-store' } });
  return new Request(request, { body: text });
}

/** The provider's JSON answers without it get `nosniff`, as every JSON answer of the Worker has (JSON_HEADERS, lib/http.ts). */
function nosniff(response: Response): Response {
  if (!/^application\/json\b/i.test(response.headers.get('content-type') ?? '')) return response;
  const answer = new Response(response.body, response);
  answer.headers.set('x-content-type-options', 'nosniff');
  return answer;
}
