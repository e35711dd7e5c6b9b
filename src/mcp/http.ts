/**
 * `/mcp`: MCP over Streamable HTTP, stateless, on the official SDK
 * (`createMcpHandler`, which serves the 2026-07-28 revision and the 2025
 * revisions that most clients still speak). In order:
 *
 * 1. `Host` and `Origin` are checked against `MCP_ALLOWED_HOSTS` (and, in
 *    dev, localhost): a page on another site that resolves to this server
 *    (DNS rebinding) gets 403 before anything is read.
 * 2. `GET` and `DELETE` (2025 session operations) and other methods: 405 with
 *    `Allow: POST`, from the SDK; a stateless server keeps no session or
 *    stream to open or close.
 * 3. A `POST` needs `Authorization: Bearer <API key>`, the keys of /api/v1: no
 *    key, or one the API does not know, is 401 with `WWW-Authenticate:
 *    Bearer`. The key is checked with `GET /brands` through `apiFor()` (cached
 *    for an hour; an unknown key costs the upstream one read a minute at
 *    most, and counts against the caller's address like /api/v1's).
 * 4. A new server and transport per request (`mcpServer`: the SDK serves one
 *    request per server; what the server registers was built once per
 *    isolate, and only the calls carrying the key's client are new); the SDK
 *    answers bad input (not JSON, not JSON-RPC, a batch over 100, an unknown
 *    tool, arguments that fail the schema) with its own errors.
 */
import { createMcpHandler, hostHeaderValidationResponse, localhostAllowedHostnames, type McpServerFactory, originValidationResponse } from '@modelcontextprotocol/server';
import { type ApiClient, ApiClientError } from '../client';
import { bearerKey, invalidKey } from '../contract/access';
import { errorResponse, JSON_HEADERS } from '../contract/errors';
import { errorText } from '../lib/log';
import { apiFor, clientAddressOf, type ProxyEnv, type ProxyRuntime } from '../proxy';
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
}

/** The answer to any request to `/mcp` (`handleMcp` of index.ts loads this file). */
export async function serveMcp(request: Request, env: ProxyEnv, runtime: ProxyRuntime, options: McpOptions): Promise<Response> {
  const response = await answer(request, env, runtime, allowedHostsOf(options.hosts, options.dev));
  // The SDK builds its own answers (JSON, or an event stream of JSON): they carry what every JSON answer of the Worker does.
  response.headers.set('x-content-type-options', JSON_HEADERS['x-content-type-options']!);
  return response;
}

async function answer(request: Request, env: ProxyEnv, runtime: ProxyRuntime, allowedHosts: string[]): Promise<Response> {
  const refused = foreignHost(request, allowedHosts);
  if (refused) return refused;
  const serve = (factory: McpServerFactory) => createMcpHandler(factory, { onerror: (error) => console.warn(JSON.stringify({ msg: 'mcp request refused or failed', error: errorText(error) })) }).fetch(request);
  // The SDK answers every other method 405 before it asks for a server.
  if (request.method !== 'POST') return serve(() => Promise.reject(new Error('a stateless MCP server serves only POST')));
  const apiKey = bearerKey(request.headers);
  if (!apiKey) return unauthorized();
  // Retries are the assistant's to decide: a refusal comes back at once, with `retry_after` when it has one.
  const client = apiFor(env, runtime, { clientAddress: clientAddressOf(request), retry: { attempts: 1 } })(apiKey);
  if (!(await knownKey(client))) return unauthorized();
  return serve(() => mcpServer(client, runtime.now));
}

/**
 * The SDK's 403 when the request names a host that is not allowed: in `Host`,
 * in its URL (the same host on Cloudflare's edge; the only one on requests
 * made in-process, which carry no `Host`), or in `Origin` (a browser's).
 */
function foreignHost(request: Request, hosts: string[]): Response | undefined {
  const url = new URL(request.url);
  for (const host of new Set([request.headers.get('host') ?? url.host, url.host])) {
    const refused = hostHeaderValidationResponse(new Request(url, { headers: { host } }), hosts);
    if (refused) return refused;
  }
  return originValidationResponse(request, hosts);
}

/**
 * Whether the API knows the key. Only its 401 says no: a plan that is not
 * active, a limit or an outage lets the request on, and each tool call then
 * answers the API's refusal as its result.
 */
async function knownKey(client: ApiClient): Promise<boolean> {
  try {
    await client.listBrands();
    return true;
  } catch (error) {
    if (error instanceof ApiClientError) return error.code !== 'invalid_api_key';
    throw error;
  }
}
