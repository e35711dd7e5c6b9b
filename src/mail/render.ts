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
