/**
 * Who is calling and what they may read: the API key, the brand, the plan,
 * the integrations and the market (spec, Authentication; DESIGN section 3).
 */
import { z } from 'zod';
import { ApiError } from '../contract/errors';
import { sha256Hex } from '../hash';
import type { AnyOperation } from '../contract/operations';
import { brandIdParam, parseParams } from '../contract/params';
import type { Plan } from '../contract/enums';

export interface Caller {
  keyId: number;
  accountId: number;
  plan: Plan;
  planActive: boolean;
  monthlyQuota: number;
  includesInsights: boolean;
  /** The account's brands, lowest id first. */
  brands: BrandRow[];
}

export interface BrandRow {
  id: number;
  name: string;
  domain: string;
  category: string;
}

export interface MarketRow {
  id: number;
  brand_id: number;
  code: string;
  name: string;
  language: string;
  country: string;
  is_primary: number;
}

/** The key from `Authorization: Bearer <key>`, or null when absent or malformed. */
export function bearerKey(request: Request): string | null {
  const match = /^Bearer[ \t]+([\x21-\x7e]{1,256})[ \t]*$/i.exec(request.headers.get('authorization') ?? '');
  return match?.[1] ?? null;
}

const INVALID_KEY = () => new ApiError('invalid_api_key', 'Missing, revoked or unknown API key. Send it as `Authorization: Bearer <key>`.');

/** The key's account, plan and brands, in one query. */
export async function authenticate(db: D1Database, key: string | null): Promise<Caller> {
  if (!key) throw INVALID_KEY();
  const { results } = await db
    .prepare(
      `SELECT k.id AS key_id, k.revoked_at, a.id AS account_id, a.plan_active, p.id AS plan, p.monthly_quota, p.includes_insights,
              b.id AS brand_id, b.name, b.domain, b.category
         FROM api_keys k JOIN accounts a ON a.id = k.account_id JOIN plans p ON p.id = a.plan_id LEFT JOIN brands b ON b.account_id = a.id
        WHERE k.key_hash = ? ORDER BY b.id`,
    )
    .bind(await sha256Hex(key))
    .all<{ key_id: number; revoked_at: string | null; account_id: number; plan_active: number; plan: Plan; monthly_quota: number; includes_insights: number; brand_id: number | null; name: string; domain: string; category: string }>();
  const row = results[0];
  if (!row || row.revoked_at !== null) throw INVALID_KEY();
  return {
    keyId: row.key_id,
    accountId: row.account_id,
    plan: row.plan,
    planActive: row.plan_active === 1,
    monthlyQuota: row.monthly_quota,
    includesInsights: row.includes_insights === 1,
    brands: results.filter((r) => r.brand_id !== null).map((r) => ({ id: r.brand_id as number, name: r.name, domain: r.domain, category: r.category })),
  };
}

/** Spec rule 1 and 6: `brand_id` is needed on multi-brand accounts, and must be one of the account's brands. */
export function resolveBrand<B extends { id: number }>(brands: readonly B[], rawBrandId: string | undefined): B {
  if (rawBrandId === undefined) {
    if (brands.length > 1) throw new ApiError('brand_required', 'This account has more than one brand: pass `brand_id` (see `GET /brands`).');
    if (brands[0]) return brands[0];
    throw new ApiError('brand_not_found', 'This account has no brand yet.');
  }
  const { brand_id } = parseParams(brandIdParamObject, { brand_id: rawBrandId });
  // Another account's brand is "not found" too: existence is not revealed across accounts.
  const brand = brands.find((b) => b.id === brand_id);
  if (!brand) throw new ApiError('brand_not_found', `No brand ${brand_id} in this account.`);
  return brand;
}

const brandIdParamObject = z.object({ brand_id: brandIdParam });

/** Spec, Authentication rule 3. */
export function checkPlan(caller: Pick<Caller, 'planActive' | 'includesInsights'>, op: Pick<AnyOperation, 'plan'>): void {
  if (!caller.planActive) throw new ApiError('plan_inactive', 'The plan of this account is not active.');
  if (op.plan === 'pro_or_growth' && !caller.includesInsights)
    throw new ApiError('feature_not_in_plan', 'This data is part of the Pro and Growth plans.');
}

/** The brand's connected integrations; read in the same batch as the rate limit. */
export const integrationsStatement = (db: D1Database, brandId: number) => db.prepare('SELECT kind FROM integrations WHERE brand_id = ?').bind(brandId);

/** 409 when the operation needs an integration the brand has not connected. */
export function checkIntegration(connected: { kind: string }[], op: AnyOperation): void {
  if (!op.integration) return;
  const kinds = new Set(connected.map((r) => r.kind));
  if (op.integration === 'search_performance' && !kinds.has('search_performance'))
    throw new ApiError('integration_not_connected', 'Connect the search-performance integration to read this data.');
  if (op.integration === 'crawler_data' && !kinds.has('edge_network') && !kinds.has('tracking_script'))
    throw new ApiError('integration_not_connected', 'Connect the edge-network integration or install the tracking script to read crawler data.');
}

/** Spec rule 2: no `market` means the primary market; otherwise a code or a numeric id of the brand's markets. */
export function marketStatement(db: D1Database, brandId: number, market: string | undefined): D1PreparedStatement {
  const columns = 'id, brand_id, code, name, language, country, is_primary';
  if (market === undefined) return db.prepare(`SELECT ${columns} FROM markets WHERE brand_id = ? AND is_primary = 1`).bind(brandId);
  if (/^\d+$/.test(market)) return db.prepare(`SELECT ${columns} FROM markets WHERE brand_id = ? AND id = ?`).bind(brandId, Number(market));
  return db.prepare(`SELECT ${columns} FROM markets WHERE brand_id = ? AND code = ?`).bind(brandId, market);
}

/** A code or id the brand does not have is 404 `not_found`. */
export function marketFrom(row: MarketRow | undefined, market: string | undefined): MarketRow {
  if (!row) throw new ApiError('not_found', market === undefined ? 'This brand has no primary market.' : `No market \`${market}\` for this brand (see \`GET /markets\`).`);
  return row;
}
