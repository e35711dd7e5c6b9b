/**
 * The store of links that read with a sealed API key (`report_links`,
 * migrations/0004_reports.sql and 0013_report_links.sql): one model for every
 * such link, its `purpose` saying what the token opens. Report links
 * (`/r/<token>`, src/reports/links.ts) are `report`; the CSV export links of
 * DESIGN section 11 (`/x/<token>.csv`, export-links.ts) are `export`, with the
 * operation (or `history`) in `kind` and its parameters in `params`, under
 * the same rules:
 *
 * - per key: a link belongs to the key that minted it (`key_hash`), which
 *   alone lists and revokes it;
 * - at most `MAX_LIVE_LINKS` live (unexpired) links per key and purpose; the
 *   count and the insert are one conditional INSERT, in the same D1 batch
 *   that clears expired rows, so concurrent mints cannot pass the cap;
 * - revoking deletes the row, and with it the sealed key: the token then
 *   names nothing and its link answers 410;
 * - a link minted from a page or a mail (the CSV links of a report page)
 *   records its parent, the record that page reads through (`parent`), and
 *   ends with it: its opener checks the parent (export-links.ts). It belongs
 *   to its parent, not to the key's list: neither listed nor counted against
 *   the cap, and at most one per table of its page, handed out again.
 *
 * This file knows no report and no export: it imports only src/lib. It sits
 * in src/links, below the feature siblings, so that src/reports and
 * src/exports share it.
 */
import { sha256Hex } from '../lib/hash';
import { seal } from '../lib/sealing';

/** Live links per key and purpose (DESIGN section 12). */
export const MAX_LIVE_LINKS = 100;

export const LINK_PURPOSES = ['report', 'export'] as const;
export type LinkPurpose = (typeof LINK_PURPOSES)[number];

/**
 * What a link minted from a page or a mail came from (DESIGN section 12): a
 * report link (`link`), or a subscription in one cycle (`sub`: a digest's
 * view in browser). Stored as `parent` (`link:<id>`, `sub:<id>`) and
 * `parent_generation` (migration 0016).
 */
export type LinkParent = { kind: 'link'; id: string } | { kind: 'sub'; id: string; generation: number };

/** The columns of a parent. */
export const parentRef = (parent: LinkParent | null) => (parent ? `${parent.kind}:${parent.id}` : null);
export const parentGeneration = (parent: LinkParent | null) => (parent?.kind === 'sub' ? parent.generation : null);

/** The parent a stored link records, or null (minted by its key). */
export function parentOf(row: Pick<KeyLinkRow, 'parent' | 'parent_generation'>): LinkParent | null {
  const [kind, id] = (row.parent ?? '').split(':');
  if (kind === 'link' && id) return { kind, id };
  if (kind === 'sub' && id) return { kind, id, generation: row.parent_generation ?? 0 };
  return null;
}

export interface KeyLinkRow {
  id: string;
  purpose: LinkPurpose;
  brand_id: number;
  market_id: number;
  /** Lower case, as in the token. */
  market_code: string;
  kind: string;
  /** JSON, for purposes with parameters (an export's operation parameters); null for a report. */
  params: string | null;
  key_hash: string;
  key_sealed: string;
  created_at: string;
  expires_at: string;
  parent: string | null;
  parent_generation: number | null;
}

/** What a listing shows of a link: never the key (sealed or hashed), and no URL (the token is not stored). */
export type ListedLink = Pick<KeyLinkRow, 'id' | 'brand_id' | 'market_id' | 'market_code' | 'kind' | 'params' | 'created_at' | 'expires_at'>;

export interface NewKeyLink {
  id: string;
  purpose: LinkPurpose;
  apiKey: string;
  brandId: number;
  market: { id: number; code: string };
  kind: string;
  params?: unknown;
  now: Date;
  expiresAt: string;
  /** Minted from a page or a mail: what it ends with. */
  parent?: LinkParent | null;
}

export type StoreOutcome =
  | { ok: true }
  /** The key already has `MAX_LIVE_LINKS` live links of this purpose; `nextExpiry` is when the first of them lapses. */
  | { ok: false; live: number; nextExpiry: string | null };

/** The key's own live links of a purpose: those it lists, counts against the cap and revokes (a page's links are their parent's). */
const LIVE = 'key_hash = ? AND purpose = ? AND expires_at > ? AND parent IS NULL';

/**
 * Stores the link with the key sealed to its id, unless the key is at the
 * cap (a link with a parent is not counted). Expired rows (of every key) are
 * cleared in the same transaction.
 */
export async function storeKeyLink(db: D1Database, encryptionKey: string, link: NewKeyLink): Promise<StoreOutcome> {
  const at = link.now.toISOString();
  const keyHash = await sha256Hex(link.apiKey);
  const sealed = await seal(encryptionKey, link.apiKey, link.id);
  const [, inserted] = await db.batch<{ id: string }>([
    db.prepare('DELETE FROM report_links WHERE expires_at <= ?').bind(at),
    db
      .prepare(
        `INSERT INTO report_links (id, purpose, brand_id, market_id, market_code, kind, params, key_hash, key_sealed, created_at, expires_at, parent, parent_generation)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
          WHERE ? IS NOT NULL OR (SELECT COUNT(*) FROM report_links WHERE ${LIVE}) < ?
         RETURNING id`,
      )
      .bind(
        link.id,
        link.purpose,
        link.brandId,
        link.market.id,
        link.market.code.toLowerCase(),
        link.kind,
        link.params === undefined ? null : JSON.stringify(link.params),
        keyHash,
        sealed,
        at,
        link.expiresAt,
        parentRef(link.parent ?? null),
        parentGeneration(link.parent ?? null),
        parentRef(link.parent ?? null),
        keyHash,
        link.purpose,
        at,
        MAX_LIVE_LINKS,
      ),
  ]);
  if ((inserted?.results.length ?? 0) > 0) return { ok: true };
  const count = await db.prepare(`SELECT COUNT(*) AS live, MIN(expires_at) AS next FROM report_links WHERE ${LIVE}`).bind(keyHash, link.purpose, at).first<{ live: number; next: string | null }>();
  return { ok: false, live: count?.live ?? MAX_LIVE_LINKS, nextExpiry: count?.next ?? null };
}

/** The key's live links of one purpose, oldest first (at most `MAX_LIVE_LINKS`). */
export async function liveKeyLinks(db: D1Database, apiKey: string, purpose: LinkPurpose, now: Date): Promise<ListedLink[]> {
  const { results } = await db
    .prepare(`SELECT id, brand_id, market_id, market_code, kind, params, created_at, expires_at FROM report_links WHERE ${LIVE} ORDER BY created_at, id LIMIT ?`)
    .bind(await sha256Hex(apiKey), purpose, now.toISOString(), MAX_LIVE_LINKS)
    .all<ListedLink>();
  return results;
}

/**
 * Revokes one live link of the key: deletes its row and sealed key. False
 * when the key has no such live link (unknown, expired, another key's or
 * another purpose's): the caller answers those alike.
 */
export async function revokeKeyLink(db: D1Database, apiKey: string, purpose: LinkPurpose, id: string, now: Date): Promise<boolean> {
  const deleted = await db
    .prepare(`DELETE FROM report_links WHERE id = ? AND ${LIVE} RETURNING id`)
    .bind(id, await sha256Hex(apiKey), purpose, now.toISOString())
    .first<{ id: string }>();
  return deleted !== null;
}

/** One link by id, whatever its state (the opener checks it against its token). */
export const keyLinkById = (db: D1Database, id: string) => db.prepare('SELECT * FROM report_links WHERE id = ?').bind(id).first<KeyLinkRow>();
