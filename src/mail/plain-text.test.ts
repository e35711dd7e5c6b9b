/**
 * The emails' text part (src/mail/plain-text.ts) is what React Email's
 * `toPlainText` gives for the same HTML, with the selectors the mail used
 * with it (headings as written): on every template's preview, on the digest
 * of each kind and fixture, and on content drawn by a seeded generator
 * (fast-check) of what a service and a person can put in an email: brand
 * names, question texts, topics and rivals with markup characters, entities,
 * quotes, runs of whitespace, non-Latin scripts and links.
 * What the generator leaves out: lists and data tables (no template writes
 * one), and HTML the templates do not render (React writes every element).
 */
import { toPlainText } from '@react-email/render';
import fc from 'fast-check';
import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { AlertEmail, type AlertEmailProps } from '../../emails/alert';
import { ConfirmSubscriptionEmail } from '../../emails/confirm-subscription';
import { DigestEmail, type DigestEmailProps } from '../../emails/digest';
import { PausedNoticeEmail } from '../../emails/paused-notice';
import { decodeEntities, plainText, tidyText } from './plain-text';
import { renderHtml } from './templates';

const HEADINGS_AS_WRITTEN = ['h1', 'h2', 'h3'].map((selector) => ({ selector, options: { uppercase: false } }));
const oracle = (html: string) => tidyText(toPlainText(html, { selectors: HEADINGS_AS_WRITTEN }));
const ours = (html: string) => tidyText(plainText(html));

const digest = DigestEmail.PreviewProps as DigestEmailProps;
const alert = AlertEmail.PreviewProps as AlertEmailProps;

describe('the text part', () => {
  it("is toPlainText's on every template's preview", async () => {
    for (const [component, props] of [
      [DigestEmail, digest],
      [AlertEmail, alert],
      [ConfirmSubscriptionEmail, ConfirmSubscriptionEmail.PreviewProps],
      [PausedNoticeEmail, PausedNoticeEmail.PreviewProps],
    ] as const) {
      const html = await renderHtml(createElement(component as never, props as never));
      expect(ours(html)).toBe(oracle(html));
    }
  });

  it("is toPlainText's on the digest of each kind, with and without its parts", async () => {
    const { report } = digest;
    const variants = [
      { ...report, kinds: ['visibility'] as typeof report.kinds, won_lost: null },
      { ...report, kinds: ['won_lost'] as typeof report.kinds, visibility: null },
      { ...report, plan: null, engines: [] },
      { ...report, empty: 'nothing_measured' as const },
    ];
    for (const variant of variants) {
      const html = await renderHtml(createElement(DigestEmail, { ...digest, report: variant }));
      expect(ours(html)).toBe(oracle(html));
    }
  });

  it("is toPlainText's for whatever words a service or a person puts in (fast-check, seeded)", async () => {
    const words = fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
      fc.constantFrom('<b>bold</b>', 'A & B', '"quoted" \'single\'', '  spaced   out  ', 'tab\there', 'line\nbreak', '&amp; &lt;', 'Ünïcödé — 東京 — مرحبا', 'https://example.com/a?b=1&c=2'),
    );
    await fc.assert(
      fc.asyncProperty(words, words, words, async (brand, question, rival) => {
        const { report } = digest;
        const lost = report.won_lost!.top_lost.map((q) => ({ ...q, text: question }));
        const renamed = {
          ...report,
          brand: { ...report.brand, name: brand.trim() || 'B' },
          lead: { ...report.lead, headline: `${brand} ${question}` },
          won_lost: { ...report.won_lost!, top_lost: lost },
        };
        const digestHtml = await renderHtml(createElement(DigestEmail, { ...digest, report: renamed }));
        expect(ours(digestHtml)).toBe(oracle(digestHtml));
        const alertHtml = await renderHtml(
          createElement(AlertEmail, {
            ...alert,
            brandName: brand,
            events: alert.events.map((e) => ('question' in e ? { ...e, question: { ...e.question, text: question } } : 'rival' in e ? { ...e, rival } : e)) as never,
          }),
        );
        expect(ours(alertHtml)).toBe(oracle(alertHtml));
      }),
      { seed: 28, numRuns: 40 },
    );
  });
});

describe('decodeEntities', () => {
  it('reads the references React writes and leaves anything else as it is', () => {
    expect(decodeEntities('&amp;&lt;&gt;&quot;&#x27;&#39;&#8203;&nbsp;&bogus;&#0;')).toBe("&<>\"''\u200b\u00a0&bogus;&#0;");
  });
});
