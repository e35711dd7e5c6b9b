/** The frame of every email: `lang`, the preview line, a header and a footer with the links a reader needs. */
import { Body, Container, Head, Hr, Html, Link, Preview, Section, Text } from '@react-email/components';
import type { ReactNode } from 'react';
import { color, font, text } from './theme';

export interface EmailLayoutProps {
  /** BCP 47 language of the email. */
  lang?: string;
  preview: string;
  heading?: string;
  children: ReactNode;
  footer?: ReactNode;
}

export function EmailLayout({ lang = 'en', preview, heading, children, footer }: EmailLayoutProps) {
  return (
    <Html lang={lang} dir="ltr">
      <Head>
        <meta name="color-scheme" content="light" />
        <meta name="supported-color-schemes" content="light" />
      </Head>
      <Preview>{preview}</Preview>
      <Body style={{ backgroundColor: color.panel, margin: 0, padding: '24px 0', fontFamily: font.family }}>
        <Container style={{ backgroundColor: color.page, maxWidth: '600px', padding: '24px', border: `1px solid ${color.rule}` }}>
          <Text style={{ ...text.small, textTransform: 'uppercase', letterSpacing: '0.06em', margin: '0 0 4px' }}>Brand AI-Visibility</Text>
          {heading ? <Text style={text.h1}>{heading}</Text> : null}
          {children}
          {footer ? (
            <>
              <Hr style={{ borderColor: color.rule, margin: '24px 0 12px' }} />
              <Section>{footer}</Section>
            </>
          ) : null}
        </Container>
      </Body>
    </Html>
  );
}

export function FooterLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Link href={href} style={{ color: color.link, textDecoration: 'underline' }}>
      {children}
    </Link>
  );
}
