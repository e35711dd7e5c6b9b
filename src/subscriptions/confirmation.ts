/**
 * The confirmation of a subscription (double opt-in): its email, or for a
 * Slack or webhook channel its test delivery, at most once per subscription
 * and cycle in `CONFIRM_RESEND_WINDOW_MS`, and within the caps of caps.ts.
 * Sent by subscribing (api-routes.ts) and by the "subscribe again" link
 * (link-pages.ts).
 */
import { ApiError } from '../contract/errors';
import { CONFIRM_TTL } from '../lib/signing';
import { MINUTE_MS } from '../lib/time';
import type { SendOutcome } from '../mail/mailer';
import { renderConfirmation } from '../mail/render';
import { sendInBatches } from '../mail/send-batches';
import type { SubscriptionDeps } from './deps';
import { confirmUrl, unsubscribeHeaders, unsubscribeUrl } from './links';
import { claimConfirmation, type ConfirmationVia, confirmationLimited, confirmationVerdict, recipientKeyOf, releaseConfirmation } from './caps';
import { accountBrandsOf, subscriptionById, type SubscriptionRow } from './store';
import { offerOf } from './alert-channels';

/**
 * At most one confirmation email per subscription and cycle in this window; the answer says when the next may go.
 * A new cycle (store.ts) starts with none sent: the last one's link no longer confirms, so nothing holds the next back.
 */
export const CONFIRM_RESEND_WINDOW_MS = 10 * MINUTE_MS;

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
export const withinResendWindow = (row: Pick<SubscriptionRow, 'confirm_sent_at'>, now: Date) =>
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
export async function sendConfirmation(
  deps: SubscriptionDeps,
  row: SubscriptionRow,
  via: ConfirmationVia,
  testDelivery?: (now: Date) => Promise<unknown>,
  /** Told the revision each write of the row here leaves (the claim, a release; null: a release that changed nothing), for an undo (store.ts). */
  wrote: (revision: number | null) => void = () => {},
): Promise<ConfirmationStatus> {
  const now = deps.now();
  const at = now.toISOString();
  const after = (sentAt: string) => new Date(Date.parse(sentAt) + CONFIRM_RESEND_WINDOW_MS).toISOString();
  const scope = { recipient: await recipientKeyOf(row), accountBrands: accountBrandsOf(row), via };
  const claim = await claimConfirmation(deps.db, row.id, scope, now, CONFIRM_RESEND_WINDOW_MS);
  if (claim.claimed) wrote(claim.revision);
  if (!claim.claimed) {
    const current = await subscriptionById(deps.db, row.id);
    // The subscription's own window first: a concurrent subscribe of the same row sent it.
    if (current?.status !== 'pending' || withinResendWindow(current, now)) {
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
      wrote(await releaseConfirmation(deps.db, row.id, claim.sendId, at, row.confirm_sent_at));
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
    wrote(await releaseConfirmation(deps.db, row.id, claim.sendId, at, row.confirm_sent_at));
    console.error(JSON.stringify({ msg: 'confirmation email failed', subscription: row.id, code: outcome.code, status: outcome.status }));
    throw new ApiError('upstream_error', 'The confirmation email could not be sent; try again in a few minutes.');
  }
  return { sent: true, sent_at: at, resend_after: after(at) };
}
