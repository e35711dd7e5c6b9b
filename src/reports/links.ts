/**
 * Signed report links, `/r/<token>`: the token is the one of src/lib/signing.ts
 * (`signReportToken`: HMAC-SHA-256 over brand, market, kind, expiry and `r`),
 * the same the digest's "view in browser" link carries. A link works without
 * an API key, so `r` names the stored record whose sealed key reads the data:
 *
 * - `sub:<subscription id>`: the digest's link; reads with that subscription's
 *   key while it is active or paused, in the cycle the token names (`g`):
 *   not once it is unsubscribed, removed by the account or subscribed again
 *   (src/subscriptions/store.ts);
 * - `link:<link id>`: minted by `POST /reports/links`; the row holds the
 *   minting key sealed with AES-GCM (migrations/0004_reports.sql), purpose
 *   `report` in the store of keyed links (src/links/link-store.ts): at most
 *   `MAX_LIVE_LINKS` live per key, listed and revoked by that key. A revoked
 *   link's row is gone: its token answers 410 like a cancelled subscription's.
 *   The row's expiry must be the token's, as for export links.
 *
 * The token never carries a key, and the record must agree with the token's
 * brand and market, so a link cannot be pointed at another brand. What a link
 * opens names its record as the parent of the CSV links its page hands out
 * (src/links/link-store.ts), which end with it.
 */
import { unseal } from '../lib/sealing';
import { generationOf, kindsOf, linkedSubscription, SUBSCRIPTION_END } from '../subscriptions';
import { type ReportLinkClaims, signReportToken, TOKEN_FAILURE_STATUS, verifyReportToken, type TokenFailure } from '../lib/signing';
import type { ReportDeps } from './deps';
import { messagePage } from './page';
import type { DigestKind } from '../weekly-report';
import { VIEW_KINDS } from '../views';
import { expiryAfter, LINK_DAYS, newLinkId } from '../links/keyed-routes';
import { keyLinkById, type LinkParent, type ListedLink, liveKeyLinks, revokeKeyLink, storeKeyLink } from '../links/link-store';

/** What a report link opens: the weekly report, or one of the views (src/views). */
export const REPORT_KINDS = ['weekly', ...VIEW_KINDS] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

export { LINK_DAYS };

export interface MintedLink {
  id: string;
  url: string;
  token: string;
  created_at: string;
  expires_at: string;
}

/** A minted link, or the cap: the key has this many live report links already, the first lapsing at `nextExpiry`. */
export type MintOutcome = { ok: true; link: MintedLink } | { ok: false; live: number; nextExpiry: string | null };

/** A link's id: `rl_` and 20 random hex digits (checked loosely, as ids were always made). */
export const LINK_ID = /^rl_[a-z0-9]{1,40}$/;

/** Signs the token and stores the link (key sealed), unless the key is at the cap of live links; expired rows are cleared on the way. */
export async function mintReportLink(
  deps: Pick<ReportDeps, 'db' | 'encryptionKey' | 'signingSecret' | 'publicUrl' | 'now'>,
  link: { apiKey: string; brandId: number; market: { id: number; code: string }; kind: ReportKind; days: number },
): Promise<MintOutcome> {
  const now = deps.now();
  const id = newLinkId('rl');
  const expiresAt = expiryAfter(now, link.days).toISOString();
  const token = await signReportToken(deps.signingSecret, { brandId: link.brandId, market: link.market.code, kind: link.kind, ref: `link:${id}` }, { ttlSeconds: link.days * 86_400, now });
  const stored = await storeKeyLink(deps.db, deps.encryptionKey, { id, purpose: 'report', apiKey: link.apiKey, brandId: link.brandId, market: link.market, kind: link.kind, now, expiresAt });
  if (!stored.ok) return stored;
  return { ok: true, link: { id, url: `${deps.publicUrl}/r/${token}`, token, created_at: now.toISOString(), expires_at: expiresAt } };
}

/** A report link as `GET /reports/links` lists it: no URL (the token is not stored; it was shown once, at minting). */
export interface ListedReportLink {
  id: string;
  brand_id: number;
  market: { id: number; code: string };
  kind: ReportKind;
  created_at: string;
  expires_at: string;
}

const listed = (row: ListedLink): ListedReportLink => ({
  id: row.id,
  brand_id: row.brand_id,
  market: { id: row.market_id, code: row.market_code },
  // Purpose `report`: its kind is one of REPORT_KINDS, as minted.
  kind: row.kind as ReportKind,
  created_at: row.created_at,
  expires_at: row.expires_at,
});

/** The key's live report links, oldest first. */
export async function listReportLinks(deps: Pick<ReportDeps, 'db' | 'now'>, apiKey: string): Promise<ListedReportLink[]> {
  return (await liveKeyLinks(deps.db, apiKey, 'report', deps.now())).map(listed);
}

/** Revokes one of the key's live report links; false when it has none by that id. */
export async function revokeReportLink(deps: Pick<ReportDeps, 'db' | 'now'>, apiKey: string, id: string): Promise<boolean> {
  if (!LINK_ID.test(id)) return false;
  return revokeKeyLink(deps.db, apiKey, 'report', id, deps.now());
}

/** What a valid link opens: whose key reads, for which brand and market, and until when. */
export interface OpenedLink {
  apiKey: string;
  brandId: number;
  market: string;
  kind: string;
  kinds: DigestKind[];
  expiresAt: string;
  /** The record it reads through: the parent of its page's CSV links. */
  parent: LinkParent;
}

export type LinkProblem =
  | { kind: 'token'; reason: TokenFailure }
  /** The record the token names is gone or no longer reads for it (revoked; unsubscribed, removed, subscribed again): `why`, a sentence. */
  | { kind: 'gone'; why: string }
  /** The record exists but no longer matches the token, or its key does not decrypt. */
  | { kind: 'invalid' };

/** Verifies the token and opens the record it names. Never throws on bad input. */
export async function openReportLink(
  deps: Pick<ReportDeps, 'db' | 'encryptionKey' | 'signingSecret' | 'now'>,
  token: string,
): Promise<{ ok: true; link: OpenedLink } | { ok: false; problem: LinkProblem }> {
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
    const generation = generationOf(claims);
    const found = await linkedSubscription(deps.db, id, generation);
    if (!found.ok) return { ok: false, problem: { kind: 'gone', why: SUBSCRIPTION_END[found.end] } };
    const { row } = found;
    if (row.brand_id !== claims.b || row.market_code.toLowerCase() !== claims.m) return { ok: false, problem: { kind: 'invalid' } };
    const apiKey = await unseal(deps.encryptionKey, row.key_sealed, row.id);
    if (!apiKey) return { ok: false, problem: { kind: 'invalid' } };
    // An alerts-only subscription's link (from an alert) shows the whole report.
    const kinds = kindsOf(row);
    const parent: LinkParent = { kind: 'sub', id: row.id, generation };
    return { ok: true, link: { apiKey, brandId: row.brand_id, market: row.market_code, kind: claims.k, kinds: kinds.length > 0 ? kinds : ['visibility', 'won_lost'], expiresAt, parent } };
  }
  // A revoked link's row is deleted: its token names nothing any more (410).
  const row = await keyLinkById(deps.db, id);
  if (!row) return { ok: false, problem: { kind: 'gone', why: 'The link was revoked.' } };
  if (row.purpose !== 'report' || row.brand_id !== claims.b || row.market_code !== claims.m || row.kind !== claims.k || row.expires_at !== expiresAt)
    return { ok: false, problem: { kind: 'invalid' } };
  const apiKey = await unseal(deps.encryptionKey, row.key_sealed, row.id);
  if (!apiKey) return { ok: false, problem: { kind: 'invalid' } };
  return { ok: true, link: { apiKey, brandId: row.brand_id, market: row.market_code, kind: row.kind, kinds: ['visibility', 'won_lost'], expiresAt, parent: { kind: 'link', id: row.id } } };
}

/** The page of a link that does not open: gone (410), not matching what it names (403), or a bad token. */
export function linkProblemPage(problem: LinkProblem): Response {
  if (problem.kind === 'gone') return messagePage(410, 'This report link no longer works', [problem.why, 'Ask for a new link, or open the report with your API key.']);
  if (problem.kind === 'invalid') return messagePage(403, 'This report link is not valid', ['It does not match the report it names. Open the link exactly as you received it, or ask for a new one.']);
  const status = TOKEN_FAILURE_STATUS[problem.reason];
  switch (problem.reason) {
    case 'expired':
      return messagePage(status, 'This report link has expired', [
        'Report links work for a limited time (30 days unless chosen otherwise).',
        'Open the link in a more recent digest, or ask for a new link.',
      ]);
    case 'malformed':
      return messagePage(status, 'This report link is not valid', ['The link is incomplete or was changed. Open it exactly as you received it; some mail programs break long links.']);
    default:
      // Forged or minted for another purpose (a confirm or unsubscribe token): said the same way, revealing nothing.
      return messagePage(status, 'This report link is not valid', ['The link was not issued by us or has been changed. Open it exactly as you received it, or ask for a new one.']);
  }
}
