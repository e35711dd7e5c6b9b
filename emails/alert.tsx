/**
 * A change alert: what moved for a brand and market since yesterday, in the
 * digest's look. One email bundles one evaluation's events, most important
 * first (src/weekly-report/changes.ts orders and words them; Slack and the
 * webhook say the same sentences), then one button to the full report.
 */
import { Section } from '@react-email/section';
import { type AlertEvent, alertSubject, headlineOf } from '../src/weekly-report/changes';
import { formatRange } from '../src/weekly-report/words';
import { ActionButton, EmailLayout, FooterLink, H2, P, Small } from './_components/layout';
import { cls, color, wrapAnywhere } from './_components/theme';

export interface AlertEmailProps {
  brandName: string;
  market: string;
  /** Most important first. */
  events: AlertEvent[];
  /** The 7 days the figures cover. */
  period: { from: string; to: string };
  /** Quiet hours as the subscriber set them, `22:00–07:00` (null: none), and their timezone. */
  quietHours: string | null;
  timezone: string;
  reportUrl: string;
  unsubscribeUrl: string;
  /** What was not watched, one line each, because the Read API does not provide it. */
  notProvided?: string[];
}

export const alertEmailSubject = (props: Pick<AlertEmailProps, 'brandName' | 'market' | 'events'>) => alertSubject(props.brandName, props.market, props.events);

/** The label before each event: bad news red, good news green. */
const LABELS: Record<AlertEvent['type'], (e: AlertEvent) => { word: string; good: boolean }> = {
  question_lost: () => ({ word: 'Lost', good: false }),
  question_won: () => ({ word: 'Won', good: true }),
  visibility_moved: (e) => ({ word: e.type === 'visibility_moved' && e.direction === 'up' ? 'Up' : 'Down', good: e.type === 'visibility_moved' && e.direction === 'up' }),
  rival_overtook: () => ({ word: 'Overtaken', good: false }),
};

export function AlertEmail({ brandName, market, events, period, quietHours, timezone, reportUrl, unsubscribeUrl, notProvided = [] }: AlertEmailProps) {
  const subject = alertEmailSubject({ brandName, market, events });
  const count = events.length;
  const when = quietHours ? `never between ${quietHours} (${timezone})` : 'at any hour (no quiet hours are set)';
  return (
    <EmailLayout
      title={subject}
      preview={events[0] ? headlineOf(events[0], brandName) : subject}
      heading={`${count === 1 ? 'A change' : `${count} changes`} for ${brandName}`}
      subheading={`${market.toUpperCase()} · AI answers of ${formatRange(period)}, compared with the day before`}
      footer={
        <Small>
          {`You get an alert the day something moves beyond the noise, ${when}, and the same change at most once a week unless it reverses. `}
          <FooterLink href={unsubscribeUrl}>Unsubscribe</FooterLink>
        </Small>
      }
    >
      <Section>
        <H2>What changed</H2>
        {events.map((event, i) => {
          const label = LABELS[event.type](event);
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: a static email, rendered once: the list never reorders.
            <P key={i} style={{ margin: '0 0 12px', ...wrapAnywhere }}>
              <span className={label.good ? cls.good : cls.bad} style={{ color: label.good ? color.good : color.bad, fontWeight: 700 }}>{`${label.word}: `}</span>
              {headlineOf(event, brandName)}
            </P>
          );
        })}
        {notProvided.map((line) => (
          <Small key={line}>{line}</Small>
        ))}
      </Section>
      <ActionButton href={reportUrl}>Open the full report</ActionButton>
    </EmailLayout>
  );
}

AlertEmail.PreviewProps = {
  brandName: 'Brightdesk',
  market: 'us',
  period: { from: '2026-11-17', to: '2026-11-23' },
  quietHours: '22:00–07:00',
  timezone: 'Europe/Berlin',
  events: [
    { type: 'visibility_moved', direction: 'down', score: 47.9, previous: 51.2, change: -3.3, noise: 1.4, period: { from: '2026-11-17', to: '2026-11-23' } },
    {
      type: 'question_lost',
      question: { id: 1101001, text: 'What is the best help desk software for a growing support team this year?', topic: 'Help desk software' },
      engine: 'chatgpt',
      engine_label: 'ChatGPT',
      before: 'recommended',
      now: 'absent',
      runs_before: 7,
      runs_now: 7,
    },
    { type: 'rival_overtook', topic: { id: 1101, name: 'Help desk software' }, rival: 'Helpwave', rival_share: 41.2, brand_share: 38.5, previous_rival_share: 36.0 },
    {
      type: 'question_won',
      question: { id: 1101004, text: 'Helpwave vs Ticketly: which is better?', topic: 'Comparisons' },
      engine: 'perplexity',
      engine_label: 'Perplexity',
      before: 'absent',
      now: 'mentioned',
      runs_before: 6,
      runs_now: 7,
    },
  ],
  reportUrl: `https://edge.example.com/r/v1.${'eyJwIjoicmVwb3J0IiwiYiI6MSwibSI6InVzIiwiayI6IndlZWtseSJ9'.repeat(6)}.${'Q2xhaW1zU2lnbmF0dXJl'.repeat(2)}`,
  unsubscribeUrl: `https://edge.example.com/digests/unsubscribe?token=v1.${'eyJwIjoidW5zdWJzY3JpYmUiLCJzIjoic3ViXzEifQ'.repeat(8)}.${'U2lnbmF0dXJlQmFzZTY0'.repeat(2)}`,
} satisfies AlertEmailProps;

export default AlertEmail;
