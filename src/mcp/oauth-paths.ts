/**
 * The paths of OAuth for `/mcp`, its scope and its bounds, apart from the
 * provider (oauth.ts) so that the Worker can route them with the isolate, and
 * the product's OpenAPI document name them, without loading it.
 */

/** The one scope: read, the only thing the API allows. */
export const READ_SCOPE = 'read';

/** The consent page is ours (consent.ts); the token endpoint (with revocation) and registration are the provider's. */
export const OAUTH_ENDPOINTS = { authorize: '/oauth/authorize', token: '/oauth/token', register: '/oauth/register' } as const;

/** The RFC 8414 and RFC 9728 documents. The resource's is at its path-aware place (`mcpResource`: `/mcp` appended) and, for older clients, at the root. */
export const WELL_KNOWN = {
  authorizationServer: '/.well-known/oauth-authorization-server',
  protectedResource: '/.well-known/oauth-protected-resource',
  mcpResource: '/.well-known/oauth-protected-resource/mcp',
} as const;

/** What one registration may hold (RFC 7591 metadata): enough for any real client, too little to spend storage on. */
export const REGISTRATION_LIMITS = { name: 200, uri: 2000, redirectUris: 5, contacts: 5, metadataBytes: 8 * 1024 } as const;

/** Requests an address may make per minute that write to OAUTH_KV, per kind (wrangler.toml [[ratelimits]] OAUTH_WRITES). */
export const OAUTH_WRITES_PER_MINUTE = 10;
