/**
 * The spec's rules of access as pure functions (spec, Authentication; DESIGN
 * section 3): who is calling (the bearer key), which brand they read, and
 * whether their plan and integrations allow the operation. The origin applies
 * them to its D1 rows; the proxy to the key's own `GET /brands`.
 */
import { ApiError } from './errors';
import type { AnyOperation } from './operations';
import { brandIdParam, readParams } from './params';

/** The key from `Authorization: Bearer <key>`, or null when absent or malformed. */
export function bearerKey(headers: Headers): string | null {
  const match = /^Bearer[ \t]+([\x21-\x7e]{1,256})[ \t]*$/i.exec(headers.get('authorization') ?? '');
  return match?.[1] ?? null;
}

/** What an API key can be: 1 to 256 printable ASCII characters, no space (what `bearerKey` reads from a header). */
export const API_KEY_MAX = 256;
const API_KEY_SHAPE = /^[\x21-\x7e]{1,256}$/;
export const API_KEY_CHARACTERS = 'has characters an API key never has: only printable ASCII, without spaces. Paste the key again, without quotes or line breaks';

/**
 * Why a key given in a form or a body (not a header) cannot be an API key, or null when it can. Checked before
 * any use: a key with a character a header cannot carry (CR, LF, NUL, a zero-width space, a curly quote) would
 * make `new Headers` throw, with the key in its message. The answer never quotes the key.
 */
export function apiKeyProblem(key: string): string | null {
  if (key.length === 0) return 'is empty: paste the Read API key.';
  if (key.length > API_KEY_MAX) return `is longer than an API key can be (at most ${API_KEY_MAX} characters).`;
  if (!API_KEY_SHAPE.test(key)) return API_KEY_CHARACTERS;
  return null;
}

/**
 * OAuth tokens of this Worker's `/mcp` are `<user>:<grant>:<secret>`, where `<user>` is ours: `bav1_` and 32 hex
 * digits of an HMAC (src/mcp/oauth.ts, `grantUserOf`). That marker, not the provider's lengths, tells a token from a pasted
 * API key, here and at `/api/v1`. `k_<32 hex>:` was the marker before: such tokens are ours too, and refused.
 */
export const OAUTH_USER_PREFIX = 'bav1_';
const OAUTH_TOKEN = new RegExp(`^(?:${OAUTH_USER_PREFIX}|k_)[0-9a-f]{32}:`);
export const isOAuthToken = (credential: string): boolean => OAUTH_TOKEN.test(credential);

/** 401 at `/api/v1` for one of our OAuth tokens: it stands for a key, and is for `/mcp` only; it is never sent upstream. */
export const oauthTokenNotAKey = () =>
  new ApiError('invalid_api_key', 'This is an OAuth access token, which works only at /mcp. /api/v1 takes the Read API key itself: `Authorization: Bearer <key>`.');

/** 401: no key, a malformed one, or one the API does not know (or no longer). */
export const invalidKey = () => new ApiError('invalid_api_key', 'Missing, revoked or unknown API key. Send it as `Authorization: Bearer <key>`.');

/** The key of a request, or 401 `invalid_api_key`. */
export function requireKey(request: Request): string {
  const key = bearerKey(request.headers);
  if (!key) throw invalidKey();
  return key;
}

/** Spec rule 1 and 6: `brand_id` is needed on multi-brand accounts, and must be one of the account's brands. */
export function resolveBrand<B extends { id: number }>(brands: readonly B[], rawBrandId: string | undefined): B {
  if (rawBrandId === undefined) {
    if (brands.length > 1) throw new ApiError('brand_required', 'This account has more than one brand: pass `brand_id` (see `GET /brands`).');
    if (brands[0]) return brands[0];
    throw new ApiError('brand_not_found', 'This account has no brand yet.');
  }
  const { brand_id } = readParams({ brand_id: brandIdParam }, { brand_id: rawBrandId });
  // Another account's brand is "not found" too: existence is not revealed across accounts.
  const brand = brands.find((b) => b.id === brand_id);
  if (!brand) throw new ApiError('brand_not_found', `No brand ${brand_id} in this account.`);
  return brand;
}

/** What the plan checks need to know of an account. */
export interface PlanFacts {
  planActive: boolean;
  /** Whether the plan includes the Pro and Growth operations. */
  includesInsights: boolean;
}

/** Spec, Authentication rule 3. */
export function checkPlan(account: PlanFacts, op: Pick<AnyOperation, 'plan'>): void {
  if (!account.planActive) throw new ApiError('plan_inactive', 'The plan of this account is not active.');
  if (op.plan === 'pro_or_growth' && !account.includesInsights) throw new ApiError('feature_not_in_plan', 'This data is part of the Pro and Growth plans.');
}

/** 409 when the operation needs an integration the brand has not connected. */
export function checkIntegration(connectedKinds: ReadonlySet<string>, op: Pick<AnyOperation, 'integration'>): void {
  if (!op.integration) return;
  if (op.integration === 'search_performance' && !connectedKinds.has('search_performance'))
    throw new ApiError('integration_not_connected', 'Connect the search-performance integration to read this data.');
  if (op.integration === 'crawler_data' && !connectedKinds.has('edge_network') && !connectedKinds.has('tracking_script'))
    throw new ApiError('integration_not_connected', 'Connect the edge-network integration or install the tracking script to read crawler data.');
}
