/** Double opt-in: the only email sent to an address before its owner confirms. */
import { Button, Section, Text } from '@react-email/components';
import { EmailLayout, FooterLink } from './_components/layout';
import { color, text, textOnly } from './_components/theme';

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

export function ConfirmSubscriptionEmail({ brandName, market, kinds, timezone, confirmUrl, unsubscribeUrl, validDays }: ConfirmSubscriptionEmailProps) {
  const what = kinds.map((k) => KIND_WORDS[k]).join(' and ');
  return (
    <EmailLayout
      preview={`Confirm your weekly AI-visibility digest for ${brandName}`}
      heading={`Confirm your weekly digest for ${brandName}`}
      footer={
        <Text style={text.small}>
          {`If you did not ask for this, ignore this email: nothing more will be sent to this address unless the link is followed. It expires in ${validDays} days. `}
          <FooterLink href={unsubscribeUrl}>Unsubscribe</FooterLink>
        </Text>
      }
    >
      <Text style={text.body}>{`Someone (we hope you) asked to receive a weekly email about ${brandName} in market ${market.toUpperCase()}: ${what}. It arrives on Mondays at 08:00 (${timezone}).`}</Text>
      <Section style={{ margin: '16px 0' }}>
        <Button href={confirmUrl} style={{ backgroundColor: color.link, color: '#ffffff', padding: '12px 20px', fontWeight: 600, fontSize: '15px', textDecoration: 'none' }}>
          Confirm the subscription
        </Button>
      </Section>
      <Text style={text.small}>
        {'Or open this link: '}
        <FooterLink href={confirmUrl}>{confirmUrl}</FooterLink>
      </Text>
      <div style={textOnly}>
        <Text style={text.small}>{`Confirm: ${confirmUrl}`}</Text>
      </div>
    </EmailLayout>
  );
}

ConfirmSubscriptionEmail.PreviewProps = {
  brandName: 'Brightdesk',
  market: 'us',
  kinds: ['visibility', 'won_lost'],
  timezone: 'Europe/Berlin',
  confirmUrl: 'http://localhost:8787/digests/confirm?token=preview-token',
  unsubscribeUrl: 'http://localhost:8787/digests/unsubscribe?token=preview-token',
  validDays: 7,
} satisfies ConfirmSubscriptionEmailProps;

export default ConfirmSubscriptionEmail;
