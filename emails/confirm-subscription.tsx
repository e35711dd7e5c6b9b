/**
 * Double opt-in: the only email sent to an address before its owner confirms.
 * It says what the subscription brings, in the words its pages use
 * (`subscriptionWords`): the weekly digest, change alerts, or both.
 * The signed link is long and has no spaces: where it is written out, it
 * wraps anywhere, so the email stays within 375 px; the text part has it once
 * (the button's), since the written-out copy is left out of it.
 */
import { type SubscriptionOffer, subscriptionWords } from '../src/weekly-report/subscription-words';
import { ActionButton, EmailLayout, FooterLink, P, Small } from './_components/layout';
import { wrapAnywhere } from './_components/theme';

export interface ConfirmSubscriptionEmailProps {
  /** What is confirmed: its brand, market, digest parts, alerts and where it goes. */
  offer: SubscriptionOffer;
  confirmUrl: string;
  /** The signed unsubscribe link: this address gets nothing more from this subscription. */
  unsubscribeUrl: string;
  /** How many days the link stays valid. */
  validDays: number;
}

export const confirmationSubject = (offer: SubscriptionOffer) => subscriptionWords(offer).subject;

export function ConfirmSubscriptionEmail({ offer, confirmUrl, unsubscribeUrl, validDays }: ConfirmSubscriptionEmailProps) {
  const words = subscriptionWords(offer);
  return (
    <EmailLayout
      title={words.subject}
      preview={`${words.subject}: press the button to start; nothing is sent before.`}
      heading={`Confirm your ${words.name} for ${offer.brandName}`}
      footer={
        <Small>
          {`If you did not ask for this, ignore this email: nothing more will be sent to this address unless the link is followed. It expires in ${validDays} days. `}
          <FooterLink href={unsubscribeUrl}>Unsubscribe</FooterLink>
        </Small>
      }
    >
      <P style={wrapAnywhere}>{`Someone (we hope you) asked for ${words.what}, ${words.when}.`}</P>
      {words.contents.map((sentence) => (
        <P key={sentence}>{sentence}</P>
      ))}
      <ActionButton href={confirmUrl}>{words.confirmLabel}</ActionButton>
      <Small skipInText>
        {'If the button does not work, open this link: '}
        <FooterLink href={confirmUrl}>{confirmUrl}</FooterLink>
      </Small>
    </EmailLayout>
  );
}

ConfirmSubscriptionEmail.PreviewProps = {
  offer: {
    brandName: 'Brightdesk Customer Service Cloud for Enterprise Teams',
    market: 'us',
    timezone: 'America/Argentina/Buenos_Aires',
    digest: ['visibility', 'won_lost'],
    alerts: null,
    to: 'ana.long-address-for-testing@customer-service-enterprise.example.com',
  },
  confirmUrl: `https://edge.example.com/digests/confirm?token=v1.${'eyJwIjoiY29uZmlybSIsInMiOiJzdWJfMDFKWlFYN0tNUjJQIn0'.repeat(6)}.${'Q29uZmlybVNpZ25hdHVyZQ'.repeat(2)}`,
  unsubscribeUrl: `https://edge.example.com/digests/unsubscribe?token=v1.${'eyJwIjoidW5zdWJzY3JpYmUiLCJzIjoic3ViXzEifQ'.repeat(8)}.${'U2lnbmF0dXJlQmFzZTY0'.repeat(2)}`,
  validDays: 7,
} satisfies ConfirmSubscriptionEmailProps;

export default ConfirmSubscriptionEmail;
