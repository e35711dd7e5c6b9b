/** Subscriptions in D1 (migrations/0003_digests.sql): rows, their public view, and the changes every route makes alike. */
import * as z from 'zod';
import { unseal } from '../lib/sealing';
import { DIGEST_KINDS, type DigestKind } from '../weekly-report/model';
import { recordOptout } from './caps';

/** What a subscription can hold: the weekly digest's parts, and change alerts (src/alerts). */
export const SUBSCRIPTION_KINDS = [...DIGEST_KINDS, 'alerts'] as const;
export const SubscriptionKind = z.enum(SUBSCRIPTION_KINDS);
export type SubscriptionKind = z.infer<typeof SubscriptionKind>;

/** SQL: the subscription gets the weekly digest (its kinds hold a digest kind, not only `alerts`). */
export const GETS_DIGEST_SQL = `(kinds LIKE '%visibility%' OR kinds LIKE '%won_lost%')`;

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
  /** JSON array of the brand ids the subscribing key's account reads (migration 0012; NULL before it). */
  account_brands: string | null;
  /** The cycle (migration 0016): every signed link of the subscription names one, and acts on it only. */
  generation: number;
  /** Moved on by every write of the row (migration 0023): what an undo compares before it acts (`restorePoint`). */
  revision: number;
  /** Alerts only, from `alert_channels` (migration 0015; `subscriptionById` joins it): where they go and the quiet hours. */
  channel_type?: 'email' | 'slack' | 'webhook' | null;
  channel_url?: string | null;
  quiet_start?: number | null;
  quiet_end?: number | null;
}

/** What the API shows of a subscription, in any state (with why it is paused, or when it was unsubscribed): never the key, sealed or not. */
export function publicView(row: SubscriptionRow) {
  return {
    id: row.id,
    email: row.email,
    brand_id: row.brand_id,
    brand_name: row.brand_name,
    market: { id: row.market_id, code: row.market_code },
    kinds: row.kinds.split(',').filter(Boolean) as SubscriptionKind[],
    ...(row.channel_type ? { channel: { type: row.channel_type, ...(row.channel_url ? { url: row.channel_url } : {}) } } : {}),
    ...(row.channel_type && row.quiet_start != null && row.quiet_end != null ? { quiet_hours: { start: hhmm(row.quiet_start), end: hhmm(row.quiet_end) } } : {}),
    timezone: row.timezone,
    status: row.status,
    ...(row.status === 'paused' && row.paused_reason ? { paused_reason: row.paused_reason } : {}),
    ...(row.status === 'unsubscribed' && row.unsubscribed_at ? { unsubscribed_at: row.unsubscribed_at } : {}),
    created_at: row.created_at,
    confirmed_at: row.confirmed_at,
  };
}

/** The last digest or alert that was sent, skipped or failed for a subscription, from the records the jobs keep. */
export interface LastDelivery {
  kind: 'digest' | 'alert';
  /** When it was sent, or when the job gave up on it. */
  at: string;
  result: 'sent' | 'skipped' | 'failed';
  /** Why it was skipped or failed (an operation the Read API lacks, a mail refusal, a pause); null when sent. */
  reason: string | null;
}

/**
 * Each subscription's last delivery, for the subscriptions of `brands`: the
 * newest finished record of `digest_sends` or `alert_deliveries` (one still
 * planned, sending or pending is no result yet).
 */
export async function lastDeliveries(db: D1Database, brands: readonly number[]): Promise<Map<string, LastDelivery>> {
  const { results } = await db
    .prepare(
      `SELECT subscription_id, kind, at, result, reason FROM (
         SELECT x.*, ROW_NUMBER() OVER (PARTITION BY subscription_id ORDER BY at DESC, kind) AS n FROM (
           SELECT subscription_id, 'digest' AS kind, COALESCE(sent_at, updated_at) AS at, status AS result, reason FROM digest_sends WHERE status IN ('sent', 'skipped', 'failed')
           UNION ALL
           SELECT subscription_id, 'alert' AS kind, COALESCE(sent_at, updated_at) AS at, status AS result, reason FROM alert_deliveries WHERE status IN ('sent', 'skipped', 'failed')
         ) x WHERE x.subscription_id IN (SELECT id FROM digest_subscriptions WHERE brand_id IN (${brands.map(() => '?').join(',')}))
       ) WHERE n = 1`,
    )
    .bind(...brands)
    .all<LastDelivery & { subscription_id: string }>();
  return new Map(results.map(({ subscription_id, kind, at, result, reason }) => [subscription_id, { kind, at, result, reason: result === 'sent' ? null : reason }]));
}

/** `22:00` for 1320 minutes after midnight. */
export const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** The digest kinds of a subscription (none for alerts only). */
export const kindsOf = (row: Pick<SubscriptionRow, 'kinds'>) => row.kinds.split(',').filter((k): k is DigestKind => (DIGEST_KINDS as readonly string[]).includes(k));
/** Whether the subscription gets change alerts. */
/** Why a stored API key cannot be used: it does not decrypt under today's secret. */
export const UNREADABLE_KEY = 'the stored API key cannot be decrypted (was ENCRYPTION_KEY rotated?)';

/** The API key a group of subscriptions reads with: the first one sealed, opened (it is bound to its row); null when it does not open. */
export async function groupApiKey(encryptionKey: string, rows: readonly Pick<SubscriptionRow, 'id' | 'key_sealed'>[]): Promise<string | null> {
  const keyRow = rows.find((r) => r.key_sealed);
  return keyRow ? unseal(encryptionKey, keyRow.key_sealed!, keyRow.id) : null;
}

export const wantsAlerts = (row: Pick<SubscriptionRow, 'kinds'>) => row.kinds.split(',').includes('alerts');

/** A subscription row with its alert channel, if any. */
export const SUBSCRIPTION_SELECT = `SELECT s.*, c.type AS channel_type, c.url AS channel_url, c.quiet_start, c.quiet_end FROM digest_subscriptions s LEFT JOIN alert_channels c ON c.subscription_id = s.id`;

export const newSubscriptionId = () => `sub_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`;

/** Groups sends: one Queue message per brand, market and key. The hash prefix is enough to keep keys apart. */
export const groupKeyOf = (row: Pick<SubscriptionRow, 'brand_id' | 'market_id' | 'key_hash'>) => `${row.brand_id}:${row.market_id}:${row.key_hash.slice(0, 24)}`;

/**
 * What a subscribe changes, taken before it writes, and the undo of its own write when its confirmation or test
 * delivery fails: a compare and set on the row's revision (migration 0023), never a snapshot written over whatever
 * came since. The undo acts only while the row is at `revision`, the one the subscribe's last write left; a confirm,
 * an unsubscribe, a delete or another subscribe of the address made meanwhile moved it on, and stands. A row the
 * subscribe inserted is deleted; one it updated gets its columns back as they were (the revision moves on, as for
 * any write), and its channel. The columns are the table's own, so a column added later is put back too.
 */
export async function restorePoint(db: D1Database, id: string): Promise<(revision: number) => Promise<void>> {
  const [row, channel] = await db.batch<Record<string, unknown>>([
    db.prepare('SELECT * FROM digest_subscriptions WHERE id = ?').bind(id),
    db.prepare('SELECT * FROM alert_channels WHERE subscription_id = ?').bind(id),
  ]);
  const [before] = row!.results;
  const [had] = channel!.results;
  return async (revision) => {
    // The channel first, while the row's revision still says whether the write is this subscribe's; the row last.
    const ours = 'EXISTS (SELECT 1 FROM digest_subscriptions WHERE id = ? AND revision = ?)';
    const statements = [db.prepare(`DELETE FROM alert_channels WHERE subscription_id = ? AND ${ours}`).bind(id, id, revision)];
    if (had) {
      const columns = Object.keys(had);
      statements.push(
        db.prepare(`INSERT INTO alert_channels (${columns.join(', ')}) SELECT ${columns.map(() => '?').join(', ')} WHERE ${ours}`).bind(...columns.map((column) => had[column]), id, revision),
      );
    }
    if (!before) statements.push(db.prepare('DELETE FROM digest_subscriptions WHERE id = ? AND revision = ?').bind(id, revision));
    else {
      const columns = Object.keys(before).filter((column) => column !== 'id' && column !== 'revision');
      statements.push(
        db
          .prepare(`UPDATE digest_subscriptions SET ${columns.map((column) => `${column} = ?`).join(', ')} WHERE id = ? AND revision = ?`)
          .bind(...columns.map((column) => before[column]), id, revision),
      );
    }
    await db.batch(statements);
  };
}

export async function subscriptionById(db: D1Database, id: string): Promise<SubscriptionRow | null> {
  return db.prepare(`${SUBSCRIPTION_SELECT} WHERE s.id = ?`).bind(id).first<SubscriptionRow>();
}

/** The brand ids a subscription's confirmation counts against (caps.ts): its key's account's, or its own brand for rows from before they were kept. */
export function accountBrandsOf(row: Pick<SubscriptionRow, 'brand_id' | 'account_brands'>): number[] {
  try {
    const brands = JSON.parse(row.account_brands ?? '[]') as unknown;
    if (Array.isArray(brands)) return [...new Set([row.brand_id, ...brands.filter((b): b is number => Number.isInteger(b))])];
  } catch {
    // An unreadable value counts as none kept.
  }
  return [row.brand_id];
}

/**
 * A subscription's cycles (DESIGN section 12). Its signed links (confirm,
 * unsubscribe, subscribe again, view in browser) carry the cycle they were
 * minted for (`g`), and act on that cycle only. A new cycle starts when the
 * address unsubscribes and when the account subscribes a paused or
 * unsubscribed address again; subscribing again from the unsubscribe page's
 * own link continues the cycle its unsubscribe started, so that page's button
 * can send the confirmation again. The account's delete ends them all: the
 * row is deleted (`removeSubscription`).
 *
 * A link minted before cycles were counted (migration 0016) has no `g`: it
 * names the cycle its row had then, 0.
 */
export const LEGACY_GENERATION = 0;

/** The cycle a link's claims name. */
export const generationOf = (claims: { exp: number; g?: unknown }): number => (typeof claims.g === 'number' ? claims.g : LEGACY_GENERATION);

/** Why a subscription's link no longer acts or reads. */
export type SubscriptionEnd = 'removed' | 'unsubscribed' | 'renewed';

/** The same, in words: a sentence about the link (or the page it came from), for pages and plain text alike. */
export const SUBSCRIPTION_END: Record<SubscriptionEnd, string> = {
  removed: 'The account that made its subscription removed it, for good.',
  unsubscribed: 'Its subscription was unsubscribed.',
  renewed: 'It is from an earlier round of its subscription, which was subscribed again since: the latest email carries the current links.',
};

/**
 * Whether a link of cycle `generation` still names `row`'s cycle, or why not:
 * a row that is gone was removed by the account (ids are never reused); for
 * another cycle, where the row is now.
 */
export function linkEnd(row: Pick<SubscriptionRow, 'status' | 'generation'> | null, generation: number): SubscriptionEnd | null {
  if (!row) return 'removed';
  if (row.generation === generation) return null;
  return row.status === 'unsubscribed' ? 'unsubscribed' : 'renewed';
}

/**
 * The subscription a link of cycle `generation` reads through (a digest's
 * view in browser, and the CSV links of that page): that cycle, not
 * unsubscribed, its key kept; or why not.
 */
export async function linkedSubscription(db: D1Database, id: string, generation: number): Promise<{ ok: true; row: SubscriptionRow & { key_sealed: string } } | { ok: false; end: SubscriptionEnd }> {
  const row = await subscriptionById(db, id);
  const end = linkEnd(row, generation) ?? (row!.status === 'unsubscribed' || !row!.key_sealed ? 'unsubscribed' : null);
  return end ? { ok: false, end } : { ok: true, row: row as SubscriptionRow & { key_sealed: string } };
}

/**
 * The CSV links a digest's view page handed out in cycle `generation`, or in
 * any (`report_links.parent` is `sub:<id>`, src/links/link-store.ts): they
 * keep their rows, which say why they ended when opened, but no longer the
 * subscriber's key.
 */
const forgetLinkedKeys = (db: D1Database, id: string, generation?: number) =>
  generation === undefined
    ? db.prepare(`UPDATE report_links SET key_sealed = '' WHERE parent = ?`).bind(`sub:${id}`)
    : db.prepare(`UPDATE report_links SET key_sealed = '' WHERE parent = ? AND parent_generation = ?`).bind(`sub:${id}`, generation);

/**
 * The address unsubscribes (its unsubscribe link, one-click, mailto): status,
 * the sealed key, its planned sends, and a new cycle, so no link of the old
 * one acts again (nor holds back the new cycle's first confirmation:
 * `confirm_sent_at` is the cycle's own); and the address's wish is recorded: no confirmation email
 * through the API for 30 days (caps.ts). Only cycle `generation` is ended:
 * false when the row had moved on, or was unsubscribed already.
 */
export async function unsubscribeById(db: D1Database, id: string, generation: number, now: Date): Promise<boolean> {
  const at = now.toISOString();
  // The wish holds for the address's mailbox (or the endpoint's receiver), whatever spelling was subscribed: read the row for it.
  const own = await subscriptionById(db, id);
  const [ended] = await db.batch<{ id: string }>([
    // The sealed key goes too: an unsubscribed address keeps no credential.
    db
      .prepare(
        `UPDATE digest_subscriptions SET status = 'unsubscribed', key_sealed = NULL, unsubscribed_at = ?1, updated_at = ?1, generation = generation + 1, confirm_sent_at = NULL
          WHERE id = ?2 AND generation = ?3 AND status != 'unsubscribed' RETURNING id`,
      )
      .bind(at, id, generation),
    db
      .prepare(
        `UPDATE digest_sends SET status = 'skipped', reason = 'unsubscribed', updated_at = ?1 WHERE subscription_id = ?2 AND status = 'planned' AND (SELECT status FROM digest_subscriptions WHERE id = ?2) = 'unsubscribed'`,
      )
      .bind(at, id),
    forgetLinkedKeys(db, id, generation),
    ...(own ? [await recordOptout(db, own, at)] : []),
  ]);
  return (ended?.results.length ?? 0) > 0;
}

/**
 * The account removes a subscription (`DELETE /digests/subscriptions/{id}`):
 * final. The row is deleted, with the rows that name it (its send records,
 * alert channel and deliveries), so no link of it acts or reads again, and
 * only the account reaches the address again, as a new subscription. The
 * address's confirmation counts (caps.ts) stay. False when it was gone.
 */
export async function removeSubscription(db: D1Database, id: string): Promise<boolean> {
  const results = await db.batch<{ id: string }>([
    forgetLinkedKeys(db, id),
    // Foreign keys: what names the subscription goes first.
    db.prepare('DELETE FROM alert_deliveries WHERE subscription_id = ?').bind(id),
    db.prepare('DELETE FROM alert_channels WHERE subscription_id = ?').bind(id),
    db.prepare('DELETE FROM digest_sends WHERE subscription_id = ?').bind(id),
    db.prepare('DELETE FROM digest_subscriptions WHERE id = ? RETURNING id').bind(id),
  ]);
  return (results.at(-1)?.results.length ?? 0) > 0;
}

/** The confirmed digest subscribers of a brand and market (those of alerts only get no digest). */
export async function confirmedSubscribers(db: D1Database, brandId: number, marketId: number): Promise<SubscriptionRow[]> {
  const { results } = await db
    .prepare(`SELECT * FROM digest_subscriptions WHERE brand_id = ? AND market_id = ? AND status = 'active' AND confirmed_at IS NOT NULL AND ${GETS_DIGEST_SQL} ORDER BY id`)
    .bind(brandId, marketId)
    .all<SubscriptionRow>();
  return results;
}
