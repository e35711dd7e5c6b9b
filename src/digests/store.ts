/** Subscriptions in D1 (migrations/0003_digests.sql): rows, their public view, and the links in their emails. */
import { CONFIRM_TTL, signReportToken, signToken, UNSUBSCRIBE_TTL } from '../signing';
import type { DigestKind } from '../reports/model';
import type { DigestDeps } from './deps';

export type SubscriptionStatus = 'pending' | 'active' | 'paused' | 'unsubscribed';

export interface SubscriptionRow {
  id: string;
  email: string;
  email_key: string;
  brand_id: number;
  brand_name: string;
  market_id: number;
  market_code: string;
  kinds: string;
  timezone: string;
  status: SubscriptionStatus;
  key_hash: string;
  key_sealed: string | null;
  paused_reason: string | null;
  created_at: string;
  updated_at: string;
  confirm_sent_at: string | null;
  confirmed_at: string | null;
  unsubscribed_at: string | null;
}

/** What the API shows of a subscription: never the key, sealed or not. */
export function publicView(row: SubscriptionRow) {
  return {
    id: row.id,
    email: row.email,
    brand_id: row.brand_id,
    brand_name: row.brand_name,
    market: { id: row.market_id, code: row.market_code },
    kinds: kindsOf(row),
    timezone: row.timezone,
    status: row.status,
    ...(row.paused_reason ? { paused_reason: row.paused_reason } : {}),
    created_at: row.created_at,
    confirmed_at: row.confirmed_at,
  };
}

export const kindsOf = (row: Pick<SubscriptionRow, 'kinds'>) => row.kinds.split(',').filter(Boolean) as DigestKind[];

export const newSubscriptionId = () => `sub_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`;

/** Groups sends: one Queue message per brand, market and key. The hash prefix is enough to keep keys apart. */
export const groupKeyOf = (row: Pick<SubscriptionRow, 'brand_id' | 'market_id' | 'key_hash'>) => `${row.brand_id}:${row.market_id}:${row.key_hash.slice(0, 24)}`;

export const digestIdempotencyKey = (subscriptionId: string, isoWeek: string) => `digest/${subscriptionId}/${isoWeek}`;

export async function subscriptionById(db: D1Database, id: string): Promise<SubscriptionRow | null> {
  return db.prepare('SELECT * FROM digest_subscriptions WHERE id = ?').bind(id).first<SubscriptionRow>();
}

/**
 * The signed links in emails. `issuedAt` fixes each token's expiry: a digest
 * signs with its send record's planned time, so every retry of a batch signs
 * the same tokens and sends Resend the same bytes under the same key.
 */
export function confirmUrl(deps: Pick<DigestDeps, 'publicUrl' | 'signingSecret' | 'now'>, id: string, issuedAt: Date = deps.now()): Promise<string> {
  return signToken(deps.signingSecret, { p: 'confirm', s: id }, { ttlSeconds: CONFIRM_TTL, now: issuedAt }).then((t) => `${deps.publicUrl}/digests/confirm?token=${t}`);
}

export function unsubscribeUrl(deps: Pick<DigestDeps, 'publicUrl' | 'signingSecret' | 'now'>, id: string, issuedAt: Date = deps.now()): Promise<string> {
  return signToken(deps.signingSecret, { p: 'unsubscribe', s: id }, { ttlSeconds: UNSUBSCRIBE_TTL, now: issuedAt }).then((t) => `${deps.publicUrl}/digests/unsubscribe?token=${t}`);
}

/** The digest's "view in browser" link: a report token (served by `/r/<token>`, issue 6) that reads with this subscription's key. */
export function reportUrl(
  deps: Pick<DigestDeps, 'publicUrl' | 'signingSecret' | 'now'>,
  row: Pick<SubscriptionRow, 'id' | 'brand_id' | 'market_code'>,
  issuedAt: Date = deps.now(),
): Promise<string> {
  return signReportToken(deps.signingSecret, { brandId: row.brand_id, market: row.market_code, kind: 'weekly', ref: `sub:${row.id}` }, { now: issuedAt }).then((t) => `${deps.publicUrl}/r/${t}`);
}

/** `List-Unsubscribe` (https and mailto) and `List-Unsubscribe-Post` of RFC 8058. */
export function unsubscribeHeaders(httpsUrl: string, from: string): Record<string, string> {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1];
  const token = new URL(httpsUrl).searchParams.get('token') ?? '';
  const links = [`<${httpsUrl}>`];
  if (domain) links.push(`<mailto:unsubscribe@${domain}?subject=unsubscribe%20${token}>`);
  return { 'List-Unsubscribe': links.join(', '), 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}
