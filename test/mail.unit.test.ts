/**
 * The mailers, the one place mail leaves: header-bound fields never carry a
 * line break, whatever the data. And the HTML of every template is React
 * Email's own, though rendered without its `render` (src/mail/render.ts).
 */
import { render } from '@react-email/render';
import { env } from 'cloudflare:test';
import { createElement } from 'react';
import { Resend } from 'resend';
import { afterEach, expect, it, vi } from 'vitest';
import { AlertEmail } from '../emails/alert';
import { ConfirmSubscriptionEmail } from '../emails/confirm-subscription';
import { DigestEmail } from '../emails/digest';
import { PausedNoticeEmail } from '../emails/paused-notice';
import { headerValue, outboxMailer, resendMailer } from '../src/mail/mailer';
import { renderHtml } from '../src/mail/templates';
import { FakeResend, RESEND_BASE } from './digests-helpers';

afterEach(() => vi.unstubAllGlobals());

/** A brand name an account controls, trying to add a header and a body of its own. */
const INJECTED = 'Brightdesk\r\nBcc: victim@example.com\r\n\r\nClick here';
const email = {
  kind: 'digest' as const,
  from: 'Digest <digest@mail.example.com>',
  to: 'reader@example.com',
  subject: `${INJECTED}: visibility 56.8%`,
  html: '<p>hi</p>',
  text: 'hi',
  headers: { 'X-Entity-Ref-ID': `ref\n${INJECTED}` },
};

it('strips CR, LF and other control characters from a header value', () => {
  expect(headerValue(INJECTED)).toBe('Brightdesk Bcc: victim@example.com Click here');
  expect(headerValue('tab\there')).toBe('tab here');
});

it('Resend gets subjects and headers on one line', async () => {
  const resend = new FakeResend().install();
  const outcome = await resendMailer('re_test', { baseUrl: RESEND_BASE }).sendBatch([email], 'crlf/1');
  expect(outcome.ok).toBe(true);
  const [sent] = resend.calls[0]!.emails;
  expect(sent!.subject).toBe('Brightdesk Bcc: victim@example.com Click here: visibility 56.8%');
  expect(Object.values(sent!.headers ?? {}).join('')).not.toMatch(/[\r\n]/);
});

it("calls Resend's batch endpoint with both keys and a User-Agent, each email's fields in one order", async () => {
  const resend = new FakeResend().install();
  const outcome = await resendMailer('re_test', { baseUrl: RESEND_BASE }).sendBatch(
    [
      { ...email, subject: 'S', headers: { 'X-Entity-Ref-ID': 'ref' } },
      { ...email, subject: 'T', headers: undefined },
    ],
    'order/1',
  );
  expect(outcome).toEqual({ ok: true, ids: ['re_1', 're_2'] });
  const [call] = resend.calls;
  expect(call).toMatchObject({ path: '/emails/batch', idempotencyKey: 'order/1', authorization: 'Bearer re_test', userAgent: 'brand-ai-visibility-edge' });
  // A batch retried under its key must be the same bytes: the order of the fields is part of the contract.
  const fields = '"html":"<p>hi</p>","subject":"%s","tags":[{"name":"kind","value":"digest"}],"text":"hi","to":["reader@example.com"]';
  expect(call!.body).toBe(
    `[{"from":"Digest <digest@mail.example.com>","headers":{"X-Entity-Ref-ID":"ref"},${fields.replace('%s', 'S')}},{"from":"Digest <digest@mail.example.com>",${fields.replace('%s', 'T')}}]`,
  );
});

it("posts the bytes Resend's own SDK posts for the same batch (`batch.send`), with its batch validation", async () => {
  const emails = [
    { ...email, subject: 'S', headers: { 'X-Entity-Ref-ID': 'ref' } },
    { ...email, subject: 'T', headers: undefined },
  ];
  const ours = new FakeResend().install();
  await resendMailer('re_test', { baseUrl: RESEND_BASE }).sendBatch(emails, 'sdk/1');
  const sdk = new FakeResend().install();
  const seen: Request[] = [];
  const fake = globalThis.fetch;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push(new Request(input, init));
    return fake(input, init);
  });
  const answer = await new Resend('re_test', { baseUrl: RESEND_BASE }).batch.send(
    emails.map((e) => ({ from: e.from, to: [e.to], subject: e.subject, html: e.html, text: e.text, headers: e.headers, tags: [{ name: 'kind', value: e.kind }] })),
    { idempotencyKey: 'sdk/1' },
  );
  expect(answer.error).toBeNull();
  expect(sdk.calls[0]!.body).toBe(ours.calls[0]!.body);
  expect(seen[0]!.headers.get('x-batch-validation')).toBe('strict');
});

it('a Resend that cannot be reached is a retryable failure', async () => {
  vi.stubGlobal('fetch', () => Promise.reject(new TypeError('network down')));
  const outcome = await resendMailer('re_test', { baseUrl: RESEND_BASE }).sendBatch([email], 'down/1');
  expect(outcome).toMatchObject({ ok: false, retryable: true, status: null, code: 'application_error' });
});

it('the dev outbox stores them on one line too', async () => {
  const outcome = await outboxMailer(env.DB).sendBatch([email], `crlf/${crypto.randomUUID()}`);
  expect(outcome.ok).toBe(true);
  const row = await env.DB.prepare('SELECT subject, headers FROM digest_outbox WHERE id = ?')
    .bind(Number(outcome.ok && outcome.ids[0]!.replace('outbox_', '')))
    .first<{ subject: string; headers: string }>();
  expect(row!.subject).not.toMatch(/[\r\n]/);
  expect(Object.values(JSON.parse(row!.headers) as Record<string, string>).join('')).not.toMatch(/[\r\n]/);
});

it("renders each template's HTML exactly as React Email's render does", async () => {
  const elements = [
    createElement(DigestEmail, DigestEmail.PreviewProps),
    createElement(ConfirmSubscriptionEmail, ConfirmSubscriptionEmail.PreviewProps),
    createElement(PausedNoticeEmail, PausedNoticeEmail.PreviewProps),
    createElement(AlertEmail, AlertEmail.PreviewProps),
  ];
  for (const element of elements) expect(await renderHtml(element)).toBe(await render(element));
});

it('a template that throws fails the render, as with React Email', async () => {
  const Broken = () => {
    throw new Error('no report');
  };
  await expect(renderHtml(createElement(Broken))).rejects.toThrow('no report');
  await expect(render(createElement(Broken))).rejects.toThrow('no report');
});
