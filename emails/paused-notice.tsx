/**
 * Sent once when a subscription is paused because its API key no longer reads
 * the brand. It speaks to the reader, not to a developer: what changed, and
 * what to ask of whom to get the digest again.
 */
import { EmailLayout, FooterLink, P, Small } from './_components/layout';
import { wrapAnywhere } from './_components/theme';

export interface PausedNoticeEmailProps {
  brandName: string;
  market: string;
  /** The API's error code, e.g. `invalid_api_key` or `plan_inactive`. */
  reason: string;
  unsubscribeUrl: string;
}

/** Why, and what to ask the account's owner for, by the API's error code. */
const REASONS: Record<string, { why: string; ask: string }> = {
  invalid_api_key: { why: 'the API key the subscription was made with was revoked or replaced', ask: 'ask the owner of your Brand AI-Visibility account for a current API key' },
  plan_inactive: { why: 'the plan of the account is no longer active', ask: 'ask the owner of your Brand AI-Visibility account to reactivate its plan' },
  feature_not_in_plan: { why: 'the plan of the account no longer includes this data', ask: 'ask the owner of your Brand AI-Visibility account for a plan that includes it' },
};
const OTHER = { why: 'the key the subscription was made with can no longer read this brand', ask: 'ask the owner of your Brand AI-Visibility account for a current API key' };

export const pausedSubject = (brandName: string) => `Paused: your weekly digest for ${brandName}`;

export function PausedNoticeEmail({ brandName, market, reason, unsubscribeUrl }: PausedNoticeEmailProps) {
  const { why, ask } = REASONS[reason] ?? OTHER;
  return (
    <EmailLayout
      title={pausedSubject(brandName)}
      preview={`Your weekly digest for ${brandName} is paused: your access changed.`}
      heading={`Your weekly digest for ${brandName} is paused`}
      footer={
        <Small>
          {'Rather not get this digest again, even once access is back? '}
          <FooterLink href={unsubscribeUrl}>Unsubscribe</FooterLink>
        </Small>
      }
    >
      <P
        style={wrapAnywhere}
      >{`Your access to ${brandName} (market ${market.toUpperCase()}) changed: ${why}. So this week’s digest could not be prepared, and no more will be sent to this address for now.`}</P>
      <P>{`To get it again, ${ask}, then subscribe to the weekly digest again, the way you did the first time.`}</P>
      <Small>This is the only notice you will get about it.</Small>
    </EmailLayout>
  );
}

PausedNoticeEmail.PreviewProps = {
  brandName: 'Brightdesk Customer Service Cloud for Enterprise Teams',
  market: 'us',
  reason: 'invalid_api_key',
  unsubscribeUrl: `https://edge.example.com/digests/unsubscribe?token=v1.${'eyJwIjoidW5zdWJzY3JpYmUiLCJzIjoic3ViXzEifQ'.repeat(8)}.${'U2lnbmF0dXJlQmFzZTY0'.repeat(2)}`,
} satisfies PausedNoticeEmailProps;

export default PausedNoticeEmail;
