/**
 * Signed report links, `/r/<token>`: the token is the one of src/lib/signing.ts
 * (`signReportToken`: HMAC-SHA-256 over brand, market, kind, expiry and `r`),
 * the same the digest's "view in browser" link carries. A link works without
 * an API key, so `r` names the stored record whose sealed key reads the data:
 *
 * - `sub:<subscription id>`: the digest's link; reads with that subscription's
 *   key while it is active or paused (an unsubscribed one keeps no key);
 * - `link:<link id>`: minted by `POST /reports/links`; the row holds the
 *   minting key sealed with AES-GCM (migrations/0004_reports.sql).
 *
 * The token never carries a key, and the record must agree with the token's
 * brand and market, so a link cannot be pointed at another brand.
 */
import { sha256Hex } from '../lib/hash';
import { seal, unseal } from '../lib/sealing';
import { kindsOf, subscriptionById } from '../subscriptions';
import { type ReportLinkClaims, signReportToken, verifyReportToken, type TokenFailure } from '../lib/signing';
import type { ReportDeps } from './deps';
import type { DigestKind } from '../weekly-report';
import { DAY_MS } from '../lib/time';

export const REPORT_KINDS = ['weekly'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/** `expires_in_days` of POST /reports/links: default and bounds. */
export const LINK_DAYS = { default: 30, min: 1, max: 90 } as const;

export interface LinkRow {
  id: string;
  brand_id: number;
  market_id: number;
  market_code: string;
  kind: string;
  key_hash: string;
  key_sealed: string;
  created_at: string;
  expires_at: string;
}

export interface MintedLink {
  id: string;
  url: string;
  token: string;
  expires_at: string;
}

const newLinkId = () => `rl_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`;

/** Stores the link (key sealed) and signs its token; expired rows are cleared on the way. */
export async function mintReportLink(
  deps: Pick<ReportDeps, 'db' | 'encryptionKey' | 'signingSecret' | 'publicUrl' | 'now'>,
  link: { apiKey: string; brandId: number; market: { id: number; code: string }; kind: ReportKind; days: number },
): Promise<MintedLink> {
  const now = deps.now();
  const id = newLinkId();
  const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + link.days * DAY_MS).toISOString();
  const token = await signReportToken(deps.signingSecret, { brandId: link.brandId, market: link.market.code, kind: link.kind, ref: `link:${id}` }, { ttlSeconds: link.days * 86_400, now });
  await deps.db.batch([
    deps.db.prepare('DELETE FROM report_links WHERE expires_at < ?').bind(now.toISOString()),
    deps.db
      .prepare('INSERT INTO report_links (id, brand_id, market_id, market_code, kind, key_hash, key_sealed, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .bind(id, link.brandId, link.market.id, link.market.code.toLowerCase(), link.kind, await sha256Hex(link.apiKey), await seal(deps.encryptionKey, link.apiKey, id), now.toISOString(), expiresAt),
  ]);
  return { id, url: `${deps.publicUrl}/r/${token}`, token, expires_at: expiresAt };
}

/** What a valid link opens: whose key reads, for which brand and market, and until when. */
export interface OpenedLink {
  apiKey: string;
  brandId: number;
  market: string;
  kind: string;
  kinds: DigestKind[];
  expiresAt: string;
}

export type LinkProblem =
  | { kind: 'token'; reason: TokenFailure }
  /** The record the token names is gone or no longer holds a key (unsubscribed, deleted). */
  | { kind: 'gone' }
  /** The record exists but no longer matches the token, or its key does not decrypt. */
  | { kind: 'invalid' };

/** Verifies the token and opens the record it names. Never throws on bad input. */
export async function openReportLink(deps: Pick<ReportDeps, 'db' | 'encryptionKey' | 'signingSecret' | 'now'>, token: string): Promise<{ ok: true; link: OpenedLink } | { ok: false; problem: LinkProblem }> {
  const verified = await verifyReportToken(deps.signingSecret, token, deps.now());
  if (!verified.ok) return { ok: false, problem: { kind: 'token', reason: verified.reason } };
  const claims = verified.claims as ReportLinkClaims;
  if (typeof claims.b !== 'number' || typeof claims.m !== 'string' || typeof claims.k !== 'string' || !(REPORT_KINDS as readonly string[]).includes(claims.k)) {
    return { ok: false, problem: { kind: 'token', reason: 'malformed' } };
  }
  const expiresAt = new Date(claims.exp * 1000).toISOString();
  const ref = /^(sub|link):([a-z]{2,3}_[A-Za-z0-9]{1,40})$/.exec(typeof claims.r === 'string' ? claims.r : '');
  if (!ref) return { ok: false, problem: { kind: 'invalid' } };
  const [, type, id] = ref as unknown as [string, 'sub' | 'link', string];
  if (type === 'sub') {
    const row = await subscriptionById(deps.db, id);
    if (!row || row.status === 'unsubscribed' || !row.key_sealed) return { ok: false, problem: { kind: 'gone' } };
    if (row.brand_id !== claims.b || row.market_code.toLowerCase() !== claims.m) return { ok: false, problem: { kind: 'invalid' } };
    const apiKey = await unseal(deps.encryptionKey, row.key_sealed, row.id);
    if (!apiKey) return { ok: false, problem: { kind: 'invalid' } };
    return { ok: true, link: { apiKey, brandId: row.brand_id, market: row.market_code, kind: claims.k, kinds: kindsOf(row), expiresAt } };
  }
  const row = await deps.db.prepare('SELECT * FROM report_links WHERE id = ?').bind(id).first<LinkRow>();
  if (!row) return { ok: false, problem: { kind: 'gone' } };
  if (row.brand_id !== claims.b || row.market_code !== claims.m || row.kind !== claims.k) return { ok: false, problem: { kind: 'invalid' } };
  const apiKey = await unseal(deps.encryptionKey, row.key_sealed, row.id);
  if (!apiKey) return { ok: false, problem: { kind: 'invalid' } };
  return { ok: true, link: { apiKey, brandId: row.brand_id, market: row.market_code, kind: row.kind, kinds: ['visibility', 'won_lost'], expiresAt } };
}
