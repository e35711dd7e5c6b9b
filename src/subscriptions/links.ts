/** The links in every email of a subscription, signed, and the unsubscribe headers that carry them. */
import { CONFIRM_TTL, RESUBSCRIBE_TTL, signReportToken, signToken, UNSUBSCRIBE_TTL } from '../lib/signing';
import type { SubscriptionDeps } from './deps';
import type { SubscriptionRow } from './store';

/** Where the subscriptions' routes live: the API (api-routes.ts) and the pages its links open (link-pages.ts). */
export const SUBSCRIPTIONS_BASE = '/digests';

type LinkDeps = Pick<SubscriptionDeps, 'publicUrl' | 'signingSecret' | 'now'>;

/** What every link of a subscription names: the row and its cycle (`g`), which the link acts on alone (store.ts). */
export type Cycle = Pick<SubscriptionRow, 'id' | 'generation'>;

/**
 * The signed links in emails. `issuedAt` fixes each token's expiry: a digest
 * signs with its send record's planned time, so every retry of a batch signs
 * the same tokens and sends Resend the same bytes under the same key.
 */
export function confirmUrl(deps: LinkDeps, row: Cycle, issuedAt: Date = deps.now()): Promise<string> {
  return signToken(deps.signingSecret, { p: 'confirm', s: row.id, g: row.generation }, { ttlSeconds: CONFIRM_TTL, now: issuedAt }).then(
    (t) => `${deps.publicUrl}${SUBSCRIPTIONS_BASE}/confirm?token=${t}`,
  );
}

export function unsubscribeUrl(deps: LinkDeps, row: Cycle, issuedAt: Date = deps.now()): Promise<string> {
  return signToken(deps.signingSecret, { p: 'unsubscribe', s: row.id, g: row.generation }, { ttlSeconds: UNSUBSCRIBE_TTL, now: issuedAt }).then(
    (t) => `${deps.publicUrl}${SUBSCRIPTIONS_BASE}/unsubscribe?token=${t}`,
  );
}

/**
 * The unsubscribed page's "subscribe again" link, for the cycle that
 * unsubscribe started. Unsubscribing deletes the stored API key, so the token
 * carries it, still sealed for this subscription (AES-GCM, bound to its id):
 * the database keeps no credential of an unsubscribed address, and only the
 * holder of this link, shown once to the person who unsubscribed, can hand it
 * back within `RESUBSCRIBE_TTL`.
 */
export function resubscribeUrl(deps: LinkDeps, row: Cycle & { key_sealed: string }, issuedAt: Date = deps.now()): Promise<{ url: string; path: string; expiresAt: string }> {
  return signToken(deps.signingSecret, { p: 'resubscribe', s: row.id, g: row.generation, k: row.key_sealed }, { ttlSeconds: RESUBSCRIBE_TTL, now: issuedAt }).then((t) => {
    const path = `${SUBSCRIPTIONS_BASE}/resubscribe?token=${t}`;
    return { url: `${deps.publicUrl}${path}`, path, expiresAt: new Date(Math.floor(issuedAt.getTime() / 1000) * 1000 + RESUBSCRIBE_TTL * 1000).toISOString() };
  });
}

/** The digest's "view in browser" link: a report token (served by `/r/<token>`) that reads with this subscription's key, in this cycle. */
export function reportUrl(deps: LinkDeps, row: Cycle & Pick<SubscriptionRow, 'brand_id' | 'market_code'>, issuedAt: Date = deps.now()): Promise<string> {
  return signReportToken(deps.signingSecret, { brandId: row.brand_id, market: row.market_code, kind: 'weekly', ref: `sub:${row.id}`, generation: row.generation }, { now: issuedAt }).then(
    (t) => `${deps.publicUrl}/r/${t}`,
  );
}

/** `List-Unsubscribe` (https and mailto) and `List-Unsubscribe-Post` of RFC 8058. */
export function unsubscribeHeaders(httpsUrl: string, from: string): Record<string, string> {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1];
  const token = new URL(httpsUrl).searchParams.get('token') ?? '';
  const links = [`<${httpsUrl}>`];
  if (domain) links.push(`<mailto:unsubscribe@${domain}?subject=unsubscribe%20${token}>`);
  return { 'List-Unsubscribe': links.join(', '), 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}
