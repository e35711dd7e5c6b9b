/** Sent once when a subscription is paused because its API key no longer reads the brand. */
import { Text } from '@react-email/components';
import { EmailLayout, FooterLink } from './_components/layout';
import { text } from './_components/theme';

export interface PausedNoticeEmailProps {
  brandName: string;
  market: string;
  /** The API's error code, e.g. `invalid_api_key` or `plan_inactive`. */
  reason: string;
  /** Where to subscribe again (the API docs or the app). */
  resubscribeHint: string;
  unsubscribeUrl: string;
}

const REASONS: Record<string, string> = {
  invalid_api_key: 'the API key it was created with has been revoked or is no longer valid',
  plan_inactive: 'the plan of the account is no longer active',
  feature_not_in_plan: 'the plan of the account no longer includes this data',
};

export function PausedNoticeEmail({ brandName, market, reason, resubscribeHint, unsubscribeUrl }: PausedNoticeEmailProps) {
  const why = REASONS[reason] ?? `the API refused to read it (${reason})`;
  return (
    <EmailLayout
      preview={`Your weekly digest for ${brandName} is paused`}
      heading={`Your weekly digest for ${brandName} is paused`}
      footer={
        <Text style={text.small}>
          {'Do not want to hear about it again? '}
          <FooterLink href={unsubscribeUrl}>Unsubscribe</FooterLink>
        </Text>
      }
    >
      <Text style={text.body}>{`We could not build this week's digest for ${brandName} (market ${market.toUpperCase()}) because ${why}.`}</Text>
      <Text style={text.body}>{`No more digests will be sent to this address until it is subscribed again with a valid key. ${resubscribeHint}`}</Text>
      <Text style={text.small}>This is the only notice you will get about it.</Text>
    </EmailLayout>
  );
}

PausedNoticeEmail.PreviewProps = {
  brandName: 'Brightdesk',
  market: 'us',
  reason: 'invalid_api_key',
  resubscribeHint: 'Subscribe again with POST /digests/subscriptions and a current API key.',
  unsubscribeUrl: 'http://localhost:8787/digests/unsubscribe?token=preview-token',
} satisfies PausedNoticeEmailProps;

export default PausedNoticeEmail;
