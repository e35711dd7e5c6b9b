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
