/**
 * Double opt-in: the only email sent to an address before its owner confirms.
 * The signed link is long and has no spaces: where it is written out, it
 * wraps anywhere, so the email stays within 375 px; the text part has it once
 * (the button's), since the written-out copy is left out of it.
 */
import { ActionButton, EmailLayout, FooterLink, P, Small } from './_components/layout';
import { wrapAnywhere } from './_components/theme';

export interface ConfirmSubscriptionEmailProps {
  brandName: string;
  market: string;
  kinds: ('visibility' | 'won_lost')[];
  timezone: string;
  confirmUrl: string;
  /** The signed unsubscribe link: this address gets nothing more from this subscription. */
  unsubscribeUrl: string;
  /** How many days the link stays valid. */
  validDays: number;
}

const KIND_WORDS = { visibility: 'the AI visibility score and its trend', won_lost: 'the questions won and lost in AI answers' } as const;

export const confirmationSubject = (brandName: string) => `Confirm your weekly AI-visibility digest for ${brandName}`;

export function ConfirmSubscriptionEmail({ brandName, market, kinds, timezone, confirmUrl, unsubscribeUrl, validDays }: ConfirmSubscriptionEmailProps) {
  const what = kinds.map((k) => KIND_WORDS[k]).join(' and ');
  return (
    <EmailLayout
      title={confirmationSubject(brandName)}
      preview={`Confirm your weekly AI-visibility digest for ${brandName}: open the link, press Confirm, and it arrives on Mondays.`}
      heading={`Confirm your weekly digest for ${brandName}`}
      footer={
        <Small>
          {`If you did not ask for this, ignore this email: nothing more will be sent to this address unless the link is followed. It expires in ${validDays} days. `}
          <FooterLink href={unsubscribeUrl}>Unsubscribe</FooterLink>
        </Small>
      }
    >
      <P
        style={wrapAnywhere}
      >{`Someone (we hope you) asked to receive a weekly email about ${brandName} in market ${market.toUpperCase()}: ${what}. It arrives on Mondays at 08:00 (${timezone}).`}</P>
      <ActionButton href={confirmUrl}>Confirm the subscription</ActionButton>
      <Small skipInText>
        {'If the button does not work, open this link: '}
        <FooterLink href={confirmUrl}>{confirmUrl}</FooterLink>
      </Small>
    </EmailLayout>
  );
}

ConfirmSubscriptionEmail.PreviewProps = {
  brandName: 'Brightdesk Customer Service Cloud for Enterprise Teams',
  market: 'us',
  kinds: ['visibility', 'won_lost'],
  timezone: 'America/Argentina/Buenos_Aires',
  confirmUrl: `https://edge.example.com/digests/confirm?token=v1.${'eyJwIjoiY29uZmlybSIsInMiOiJzdWJfMDFKWlFYN0tNUjJQIn0'.repeat(6)}.${'Q29uZmlybVNpZ25hdHVyZQ'.repeat(2)}`,
  unsubscribeUrl: `https://edge.example.com/digests/unsubscribe?token=v1.${'eyJwIjoidW5zdWJzY3JpYmUiLCJzIjoic3ViXzEifQ'.repeat(8)}.${'U2lnbmF0dXJlQmFzZTY0'.repeat(2)}`,
  validDays: 7,
} satisfies ConfirmSubscriptionEmailProps;

export default ConfirmSubscriptionEmail;
