/**
 * Where a subscription's change alerts go (DESIGN section 10): `email` (the
 * subscription's address, confirmed by the usual double opt-in), `slack` (an
 * incoming-webhook URL) or `webhook` (any https receiver, signed per the
 * Standard Webhooks spec with a `whsec_` secret shown once, at subscribing).
 *
 * A Slack or webhook subscription is confirmed by whoever can see the
 * endpoint, not by email: subscribing posts a test delivery there carrying
 * the signed confirm link (`/digests/confirm?token=`, the same page and POST
 * as the email's), so only the endpoint's owner can switch it on. The
 * webhook's test delivery is signed like every later one, so the receiver can
 * check its verification before the first alert.
 *
 * The URL must be https and resolve only to public addresses
 * (src/lib/public-address.ts); dev (`DEV_ROUTES = "on"`) also takes
 * `http://localhost`. The delivery re-checks the resolution (DNS rebinding).
 */
import * as z from 'zod';
import { ApiError, invalidParameter } from '../contract/errors';
import { sha256Hex } from '../lib/hash';
import { checkPublicUrl } from '../lib/public-address';
import { seal, unseal } from '../lib/sealing';
import { newWebhookSecret, postToEndpoint, type EndpointKind } from '../mail/endpoints';
import { type SubscriptionOffer, type SubscriptionWords, subscriptionWords } from '../weekly-report/subscription-words';
import type { SubscriptionDeps } from './deps';
import { confirmUrl, unsubscribeUrl } from './links';
import { hhmm, kindsOf, type SubscriptionRow, wantsAlerts } from './store';

export const CHANNEL_TYPES = ['email', 'slack', 'webhook'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** Quiet hours by default: 22:00 to 07:00 local. */
export const DEFAULT_QUIET = { start: 22 * 60, end: 7 * 60 } as const;

const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: 'a time as `HH:MM`, 24-hour, e.g. `22:00`' });

export const ChannelBody = z.strictObject(
  {
    type: z.enum(CHANNEL_TYPES, { error: '`channel.type` must be `email`, `slack` or `webhook`.' }),
    url: z.string({ error: '`channel.url` must be a string.' }).max(2048, { error: '`channel.url` is too long.' }).optional(),
  },
  { error: '`channel` must be an object: `{"type": "email" | "slack" | "webhook", "url": "..."}`.' },
);
export const QuietHoursBody = z.strictObject({ start: HHMM, end: HHMM }, { error: '`quiet_hours` must be `{"start": "22:00", "end": "07:00"}` (local time; equal times mean none).' });

export interface AlertChannel {
  type: ChannelType;
  /** Slack or webhook only. */
  url: string | null;
  /** Minutes after local midnight; start equal to end means no quiet hours. */
  quiet: { start: number; end: number };
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

/**
 * The channel of a subscribe request, checked: a bad URL is a 400 naming
 * `channel.url`. Null when the kinds hold no alerts (a `channel` or
 * `quiet_hours` is then refused: it would do nothing).
 */
export async function channelOf(
  deps: Pick<SubscriptionDeps, 'resolveHost' | 'dev' | 'alerts'>,
  input: { kinds: readonly string[]; channel?: z.output<typeof ChannelBody> | undefined; quiet_hours?: z.output<typeof QuietHoursBody> | undefined },
): Promise<AlertChannel | null> {
  if (!input.kinds.includes('alerts')) {
    if (input.channel) throw invalidParameter('channel', '`channel` is for change alerts: add `alerts` to `kinds`.');
    if (input.quiet_hours) throw invalidParameter('quiet_hours', '`quiet_hours` is for change alerts: add `alerts` to `kinds`.');
    return null;
  }
  if (!deps.alerts) throw invalidParameter('kinds', 'Change alerts are not configured on this deployment (ALERT_QUEUE is not bound, docs/deploy.md): subscribe to `visibility` and `won_lost` only.');
  const type = input.channel?.type ?? 'email';
  const quiet = input.quiet_hours ? { start: minutesOf(input.quiet_hours.start), end: minutesOf(input.quiet_hours.end) } : { ...DEFAULT_QUIET };
  if (type === 'email') {
    if (input.channel?.url !== undefined) throw invalidParameter('channel.url', 'An `email` channel takes no `url`: alerts go to `email`.');
    return { type, url: null, quiet };
  }
  if (input.kinds.length !== 1) throw invalidParameter('kinds', `A \`${type}\` channel takes only \`alerts\`: the weekly digest goes by email (subscribe to it separately).`);
  const raw = input.channel?.url;
  if (!raw)
    throw invalidParameter(
      'channel.url',
      `\`channel.url\` is required for a \`${type}\` channel: ${type === 'slack' ? 'the incoming-webhook URL Slack gave you' : 'the https address of your receiver'}.`,
    );
  const verdict = await checkPublicUrl(raw, { resolve: deps.resolveHost, allowLocalhost: deps.dev });
  if (!verdict.ok) throw invalidParameter('channel.url', `\`channel.url\` ${verdict.reason}`);
  return { type, url: verdict.url.href, quiet };
}

/** The channel a stored subscription has (`subscriptionById` joins it), or null. */
export function channelOfRow(row: SubscriptionRow): AlertChannel | null {
  if (!row.channel_type) return null;
  return { type: row.channel_type, url: row.channel_url ?? null, quiet: { start: row.quiet_start ?? DEFAULT_QUIET.start, end: row.quiet_end ?? DEFAULT_QUIET.end } };
}

/** What a stored subscription brings and where, for `subscriptionWords`: the digest's parts, its alerts' channel and quiet hours. */
export function offerOf(row: SubscriptionRow): SubscriptionOffer {
  const channel = wantsAlerts(row) ? (channelOfRow(row) ?? { type: 'email' as const, url: null, quiet: { ...DEFAULT_QUIET } }) : null;
  const quiet = channel && channel.quiet.start !== channel.quiet.end ? { start: hhmm(channel.quiet.start), end: hhmm(channel.quiet.end) } : null;
  return {
    brandName: row.brand_name,
    market: row.market_code,
    timezone: row.timezone,
    digest: kindsOf(row),
    alerts: channel ? { channel: channel.type, quiet } : null,
    // A webhook is named by its receiver's host (its path may hold a token); a Slack channel is not named at all.
    to: channel?.type === 'webhook' && channel.url ? new URL(channel.url).host : row.email,
  };
}

/** The words of a stored subscription (pages, mail, test deliveries). */
export const wordsOf = (row: SubscriptionRow): SubscriptionWords => subscriptionWords(offerOf(row));

/** The subscription's recipient key for a Slack or webhook channel: one subscription per URL, brand and market. */
export const endpointKeyOf = async (channel: AlertChannel) => `${channel.type}:${await sha256Hex(channel.url ?? '')}`;

/** Keeps the channel beside the subscription; drops it when the kinds no longer hold alerts. `secretSealed` only when a new secret was made. */
export async function storeChannel(db: D1Database, id: string, channel: AlertChannel | null, secretSealed: string | null, at: string): Promise<void> {
  if (!channel) {
    await db.prepare('DELETE FROM alert_channels WHERE subscription_id = ?').bind(id).run();
    return;
  }
  await db
    .prepare(
      `INSERT INTO alert_channels (subscription_id, type, url, secret_sealed, quiet_start, quiet_end, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
       ON CONFLICT (subscription_id) DO UPDATE SET type = ?2, url = ?3, secret_sealed = COALESCE(?4, secret_sealed), quiet_start = ?5, quiet_end = ?6, updated_at = ?7`,
    )
    .bind(id, channel.type, channel.url, secretSealed, channel.quiet.start, channel.quiet.end, at)
    .run();
}

/** What a webhook secret is sealed to (AES-GCM associated data): its subscription. */
export const webhookSecretBinding = (id: string) => `${id}:webhook`;

/** The webhook secret kept for a subscription, or null (none, or it does not decrypt). */
export async function storedSecret(deps: Pick<SubscriptionDeps, 'db' | 'encryptionKey'>, id: string): Promise<string | null> {
  const sealed = await deps.db.prepare('SELECT secret_sealed FROM alert_channels WHERE subscription_id = ?').bind(id).first<string | null>('secret_sealed');
  return sealed ? unseal(deps.encryptionKey, sealed, webhookSecretBinding(id)) : null;
}

/** A new `whsec_` secret and its sealed form, for a webhook subscription that is not active (created, or subscribed again). */
export async function newSecretFor(deps: Pick<SubscriptionDeps, 'encryptionKey'>, id: string): Promise<{ secret: string; sealed: string }> {
  const secret = newWebhookSecret();
  return { secret, sealed: await seal(deps.encryptionKey, secret, webhookSecretBinding(id)) };
}

/** What the subscribe answer says of the test delivery. */
export interface TestDelivery {
  sent: boolean;
  /** The `webhook-id` of the test delivery. */
  message_id: string;
  sent_at: string;
}

/** What the test delivery says: what was asked, by whom, and when the alerts come (a Slack or webhook channel takes only alerts). */
const requested = (row: SubscriptionRow, where: string) => {
  const words = wordsOf(row);
  return `Change alerts for ${words.scope} were requested for ${where} by ${row.email}: they come ${words.when}. ${words.contents.join(' ')}`;
};

/** Slack's Block Kit for the test delivery: what it is, and the button that confirms. */
function slackConfirmation(row: SubscriptionRow, confirm: string, unsubscribe: string) {
  const text = `Confirm change alerts for ${wordsOf(row).scope} in this channel: ${confirm}`;
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `${requested(row, 'this channel')} Nothing is posted here until someone in this channel confirms.` } },
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Confirm the alerts' }, url: confirm, style: 'primary' }] },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Did not ask for it? Ignore this message, or <${unsubscribe}|stop it now>.` }] },
    ],
  };
}

/**
 * Posts the test delivery carrying the signed confirm link. A receiver that
 * refuses it makes the request a 400 naming `channel.url`; one that is down
 * for now, a 502 naming it too, to try again. Either way the subscribe is
 * undone: nothing of it is stored (api-routes.ts).
 */
export async function sendTestDelivery(deps: SubscriptionDeps, row: SubscriptionRow, channel: AlertChannel, secret: string | null, now: Date): Promise<TestDelivery> {
  const at = now.toISOString();
  const confirm = await confirmUrl(deps, row, now);
  const unsubscribe = await unsubscribeUrl(deps, row, now);
  const messageId = `msg_confirm_${row.id}_${Math.floor(now.getTime() / 1000)}`;
  const kind = channel.type as EndpointKind;
  if (kind === 'webhook' && !secret)
    throw new ApiError('upstream_error', 'The webhook signing secret of this subscription cannot be read (the encryption key changed); subscribe again with the API to get a new one.');
  const body =
    kind === 'slack'
      ? slackConfirmation(row, confirm, unsubscribe)
      : {
          type: 'subscription.confirm',
          timestamp: at,
          data: {
            subscription_id: row.id,
            brand: { id: row.brand_id, name: row.brand_name },
            market: { id: row.market_id, code: row.market_code },
            text: `${requested(row, 'this receiver')} Nothing is posted until someone opens confirm_url and confirms.`,
            confirm_url: confirm,
            unsubscribe_url: unsubscribe,
          },
        };
  const outcome = await postToEndpoint(
    { fetch: deps.fetch, now: deps.now, ...(deps.dev ? { outbox: deps.db } : {}) },
    { kind, url: channel.url!, messageId, body: JSON.stringify(body), ...(secret ? { secret } : {}), summary: `Confirm change alerts for ${row.brand_name} (${row.market_code.toUpperCase()})` },
  );
  if (!outcome.ok) {
    if (outcome.retryable)
      throw new ApiError('upstream_error', `The test delivery to \`channel.url\` failed (${outcome.reason}); nothing was stored: check the address, or try again in a few minutes.`, {
        param: 'channel.url',
      });
    throw invalidParameter('channel.url', `The test delivery to \`channel.url\` was refused: it ${outcome.reason}. Check the URL; nothing was stored.`);
  }
  return { sent: true, message_id: messageId, sent_at: at };
}
