/**
 * Renders the emails (loaded by render.ts at the first email): HTML with React
 * Email, and the plain-text part converted from that same HTML
 * (`plainText`, what React Email's `toPlainText` gives: plain-text.ts says
 * why it is not the library itself), so the two parts can never disagree.
 * Blocks marked `data-skip-in-text` (the chart's cells, the engine table, a
 * link the text part has elsewhere) are left out of the text part; blocks
 * styled `textOnly` are hidden in HTML and carry the text part's equivalent.
 * The text part names each link once: where a template writes a link twice
 * (a button and the same address written out, a header link and the button),
 * the repeat is marked `data-skip-in-text`.
 */
import { createElement, type ReactElement, Suspense } from 'react';
import { prerender } from 'react-dom/static.edge';
import { plainText, tidyText } from './plain-text';
import { AlertEmail, type AlertEmailProps, alertEmailSubject } from '../../emails/alert';
import { ConfirmSubscriptionEmail, type ConfirmSubscriptionEmailProps, confirmationSubject } from '../../emails/confirm-subscription';
import { DigestEmail, type DigestEmailProps } from '../../emails/digest';
import { PausedNoticeEmail, type PausedNoticeEmailProps, pausedSubject } from '../../emails/paused-notice';

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

/** The doctype React Email gives every email. */
const XHTML_DOCTYPE = '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">';

/**
 * The HTML that React Email's `render` gives on workerd, from React's static
 * prerender, which waits for the whole tree as an email needs. Not `render`
 * itself: its module brings prettier (for its `pretty` option) and React's
 * `server.edge` entry, which carries the legacy string renderer too, 600 KiB
 * that `react-dom/static.edge` leaves out (test/mail.unit.test.ts compares).
 */
export async function renderHtml(element: ReactElement): Promise<string> {
  // Inside Suspense, as React Email renders it: the same markers, so the same bytes (a retried batch sends what it first sent).
  // An error inside the boundary does not reject the prerender (React would leave it to a browser): it fails the email here.
  let failure: { error: unknown } | undefined;
  const { prelude } = await prerender(createElement(Suspense, null, element), { onError: (error) => void (failure ??= { error }) });
  if (failure) throw failure.error;
  const html = await new Response(prelude).text();
  return XHTML_DOCTYPE + html.replace(/<!DOCTYPE.*?>/, '');
}

async function renderBoth(element: ReactElement, subject: string): Promise<RenderedEmail> {
  const html = await renderHtml(element);
  return { subject, html, text: tidyText(plainText(html)) };
}

export function renderDigest(props: DigestEmailProps): Promise<RenderedEmail> {
  return renderBoth(createElement(DigestEmail, props), props.report.subject);
}

export function renderConfirmation(props: ConfirmSubscriptionEmailProps): Promise<RenderedEmail> {
  return renderBoth(createElement(ConfirmSubscriptionEmail, props), confirmationSubject(props.offer));
}

export function renderPausedNotice(props: PausedNoticeEmailProps): Promise<RenderedEmail> {
  return renderBoth(createElement(PausedNoticeEmail, props), pausedSubject(props.brandName));
}

export function renderAlert(props: AlertEmailProps): Promise<RenderedEmail> {
  return renderBoth(createElement(AlertEmail, props), alertEmailSubject(props));
}
