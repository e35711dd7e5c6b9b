/**
 * OAuth 2.1 for `/mcp`, on `@cloudflare/workers-oauth-provider` (no OAuth of
 * our own): this Worker is both the authorization server (RFC 8414 metadata,
 * dynamic client registration RFC 7591, the token endpoint with PKCE S256
 * only, refresh and revocation RFC 7009) and its one protected resource,
 * `/mcp` (RFC 9728 metadata, the 401 challenge naming it).
 *
 * What a grant holds: the person's Read API key, checked upstream on the
 * consent page (consent.ts) and kept only in the grant's props, which the
 * provider encrypts with a key that only the grant's tokens unwrap. A token
 * (and a code) is `<user>:<grant>:<secret>` and never the key; `<user>` is
 * our marker `bav1_` and an HMAC of the key under `SIGNING_SECRET`
 * (`grantUserOf`): it cannot test a guess of the key without the secret, yet
 * re-authorizing a client with the same key replaces its earlier grant, and
 * every grant of a key can be found and ended when the upstream revokes it.
 *
 * Bounds the provider has no setting for, wrapped here: what a client may
 * register (`registrationProblem`: the sizes of its name and URIs, a handful
 * of redirect URIs); a registration expires a day after it is made
 * (`clientRegistrationTTL`) unless it reaches a grant, which keeps it as long
 * as a grant lasts (`keepClientWhileGranted`); a rotated-out refresh token
 * ends its grant (`refusedRefresh`: the provider itself accepts the previous
 * one until the new one is used).
 *
 * One issuer per host: the issuer is the origin the request came to (checked
 * against `MCP_ALLOWED_HOSTS` first), the resource `<origin>/mcp`, so a token
 * obtained at one host name is refused at another (its audience is the other
 * resource). The authorization server is built once per origin and isolate;
 * `/mcp`'s resource server for each request (`protectedResource`).
 */
import { type ClientInfo, type Grant, OAuthAuthorizationServer, type OAuthResourceMetadata, OAuthResourceServer, type OAuthResourceTokenValidator } from '@cloudflare/workers-oauth-provider';
import { OAUTH_USER_PREFIX } from '../contract/access';
import { hmacSha256Hex, sha256Hex } from '../lib/hash';
import { OAUTH_ENDPOINTS, READ_SCOPE, REGISTRATION_LIMITS } from './oauth-paths';

/** Access tokens last an hour; a grant (and its refresh token) 90 days from the consent, however often it is refreshed: then the person consents again (SECURITY.md). */
const ACCESS_TOKEN_TTL = 3600;
const GRANT_TTL = 90 * 86_400;
/** A registration that never reaches a grant is gone a day after it was made (KV expiry). */
export const UNGRANTED_CLIENT_TTL = 86_400;

/** What the provider reads of the env: its KV namespace. */
export interface OAuthStore {
  OAUTH_KV: KVNamespace;
}

/** What a grant keeps, encrypted. Never logged, never sent. */
export interface GrantProps {
  apiKey: string;
}

export interface OAuthServers {
  issuer: string;
  resource: string;
  authorization: OAuthAuthorizationServer<OAuthStore>;
  /** `/mcp`'s RFC 9728 metadata, which each request's resource server (`protectedResource`) publishes. */
  resourceMetadata: OAuthResourceMetadata;
}

const byOrigin = new Map<string, OAuthServers>();

/** The servers of one origin (`https://edge.example.com`; `http` only on loopback, for `npm run dev` and the tests). */
export function oauthServersFor(origin: string): OAuthServers {
  let servers = byOrigin.get(origin);
  if (!servers) {
    const issuer = origin;
    const resource = `${origin}/mcp`;
    servers = {
      issuer,
      resource,
      authorization: new OAuthAuthorizationServer<OAuthStore>({
        issuer,
        resources: [resource],
        authorizeEndpoint: OAUTH_ENDPOINTS.authorize,
        tokenEndpoint: OAUTH_ENDPOINTS.token,
        clientRegistrationEndpoint: OAUTH_ENDPOINTS.register,
        scopesSupported: [READ_SCOPE],
        accessTokenTTL: ACCESS_TOKEN_TTL,
        refreshTokenTTL: GRANT_TTL,
        clientRegistrationTTL: UNGRANTED_CLIENT_TTL,
        clientRegistrationCallback: ({ clientMetadata }) => registrationProblem(clientMetadata),
        // The provider logs a warning per OAuth error by default; these carry no secret, but say what failed for the operator.
        onError: ({ code, status, internal }) => {
          console.warn(JSON.stringify({ msg: 'oauth error', code, status, category: internal.category, reason: internal.reason }));
        },
      }),
      resourceMetadata: { resource, authorization_servers: [issuer], bearer_methods_supported: ['header'], resource_name: 'Brand AI-Visibility (read-only)' },
    };
    byOrigin.set(origin, servers);
  }
  return servers;
}

/**
 * `/mcp` as the provider's protected resource (its metadata, its 401 challenge, CORS for its answers), for one
 * request: `validate` checks the request's bearer credential, `serve` answers it with what `validate` returned.
 * Built for each request, as its validator and answer are the request's; its env is the OAuth store.
 */
export function protectedResource<Props>(servers: OAuthServers, validate: OAuthResourceTokenValidator<Props>, serve: (props: Props) => Promise<Response>): OAuthResourceServer<OAuthStore, Props> {
  return new OAuthResourceServer<OAuthStore, Props>({
    resourceMetadata: servers.resourceMetadata,
    requiredScopes: [READ_SCOPE],
    validateToken: () => validate,
    handler: { fetch: (_request, _store, ctx) => serve(ctx.props) },
  });
}

/**
 * The grant's user: our marker and an HMAC of the key under the server's secret, so one key's grants are found
 * together, and nothing in a token or a code (which travels in a redirect URL) can test a guess of the key.
 */
export async function grantUserOf(secret: string, apiKey: string): Promise<string> {
  return `${OAUTH_USER_PREFIX}${(await hmacSha256Hex(secret, `oauth-user:${apiKey}`)).slice(0, 32)}`;
}

/** Why a registration is refused (400 `invalid_client_metadata` or `invalid_redirect_uri`, naming the field), or nothing. */
export function registrationProblem(metadata: Record<string, unknown>): { code: string; description: string } | undefined {
  const { name, uri, redirectUris, contacts, metadataBytes } = REGISTRATION_LIMITS;
  const tooLong = (value: unknown, max: number) => typeof value === 'string' && value.length > max;
  const redirects = metadata.redirect_uris;
  if (Array.isArray(redirects)) {
    if (redirects.length > redirectUris) return { code: 'invalid_redirect_uri', description: `redirect_uris: at most ${redirectUris}` };
    if (redirects.some((u) => tooLong(u, uri))) return { code: 'invalid_redirect_uri', description: `redirect_uris: each at most ${uri} characters` };
  }
  for (const [field, value] of Object.entries(metadata)) {
    // `client_name#fr` and the like are names too (RFC 7591 2.2).
    if (field.split('#')[0] === 'client_name' && tooLong(value, name)) return { code: 'invalid_client_metadata', description: `${field}: at most ${name} characters` };
    if (field.endsWith('_uri') && tooLong(value, uri)) return { code: 'invalid_client_metadata', description: `${field}: at most ${uri} characters` };
  }
  if (Array.isArray(metadata.contacts) && metadata.contacts.length > contacts) return { code: 'invalid_client_metadata', description: `contacts: at most ${contacts}` };
  if (new TextEncoder().encode(JSON.stringify(metadata)).byteLength > metadataBytes) return { code: 'invalid_client_metadata', description: `client metadata: at most ${metadataBytes} bytes in all` };
  return undefined;
}

/**
 * A client that reached a grant is kept as long as the grant may last: the provider registers it for
 * `UNGRANTED_CLIENT_TTL` and renews only a day at a time, so a client idle for a day would lose its
 * registration under a live grant. The provider has no helper for another lifetime (`updateClient` writes
 * the same TTL), so its record is written back here, in its own schema, with `registrationExpiresAt` moved.
 */
export async function keepClientWhileGranted(store: OAuthStore, clientId: string, nowS: number): Promise<void> {
  const key = `client:${clientId}`;
  const client = await store.OAUTH_KV.get<ClientInfo & { registrationExpiresAt?: number }>(key, 'json');
  if (!client || client.registrationExpiresAt === undefined || client.registrationExpiresAt >= nowS + GRANT_TTL - 86_400) return;
  await store.OAUTH_KV.put(key, JSON.stringify({ ...client, registrationExpiresAt: nowS + GRANT_TTL }), { expirationTtl: GRANT_TTL });
}

/**
 * OAuth 2.1 refresh token reuse detection, which the provider lacks (it accepts the previous refresh token
 * until the new one is used, for a client whose answer was lost): a refresh token of a live grant that is not
 * the grant's current one was rotated out, so whoever presents it holds a copy the client already replaced.
 * The grant ends (its tokens with it) and the answer is `invalid_grant`; the person consents again. Tokens of
 * the old `k_` users are refused too. Returns the refusal, or nothing to let the provider answer.
 */
export async function refusedRefresh(servers: OAuthServers, store: OAuthStore, refreshToken: string): Promise<string | undefined> {
  if (!refreshToken.startsWith(OAUTH_USER_PREFIX)) return refreshToken.startsWith('k_') ? 'This authorization is from before a security update: connect again.' : undefined;
  const parts = refreshToken.split(':');
  if (parts.length !== 3) return undefined;
  const [userId, grantId] = parts as [string, string, string];
  const grant = await store.OAUTH_KV.get<Grant>(`grant:${userId}:${grantId}`, 'json');
  if (!grant || grant.refreshTokenId === (await sha256Hex(refreshToken))) return undefined;
  await servers.authorization.getOAuthApi(store).revokeGrant(grantId, userId);
  console.warn(JSON.stringify({ msg: 'oauth grant ended: a rotated-out refresh token was presented again' }));
  return 'This refresh token was already replaced; presenting it again ended the authorization. Connect again.';
}

/**
 * Whether a bearer credential is a token this server issued rather than an API key: by our marker on the
 * user id (`isOAuthToken`, src/contract/access.ts), never by the provider's internal lengths.
 */
export { isOAuthToken as isIssuedToken } from '../contract/access';

/**
 * Ends every grant of a key (and so all its tokens): the upstream no longer accepts it. Best effort:
 * the token is refused anyway; a grant left behind fails the same check at its next use.
 */
export async function endGrantsOfUser(servers: OAuthServers, store: OAuthStore, userId: string): Promise<number> {
  const helpers = servers.authorization.getOAuthApi(store);
  let ended = 0;
  let cursor: string | undefined;
  do {
    const page = await helpers.listUserGrants(userId, cursor ? { cursor } : {});
    for (const grant of page.items) {
      await helpers.revokeGrant(grant.id, userId);
      ended++;
    }
    cursor = page.cursor;
  } while (cursor);
  return ended;
}
