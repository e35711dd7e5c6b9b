/**
 * CSV export links, `/x/<token>.csv` (and `.json`), DESIGN section 11: a
 * signed, expiring, revocable link to one operation of the API with its
 * parameters, to a brand's kept weekly history (kind `history`), or to the
 * week's plan (kind `plan`). The
 * token (src/lib/signing.ts, purpose `export`) names only the link's id and
 * expiry; the row in the store of keyed links (link-store.ts, purpose
 * `export`) holds the operation in `kind`, its parameters in `params` (as
 * given: a relative window such as `days: 7` stays relative, so the link
 * always gives the latest figures), and the minting key sealed, which reads.
 *
 * The token is a pure function of the id and the expiry, so a listing can
 * show each link's URL again (unlike report links, whose token carries more),
 * and a page can hand out the same link instead of minting one per view
 * (`exportLinkFor`).
 *
 * Minting sits in this shared tier because two siblings mint: src/exports
 * (`POST /exports/links`) and src/reports (the report page's "Copy CSV link"
 * buttons and the history page's CSV link). Only src/exports reads them.
 *
 * A page's links record their parent (link-store.ts, `LinkParent`): the
 * report link or the subscription's cycle that page reads through. Opening
 * one checks the parent first, so it ends with it: the report link revoked or
 * expired, the subscription unsubscribed, removed by the account or subscribed
 * again (`parentEnd`). The key's revocation ends it too (src/exports/routes.ts).
 */
import { unseal } from '../lib/sealing';
import { signToken, type TokenFailure, verifyToken } from '../lib/signing';
import { linkedSubscription, SUBSCRIPTION_END, type SubscriptionDeps } from '../subscriptions';
import { expiryAfter, LINK_DAYS, newLinkId } from './keyed-routes';
import { keyLinkById, type LinkParent, type ListedLink, liveKeyLinks, parentGeneration, parentOf, parentRef, revokeKeyLink, storeKeyLink, type StoreOutcome } from './link-store';
import { sha256Hex } from '../lib/hash';
import { DAY_MS } from '../lib/time';

/** Where export links are minted, listed and revoked (API key), and where they are read (no key). */
export const EXPORTS_BASE = '/exports';
export const EXPORT_LINK_BASE = '/x';
/** The kind of a link to the kept weekly history (`GET /reports/history`) instead of an operation. */
export const HISTORY_KIND = 'history';
/** The kind of a link to the week's plan (src/weekly-report/plan.ts), read afresh whenever the link is read. */
export const PLAN_KIND = 'plan';
/** The kinds that read no one operation and take only the brand and the market. */
export const SCOPE_KINDS: readonly string[] = [HISTORY_KIND, PLAN_KIND];
export const EXPORT_FORMATS = ['csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** An export link's id: `xl_` and 20 random hex digits. */
export const EXPORT_LINK_ID = /^xl_[a-z0-9]{1,40}$/;

type Deps = Pick<SubscriptionDeps, 'db' | 'encryptionKey' | 'signingSecret' | 'publicUrl' | 'now'>;

/** What an export link reads: an operation id (or `history`), its parameters, and the brand and market it read when minted. */
export interface ExportTarget {
  kind: string;
  /** Parameter values as text, as they go into the query string; keys sorted. */
  params: Record<string, string>;
  /** 0 for an account-wide operation (`listBrands`), as is the market for brand-wide ones. */
  brandId: number;
  market: { id: number; code: string };
}

export interface ExportLink {
  id: string;
  /** `/x/<token>.csv` under PUBLIC_URL: what `=IMPORTDATA(url)` takes. */
  url: string;
  /** The same rows as JSON. */
  json_url: string;
  operation: string;
  params: Record<string, string>;
  brand_id: number | null;
  market: { id: number; code: string } | null;
  created_at: string;
  expires_at: string;
}

export type ExportMintOutcome = { ok: true; link: ExportLink; reused: boolean } | Extract<StoreOutcome, { ok: false }>;

/** Sorted keys, text values: one spelling per set of parameters, so equal links compare equal. */
export function canonicalParams(params: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(params)
      .filter(([, value]) => value !== undefined && value !== null)
      .map(([name, value]) => [name, String(value)] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

/**
 * The token of a link: `{p: 'export', l: id, exp}`. Signed "from the epoch"
 * for exactly `exp` seconds, so the same id and expiry give the same token
 * whenever it is made.
 */
function tokenOf(secret: string, id: string, expiresAt: string): Promise<string> {
  return signToken(secret, { p: 'export', l: id }, { ttlSeconds: Math.floor(Date.parse(expiresAt) / 1000), now: new Date(0) });
}

async function linkOf(deps: Deps, row: Pick<ListedLink, 'id' | 'kind' | 'params' | 'brand_id' | 'market_id' | 'market_code' | 'created_at' | 'expires_at'>): Promise<ExportLink> {
  const token = await tokenOf(deps.signingSecret, row.id, row.expires_at);
  const base = `${deps.publicUrl}${EXPORT_LINK_BASE}/${token}`;
  return {
    id: row.id,
    url: `${base}.csv`,
    json_url: `${base}.json`,
    operation: row.kind,
    params: row.params ? (JSON.parse(row.params) as Record<string, string>) : {},
    brand_id: row.brand_id > 0 ? row.brand_id : null,
    market: row.market_id > 0 ? { id: row.market_id, code: row.market_code } : null,
    created_at: row.created_at,
    expires_at: row.expires_at,
  };
}

/** Mints a link (the key sealed in its row), unless the key has `MAX_LIVE_LINKS` live export links. */
export async function mintExportLink(deps: Deps, apiKey: string, target: ExportTarget, days: number): Promise<ExportMintOutcome> {
  return mintUntil(deps, apiKey, target, expiryAfter(deps.now(), days), null);
}

async function mintUntil(deps: Deps, apiKey: string, target: ExportTarget, expires: Date, parent: LinkParent | null): Promise<ExportMintOutcome> {
  const now = deps.now();
  const id = newLinkId('xl');
  const expiresAt = expires.toISOString();
  const params = canonicalParams(target.params);
  const stored = await storeKeyLink(deps.db, deps.encryptionKey, { id, purpose: 'export', apiKey, brandId: target.brandId, market: target.market, kind: target.kind, params, now, expiresAt, parent });
  if (!stored.ok) return stored;
  const link = await linkOf(deps, {
    id,
    kind: target.kind,
    params: JSON.stringify(params),
    brand_id: target.brandId,
    market_id: target.market.id,
    market_code: target.market.code.toLowerCase(),
    created_at: now.toISOString(),
    expires_at: expiresAt,
  });
  return { ok: true, link, reused: false };
}

/** A link handed out again is reused only while it has at least this long to live. */
const REUSE_MIN_MS = DAY_MS;

/**
 * The key's live link to the same target from the same parent (null: the
 * key's own page), if one lives for at least a day more (or already as long
 * as it may) and not past `notAfter`; otherwise a new one, for
 * `LINK_DAYS.default` days or until `notAfter`, whichever is first. A page
 * that offers CSV links calls this on every view: it mints once, not once per
 * view, so a parent has at most two links per table at a time (uncapped by
 * the key's 100). A parent's links are its own, never another page's:
 * revoking one report link ends its links alone.
 */
export async function exportLinkFor(deps: Deps, apiKey: string, target: ExportTarget, notAfter: Date, parent: LinkParent | null): Promise<ExportMintOutcome> {
  const now = deps.now();
  const until = new Date(Math.floor(notAfter.getTime() / 1000) * 1000);
  const reuseFrom = new Date(Math.min(now.getTime() + REUSE_MIN_MS, until.getTime()));
  const row = await deps.db
    .prepare(
      `SELECT id, kind, params, brand_id, market_id, market_code, created_at, expires_at FROM report_links
        WHERE key_hash = ? AND purpose = 'export' AND kind = ? AND params = ? AND brand_id = ? AND market_id = ? AND expires_at >= ? AND expires_at <= ?
          AND parent IS ? AND parent_generation IS ?
        ORDER BY expires_at DESC LIMIT 1`,
    )
    .bind(
      await sha256Hex(apiKey),
      target.kind,
      JSON.stringify(canonicalParams(target.params)),
      target.brandId,
      target.market.id,
      reuseFrom.toISOString(),
      until.toISOString(),
      parentRef(parent),
      parentGeneration(parent),
    )
    .first<ListedLink>();
  if (row) return { ok: true, link: await linkOf(deps, row), reused: true };
  const fullTerm = expiryAfter(now, LINK_DAYS.default);
  return mintUntil(deps, apiKey, target, fullTerm < until ? fullTerm : until, parent);
}

/** The key's live export links, oldest first, with their URLs. */
export async function listExportLinks(deps: Deps, apiKey: string): Promise<ExportLink[]> {
  return Promise.all((await liveKeyLinks(deps.db, apiKey, 'export', deps.now())).map((row) => linkOf(deps, row)));
}

/** Revokes one of the key's live export links; false when it has none by that id. */
export async function revokeExportLink(deps: Pick<Deps, 'db' | 'now'>, apiKey: string, id: string): Promise<boolean> {
  if (!EXPORT_LINK_ID.test(id)) return false;
  return revokeKeyLink(deps.db, apiKey, 'export', id, deps.now());
}

/** What a valid export link opens. */
export interface OpenedExport {
  id: string;
  apiKey: string;
  target: ExportTarget;
  expiresAt: string;
  /** Minted from a page: what it ends with. */
  parent: LinkParent | null;
}

/** `ended`: its parent ended; `why` says how, in a sentence. */
export type ExportProblem = { kind: 'token'; reason: TokenFailure } | { kind: 'gone' } | { kind: 'invalid' } | { kind: 'ended'; why: string };

/** Why a link's parent no longer reads, in a sentence; null while it does. */
async function parentEnd(db: D1Database, parent: LinkParent, now: Date): Promise<string | null> {
  if (parent.kind === 'sub') {
    const subscription = await linkedSubscription(db, parent.id, parent.generation);
    return subscription.ok ? null : SUBSCRIPTION_END[subscription.end];
  }
  // A revoked report link's row is deleted; an expired one is cleared by a later mint.
  const row = await keyLinkById(db, parent.id);
  if (row?.purpose !== 'report') return 'Its report link was revoked.';
  return row.expires_at <= now.toISOString() ? 'Its report link has expired.' : null;
}

/** Verifies the token and opens the link it names. Never throws on bad input. */
export async function openExportLink(
  deps: Pick<Deps, 'db' | 'encryptionKey' | 'signingSecret' | 'now'>,
  token: string,
): Promise<{ ok: true; link: OpenedExport } | { ok: false; problem: ExportProblem }> {
  const verified = await verifyToken(deps.signingSecret, token, 'export', deps.now());
  if (!verified.ok) return { ok: false, problem: { kind: 'token', reason: verified.reason } };
  const id = verified.claims.l;
  if (typeof id !== 'string' || !EXPORT_LINK_ID.test(id)) return { ok: false, problem: { kind: 'token', reason: 'malformed' } };
  // Revoked: the row is gone, and with it the sealed key.
  const row = await keyLinkById(deps.db, id);
  if (!row) return { ok: false, problem: { kind: 'gone' } };
  if (row.purpose !== 'export' || new Date(verified.claims.exp * 1000).toISOString() !== row.expires_at) return { ok: false, problem: { kind: 'invalid' } };
  const parent = parentOf(row);
  const why = parent ? await parentEnd(deps.db, parent, deps.now()) : null;
  if (why) return { ok: false, problem: { kind: 'ended', why } };
  const apiKey = await unseal(deps.encryptionKey, row.key_sealed, row.id);
  if (!apiKey) return { ok: false, problem: { kind: 'invalid' } };
  const params = row.params ? (JSON.parse(row.params) as Record<string, string>) : {};
  return { ok: true, link: { id: row.id, apiKey, target: { kind: row.kind, params, brandId: row.brand_id, market: { id: row.market_id, code: row.market_code } }, expiresAt: row.expires_at, parent } };
}
