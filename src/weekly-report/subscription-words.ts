/**
 * What a subscription brings, in the words every place uses for it: the
 * confirmation email (emails/confirm-subscription.tsx), the pages of its
 * links (src/subscriptions/routes.ts) and the Slack or webhook test delivery
 * (src/subscriptions/alert-channels.ts). One subscription may hold the weekly
 * digest, change alerts, or both, and each sentence names exactly what it
 * holds: an alerts-only subscription never reads as a digest.
 *
 * ```ts
 * const words = subscriptionWords({ brandName: 'Brightdesk', market: 'us', timezone: 'UTC', digest: [],
 *   alerts: { channel: 'webhook', quiet: { start: '22:00', end: '07:00' } }, to: 'hooks.example.com' });
 * `Get ${words.what}, ${words.when}.`
 * // Get change alerts for Brightdesk (US) to the webhook receiver at hooks.example.com, the day something moves
 * // beyond the noise (checked daily after 07:00, UTC; quiet hours 22:00–07:00).
 * ```
 */
import type { DigestKind } from './model';
import { ALERT_HOUR, DUE_HOUR } from './week';
import { joinNames } from './words';

export type AlertChannelType = 'email' | 'slack' | 'webhook';

export interface SubscriptionOffer {
  brandName: string;
  /** The market's code, `us`. */
  market: string;
  /** IANA name: the digest's Monday morning, the alerts' day and quiet hours are local to it. */
  timezone: string;
  /** The parts of the weekly digest; none: no digest. */
  digest: readonly DigestKind[];
  /** Change alerts: where they go, and the quiet hours as `HH:MM` (null: none). Null: no alerts. */
  alerts: { channel: AlertChannelType; quiet: { start: string; end: string } | null } | null;
  /** Where it goes: the address, or for a webhook the receiver's host (a Slack channel is not named). */
  to: string;
}

export interface SubscriptionWords {
  /** `weekly digest`, `change alerts`, `weekly digest and change alerts`: in titles, and the pages' section. */
  name: string;
  /** `Brightdesk (US)`. */
  scope: string;
  /** `the weekly AI-visibility digest for Brightdesk (US) at ana@example.com`, `change alerts for Brightdesk (US) in the Slack channel of its incoming webhook`. */
  what: string;
  /** When it comes: `every Monday at 08:00 (UTC)`, `the day something moves beyond the noise (checked daily after 07:00, UTC; quiet hours 22:00–07:00)`. */
  when: string;
  /** What each message holds, one sentence per part. */
  contents: string[];
  /** Where things are sent: `to ana@example.com`, `to the Slack channel of its incoming webhook`. */
  to: string;
  /** `No more weekly digests for Brightdesk (US) will be sent to ana@example.com.` */
  stopped: string;
  /** `No weekly digests for Brightdesk (US) are sent to ana@example.com.` */
  none: string;
  /** The confirmation email's subject. */
  subject: string;
  /** The confirm button. */
  confirmLabel: string;
}

const DIGEST_PARTS: Record<DigestKind, string> = { visibility: 'the AI visibility score and its trend', won_lost: 'the questions won and lost in AI answers' };

const clock = (hour: number) => `${String(hour).padStart(2, '0')}:00`;

export function subscriptionWords(offer: SubscriptionOffer): SubscriptionWords {
  const { brandName, timezone, alerts } = offer;
  const scope = `${brandName} (${offer.market.toUpperCase()})`;
  const digest = offer.digest.length > 0;
  // Alerts to Slack or a webhook are their own subscription (a channel takes only alerts); the digest goes by email.
  const channel = alerts?.channel ?? 'email';
  const place = { email: offer.to, slack: 'the Slack channel of its incoming webhook', webhook: `the webhook receiver at ${offer.to}` }[channel];
  const at = `${{ email: 'at', slack: 'in', webhook: 'to' }[channel]} ${place}`;
  const to = `to ${place}`;

  const weekly = `every Monday at ${clock(DUE_HOUR)}`;
  const moves = 'the day something moves beyond the noise';
  const checked = `checked daily after ${clock(ALERT_HOUR)}`;
  const quiet = alerts?.quiet ? `quiet hours ${alerts.quiet.start}–${alerts.quiet.end}` : null;
  const when = !alerts
    ? `${weekly} (${timezone})`
    : !digest
      ? `${moves} (${[`${checked}, ${timezone}`, quiet].filter(Boolean).join('; ')})`
      : `the digest ${weekly} and alerts ${moves} (${[timezone, `alerts ${checked}`, quiet].filter(Boolean).join('; ')})`;

  const [name, lead, plural] = !alerts
    ? ['weekly digest', 'the weekly AI-visibility digest', 'weekly digests']
    : !digest
      ? ['change alerts', 'change alerts', 'change alerts']
      : ['weekly digest and change alerts', 'the weekly AI-visibility digest and change alerts', 'weekly digests or change alerts'];

  const message = { email: 'An email', slack: 'A Slack message', webhook: 'A signed post' }[channel];
  const contents = [
    ...(digest ? [`Each digest shows ${joinNames(offer.digest.map((k) => DIGEST_PARTS[k]))}.`] : []),
    ...(alerts ? [`${message} names what moved: a question won or lost on an engine, the visibility score beyond its noise, or a rival overtaking ${brandName} in a topic.`] : []),
  ];

  return {
    name,
    scope,
    what: `${lead} for ${scope} ${at}`,
    when,
    contents,
    to,
    stopped: `No more ${plural} for ${scope} will be sent ${to}.`,
    none: `No ${plural} for ${scope} are sent ${to}.`,
    subject: `Confirm your ${!alerts ? 'weekly AI-visibility digest' : !digest ? 'AI-visibility change alerts' : 'weekly AI-visibility digest and change alerts'} for ${brandName}`,
    confirmLabel: digest ? 'Confirm the subscription' : 'Confirm the alerts',
  };
}
