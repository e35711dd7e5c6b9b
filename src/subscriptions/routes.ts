/**
 * The subscriptions' routes:
 *
 *   POST   /digests/subscriptions        subscribe (API key; JSON body)  -> 201 pending, a confirmation email goes out
 *                                         (429 over a cap on confirmation mail, caps.ts: nothing sent)
 *   GET    /digests/subscriptions        the subscriptions of the key's account, in every state
 *   DELETE /digests/subscriptions/{id}   remove one of them, in any state, for good -> 204
 *   GET    /digests/confirm?token=       double opt-in link: page with a confirm button (changes nothing)
 *   POST   /digests/confirm?token=       the button: the subscription becomes active -> page
 *   GET    /digests/unsubscribe?token=   page with a confirm button
 *   POST   /digests/unsubscribe?token=   RFC 8058 one-click unsubscribe   -> page with a "subscribe again" button
 *   GET    /digests/resubscribe?token=   page with a "subscribe again" button
 *   POST   /digests/resubscribe?token=   back to pending, a new confirmation email goes out -> page
 *
 * Keyed routes answer errors in the API's shape; link routes answer pages.
 */
import * as z from 'zod';
import { type ApiClient, ApiClientError, toApiError } from '../client';
import { requireKey } from '../contract/access';
import { ApiError, invalidParameter } from '../contract/errors';
import { parseJsonObject, readJsonBody } from '../contract/json-body';
import { sha256Hex } from '../lib/hash';
import { badTokenPage, EMPTY, html, type Markup, page as basePage, PRODUCT_NAME } from '../lib/html';
import { json } from '../lib/http';
import type { Route } from '../lib/router';
import { seal, unseal } from '../lib/sealing';
import { type Claims, CONFIRM_TTL, type TokenPurpose, verifyToken } from '../lib/signing';
import { DAY_MS, MINUTE_MS } from '../lib/time';
import type { SendOutcome } from '../mail/mailer';
import { renderConfirmation } from '../mail/render';
import { sendInBatches } from '../mail/send-batches';
import { clientAddressOf } from '../proxy';
import { canonicalTimeZone } from '../weekly-report/week';
import { readScope } from '../weekly-report/read';
import type { SubscriptionDeps } from './deps';
import { confirmUrl, resubscribeUrl, unsubscribeHeaders, unsubscribeUrl } from './links';
import { describeNextDigest, nextDigest } from './next-digest';
import { ACCOUNT_PER_DAY, ADDRESS_PER_DAY, claimConfirmation, type ConfirmationVia, confirmationLimited, confirmationVerdict, recipientKeyOf, releaseConfirmation } from './caps';
import {
  accountBrandsOf,
  generationOf,
  kindsOf,
  linkEnd,
  newSubscriptionId,
  publicView,
  removeSubscription,
  SUBSCRIPTION_END,
  SUBSCRIPTION_SELECT,
  type SubscriptionEnd,
  SubscriptionKind,
  subscriptionById,
  type SubscriptionRow,
  unsubscribeById,
  wantsAlerts,
} from './store';
import { ChannelBody, channelOf, channelOfRow, endpointKeyOf, newSecretFor, offerOf, QuietHoursBody, sendTestDelivery, storeChannel, storedSecret, type TestDelivery, wordsOf } from './alert-channels';

export const SUBSCRIPTIONS_BASE = '/digests';

/** A subscription request is a few hundred bytes; anything past this is refused before parsing. */
export const MAX_BODY_BYTES = 4096;
/**
 * At most one confirmation email per subscription and cycle in this window; the answer says when the next may go.
 * A new cycle (store.ts) starts with none sent: the last one's link no longer confirms, so nothing holds the next back.
 */
export const CONFIRM_RESEND_WINDOW_MS = 10 * MINUTE_MS;

/** Pragmatic address check (no quoted local parts, no IP literals); the confirmation email proves the rest. */
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export const SubscribeBody = z.strictObject({
  email: z.string({ error: '`email` is required: the address to send the digest to.' }).trim().max(254, { error: '`email` is too long.' }).regex(EMAIL, { error: '`email` is not a valid email address.' }),
  brand_id: z.number({ error: '`brand_id` must be an integer brand id.' }).int({ error: '`brand_id` must be an integer brand id.' }).positive({ error: '`brand_id` must be a positive integer.' }).optional(),
  market: z
    .union([z.string().trim().regex(/^[A-Za-z]{2}(?:-[A-Za-z]{2,3})?$/), z.number().int().positive()], { error: '`market` must be a market code such as `us` or `ch-fr`, or a market id.' })
    .optional(),
  kinds: z
    .array(SubscriptionKind, { error: '`kinds` must be a list of `visibility`, `won_lost` and/or `alerts`.' })
    .min(1, { error: '`kinds` must name at least one of `visibility`, `won_lost`, `alerts`.' })
    .max(3)
    .refine((kinds) => new Set(kinds).size === kinds.length, { error: '`kinds` must not repeat a kind.' })
    .default(['visibility', 'won_lost']),
  timezone: z.string({ error: '`timezone` must be an IANA timezone name such as `Europe/Berlin`.' }).default('UTC'),
  /** Alerts only: where they go (default: `email`). */
  channel: ChannelBody.optional(),
  /** Alerts only: local times between which nothing is delivered (default 22:00 to 07:00). */
  quiet_hours: QuietHoursBody.optional(),
});

function parseSubscribe(raw: unknown) {
  const data = parseJsonObject(SubscribeBody, raw);
  const timezone = canonicalTimeZone(data.timezone);
  if (!timezone) throw invalidParameter('timezone', '`timezone` must be an IANA timezone name such as `Europe/Berlin` or `UTC`.');
  return { ...data, timezone };
}

/**
 * Reads with the caller's key through the proxy, on behalf of the caller's
 * address: a flood of random or revoked keys through these routes spends no
 * more of the upstream than through /api/v1. The API's error passes through.
 */
async function readAs<T>(deps: SubscriptionDeps, request: Request, key: string, read: (client: ApiClient) => Promise<T>): Promise<T> {
  try {
    return await read(deps.api(key, clientAddressOf(request)));
  } catch (error) {
    if (error instanceof ApiClientError) throw toApiError(error);
    throw error;
  }
}

/** The brand ids the key's account can read: a subscription is the account's when its brand is one of them. */
async function accountBrands(deps: SubscriptionDeps, request: Request, key: string): Promise<Set<number>> {
  const { brands } = await readAs(deps, request, key, (client) => client.listBrands());
  return new Set(brands.map((b) => b.id));
}

/** What the subscribe answer says of the confirmation email. */
export interface ConfirmationStatus {
  /** Whether this request sent one; false when one went within the last 10 minutes. */
  sent: boolean;
  /** When the last one was sent. */
  sent_at: string;
  /** From when another can be sent (subscribe again then). */
  resend_after: string;
}

/** Whether this subscription's own window holds back a new confirmation (one went within `CONFIRM_RESEND_WINDOW_MS`). */
const withinResendWindow = (row: Pick<SubscriptionRow, 'confirm_sent_at'>, now: Date) =>
  row.confirm_sent_at !== null && Date.parse(row.confirm_sent_at) > now.getTime() - CONFIRM_RESEND_WINDOW_MS;

/**
 * The confirmation email, at most once per `CONFIRM_RESEND_WINDOW_MS` and
 * subscription, and within the caps of caps.ts (per address, per account, none
 * through the API for 30 days after the address unsubscribed). The claim is one
 * D1 transaction (`claimConfirmation`), so of concurrent subscribes only those
 * within the caps send, and of the same subscription only one; the others
 * (and a re-subscribe within the window) say when the next can go. Over a cap
 * it throws 429 `rate_limited` with `Retry-After`, and nothing is sent. Like
 * every email, it carries `List-Unsubscribe` and `List-Unsubscribe-Post`.
 */
async function sendConfirmation(deps: SubscriptionDeps, row: SubscriptionRow, via: ConfirmationVia, testDelivery?: (now: Date) => Promise<unknown>): Promise<ConfirmationStatus> {
  const now = deps.now();
  const at = now.toISOString();
  const after = (sentAt: string) => new Date(Date.parse(sentAt) + CONFIRM_RESEND_WINDOW_MS).toISOString();
  const scope = { recipient: await recipientKeyOf(row), accountBrands: accountBrandsOf(row), via };
  const claim = await claimConfirmation(deps.db, row.id, scope, now, CONFIRM_RESEND_WINDOW_MS);
  if (!claim.claimed) {
    const current = await subscriptionById(deps.db, row.id);
    // The subscription's own window first: a concurrent subscribe of the same row sent it.
    if (!current || current.status !== 'pending' || withinResendWindow(current, now)) {
      const last = current?.confirm_sent_at ?? at;
      return { sent: false, sent_at: last, resend_after: after(last) };
    }
    const verdict = await confirmationVerdict(deps.db, scope, now);
    if (!verdict.ok) throw confirmationLimited(verdict, testDelivery !== undefined);
    // Neither: the caps freed up between the claim and this look. Say so as the window would.
    const last = current.confirm_sent_at ?? at;
    return { sent: false, sent_at: last, resend_after: after(last) };
  }
  if (testDelivery) {
    // A Slack or webhook subscription is confirmed from a test delivery to its endpoint, within the same caps.
    try {
      await testDelivery(now);
    } catch (error) {
      await releaseConfirmation(deps.db, row.id, claim.sendId, at, row.confirm_sent_at);
      throw error;
    }
    return { sent: true, sent_at: at, resend_after: after(at) };
  }
  const url = await confirmUrl(deps, row, now);
  const unsubscribe = await unsubscribeUrl(deps, row, now);
  const mail = await renderConfirmation({
    offer: offerOf(row),
    confirmUrl: url,
    unsubscribeUrl: unsubscribe,
    validDays: CONFIRM_TTL / 86_400,
  });
  let failure: Extract<SendOutcome, { ok: false }> | undefined;
  await sendInBatches(deps, {
    batches: [{ key: `confirm/${row.id}/${at}`, rows: [row] }],
    emailFor: async () => ({ kind: 'confirm', from: deps.from, to: row.email, ...mail, headers: unsubscribeHeaders(unsubscribe, deps.from) }),
    record: async (_, outcome) => {
      if (!outcome.ok) failure = outcome;
    },
  });
  if (failure) {
    const outcome = failure;
    // Nothing went out: give the slot back and uncount it, so subscribing again can send at once.
    await releaseConfirmation(deps.db, row.id, claim.sendId, at, row.confirm_sent_at);
    console.error(JSON.stringify({ msg: 'confirmation email failed', subscription: row.id, code: outcome.code, status: outcome.status }));
    throw new ApiError('upstream_error', 'The confirmation email could not be sent; try again in a few minutes.');
  }
  return { sent: true, sent_at: at, resend_after: after(at) };
}

async function subscribe(request: Request, deps: SubscriptionDeps): Promise<Response> {
  const key = requireKey(request);
  const input = parseSubscribe(await readJsonBody(request, MAX_BODY_BYTES));
  // A bad channel is a 400 before anything is read or stored.
  const channel = await channelOf(deps, input);
  const endpoint = channel !== null && channel.type !== 'email';
  // The key must read this brand and market: the same read the digest will make, so its error is the one to show.
  const { brandId, market, brandName, accountBrands } = await readAs(deps, request, key, async (client) => {
    const visibility = await readScope(client, { brand_id: input.brand_id || undefined, market: input.market === undefined ? undefined : String(input.market) });
    const { brands } = await client.listBrands();
    return {
      brandId: visibility.brand_id,
      market: visibility.market,
      brandName: brands.find((b) => b.id === visibility.brand_id)?.name ?? `Brand ${visibility.brand_id}`,
      // The account the confirmation counts against (caps.ts): every brand the key reads.
      accountBrands: [...new Set([visibility.brand_id, ...brands.map((b) => b.id)])].sort((a, b) => a - b),
    };
  });

  const now = deps.now();
  const at = now.toISOString();
  // Slack and webhook subscriptions are one per URL (the owner's address is only a contact).
  const emailKey = endpoint ? await endpointKeyOf(channel) : input.email.toLowerCase();
  const keyHash = await sha256Hex(key);
  const kinds = input.kinds.join(',');
  const accountBrandsJson = JSON.stringify(accountBrands);
  const byAddress = () =>
    deps.db.prepare(`${SUBSCRIPTION_SELECT} WHERE s.email_key = ? AND s.brand_id = ? AND s.market_id = ?`).bind(emailKey, brandId, market.id).first<SubscriptionRow>();

  let row = await byAddress();
  // A confirmation is due unless the subscription is active or one went within its 10-minute window. Over a
  // cap the answer is 429 and nothing is written: an address that unsubscribed stays unsubscribed. A Slack or
  // webhook subscription's test delivery counts like a confirmation email, its URL's receiver like an address's mailbox.
  if (!row || (row.status !== 'active' && !(row.status === 'pending' && withinResendWindow(row, now)))) {
    const recipient = await recipientKeyOf({ email: input.email, channel_type: channel?.type ?? null, channel_url: channel?.url ?? null });
    const verdict = await confirmationVerdict(deps.db, { recipient, accountBrands, via: 'api' }, now);
    if (!verdict.ok) throw confirmationLimited(verdict, endpoint);
  }

  // One subscription per address, brand and market (a unique key). A new address is inserted; when a
  // concurrent subscribe of the same address inserted first, this one continues as a re-subscribe of its row.
  let created = false;
  if (!row) {
    const id = newSubscriptionId();
    const inserted = await deps.db
      .prepare(
        `INSERT INTO digest_subscriptions (id, email, email_key, brand_id, brand_name, market_id, market_code, kinds, timezone, status, key_hash, key_sealed, account_brands, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)
         ON CONFLICT (email_key, brand_id, market_id) DO NOTHING RETURNING id`,
      )
      .bind(id, input.email, emailKey, brandId, brandName, market.id, market.code, kinds, input.timezone, keyHash, await seal(deps.encryptionKey, key, id), accountBrandsJson, at, at)
      .first<{ id: string }>();
    created = inserted !== null;
    row = await byAddress();
    if (!row) throw new Error('subscription row missing after insert');
  }
  if (!created) {
    // Re-subscribing never duplicates: the row is updated. An active one stays active (no new email);
    // a pending, paused or unsubscribed one needs the address confirmed. The key is sealed for this row's id.
    // A paused or unsubscribed one starts a new cycle: no link of the old one confirms or reads this one.
    await deps.db
      .prepare(
        `UPDATE digest_subscriptions SET kinds = ?, timezone = ?, key_hash = ?, key_sealed = ?, brand_name = ?, market_code = ?, account_brands = ?,
                generation = CASE WHEN status IN ('paused', 'unsubscribed') THEN generation + 1 ELSE generation END,
                confirm_sent_at = CASE WHEN status IN ('paused', 'unsubscribed') THEN NULL ELSE confirm_sent_at END,
                status = CASE status WHEN 'active' THEN 'active' ELSE 'pending' END, paused_reason = NULL, unsubscribed_at = NULL, updated_at = ?
          WHERE id = ?`,
      )
      .bind(kinds, input.timezone, keyHash, await seal(deps.encryptionKey, key, row.id), brandName, market.code, accountBrandsJson, at, row.id)
      .run();
  }
  // A new webhook subscription, or one subscribed again after a pause or an unsubscribe, gets a new signing
  // secret, shown once in this answer; a pending one keeps the secret its first answer showed.
  const kept = channel?.type === 'webhook' && !created ? await storedSecret(deps, row.id) : null;
  const secret = channel?.type === 'webhook' && (!kept || row.status === 'paused' || row.status === 'unsubscribed') ? await newSecretFor(deps, row.id) : null;
  await storeChannel(deps.db, row.id, channel, secret?.sealed ?? null, at);
  row = (await subscriptionById(deps.db, row.id))!;
  let testDelivery: TestDelivery | null = null;
  const pending = row;
  const post = endpoint ? async (when: Date) => (testDelivery = await sendTestDelivery(deps, pending, channel, secret?.secret ?? kept, when)) : undefined;
  // The claim checks the caps again, atomically: a subscribe that loses the race for an account's or an
  // address's last slot answers 429 too (its subscription stays pending, without a confirmation).
  const confirmation = row.status === 'pending' ? await sendConfirmation(deps, row, 'api', post) : null;
  return json(
    { subscription: publicView(row), ...(confirmation ? { confirmation } : {}), ...(testDelivery ? { test_delivery: testDelivery } : {}), ...(secret ? { webhook_secret: secret.secret } : {}) },
    created ? 201 : 200,
  );
}

async function list(request: Request, deps: SubscriptionDeps): Promise<Response> {
  const key = requireKey(request);
  const brands = [...(await accountBrands(deps, request, key))];
  if (brands.length === 0) return json({ subscriptions: [] });
  const { results } = await deps.db
    .prepare(`${SUBSCRIPTION_SELECT} WHERE s.brand_id IN (${brands.map(() => '?').join(',')}) ORDER BY s.created_at, s.id`)
    .bind(...brands)
    .all<SubscriptionRow>();
  return json({ subscriptions: results.map(publicView) });
}

async function remove(request: Request, deps: SubscriptionDeps, id: string): Promise<Response> {
  const key = requireKey(request);
  const brands = await accountBrands(deps, request, key);
  const row = /^sub_[a-z0-9]{1,40}$/.test(id) ? await subscriptionById(deps.db, id) : null;
  // Another account's subscription is as invisible as a missing one. Any state is removed: an unsubscribed
  // one too, whose own subscribe-again link would otherwise bring it back (it carries the key, sealed).
  if (!row || !brands.has(row.brand_id)) throw new ApiError('not_found', 'No such subscription for this account.');
  // Final: no link of the subscription works again (store.ts); only a new subscribe reaches the address.
  if (!(await removeSubscription(deps.db, id))) throw new ApiError('not_found', 'No such subscription for this account.');
  return new Response(null, { status: 204 });
}

/** A page of a subscription's links, in the look of every page; its section names what the subscription brings. */
const page = (status: number, title: string, paragraphs: string[], extra: Markup, section: string) => basePage(status, title, paragraphs, extra, { section });

/** `23 Nov 2026, 16:05 UTC`. */
const utcStamp = (iso: string) => {
  const [year, month, day] = iso.slice(0, 10).split('-');
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  return `${Number(day)} ${months[Number(month) - 1]} ${year}, ${iso.slice(11, 16)} UTC`;
};

/** The stamp of a time from which something can be done, rounded up to its minute: `from 16:05` must hold at 16:05:00. */
const fromStamp = (iso: string) => utcStamp(new Date(Math.ceil(Date.parse(iso) / MINUTE_MS) * MINUTE_MS).toISOString());

/** A page's one button: a form that posts to `action` (a same-origin path). */
const button = (action: string, label: string, hidden: Record<string, string> = {}) =>
  html`<form method="post" action="${action}">${Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<button type="submit">${label}</button></form>`;

/** The ISO weeks this subscription already has a digest record for, recent ones only (a send is unique per week). */
async function recentSendWeeks(deps: SubscriptionDeps, id: string): Promise<Set<string>> {
  const since = new Date(deps.now().getTime() - 8 * DAY_MS).toISOString().slice(0, 10);
  const { results } = await deps.db.prepare('SELECT iso_week FROM digest_sends WHERE subscription_id = ? AND week_monday >= ?').bind(id, since).all<{ iso_week: string }>();
  return new Set(results.map((r) => r.iso_week));
}

/**
 * The subscription a link from an email names: its token checked for this
 * purpose (a bad one answers the one token policy's page), then the row,
 * which may be gone, and the cycle the link was minted for.
 */
async function openLink(
  deps: SubscriptionDeps,
  url: URL,
  purpose: TokenPurpose,
  what: string,
): Promise<Response | { token: string; claims: Claims; generation: number; row: SubscriptionRow | null }> {
  const token = url.searchParams.get('token') ?? '';
  const result = await verifyToken(deps.signingSecret, token, purpose, deps.now());
  if (!result.ok) return badTokenPage(result.reason, what);
  return { token, claims: result.claims, generation: generationOf(result.claims), row: await subscriptionById(deps.db, String(result.claims.s)) };
}

/** A link of a cycle that has ended (store.ts, `linkEnd`; no row: removed by the account): 410, saying why; it changes nothing. */
function endedPage(end: SubscriptionEnd, row: SubscriptionRow | null): Response {
  const manager = `whoever manages ${row?.brand_name ?? 'the brand'} in ${PRODUCT_NAME}`;
  const next =
    end === 'renewed'
      ? 'Nothing was changed.'
      : end === 'removed'
        ? `Nothing was changed, and nothing more is sent for it. Only ${manager} can subscribe you again.`
        : `Nothing was changed. To subscribe again, use the button of your latest unsubscribe, or ask ${manager}.`;
  return page(410, end === 'removed' ? 'This subscription was removed' : 'This link no longer works', [SUBSCRIPTION_END[end], next], EMPTY, row ? wordsOf(row).name : 'subscriptions');
}

/**
 * Whether a confirm link from before cycles were counted (no `g`) is the
 * subscription's latest confirmation: only that one may confirm, since an
 * older one may be of an earlier cycle. Its expiry says when it was sent.
 */
const isLatestConfirmation = (row: SubscriptionRow, claims: Claims) =>
  row.confirm_sent_at !== null && Math.floor(Date.parse(row.confirm_sent_at) / 1000) + CONFIRM_TTL === claims.exp;

/**
 * The confirmation link. GET (and HEAD) only shows the page with the button:
 * mail scanners that prefetch links must not confirm for the reader. The
 * button POSTs to the same address, which activates the subscription
 * (idempotent: a second POST says it is confirmed).
 */
async function confirm(request: Request, url: URL, deps: SubscriptionDeps): Promise<Response> {
  const opened = await openLink(deps, url, 'confirm', 'confirmation');
  if (opened instanceof Response) return opened;
  const { token, claims, generation, row } = opened;
  // A confirm link confirms only the cycle whose mail carried it.
  const end = linkEnd(row, generation) ?? (claims.g === undefined && !isLatestConfirmation(row!, claims) ? 'renewed' : null);
  if (end || !row) return endedPage(end ?? 'removed', row);
  // What is confirmed: the weekly digest, change alerts, or both, and where they go.
  const words = wordsOf(row);
  if (row.status === 'unsubscribed') return page(409, 'This subscription was cancelled', [`It was unsubscribed after this link was sent. Subscribe again to get the ${words.name}.`], EMPTY, words.name);
  if (row.status === 'paused') return page(409, 'This subscription is paused', ['Its API key can no longer read the brand. Subscribe again with a current key.'], EMPTY, words.name);
  const digest = kindsOf(row).length > 0;
  if (request.method !== 'POST' && row.status === 'pending') {
    return page(
      200,
      `Confirm your ${words.name}`,
      [`Get ${words.what}, ${words.when}.`, ...words.contents, 'Nothing is sent until you confirm. Did not ask for it? Close this page: nothing more will come.'],
      button(`${SUBSCRIPTIONS_BASE}/confirm?token=${encodeURIComponent(token)}`, words.confirmLabel),
      words.name,
    );
  }
  const now = deps.now().toISOString();
  let first = false;
  if (row.status === 'pending') {
    const changed = await deps.db
      .prepare(`UPDATE digest_subscriptions SET status = 'active', confirmed_at = ?, updated_at = ? WHERE id = ? AND status = 'pending' AND generation = ? RETURNING id`)
      .bind(now, now, row.id, generation)
      .first<{ id: string }>();
    if (!changed) return page(409, 'This subscription changed', ['Open the link again to see where it stands.'], EMPTY, words.name);
    first = true;
  }
  const next = digest ? nextDigest(deps.now(), row.timezone, await recentSendWeeks(deps, row.id)) : null;
  return page(
    200,
    !first ? 'You are subscribed' : digest ? 'Subscription confirmed' : 'Alerts confirmed',
    [
      `You will get ${words.what}, ${words.when}.`,
      ...(next ? [`Your ${first ? 'first' : 'next'} digest arrives ${describeNextDigest(next, row.timezone)}.`] : []),
      ...(wantsAlerts(row) ? ['The first evaluation only keeps the figures; alerts start from the day after.'] : []),
      ...(digest ? ['A week in which nothing was measured sends no digest. Every digest has a one-click unsubscribe link.'] : []),
    ],
    EMPTY,
    words.name,
  );
}

async function unsubscribe(request: Request, url: URL, deps: SubscriptionDeps): Promise<Response> {
  const opened = await openLink(deps, url, 'unsubscribe', 'unsubscribe');
  if (opened instanceof Response) return opened;
  const { token, generation, row } = opened;
  // It acts on its own cycle only: a link of a removed subscription, or of one subscribed again since, changes nothing.
  // Already unsubscribed, any of its links says so.
  const end = row?.status === 'unsubscribed' ? null : linkEnd(row, generation);
  if (end || !row) return endedPage(end ?? 'removed', row);
  const askAgain = `To get it again, ask whoever manages ${row.brand_name} in ${PRODUCT_NAME} to subscribe you.`;
  const words = wordsOf(row);
  if (request.method === 'POST') {
    // RFC 8058: a POST to the List-Unsubscribe URL unsubscribes with no further step (the body is
    // `List-Unsubscribe=One-Click`; our own button posts the same). Idempotent: a second POST changes nothing.
    if (row.status === 'unsubscribed') return page(200, 'You are unsubscribed', [words.stopped, askAgain], EMPTY, words.name);
    if (!(await unsubscribeById(deps.db, row.id, generation, deps.now()))) return page(409, 'This subscription changed', ['Open the link again to see where it stands.'], EMPTY, words.name);
    // The key is gone from the database now; the "subscribe again" link carries it, still sealed (links.ts),
    // for the cycle this unsubscribe started.
    if (!row.key_sealed) return page(200, 'You are unsubscribed', [words.stopped, askAgain], EMPTY, words.name);
    const again = await resubscribeUrl(deps, { id: row.id, generation: generation + 1, key_sealed: row.key_sealed });
    return page(
      200,
      'You are unsubscribed',
      [words.stopped, `Changed your mind? Subscribe again below until ${utcStamp(again.expiresAt)}. We will send a confirmation link ${words.to} first; nothing else is sent until you confirm.`],
      html`${button(again.path, 'Subscribe again')}<p class="small">This page is the only place with this button: keep it open or bookmark it if you may want it later.</p>`,
      words.name,
    );
  }
  if (row.status === 'unsubscribed') return page(200, 'You are already unsubscribed', [words.none, askAgain], EMPTY, words.name);
  // GET only shows the button: link scanners that prefetch URLs must not unsubscribe anyone.
  return page(
    200,
    `Stop the ${words.name}?`,
    [`Stop ${words.what}.`, 'You can subscribe again from the next page if you change your mind.'],
    button(`${SUBSCRIPTIONS_BASE}/unsubscribe?token=${encodeURIComponent(token)}`, 'Unsubscribe', { 'List-Unsubscribe': 'One-Click' }),
    words.name,
  );
}

/**
 * The "subscribe again" link (links.ts, `resubscribeUrl`). GET shows the
 * button; POST puts the sealed key back, sets the subscription `pending` and
 * sends a new confirmation email: the address is confirmed again (double
 * opt-in) before any digest goes to it.
 */
async function resubscribe(request: Request, url: URL, deps: SubscriptionDeps): Promise<Response> {
  const opened = await openLink(deps, url, 'resubscribe', 'subscribe-again');
  if (opened instanceof Response) return opened;
  const { token, claims, generation, row } = opened;
  // Only the cycle its unsubscribe started: not after the account's delete, nor once subscribed again another way.
  const end = linkEnd(row, generation);
  if (end || !row) return endedPage(end ?? 'removed', row);
  const action = `${SUBSCRIPTIONS_BASE}/resubscribe?token=${encodeURIComponent(token)}`;
  const words = wordsOf(row);
  if (row.status === 'active') return page(200, 'You are subscribed', [`You already get ${words.what}; nothing to do.`], EMPTY, words.name);
  if (row.status === 'paused') return page(409, 'This subscription is paused', ['Its API key can no longer read the brand. Ask whoever manages it to subscribe you again with a current key.'], EMPTY, words.name);
  if (request.method !== 'POST') {
    const pending = row.status === 'pending';
    return page(
      200,
      pending ? 'Waiting for your confirmation' : `Subscribe again to the ${words.name}?`,
      pending
        ? [`A confirmation link went ${words.to}; nothing is sent for ${words.scope} until you confirm from it.`, 'Did not get it? Send it again.']
        : [`Get ${words.what} again, ${words.when}.`, `We will send a confirmation link ${words.to} first; nothing else is sent until you confirm.`],
      button(action, pending ? 'Send the confirmation again' : 'Subscribe again'),
      words.name,
    );
  }
  if (row.status === 'unsubscribed') {
    // The key in the link must be this subscription's, as it was when it was unsubscribed.
    const sealed = String(claims.k ?? '');
    const key = sealed ? await unseal(deps.encryptionKey, sealed, row.id) : null;
    if (!key || (await sha256Hex(key)) !== row.key_hash) {
      return page(409, 'This link is out of date', ['The subscription changed after this link was made. Use the link of your latest unsubscribe, or ask whoever manages the brand to subscribe you again.'], EMPTY, words.name);
    }
    const at = deps.now().toISOString();
    await deps.db
      .prepare(`UPDATE digest_subscriptions SET status = 'pending', key_sealed = ?, paused_reason = NULL, unsubscribed_at = NULL, updated_at = ? WHERE id = ? AND status = 'unsubscribed' AND generation = ?`)
      .bind(sealed, at, row.id, generation)
      .run();
  }
  const pending = await subscriptionById(deps.db, row.id);
  if (!pending || pending.status !== 'pending' || pending.generation !== generation) return page(409, 'This subscription changed', ['Open the link again to see where it stands.'], EMPTY, words.name);
  // A Slack or webhook subscription is confirmed again where it posts, by a test delivery.
  const endpoint = pending.channel_type === 'slack' || pending.channel_type === 'webhook';
  const { to, name } = words;
  const post = endpoint ? async (when: Date) => sendTestDelivery(deps, pending, channelOfRow(pending)!, await storedSecret(deps, pending.id), when) : undefined;
  let confirmation: ConfirmationStatus;
  try {
    // The address's own link: allowed within 30 days of its unsubscribe, but within the per-address and per-account caps.
    confirmation = await sendConfirmation(deps, pending, 'link', post);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'rate_limited') {
      const from = new Date(deps.now().getTime() + (error.options.retryAfter ?? 0) * 1000).toISOString();
      const [what, where] = endpoint ? ['test deliveries', 'receiver'] : ['confirmation emails', 'mailbox'];
      return basePage(
        429,
        endpoint ? 'No test delivery for now' : 'No confirmation email for now',
        [
          `Your subscription for ${words.scope} is waiting for confirmation, but no more ${what} can go ${to} for now: at most ${ADDRESS_PER_DAY} a day reach one ${where}, and an account sends at most ${ACCOUNT_PER_DAY} a day.`,
          `Send it from ${fromStamp(from)}, with the button below.`,
        ],
        button(action, 'Send the confirmation again'),
        { section: name, headers: { 'retry-after': String(error.options.retryAfter ?? 1) } },
      );
    }
    return page(502, 'The confirmation could not be sent', [`Your subscription for ${words.scope} is waiting for confirmation, but the confirmation did not go out ${to}.`, 'Try again in a few minutes.'], button(action, 'Try again'), name);
  }
  // Within the 10 minutes of the last one (of this cycle: its link works), the page says from when its button sends another.
  return page(200, endpoint ? 'Check the channel' : 'Check your inbox', [
    confirmation.sent
      ? `We sent a confirmation link ${to}. Open it and confirm to restart the ${name} for ${words.scope}; nothing is sent before.`
      : `A confirmation link went ${to} at ${utcStamp(confirmation.sent_at)}; open it and confirm to restart the ${name} for ${words.scope}. Did not get it? Another can be sent from ${fromStamp(confirmation.resend_after)}, with the button below.`,
    `The link works for ${CONFIRM_TTL / 86_400} days.`,
  ], confirmation.sent ? EMPTY : button(action, 'Send the confirmation again'), name);
}

export const subscriptionRoutes: Route<SubscriptionDeps>[] = [
  { path: `${SUBSCRIPTIONS_BASE}/subscriptions`, answers: 'json', methods: { POST: (request, _, deps) => subscribe(request, deps), GET: (request, _, deps) => list(request, deps) } },
  { path: `${SUBSCRIPTIONS_BASE}/subscriptions/{id}`, answers: 'json', methods: { DELETE: (request, params, deps) => remove(request, deps, params.id!) } },
  {
    path: `${SUBSCRIPTIONS_BASE}/confirm`,
    answers: 'page',
    // GET shows the button, POST confirms. A HEAD (a link checker) answers without reading anything.
    methods: {
      GET: (request, _, deps, url) => confirm(request, url, deps),
      HEAD: () => new Response(null, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } }),
      POST: (request, _, deps, url) => confirm(request, url, deps),
    },
  },
  {
    path: `${SUBSCRIPTIONS_BASE}/unsubscribe`,
    answers: 'page',
    methods: { GET: (request, _, deps, url) => unsubscribe(request, url, deps), POST: (request, _, deps, url) => unsubscribe(request, url, deps) },
  },
  {
    path: `${SUBSCRIPTIONS_BASE}/resubscribe`,
    answers: 'page',
    methods: { GET: (request, _, deps, url) => resubscribe(request, url, deps), POST: (request, _, deps, url) => resubscribe(request, url, deps) },
  },
];
