/**
 * `/mcp`: MCP over Streamable HTTP, stateless, on the official SDK
 * (`createMcpHandler`, which serves the 2026-07-28 revision and the 2025
 * revisions that most clients still speak). In order:
 *
 * 1. `Host` and `Origin` are checked against `MCP_ALLOWED_HOSTS` (and, in
 *    dev, localhost): a page on another site that resolves to this server
 *    (DNS rebinding) gets 403 before anything is read.
 * 2. `OPTIONS`, a browser's CORS preflight from an allowed origin: 204 with
 *    the methods and headers a page may use (`preflight`); every answer to
 *    such a page carries `Access-Control-Allow-Origin` and exposes the
 *    headers a client reads (`withCors`). `GET` and `DELETE` (2025 session
 *    operations) and other methods: 405 with `Allow: POST`, from the SDK; a
 *    stateless server keeps no session or stream to open or close.
 * 3. A `POST` needs a bearer credential: an access token of our OAuth
 *    (oauth.ts, when `OAUTH_KV` is bound), or an API key of /api/v1 pasted
 *    by a header client. Told apart by shape (`isIssuedToken`): a token is
 *    checked by the provider, and a token it does not know is never tried as
 *    a key. Either way the key (the grant's, or the pasted one) is checked
 *    with `GET /brands` through `apiFor()` (cached; re-checked upstream 5
 *    minutes after the upstream last accepted it, so a revoked key stops its
 *    tokens within 5 minutes, and its grants are ended then; an unknown key
 *    costs the upstream one read a minute at most, and counts against the
 *    caller's address like /api/v1's), unless this isolate saw the upstream
 *    accept it within those 5 minutes (`acceptedRecently`), when that read
 *    would be a cache hit. A pasted key from a client that is not a browser
 *    page is served without the OAuth resource server, which answers the rest
 *    (tokens, refusals with their challenge, CORS). Without one, or with one refused: 401
 *    in the API's error shape with `WWW-Authenticate: Bearer
 *    resource_metadata="<origin>/.well-known/oauth-protected-resource/mcp"`
 *    (`error="invalid_token"` for a refused one), from which an OAuth client
 *    finds the authorization server; without `OAUTH_KV`, `Bearer
 *    realm="mcp"`.
 * 4. The body is read once (`serveReader`). Every request gets a server of
 *    its own, built for its reader (`mcpServer(reader)`), as the SDK asks.
 *    One path per protocol revision, the SDK's documented composition: its
 *    `isLegacyRequest` routes every 2025-revision request to the SDK's
 *    transport, which answers with plain JSON, not an event stream; every
 *    other one goes to the SDK's exchange for the 2026 revision, built once
 *    per isolate with `legacy: 'reject'` (`exchange`), whose factory builds
 *    the server. The SDK answers bad input (not JSON, not JSON-RPC, a batch
 *    over 100, an unknown tool, arguments that fail the schema) with its own
 *    errors, cut short on the way out (`withoutEchoes`).
 */
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  isJsonContentType,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpHttpHandler,
  originValidationResponse,
  validateHostHeader,
} from '@modelcontextprotocol/server';
import { OAuthError, type OAuthResourceTokenValidation } from '@cloudflare/workers-oauth-provider';
import { type ApiClient, ApiClientError } from '../client';
import { bearerKey, invalidKey, OAUTH_USER_PREFIX } from '../contract/access';
import { ApiError, errorResponse, JSON_HEADERS } from '../contract/errors';
import { errorText } from '../lib/log';
import { acceptedRecently, apiFor, clientAddressOf, type ProxyEnv, type ProxyRuntime } from '../proxy';
import { endGrantsOfUser, type GrantProps, isIssuedToken, type OAuthServers, oauthServersFor, protectedResource } from './oauth';
import { type Reader, readerAuth, readerOf } from './reader';
import { mcpServer } from './server';

/** The API's 401, with the challenge RFC 6750 asks of a bearer-protected resource. */
const unauthorized = () => errorResponse(invalidKey(), { 'www-authenticate': 'Bearer realm="mcp"' });

/** The host names `/mcp` answers for: the configured ones, and localhost in dev (`npm run dev`, the tests). */
export const allowedHostsOf = (configured: readonly string[], dev: boolean): string[] => [...configured, ...(dev ? localhostAllowedHostnames() : [])];

export interface McpOptions {
  /** Host names (no scheme, no port) allowed in `Host` and `Origin`: `MCP_ALLOWED_HOSTS`. */
  hosts: readonly string[];
  /** Dev routes on (`npm run dev`, the tests): localhost is allowed too (`allowedHostsOf`). */
  dev: boolean;
  /** `OAUTH_KV` when OAuth is on (oauth.ts: with `oauthSecret` and `oauthWrites`). Without it `/mcp` takes only a pasted API key. */
  oauthKv?: KVNamespace | undefined;
  /** `SIGNING_SECRET`: the key of the HMAC in grant user ids (`grantUserOf`). */
  oauthSecret?: string | undefined;
  /** `OAUTH_WRITES`: registrations and consent pages per client address (oauth-routes.ts). */
  oauthWrites?: RateLimit | undefined;
  /** `ASSETS` when bound: the static assets holding the MCP App's view (weekly-view.ts). */
  assets?: Fetcher | undefined;
}

/** The answer to any request to `/mcp` (`handleMcp` of index.ts loads this file); `ctx` is the Worker's, for the OAuth resource server. */
export async function serveMcp(request: Request, url: URL, env: ProxyEnv, runtime: ProxyRuntime, options: McpOptions, ctx: ExecutionContext): Promise<Response> {
  const refused = foreignHost(request, url, allowedHostsOf(options.hosts, options.dev));
  // The origin is allowed past here: the answer is readable by its pages.
  const response = refused ?? withCors(request, await answer(request, url, env, runtime, options.oauthKv, options.assets, ctx));
  // The SDK builds its own answers (JSON, or an event stream of JSON): they carry what every JSON answer of the Worker does.
  response.headers.set('x-content-type-options', JSON_HEADERS['x-content-type-options']!);
  return response;
}

async function answer(request: Request, url: URL, env: ProxyEnv, runtime: ProxyRuntime, oauthKv: KVNamespace | undefined, assets: Fetcher | undefined, ctx: ExecutionContext): Promise<Response> {
  // A page of an allowed origin (foreignHost let its Origin through) asks whether it may POST with its headers.
  if (request.method === 'OPTIONS' && request.headers.has('origin')) return preflight();
  // The SDK answers every other method 405 before it asks for a server.
  if (request.method !== 'POST') return exchange().fetch(request);
  // Retries are the assistant's to decide: a refusal comes back at once, with `retry_after` when it has one.
  const clientOf = apiFor(env, runtime, { clientAddress: clientAddressOf(request), retry: { attempts: 1 } });
  const serveClient = (client: ApiClient) => serveReader(request, { client, now: runtime.now, assets });
  const known = (apiKey: string, client = clientOf(apiKey)) => knownKey(apiKey, client, runtime.now());
  const apiKey = bearerKey(request.headers);
  // A pasted key, good, from a client that is not a browser page: served as is. The OAuth resource server
  // would do the same for it, and answers the rest: tokens, refusals with their challenge.
  if (apiKey && !isIssuedToken(apiKey) && !(oauthKv && request.headers.has('origin'))) {
    const client = clientOf(apiKey);
    if (await known(apiKey, client)) return serveClient(client);
  }
  if (oauthKv) return protectedAnswer(request, oauthServersFor(url.origin), { OAUTH_KV: oauthKv }, ctx, clientOf, known, serveClient);
  return unauthorized();
}

/** What a page may send to `/mcp` beyond the CORS-safelisted headers (the MCP spec's, and the bearer credential). */
const CORS_REQUEST_HEADERS = 'authorization, content-type, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id';
/** What a page's client reads of an answer: the challenge that starts OAuth, a refusal's wait, the SDK's protocol headers. */
const CORS_EXPOSED_HEADERS = 'WWW-Authenticate, Retry-After, Mcp-Session-Id, Mcp-Protocol-Version, X-Request-Id';
/** How long a browser may keep a preflight's answer. */
const CORS_MAX_AGE_S = 86_400;

/** The preflight's 204 (Fetch standard, CORS protocol): the origin is added by `withCors`. */
function preflight(): Response {
  return new Response(null, {
    status: 204,
    headers: { 'access-control-allow-methods': 'POST, GET, DELETE, OPTIONS', 'access-control-allow-headers': CORS_REQUEST_HEADERS, 'access-control-max-age': String(CORS_MAX_AGE_S) },
  });
}

/**
 * Every answer to a page of an allowed origin, refusals included, names that origin, so the page can read it
 * (the 401's challenge is how a browser client starts OAuth). An origin not allowed gets the SDK's 403, which
 * names none.
 */
function withCors(request: Request, response: Response): Response {
  const origin = request.headers.get('origin');
  if (!origin) return response;
  const { headers } = response;
  headers.set('access-control-allow-origin', origin);
  headers.set('access-control-expose-headers', CORS_EXPOSED_HEADERS);
  headers.delete('access-control-allow-credentials');
  if (!/\borigin\b/i.test(headers.get('vary') ?? '')) headers.append('vary', 'Origin');
  return response;
}

/** The largest request body read here: the SDK's own default bound, so that both refuse alike. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

let handler: McpHttpHandler | undefined;

/**
 * The SDK's stateless exchange, built once per isolate: its factory builds a server for each request it
 * serves, for the reader `serveReader` hands it in `authInfo`.
 */
function exchange(): McpHttpHandler {
  handler ??= createMcpHandler(({ authInfo }) => mcpServer(readerOf(authInfo)), {
    legacy: 'reject',
    maxRequestBodySize: MAX_REQUEST_BYTES,
    onerror: (error) => console.warn(JSON.stringify({ msg: 'mcp request refused or failed', error: errorText(error) })),
  });
  return handler;
}

/**
 * One exchange for a checked key, on a server of its own. The body is read once, here: the SDK takes it
 * parsed, so it neither clones the request nor reads it again. A 2025-revision request (most clients today)
 * is answered with plain JSON by the SDK's transport (the revision lets the server choose JSON or an event
 * stream, and a stateless server has nothing to stream); a 2026 one by the SDK's exchange, which answers JSON
 * unless it has something to stream. The SDK's `isLegacyRequest` routes them, as its documentation shows.
 */
async function serveReader(request: Request, reader: Reader): Promise<Response> {
  const authInfo = readerAuth(reader);
  const body = await bodyOf(request);
  const asSent = body.parsed ? request : body.request;
  const options = body.parsed ? { authInfo, parsedBody: body.value } : { authInfo };
  const legacy = await isLegacyRequest(asSent, body.parsed ? body.value : undefined, { maxRequestBodySize: MAX_REQUEST_BYTES });
  if (!legacy) return withoutEchoes(await exchange().fetch(asSent, options));
  const server = mcpServer(reader);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_REQUEST_BYTES });
  await server.connect(transport);
  try {
    return withoutEchoes(await transport.handleRequest(asSent, options));
  } finally {
    // The answer is whole (JSON): the server and its transport are done.
    void server.close().catch(() => undefined);
  }
}

/** How much of a request an error may quote back. */
export const ECHO_MAX = 120;

/**
 * The SDK's errors quote the request (`Prompt <name> not found`, `Resource <uri> not found` with the URI in
 * `data`, a schema's complaint with the value): each error's message is cut to a short prefix, and long `data`
 * dropped, on the answer, so a 1 MB argument is not sent back. The SDK has no hook for its errors; the answer is
 * ours. A JSON answer only: the tools send nothing before their result, so no exchange here is streamed.
 */
async function withoutEchoes(response: Response): Promise<Response> {
  if (!(response.headers.get('content-type') ?? '').startsWith('application/json')) return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  const answer = (body: string) => new Response(body, { status: response.status, statusText: response.statusText, headers });
  if (!text.includes('"error"')) return answer(text);
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return answer(text);
  }
  return answer(JSON.stringify(Array.isArray(message) ? message.map(cutError) : cutError(message)));
}

function cutError(message: unknown): unknown {
  const error = (message as { error?: { message?: unknown; data?: unknown } } | null)?.error;
  if (typeof error !== 'object' || error === null) return message;
  if (typeof error.message === 'string' && error.message.length > ECHO_MAX) error.message = `${error.message.slice(0, ECHO_MAX)}… (cut)`;
  if (error.data !== undefined && JSON.stringify(error.data).length > ECHO_MAX) delete error.data;
  return message;
}

/**
 * The body parsed, or the request for the SDK to read and answer itself: as it came when it declares no length
 * within the bound or is not JSON by its type (413, 415), rebuilt around the text read when that is not JSON.
 */
async function bodyOf(request: Request): Promise<{ parsed: true; value: unknown } | { parsed: false; request: Request }> {
  const length = request.headers.get('content-length');
  if (length === null || !/^[1-9]\d*$/.test(length) || Number(length) > MAX_REQUEST_BYTES || !isJsonContentType(request.headers.get('content-type'))) return { parsed: false, request };
  const text = await request.text();
  try {
    return { parsed: true, value: JSON.parse(text) as unknown };
  } catch {
    return { parsed: false, request: new Request(request, { body: text }) };
  }
}

/** The 401 when a token's key is no longer accepted upstream: the client authorizes again. */
const KEY_REVOKED = 'The API key this authorization stands for is no longer accepted. Connect again with a current key.';
/** The 401 of the OAuth part, in the API's error shape. */
const REFUSED = 'Missing, expired, revoked or unknown access token or API key. Connect with OAuth (see WWW-Authenticate), or send the API key as `Authorization: Bearer <key>`.';

/**
 * `/mcp` as the provider's protected resource, for this request: it reads the bearer credential and answers
 * 401 with the challenge naming its metadata; our validator tells a token from a pasted key and checks the key
 * behind either upstream. Its 401s get the API's JSON body, with its challenge; which one the validator said
 * (a token whose key the upstream refused, or anything else) is what it found, not read back from the answer.
 */
async function protectedAnswer(
  request: Request,
  servers: OAuthServers,
  store: { OAUTH_KV: KVNamespace },
  ctx: ExecutionContext,
  clientOf: (apiKey: string) => ApiClient,
  known: (apiKey: string) => Promise<boolean>,
  serveClient: (client: ApiClient) => Promise<Response>,
): Promise<Response> {
  let keyRevoked = false;
  const validate = async (resource: string, token: string): Promise<OAuthResourceTokenValidation<ApiClient> | null> => {
    if (!isIssuedToken(token)) return (await known(token)) ? { props: clientOf(token), audience: resource } : null;
    // A token of the old `k_` users (a hash of the key, before grant ids were keyed): refused, the person connects again.
    if (!token.startsWith(OAUTH_USER_PREFIX)) return null;
    const found = await servers.authorization.validateToken<GrantProps>(resource, token, store);
    if (!found) return null;
    if (await known(found.props.apiKey)) return { ...found, props: clientOf(found.props.apiKey) };
    // The upstream refused the key: every grant made with it ends, so refreshing cannot bring a token back.
    const ended = await endGrantsOfUser(servers, store, found.userId);
    console.log(JSON.stringify({ msg: 'oauth grants ended: their API key is refused upstream', grants: ended }));
    keyRevoked = true;
    throw new OAuthError('invalid_token', { description: KEY_REVOKED });
  };
  const response = await protectedResource(servers, validate, serveClient).fetch(request, store, ctx);
  if (response.status !== 401) return response;
  await response.body?.cancel();
  const refusal = errorResponse(new ApiError('invalid_api_key', keyRevoked ? KEY_REVOKED : REFUSED));
  for (const [name, value] of response.headers) if (!/^content-(type|length)$/i.test(name)) refusal.headers.set(name, value);
  return refusal;
}

/**
 * The SDK's 403 when the request names a host that is not allowed: in `Host`,
 * in its URL (the same host on Cloudflare's edge; the only one on requests
 * made in-process, which carry no `Host`), or in `Origin` (a browser's).
 * Checked with the SDK's own rule, once per host and isolate (`hostAllowed`);
 * its answer is built only for a refusal.
 */
function foreignHost(request: Request, url: URL, hosts: string[]): Response | undefined {
  for (const host of new Set([request.headers.get('host') ?? url.host, url.host])) {
    if (!hostAllowed(host, hosts)) return hostHeaderValidationResponse(new Request(url, { headers: { host } }), hosts);
  }
  return request.headers.has('origin') ? originValidationResponse(request, hosts) : undefined;
}

/** What `validateHostHeader` said of each host this isolate was asked for, per allowed list: it parses a URL each time. */
const hostsChecked = new Map<string, Map<string, boolean>>();
/** Enough for the names one deployment answers to; a flood of made-up hosts is checked anew rather than kept. */
const MAX_HOSTS_CHECKED = 64;

function hostAllowed(host: string, hosts: string[]): boolean {
  const list = hosts.join(',');
  let checked = hostsChecked.get(list);
  if (!checked) hostsChecked.set(list, (checked = new Map()));
  let ok = checked.get(host);
  if (ok === undefined) {
    ok = validateHostHeader(host, hosts).ok;
    if (checked.size < MAX_HOSTS_CHECKED) checked.set(host, ok);
  }
  return ok;
}

/**
 * Whether the API knows the key. Only its 401 says no: a plan that is not
 * active, a limit or an outage lets the request on, and each tool call then
 * answers the API's refusal as its result. A key the upstream accepted less
 * than 5 minutes ago, as this isolate saw, is known without a read: its
 * `GET /brands` would be served from the cache anyway (`acceptedRecently`);
 * after that the read asks the upstream, so a revoked key stops within 5 minutes.
 */
async function knownKey(apiKey: string, client: ApiClient, now: Date): Promise<boolean> {
  if (await acceptedRecently(apiKey, now.getTime())) return true;
  try {
    await client.listBrands();
    return true;
  } catch (error) {
    if (error instanceof ApiClientError) return error.code !== 'invalid_api_key';
    throw error;
  }
}
