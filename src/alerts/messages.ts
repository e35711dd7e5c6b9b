/**
 * One delivery's bundle, per channel: a Slack Block Kit message, the
 * webhook's JSON (Standard Webhooks' `type`, `timestamp`, `data`; each event
 * with its stable `id`), or the email (emails/alert.tsx). Every one is built
 * from the delivery record alone (its events and its creation time), so a
 * retry sends the same bytes.
 */
import type { OutgoingEmail } from '../mail/mailer';
import { renderAlert } from '../mail/render';
import { hhmm, type SubscriptionRow, unsubscribeHeaders } from '../subscriptions';
import { headlineOf } from '../weekly-report';
import type { IdentifiedEvent } from './evaluate';

/** What every channel's message carries besides the events. */
export interface BundleContext {
  row: SubscriptionRow & { quiet_start: number; quiet_end: number };
  events: IdentifiedEvent[];
  /** The 7 days the evaluation read. */
  period: { from: string; to: string };
  /** When the delivery record was created: the message's `timestamp`. */
  createdAt: string;
  reportUrl: string;
  unsubscribeUrl: string;
  /** What the evaluation could not watch, one line each: the Read API does not provide its part (`NEEDS.alerts`). */
  notProvided: { part: string; line: string }[];
}

/** Slack allows 50 blocks per message: past this many events, the rest are counted, and the report has them all. */
export const SLACK_EVENTS_SHOWN = 20;

const LABEL: Record<IdentifiedEvent['type'], string> = { question_lost: 'Lost', question_won: 'Won', visibility_moved: 'Visibility', rival_overtook: 'Overtaken' };

const scopeOf = (row: SubscriptionRow) => `${row.brand_name} (${row.market_code.toUpperCase()})`;
/** The quiet hours as `22:00–07:00`; null when there are none (start equal to end). */
const quietSpan = (row: BundleContext['row']) => (row.quiet_start === row.quiet_end ? null : `${hhmm(row.quiet_start)}–${hhmm(row.quiet_end)}`);
const quietOf = (row: BundleContext['row']) => {
  const span = quietSpan(row);
  return span ? `quiet hours ${span} (${row.timezone})` : 'no quiet hours';
};
/** Slack's mrkdwn treats `&`, `<`, `>` as control characters. */
const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function slackMessage(context: BundleContext): Record<string, unknown> {
  const { row, events } = context;
  const brand = row.brand_name;
  const shown = events.slice(0, SLACK_EVENTS_SHOWN);
  const more = events.length - shown.length;
  const title = `${scopeOf(row)}: ${events.length === 1 ? 'a change' : `${events.length} changes`} in AI answers`;
  return {
    // The notification's text (and what clients without blocks show).
    text: `${title}. ${headlineOf(events[0]!, brand)}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: title.slice(0, 150) } },
      ...shown.map((event) => ({ type: 'section', text: { type: 'mrkdwn', text: `*${LABEL[event.type]}* · ${slackEscape(headlineOf(event, brand))}` } })),
      ...(more > 0 ? [{ type: 'section', text: { type: 'mrkdwn', text: `… and ${more} more: see the report.` } }] : []),
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open the full report' }, url: context.reportUrl }] },
      ...context.notProvided.map(({ line }) => ({ type: 'context', elements: [{ type: 'mrkdwn', text: slackEscape(line) }] })),
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Changes beyond the noise since the day before; ${quietOf(row)}. <${context.unsubscribeUrl}|Stop these alerts>` }] },
    ],
  };
}

export function webhookPayload(context: BundleContext): Record<string, unknown> {
  const { row, events } = context;
  return {
    type: 'alerts.changes',
    timestamp: context.createdAt,
    data: {
      subscription_id: row.id,
      brand: { id: row.brand_id, name: row.brand_name },
      market: { id: row.market_id, code: row.market_code },
      period: context.period,
      report_url: context.reportUrl,
      unsubscribe_url: context.unsubscribeUrl,
      events: events.map((event) => ({ ...event, summary: headlineOf(event, row.brand_name) })),
      ...(context.notProvided.length > 0 ? { not_provided: context.notProvided } : {}),
    },
  };
}

export async function alertEmail(context: BundleContext, from: string): Promise<OutgoingEmail> {
  const { row, events } = context;
  const mail = await renderAlert({
    brandName: row.brand_name,
    market: row.market_code,
    events,
    period: context.period,
    quietHours: quietSpan(row),
    timezone: row.timezone,
    reportUrl: context.reportUrl,
    unsubscribeUrl: context.unsubscribeUrl,
    notProvided: context.notProvided.map(({ line }) => line),
  });
  return { kind: 'alert', from, to: row.email, ...mail, headers: unsubscribeHeaders(context.unsubscribeUrl, from) };
}
