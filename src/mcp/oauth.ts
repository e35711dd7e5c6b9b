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
 * is `<user>:<grant>:<secret>` and never the key; `<user>` is `k_` and a
 * hash of the key (`grantUserOf`), so re-authorizing a client with the same
 * key replaces its earlier grant, and every grant of a key can be found and
 * ended when the upstream revokes the key.
 *
 * One issuer per host: the issuer is the origin the request came to (checked
 * against `MCP_ALLOWED_HOSTS` first), the resource `<origin>/mcp`. The
 * provider's servers are built once per origin and isolate.
 */
import { OAuthAuthorizationServer, OAuthResourceServer, type OAuthResourceTokenValidation } from '@cloudflare/workers-oauth-provider';
import { sha256Hex } from '../lib/hash';
import { OAUTH_ENDPOINTS, READ_SCOPE } from './oauth-paths';


/** Access tokens last an hour; a grant (and its refresh token) 90 days from the consent, however often it is refreshed: then the person consents again (SECURITY.md). */
const ACCESS_TOKEN_TTL = 3600;
const GRANT_TTL = 90 * 86_400;

/** What the provider reads of the env: its KV namespace. */
export interface OAuthStore {
  OAUTH_KV: KVNamespace;
}

/** What a grant keeps, encrypted. Never logged, never sent. */
export interface GrantProps {
  apiKey: string;
}

/** Per request, what the resource server calls: the token check and the MCP answer (http.ts). */
export interface ResourceRequest<Props> {
  validate(resource: string, token: string): Promise<OAuthResourceTokenValidation<Props> | null>;
  serve(props: Props): Promise<Response>;
}

export interface OAuthServers {
  issuer: string;
  resource: string;
  authorization: OAuthAuthorizationServer<OAuthStore>;
  /** `/mcp` and its metadata; generic over what the request's validator hands the MCP answer. */
  protectedResource: OAuthResourceServer<ResourceRequest<unknown>, unknown>;
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
        // The provider logs a warning per OAuth error by default; these carry no secret, but say what failed for the operator.
        onError: ({ code, status, internal }) => {
          console.warn(JSON.stringify({ msg: 'oauth error', code, status, category: internal.category, reason: internal.reason }));
        },
      }),
      protectedResource: new OAuthResourceServer<ResourceRequest<unknown>, unknown>({
        resourceMetadata: { resource, authorization_servers: [issuer], bearer_methods_supported: ['header'], resource_name: 'Brand AI-Visibility (read-only)' },
        requiredScopes: [READ_SCOPE],
        validateToken: (perRequest) => (resourceId, token) => perRequest.validate(resourceId, token),
        handler: { fetch: (_request, perRequest, ctx) => perRequest.serve(ctx.props) },
      }),
    };
    byOrigin.set(origin, servers);
  }
  return servers;
}

/** The grant's user: the key's hash, so one key's grants are found together. Not the key: a hash of 256 bits of it. */
export async function grantUserOf(apiKey: string): Promise<string> {
  return `k_${(await sha256Hex(apiKey)).slice(0, 32)}`;
}

/**
 * Whether a bearer credential is a token this server issued (`k_<hash>:<grant>:<secret>`, the provider's
 * shape with our user ids) rather than an API key. An API key of exactly this shape would be taken for a
 * token and refused; keys are opaque strings the upstream issues, and none has it.
 */
export const isIssuedToken = (token: string) => /^k_[0-9a-f]{32}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{32}$/.test(token);

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
