/**
 * `/mcp` and its OAuth in the product's OpenAPI document
 * (`GET /openapi.json`, assembled by src/app/openapi.ts): each route's text
 * beside the routes (index.ts `mcpRoutes` and `oauthRoutes`), with the
 * schemas they answer. Only the document imports this file: index.ts is
 * evaluated with the isolate, these texts only with the product's routes.
 */
import * as z from 'zod';
import { type FeatureDocs, error, formBody, jsonBody, jsonOf, KEYED_ERRORS, ok, pageAnswer, requestId, type RouteDoc } from '../contract/product-openapi';
import { MCP_PATH } from './index';
import { OAUTH_ENDPOINTS, OAUTH_WRITES_PER_MINUTE, REGISTRATION_LIMITS, WELL_KNOWN } from './oauth-paths';

/** `/mcp`: the JSON-RPC 2.0 messages of MCP (their methods and params are the MCP spec's, not this document's). */
const JsonRpcMessage = z
  .object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number().int()]).optional(), method: z.string(), params: z.record(z.string(), z.unknown()).optional() })
  .describe('One MCP request or notification (`initialize`, `tools/list`, `tools/call`, ...), or, for 2025 clients, an array of at most 100.');
const JsonRpcError = z
  .object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number().int()]).nullable(), error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }) })
  .describe("The MCP SDK's answer to a request it refuses.");

/** OAuth for `/mcp`: what `@cloudflare/workers-oauth-provider` answers (loose: the provider may add fields). */
const OAuthError = z
  .object({
    error: z
      .string()
      .describe(
        'RFC 6749 section 5.2: `invalid_request`, `invalid_client`, `invalid_grant`, `unauthorized_client`, `unsupported_grant_type`, `invalid_scope`; `invalid_client_metadata` at registration.',
      ),
    error_description: z.string().optional(),
  })
  .describe("An OAuth error (RFC 6749), not the API's error shape.");
const AuthorizationServerMetadata = z
  .looseObject({
    issuer: z.url().describe("The Worker's origin."),
    authorization_endpoint: z.url(),
    token_endpoint: z.url(),
    registration_endpoint: z.url(),
    revocation_endpoint: z.url().describe('The token endpoint: it takes revocation requests too.'),
    scopes_supported: z.array(z.string()).describe('`read`, the only scope.'),
    response_types_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()).describe('`authorization_code`, `refresh_token`.'),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()).describe('`S256` only.'),
  })
  .describe('RFC 8414 authorization server metadata.');
const ProtectedResourceMetadata = z
  .looseObject({
    resource: z.url().describe('`https://<host>/mcp`.'),
    authorization_servers: z.array(z.url()).describe("This Worker's origin."),
    scopes_supported: z.array(z.string()).optional(),
    bearer_methods_supported: z.array(z.string()).describe('`header`.'),
    resource_name: z.string().optional(),
  })
  .describe('RFC 9728 protected resource metadata of `/mcp`.');
const ClientMetadata = z
  .looseObject({
    redirect_uris: z.array(z.string()).min(1).describe("Exact URIs the code may be sent to: https, or http on loopback for an app on the person's computer."),
    client_name: z.string().optional().describe('Shown on the consent page, marked as not verified.'),
    grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
    response_types: z.array(z.literal('code')).optional(),
    token_endpoint_auth_method: z.enum(['none', 'client_secret_basic', 'client_secret_post']).optional().describe('`none` for a public client (PKCE alone).'),
  })
  .describe('RFC 7591 client metadata.');
const RegisteredClient = ClientMetadata.extend({
  client_id: z.string(),
  client_id_issued_at: z.number().int().optional(),
  client_secret: z.string().optional().describe('Only for a client that asked for a secret (not `none`); shown in this answer only.'),
  client_secret_expires_at: z.number().int().optional(),
}).describe('The registered client (RFC 7591 section 3.2.1).');
const TokenAnswer = z
  .looseObject({
    access_token: z.string().describe('For `Authorization: Bearer` on `/mcp`; an hour. Stands for the Read API key and is not the key.'),
    token_type: z.string().describe('`bearer`.'),
    expires_in: z.number().int(),
    refresh_token: z.string().describe('A new one with each refresh; the grant ends 90 days after consent.'),
    scope: z.string(),
  })
  .describe('RFC 6749 section 5.1.');

/** OAuth for `/mcp` (src/mcp/oauth-routes.ts) exists only with `OAUTH_KV` bound. */
const OAUTH_ONLY = 'Only when `OAUTH_KV` is bound and on the hosts of `MCP_ALLOWED_HOSTS` (localhost too in dev); 404 otherwise.';
const OAUTH_OFF = { '404': error('`not_found`: `OAUTH_KV` is not bound (the message says so: `/mcp` then takes only a key in `Authorization`), or the host is not one of `MCP_ALLOWED_HOSTS`') };

/** A metadata document of OAuth (RFC 8414, RFC 9728): public, read with GET, answered only while OAuth is on. */
const metadataDoc = (operationId: string, summary: string, description: string, schema: string): { GET: RouteDoc } => ({
  GET: {
    operationId,
    tag: 'MCP OAuth',
    summary,
    description: `${description} ${OAUTH_ONLY}`,
    security: 'none',
    responses: { '200': ok('The metadata.', jsonOf(schema)), ...OAUTH_OFF, ...oauth405('GET, HEAD, OPTIONS') },
  },
});
/** The provider's OAuth errors (RFC 6749 section 5.2), not the API's shape. */
const oauthError = (codes: string) => ({ description: codes, headers: requestId, content: jsonOf('OAuthError') });
/** The provider's 405: an empty body on the metadata, an OAuth error on the token and registration endpoints. */
const oauth405 = (allow: string, body?: 'error') => ({ '405': { description: `Another method; \`Allow: ${allow}\`.`, headers: requestId, ...(body ? { content: jsonOf('OAuthError') } : {}) } });
const CONSENT_405 = pageAnswer('Another method; `Allow: GET, HEAD, POST`.');

export const mcpDocs: FeatureDocs = {
  schemas: { JsonRpcMessage, JsonRpcError, OAuthError, AuthorizationServerMetadata, ProtectedResourceMetadata, RegisteredClient, TokenAnswer },
  inputs: { ClientMetadata },
  routes: {
    [`${MCP_PATH}`]: {
      POST: {
        operationId: 'mcp',
        tag: 'MCP',
        summary: 'Send an MCP message (Streamable HTTP, stateless)',
        description:
          "MCP over Streamable HTTP (revisions 2026-07-28 and 2025), stateless: no session, every request stands alone. The tools: one per Read API operation (its id in snake_case, e.g. `get_visibility`, with the operation's parameters as arguments) and `weekly_report`; each result carries the API's JSON body as `structuredContent` (on the contract's field names, valid against the tool's `outputSchema`; a list longer than 25 rows in pages, with `page` and an `offset` argument); the prompts (`weekly_review`, `competitor_radar`, `engine_scorecard`, `content_plan`) complete their `brand`, `market` and `competitor` arguments (`completion/complete`); a refusal of the API (401, 403, 404, 409, 429, 502) is a result with `isError: true` and the API's `error.code` and `message` (`retry_after` on a 429). Every call reads through the edge cache with the key's upstream budget. `Host` and `Origin` must name a host of `MCP_ALLOWED_HOSTS` (localhost too in dev).",
        security: 'mcp',
        requestBody: jsonBody('JsonRpcMessage', 'A JSON-RPC 2.0 message of MCP. Send `Accept: application/json, text/event-stream`.'),
        responses: {
          '200': ok('The JSON-RPC response, as JSON or as a Server-Sent Events stream (`text/event-stream`).', { ...jsonOf('JsonRpcMessage'), 'text/event-stream': { schema: { type: 'string' } } }),
          '202': { description: 'A notification, accepted.', headers: requestId },
          '400': { description: "Not a JSON-RPC message of MCP, or a batch of more than 100 (the SDK's error).", headers: requestId, content: jsonOf('JsonRpcError') },
          '401': {
            ...error('`invalid_api_key`: no credential, or a key the API does not know, or an OAuth token that is unknown, expired or revoked'),
            headers: {
              ...requestId,
              'WWW-Authenticate': {
                description: `With OAuth (\`OAUTH_KV\` bound): \`Bearer realm="OAuth", resource_metadata="https://<host>${WELL_KNOWN.mcpResource}", scope="read"\` (and \`error="invalid_token"\` when a credential was refused); without: \`Bearer realm="mcp"\`.`,
                schema: { type: 'string' },
              },
            },
          },
          '403': { description: '`Host` or `Origin` names a host that is not allowed (DNS rebinding protection).', headers: requestId, content: jsonOf('JsonRpcError') },
          '406': { description: '`Accept` lacks `application/json` or `text/event-stream`.', headers: requestId, content: jsonOf('JsonRpcError') },
          '413': { description: 'A body over 4 MiB.', headers: requestId, content: jsonOf('JsonRpcError') },
          '415': { description: 'A body that is not `application/json`.', headers: requestId, content: jsonOf('JsonRpcError') },
        },
      },
      GET: {
        operationId: 'mcpOpenStream',
        tag: 'MCP',
        summary: 'Open a server-to-client stream: not offered',
        description: 'A stateless server has no stream to open (MCP, Streamable HTTP): always 405, `Allow: POST`.',
        security: 'none',
        responses: { '405': { description: 'Method not allowed; `Allow: POST`.', headers: requestId, content: jsonOf('JsonRpcError') } },
      },
      DELETE: {
        operationId: 'mcpEndSession',
        tag: 'MCP',
        summary: 'End a session: not offered',
        description: 'A stateless server has no session to end (MCP, Streamable HTTP): always 405, `Allow: POST`.',
        security: 'none',
        responses: { '405': { description: 'Method not allowed; `Allow: POST`.', headers: requestId, content: jsonOf('JsonRpcError') } },
      },
    },
    [`${WELL_KNOWN.authorizationServer}`]: metadataDoc(
      'getOAuthServerMetadata',
      "Get the authorization server's metadata (RFC 8414)",
      "Where an assistant finds the endpoints below, the scope (`read`), PKCE `S256`, and that revocation goes to the token endpoint. The issuer is the Worker's origin.",
      'AuthorizationServerMetadata',
    ),
    [`${WELL_KNOWN.mcpResource}`]: metadataDoc(
      'getMcpResourceMetadata',
      "Get `/mcp`'s protected resource metadata (RFC 9728)",
      "The document `/mcp`'s 401 challenge names (`resource_metadata`): the resource `https://<host>/mcp` and its authorization server, this Worker.",
      'ProtectedResourceMetadata',
    ),
    [`${WELL_KNOWN.protectedResource}`]: metadataDoc(
      'getResourceMetadataAtRoot',
      "Get `/mcp`'s protected resource metadata at the root address",
      `The same document as \`GET ${WELL_KNOWN.mcpResource}\`, for clients that look here first.`,
      'ProtectedResourceMetadata',
    ),
    [`${OAUTH_ENDPOINTS.register}`]: {
      POST: {
        operationId: 'registerOAuthClient',
        tag: 'MCP OAuth',
        summary: 'Register an assistant as a client (RFC 7591)',
        description: `Dynamic client registration: an assistant registers itself before sending the person to the consent page. Open to anyone: a registration grants nothing until a person approves on the consent page, which marks the name as not verified. ${OAUTH_ONLY}`,
        security: 'none',
        requestBody: jsonBody(
          'ClientMetadata',
          `The client's metadata, as JSON: at most ${REGISTRATION_LIMITS.metadataBytes / 1024} KiB, a name of at most ${REGISTRATION_LIMITS.name} characters, at most ${REGISTRATION_LIMITS.redirectUris} redirect URIs of at most ${REGISTRATION_LIMITS.uri} characters each. Kept a day unless a person approves it on the consent page.`,
        ),
        responses: {
          '201': ok('Registered.', jsonOf('RegisteredClient')),
          '400': oauthError('`invalid_client_metadata` (for example a redirect URI it does not accept, or metadata over the limits, the field named), `invalid_redirect_uri`, `invalid_request`'),
          ...OAUTH_OFF,
          ...oauth405('POST, OPTIONS', 'error'),
          '413': oauthError('`invalid_request`: a body over 1 MiB'),
          '429': { ...error(`\`rate_limited\`: more than ${OAUTH_WRITES_PER_MINUTE} registrations a minute from one address`), headers: KEYED_ERRORS['429'].headers },
        },
      },
    },
    [`${OAUTH_ENDPOINTS.token}`]: {
      POST: {
        operationId: 'oauthToken',
        tag: 'MCP OAuth',
        summary: 'Get, refresh or revoke tokens (RFC 6749, RFC 7009)',
        description: `Form-encoded. \`grant_type=authorization_code\` with \`code\`, \`redirect_uri\` and the PKCE \`code_verifier\` (S256 only) exchanges the consent page's code for an access token (an hour) and a refresh token; \`grant_type=refresh_token\` with \`refresh_token\` renews both (the grant ends 90 days after consent). Without \`grant_type\`, \`token\` (and optionally \`token_type_hint\`) is a revocation (RFC 7009): the metadata's \`revocation_endpoint\` is this one; revoking a refresh token ends the grant. A client with a secret authenticates with HTTP Basic or \`client_secret\`; a public one sends \`client_id\`. ${OAUTH_ONLY}`,
        security: 'none',
        requestBody: formBody({
          required: true,
          properties: Object.fromEntries(
            ['grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'token', 'token_type_hint', 'client_id', 'client_secret', 'resource'].map((name) => [name, { type: 'string' }]),
          ),
        }),
        responses: {
          '200': ok('The tokens; for a revocation, an empty body.', jsonOf('TokenAnswer')),
          '400': oauthError(
            '`invalid_request`, `invalid_grant` (a code or refresh token that is unknown, used, expired or revoked; a wrong `code_verifier`), `unsupported_grant_type`, `invalid_scope`',
          ),
          '401': oauthError('`invalid_client`: unknown client, or a wrong secret'),
          ...OAUTH_OFF,
          ...oauth405('POST, OPTIONS', 'error'),
        },
      },
    },
    [`${OAUTH_ENDPOINTS.authorize}`]: {
      GET: {
        operationId: 'showConsent',
        tag: 'MCP OAuth',
        summary: 'The consent page (the authorization endpoint)',
        description: `Where the assistant sends the person's browser, with the OAuth 2.1 authorization request (\`response_type=code\`, \`client_id\`, \`redirect_uri\` exactly as registered, \`code_challenge\` with \`code_challenge_method=S256\`, \`state\`, \`scope=read\`, \`resource\`). Shows which client asks and where it will send the access, and asks for the person's Read API key. A page, not for programs; it cannot be framed. ${OAUTH_ONLY}`,
        security: 'none',
        responses: {
          '200': pageAnswer('The key step: the form asking for the Read API key.'),
          '302': {
            description: 'An error the client must hear (RFC 6749 section 4.1.2.1), sent back to its validated `redirect_uri`.',
            headers: { ...requestId, Location: { schema: { type: 'string', format: 'uri' } } },
          },
          '400': pageAnswer('A request that cannot start: an unknown client, a redirect URI it did not register, PKCE missing or not S256. Said on the page, never redirected.'),
          ...OAUTH_OFF,
          '405': CONSENT_405,
          '429': pageAnswer(`Too many views or answers of this page from one address (more than ${OAUTH_WRITES_PER_MINUTE} a minute), with \`Retry-After\`.`),
        },
      },
      POST: {
        operationId: 'answerConsent',
        tag: 'MCP OAuth',
        summary: "Answer the consent page's form",
        description: `The page's own form (\`application/x-www-form-urlencoded\`, with its single-use, 10-minute handle, bound to the browser by a cookie). \`step=key\`: the key is checked with the Read API (\`GET /brands\`, through the edge cache); accepted, the page lists the key's brands to approve. \`step=approve\`: the browser is sent back to the client with a one-time code (the key kept only in the grant, encrypted). \`decision=deny\` at either step: back with \`error=access_denied\`. ${OAUTH_ONLY}`,
        security: 'none',
        requestBody: formBody({
          required: true,
          properties: { step: { type: 'string', enum: ['key', 'approve'] }, handle: { type: 'string' }, api_key: { type: 'string' }, decision: { type: 'string', enum: ['deny'] } },
          requiredFields: ['step', 'handle'],
        }),
        responses: {
          '200': pageAnswer('The approve step: the brands the key reads.'),
          '302': { description: 'Back to the client: with the code (Approve), or `error=access_denied` (Deny).', headers: { ...requestId, Location: { schema: { type: 'string', format: 'uri' } } } },
          '400': pageAnswer('The key step again with the error: the Read API refused the key (or none was pasted); or a form that could not be read.'),
          '403': pageAnswer("A form not from this browser's page, or used, forged or older than 10 minutes."),
          ...OAUTH_OFF,
          '405': CONSENT_405,
          '413': pageAnswer('A form over 8 KiB.'),
          '429': pageAnswer("The key step again: too many key checks just now (the Read API's rate limit)."),
          '503': pageAnswer("The key step again: the Read API did not answer the key's check."),
        },
      },
    },
  },
};
