/**
 * The subscriptions' link pages, opened from an email with a signed token;
 * they answer HTML pages:
 *
 *   GET    /digests/confirm?token=       double opt-in link: page with a confirm button (changes nothing)
 *   POST   /digests/confirm?token=       the button: the subscription becomes active -> page
 *   GET    /digests/unsubscribe?token=   page with a confirm button
 *   POST   /digests/unsubscribe?token=   RFC 8058 one-click unsubscribe   -> page with a "subscribe again" button
 *   GET    /digests/resubscribe?token=   page with a "subscribe again" button
 *   POST   /digests/resubscribe?token=   back to pending, a new confirmation email goes out -> page
 *
 * Every handler checks the link's cycle first (`linkEnd`): a link of an
 * ended cycle is a 410 page (`endedPage`) and changes nothing.
 */
import { ApiError } from '../contract/errors';
import { sha256Hex } from '../lib/hash';
import { badTokenPage, EMPTY, html, type Markup, page as basePage, PRODUCT_NAME } from '../lib/html';
import type { Route } from '../lib/router';
import { unseal } from '../lib/sealing';
import { type Claims, CONFIRM_TTL, type TokenPurpose, verifyToken } from '../lib/signing';
import { DAY_MS, MINUTE_MS } from '../lib/time';
import type { SubscriptionDeps } from './deps';
import { resubscribeUrl, SUBSCRIPTIONS_BASE } from './links';
import { describeNextDigest, nextDigest } from './next-digest';
import { ACCOUNT_PER_DAY, ADDRESS_PER_DAY } from './caps';
import { type ConfirmationStatus, sendConfirmation } from './confirmation';
import { generationOf, kindsOf, linkEnd, SUBSCRIPTION_END, type SubscriptionEnd, subscriptionById, type SubscriptionRow, unsubscribeById, wantsAlerts } from './store';
import { channelOfRow, sendTestDelivery, storedSecret, wordsOf } from './alert-channels';

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
async function openLink(deps: SubscriptionDeps, url: URL, purpose: TokenPurpose, what: string): Promise<Response | { token: string; claims: Claims; generation: number; row: SubscriptionRow | null }> {
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
const isLatestConfirmation = (row: SubscriptionRow, claims: Claims) => row.confirm_sent_at !== null && Math.floor(Date.parse(row.confirm_sent_at) / 1000) + CONFIRM_TTL === claims.exp;

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
  if (row.status === 'unsubscribed')
    return page(409, 'This subscription was cancelled', [`It was unsubscribed after this link was sent. Subscribe again to get the ${words.name}.`], EMPTY, words.name);
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
  if (row.status === 'paused')
    return page(409, 'This subscription is paused', ['Its API key can no longer read the brand. Ask whoever manages it to subscribe you again with a current key.'], EMPTY, words.name);
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
      return page(
        409,
        'This link is out of date',
        ['The subscription changed after this link was made. Use the link of your latest unsubscribe, or ask whoever manages the brand to subscribe you again.'],
        EMPTY,
        words.name,
      );
    }
    const at = deps.now().toISOString();
    await deps.db
      .prepare(
        `UPDATE digest_subscriptions SET status = 'pending', key_sealed = ?, paused_reason = NULL, unsubscribed_at = NULL, updated_at = ? WHERE id = ? AND status = 'unsubscribed' AND generation = ?`,
      )
      .bind(sealed, at, row.id, generation)
      .run();
  }
  const pending = await subscriptionById(deps.db, row.id);
  if (pending?.status !== 'pending' || pending.generation !== generation) return page(409, 'This subscription changed', ['Open the link again to see where it stands.'], EMPTY, words.name);
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
    return page(
      502,
      'The confirmation could not be sent',
      [`Your subscription for ${words.scope} is waiting for confirmation, but the confirmation did not go out ${to}.`, 'Try again in a few minutes.'],
      button(action, 'Try again'),
      name,
    );
  }
  // Within the 10 minutes of the last one (of this cycle: its link works), the page says from when its button sends another.
  return page(
    200,
    endpoint ? 'Check the channel' : 'Check your inbox',
    [
      confirmation.sent
        ? `We sent a confirmation link ${to}. Open it and confirm to restart the ${name} for ${words.scope}; nothing is sent before.`
        : `A confirmation link went ${to} at ${utcStamp(confirmation.sent_at)}; open it and confirm to restart the ${name} for ${words.scope}. Did not get it? Another can be sent from ${fromStamp(confirmation.resend_after)}, with the button below.`,
      `The link works for ${CONFIRM_TTL / 86_400} days.`,
    ],
    confirmation.sent ? EMPTY : button(action, 'Send the confirmation again'),
    name,
  );
}

export const subscriptionLinkRoutes: Route<SubscriptionDeps>[] = [
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
