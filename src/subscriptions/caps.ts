/**
 * Caps on confirmation mail (DESIGN section 12), counted in D1
 * (migrations/0012_confirmation_caps.sql), so every isolate sees the same
 * counts:
 *
 * - one recipient gets at most `ADDRESS_PER_DAY` confirmation emails in any
 *   24 hours (a rolling window), across all accounts. A recipient is a
 *   mailbox, not a spelling of an address (`recipientKeyOf`): `Ana+1@x.com`
 *   and `ana@x.com` are one; a Slack or webhook subscription's test delivery
 *   counts against its URL's receiver;
 * - one account sends at most `ACCOUNT_PER_DAY` in any 24 hours. The edge
 *   knows no account ids: an account is the set of brands its key reads
 *   (`GET /brands`; a brand belongs to one account, and every key of the
 *   account reads them all), so a send counts against every account that
 *   reads its brand, and an account's count is the sends of all its brands;
 * - a recipient that unsubscribed itself (the unsubscribe link, one-click,
 *   mailto) gets none for `OPTOUT_DAYS` days through the API; its own
 *   subscribe-again link (`via: 'link'`) still can, within both caps.
 *
 * `claimConfirmation` takes a send slot in one D1 transaction: the conditional
 * insert of the send record (all three rules and the subscription's own
 * 10-minute window are its conditions) and the subscription's
 * `confirm_sent_at`, so concurrent subscribes never exceed a cap.
 * `confirmationVerdict` says, read-only, whether a send would be refused, by
 * which rules, and until when.
 */
import { ApiError } from '../contract/errors';
import { sha256Hex } from '../lib/hash';
import { canonicalMailbox, receiverOf } from '../lib/recipient';
import { DAY_MS, retryAfterSeconds } from '../lib/time';

/** Who a confirmation goes to: an address, or a Slack or webhook URL (a subscription row has these fields). */
export interface Recipient {
  email: string;
  channel_type?: 'email' | 'slack' | 'webhook' | null;
  channel_url?: string | null;
}

export const ADDRESS_PER_DAY = 3;
export const ACCOUNT_PER_DAY = 50;
/** The window of both caps: rolling, not a calendar day. */
export const CAP_WINDOW_MS = DAY_MS;
export const OPTOUT_DAYS = 30;
const OPTOUT_MS = OPTOUT_DAYS * DAY_MS;

/** Who asked for the email: a key through `POST /digests/subscriptions`, or the address through its own subscribe-again link. */
export type ConfirmationVia = 'api' | 'link';

/** Slack's incoming webhooks of every workspace share this host: there, each webhook is a receiver of its own. */
const SLACK_WEBHOOK_HOST = 'hooks.slack.com';

/**
 * Whom a subscription's confirmation reaches, as the caps count it: the
 * mailbox of its address (`canonicalMailbox`), or for a Slack or webhook
 * channel the receiver of its URL (`receiverOf`: scheme, host and port). A
 * Slack incoming webhook is counted by its URL without the query, hashed (its
 * path is its credential), since counting Slack's one host would let a few
 * subscriptions hold every workspace's back. Mail still goes to the address
 * as typed, and posts to the URL as given.
 */
export async function recipientKeyOf(to: Recipient): Promise<string> {
  if ((to.channel_type === 'slack' || to.channel_type === 'webhook') && to.channel_url) {
    const url = new URL(to.channel_url);
    // `slack:<sha-256 of the URL>` is also how these were counted before (migration 0017): Slack's URLs carry no query.
    return url.hostname === SLACK_WEBHOOK_HOST ? `slack:${await sha256Hex(`${url.origin}${url.pathname}`)}` : receiverOf(url);
  }
  return canonicalMailbox(to.email);
}

export interface ConfirmationScope {
  /** Whom the confirmation reaches (`recipientKeyOf`). */
  recipient: string;
  /** The brand ids of the account the send counts for (the subscribing key's `GET /brands`). */
  accountBrands: readonly number[];
  via: ConfirmationVia;
}

export type CapRule = 'address' | 'account' | 'optout';
export type Verdict = { ok: true } | { ok: false; rules: CapRule[]; retryAfterSeconds: number };

const iso = (ms: number) => new Date(ms).toISOString();

/** When the send that must leave the window for one more to fit leaves it (`null`: there is room). */
function freedAt(sentAt: string[], cap: number): number | null {
  if (sentAt.length < cap) return null;
  return Date.parse(sentAt[sentAt.length - cap]!) + CAP_WINDOW_MS;
}

/** Whether one more confirmation email may go now for `scope`, and if not, which rules refuse it and for how long. */
export async function confirmationVerdict(db: D1Database, scope: ConfirmationScope, now: Date): Promise<Verdict> {
  const nowMs = now.getTime();
  const since = iso(nowMs - CAP_WINDOW_MS);
  const [address, account, optout] = await db.batch<{ sent_at?: string; unsubscribed_at?: string }>([
    db.prepare('SELECT sent_at FROM digest_confirmation_sends WHERE email_key = ? AND sent_at > ? ORDER BY sent_at').bind(scope.recipient, since),
    db.prepare('SELECT sent_at FROM digest_confirmation_sends WHERE brand_id IN (SELECT value FROM json_each(?)) AND sent_at > ? ORDER BY sent_at').bind(JSON.stringify(scope.accountBrands), since),
    db.prepare('SELECT unsubscribed_at FROM digest_address_optouts WHERE email_key = ? AND unsubscribed_at > ?').bind(scope.recipient, iso(nowMs - OPTOUT_MS)),
  ]);
  const until: Partial<Record<CapRule, number>> = {};
  const addressFreed = freedAt(
    address!.results.map((r) => r.sent_at!),
    ADDRESS_PER_DAY,
  );
  if (addressFreed !== null) until.address = addressFreed;
  const accountFreed = freedAt(
    account!.results.map((r) => r.sent_at!),
    ACCOUNT_PER_DAY,
  );
  if (accountFreed !== null) until.account = accountFreed;
  const optedOut = optout!.results[0]?.unsubscribed_at;
  if (scope.via === 'api' && optedOut) until.optout = Date.parse(optedOut) + OPTOUT_MS;
  const rules = Object.keys(until) as CapRule[];
  if (rules.length === 0) return { ok: true };
  // Every rule that refuses must let go: the latest of them.
  const latest = Math.max(...Object.values(until));
  return { ok: false, rules, retryAfterSeconds: retryAfterSeconds(latest, nowMs) };
}

/**
 * Takes the send slot of a pending subscription, or answers why not: the
 * subscription's own window (`window`: one went within `resendWindowMs`, or
 * it is no longer pending) or a cap (`capped`). One D1 transaction; the send
 * record's id lets `releaseConfirmation` give the slot back.
 */
export async function claimConfirmation(
  db: D1Database,
  subscriptionId: string,
  scope: ConfirmationScope,
  now: Date,
  resendWindowMs: number,
): Promise<{ claimed: true; sendId: string; revision: number } | { claimed: false }> {
  const nowMs = now.getTime();
  const at = iso(nowMs);
  const sendId = `cfm_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`;
  const since = iso(nowMs - CAP_WINDOW_MS);
  const results = await db.batch([
    // Only the last day counts; two days are kept for a look at what happened.
    db.prepare('DELETE FROM digest_confirmation_sends WHERE sent_at < ?').bind(iso(nowMs - 2 * DAY_MS)),
    db.prepare('DELETE FROM digest_address_optouts WHERE unsubscribed_at < ?').bind(iso(nowMs - OPTOUT_MS)),
    db
      .prepare(
        `INSERT INTO digest_confirmation_sends (id, email_key, brand_id, subscription_id, via, sent_at)
         SELECT ?1, ?5, s.brand_id, s.id, ?2, ?3 FROM digest_subscriptions s
          WHERE s.id = ?4 AND s.status = 'pending' AND (s.confirm_sent_at IS NULL OR s.confirm_sent_at <= ?6)
            AND (SELECT COUNT(*) FROM digest_confirmation_sends c WHERE c.email_key = ?5 AND c.sent_at > ?7) < ?8
            AND (SELECT COUNT(*) FROM digest_confirmation_sends c WHERE c.brand_id IN (SELECT value FROM json_each(?9)) AND c.sent_at > ?7) < ?10
            AND (?2 = 'link' OR NOT EXISTS (SELECT 1 FROM digest_address_optouts o WHERE o.email_key = ?5 AND o.unsubscribed_at > ?11))`,
      )
      .bind(sendId, scope.via, at, subscriptionId, scope.recipient, iso(nowMs - resendWindowMs), since, ADDRESS_PER_DAY, JSON.stringify(scope.accountBrands), ACCOUNT_PER_DAY, iso(nowMs - OPTOUT_MS)),
    // The row's revision moves on here, not by its trigger, so the claim knows the revision it left (store.ts).
    db
      .prepare('UPDATE digest_subscriptions SET confirm_sent_at = ?, revision = revision + 1 WHERE id = ? AND EXISTS (SELECT 1 FROM digest_confirmation_sends WHERE id = ?) RETURNING revision')
      .bind(at, subscriptionId, sendId),
  ]);
  const claimed = results[3]!.results[0] as { revision: number } | undefined;
  return claimed ? { claimed: true, sendId, revision: claimed.revision } : { claimed: false };
}

/**
 * Nothing went out: the send no longer counts, and the subscription's slot goes back to what it was, unless another
 * send took it since. The revision the release left, or null when it changed nothing.
 */
export async function releaseConfirmation(db: D1Database, subscriptionId: string, sendId: string, claimedAt: string, previousSentAt: string | null): Promise<number | null> {
  const [, released] = await db.batch([
    db.prepare('DELETE FROM digest_confirmation_sends WHERE id = ?').bind(sendId),
    db.prepare('UPDATE digest_subscriptions SET confirm_sent_at = ?, revision = revision + 1 WHERE id = ? AND confirm_sent_at = ? RETURNING revision').bind(previousSentAt, subscriptionId, claimedAt),
  ]);
  return (released!.results[0] as { revision: number } | undefined)?.revision ?? null;
}

/** Records an unsubscribe the recipient made itself (a statement for the unsubscribe's own batch). */
export const recordOptout = async (db: D1Database, row: Recipient, at: string) =>
  db
    .prepare(
      `INSERT INTO digest_address_optouts (email_key, unsubscribed_at) VALUES (?, ?)
       ON CONFLICT (email_key) DO UPDATE SET unsubscribed_at = MAX(unsubscribed_at, excluded.unsubscribed_at)`,
    )
    .bind(await recipientKeyOf(row), at);

/**
 * The 429 of a refused confirmation, in the API's error shape, with
 * `Retry-After`. `endpoint`: a Slack or webhook subscription, whose
 * confirmation is a test delivery to its URL, counted like an email to an
 * address.
 */
export function confirmationLimited(verdict: Extract<Verdict, { ok: false }>, endpoint = false): ApiError {
  const [what, to] = endpoint ? ['test deliveries', 'this endpoint'] : ['confirmation emails', 'this address'];
  const reasons: string[] = [];
  if (verdict.rules.includes('account')) reasons.push(`this account has sent ${ACCOUNT_PER_DAY} ${what} in the last 24 hours, the most it may`);
  if (verdict.rules.includes('address') || verdict.rules.includes('optout')) {
    // One wording for both rules of the address: the caller learns no more of what others did with it than it must.
    reasons.push(
      `${to} may get no more ${what} for now (at most ${ADDRESS_PER_DAY} in 24 hours across all accounts, and none for ${OPTOUT_DAYS} days after it unsubscribes, unless it subscribes again from its own link)`,
    );
  }
  const text = reasons.join('; and ');
  return new ApiError('rate_limited', `No ${endpoint ? 'test delivery' : 'confirmation email'} was sent: ${text}. Subscribe again after the Retry-After seconds.`, {
    retryAfter: verdict.retryAfterSeconds,
  });
}
