/**
 * The frame of every email: `lang`, a `<title>`, the viewport, both colour
 * schemes, the preview line, a header with a real `<h1>`, and a footer with
 * the links a reader needs. At most 600 px wide, and nothing in it is wider
 * than a 375 px phone: long words wrap (`wrapAnywhere`).
 */
import { Button } from '@react-email/button';
import { Container } from '@react-email/container';
import { Head } from '@react-email/head';
import { Heading } from '@react-email/heading';
import { Hr } from '@react-email/hr';
import { Html } from '@react-email/html';
import { Link } from '@react-email/link';
import { Preview } from '@react-email/preview';
import { Section } from '@react-email/section';
import { Text } from '@react-email/text';
import type { ReactNode } from 'react';
import { cls, color, font, OUTLOOK_STYLE, STYLE, text, wrapAnywhere } from './theme';

export interface EmailLayoutProps {
  /** BCP 47 language of the email. */
  lang?: string;
  /** The document's `<title>`: the subject. */
  title: string;
  preview: string;
  heading: string;
  /** A line under the heading: the days and market, or what the email is about. */
  subheading?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}

export function EmailLayout({ lang = 'en', title, preview, heading, subheading, children, footer }: EmailLayoutProps) {
  return (
    <Html lang={lang} dir="ltr">
      <Head>
        <title>{title}</title>
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="supported-color-schemes" content="light dark" />
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: constant style sheets of ours; React would escape the CSS otherwise. */}
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: as above. */}
        <style dangerouslySetInnerHTML={{ __html: OUTLOOK_STYLE }} />
      </Head>
      {/* Not React Email's <Body>: it copies the background onto a cell the dark scheme's class does not reach. */}
      <body className={cls.outer} style={{ backgroundColor: color.panel, margin: 0, padding: 0 }}>
        <Preview>{preview}</Preview>
        <table role="presentation" width="100%" border={0} cellPadding={0} cellSpacing={0} style={{ width: '100%' }}>
          <tbody>
            <tr>
              <td className={cls.outer} style={{ backgroundColor: color.panel, padding: '16px 0', fontFamily: font.family }}>
                <Container className={`${cls.page} frame`} style={{ backgroundColor: color.page, maxWidth: '600px', padding: '24px', border: `1px solid ${color.rule}` }}>
                  <Text className={cls.muted} style={{ ...text.small, textTransform: 'uppercase', letterSpacing: '0.06em', margin: '0 0 4px' }}>
                    Brand AI-Visibility
                  </Text>
                  <Heading as="h1" className={`${cls.ink} h1`} style={{ ...text.h1, ...wrapAnywhere }}>
                    {heading}
                  </Heading>
                  {subheading ? (
                    <Text className={cls.muted} style={{ ...text.small, margin: '0 0 16px' }}>
                      {subheading}
                    </Text>
                  ) : null}
                  {children}
                  {footer ? (
                    <>
                      <Hr className={cls.rule} style={{ borderColor: color.rule, margin: '28px 0 12px' }} />
                      <Section>{footer}</Section>
                    </>
                  ) : null}
                </Container>
              </td>
            </tr>
          </tbody>
        </table>
      </body>
    </Html>
  );
}

/** A second-level heading, `<h2>`. */
export function H2({ children }: { children: ReactNode }) {
  return (
    <Heading as="h2" className={cls.ink} style={text.h2}>
      {children}
    </Heading>
  );
}

/** Body text. */
export function P({ children, style }: { children: ReactNode; style?: React.CSSProperties }) {
  return (
    <Text className={cls.ink} style={{ ...text.body, ...style }}>
      {children}
    </Text>
  );
}

/** Small, muted text. `skipInText`: left out of the text part (it repeats what the text part says elsewhere). */
export function Small({ children, style, skipInText }: { children: ReactNode; style?: React.CSSProperties; skipInText?: boolean }) {
  return (
    <Text className={cls.muted} style={{ ...text.small, ...style }} {...(skipInText ? { 'data-skip-in-text': 'true' } : {})}>
      {children}
    </Text>
  );
}

export function FooterLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Link href={href} className={cls.link} style={{ color: color.link, textDecoration: 'underline', ...wrapAnywhere }}>
      {children}
    </Link>
  );
}

/** The one button of an email: a link styled as a button, which every client shows (no images, no VML needed). */
export function ActionButton({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Section style={{ margin: '20px 0 8px' }}>
      <Button
        href={href}
        style={{
          backgroundColor: color.link,
          color: '#ffffff',
          padding: '12px 20px',
          borderRadius: '6px',
          fontFamily: font.family,
          fontWeight: 600,
          fontSize: '15px',
          lineHeight: '20px',
          textDecoration: 'none',
        }}
      >
        {children}
      </Button>
    </Section>
  );
}
