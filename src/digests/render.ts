/**
 * Renders the emails: HTML with React Email, and the plain-text part converted
 * from that same HTML (`toPlainText`), so the two parts can never disagree.
 * Blocks marked `data-skip-in-text` (the chart's bars) are left out of the
 * text part; blocks styled `textOnly` are hidden in HTML and carry the text
 * part's equivalent.
 */
import { render, toPlainText } from '@react-email/render';
import { createElement } from 'react';
import { ConfirmSubscriptionEmail, type ConfirmSubscriptionEmailProps } from '../../emails/confirm-subscription';
import { DigestEmail, type DigestEmailProps } from '../../emails/digest';
import { PausedNoticeEmail, type PausedNoticeEmailProps } from '../../emails/paused-notice';
import type { DigestKind, Report } from '../reports/model';
import type { DigestDeps } from './deps';
import type { OutgoingEmail } from './mailer';
import { kindsOf, reportUrl, type SubscriptionRow, unsubscribeHeaders, unsubscribeUrl } from './store';

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

async function renderBoth(element: React.ReactElement, subject: string): Promise<RenderedEmail> {
  const html = await render(element);
  const text = toPlainText(html).replace(/[\u200c\u200b\u034f\u2060\u00ad\ufeff]/g, '').replace(/^\s+/, '').replace(/\n{3,}/g, '\n\n');
  return { subject, html, text };
}

export function renderDigest(props: DigestEmailProps): Promise<RenderedEmail> {
  return renderBoth(createElement(DigestEmail, props), props.report.subject);
}

export function renderConfirmation(props: ConfirmSubscriptionEmailProps): Promise<RenderedEmail> {
  return renderBoth(createElement(ConfirmSubscriptionEmail, props), `Confirm your weekly AI-visibility digest for ${props.brandName}`);
}

export function renderPausedNotice(props: PausedNoticeEmailProps): Promise<RenderedEmail> {
  return renderBoth(createElement(PausedNoticeEmail, props), `Paused: your weekly digest for ${props.brandName}`);
}

/** Link stand-ins in the rendered template, replaced by each recipient's own links. */
const PLACEHOLDER = { unsubscribe: 'https://placeholder.invalid/unsubscribe', report: 'https://placeholder.invalid/report' } as const;

/**
 * Digest emails for many recipients: the template renders once per kinds
 * variant (rendering is the costly part), then each recipient gets their own
 * signed unsubscribe and report links and the RFC 8058 headers.
 */
export function digestEmails(deps: Pick<DigestDeps, 'publicUrl' | 'signingSecret' | 'now' | 'from'>, reportFor: (kinds: DigestKind[]) => Report) {
  const rendered = new Map<string, RenderedEmail>();
  /** `issuedAt` signs the links (now by default); the same time gives the same email, byte for byte. */
  return async (row: SubscriptionRow, entityRef: string, issuedAt: Date = deps.now()): Promise<OutgoingEmail> => {
    const kinds = kindsOf(row);
    const variant = kinds.join(',');
    let mail = rendered.get(variant);
    if (!mail) {
      mail = await renderDigest({ report: reportFor(kinds), links: { unsubscribe: PLACEHOLDER.unsubscribe, viewInBrowser: PLACEHOLDER.report } });
      rendered.set(variant, mail);
    }
    const unsubscribe = await unsubscribeUrl(deps, row.id, issuedAt);
    const report = await reportUrl(deps, row, issuedAt);
    const personal = (text: string) => text.replaceAll(PLACEHOLDER.unsubscribe, unsubscribe).replaceAll(PLACEHOLDER.report, report);
    return {
      kind: 'digest',
      from: deps.from,
      to: row.email,
      subject: mail.subject,
      html: personal(mail.html),
      text: personal(mail.text),
      headers: { ...unsubscribeHeaders(unsubscribe, deps.from), 'X-Entity-Ref-ID': entityRef },
    };
  };
}

