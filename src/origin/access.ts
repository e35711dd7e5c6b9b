/**
 * The origin's account records: the key's account, plan and brands, its
 * integrations and markets, read from D1. The rules applied to them are the
 * contract's (src/contract/access.ts).
 */
import { invalidKey } from '../contract/access';
import { ApiError } from '../contract/errors';
import type { Plan } from '../contract/enums';
import { sha256Hex } from '../lib/hash';

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

/** The key's account, plan and brands, in one query. */
export async function authenticate(db: D1Database, key: string | null): Promise<Caller> {
  if (!key) throw invalidKey();
  const { results } = await db
    .prepare(
      `SELECT k.id AS key_id, k.revoked_at, a.id AS account_id, a.plan_active, p.id AS plan, p.monthly_quota, p.includes_insights,
              b.id AS brand_id, b.name, b.domain, b.category
         FROM api_keys k JOIN accounts a ON a.id = k.account_id JOIN plans p ON p.id = a.plan_id LEFT JOIN brands b ON b.account_id = a.id
        WHERE k.key_hash = ? ORDER BY b.id`,
    )
    .bind(await sha256Hex(key))
    .all<{
      key_id: number;
      revoked_at: string | null;
      account_id: number;
      plan_active: number;
      plan: Plan;
      monthly_quota: number;
      includes_insights: number;
      brand_id: number | null;
      name: string;
      domain: string;
      category: string;
    }>();
  const row = results[0];
  if (!row || row.revoked_at !== null) throw invalidKey();
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

/** The brand's connected integrations; read in the same batch as the rate limit. */
export const integrationsStatement = (db: D1Database, brandId: number) => db.prepare('SELECT kind FROM integrations WHERE brand_id = ?').bind(brandId);

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
