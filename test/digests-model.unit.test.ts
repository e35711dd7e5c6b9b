/**
 * Units of the digests: the report model (noise, lead, empty states, subject)
 * over the demo's real bodies, the rendered HTML and text parts, every
 * template from its PreviewProps, the due-time rules and the signed tokens.
 */
import { describe, expect, it } from 'vitest';
import type { ResponseOf } from '../src/contract/operations';
import { renderConfirmation, renderDigest, renderPausedNotice } from '../src/mail/render';
import { canonicalTimeZone, dueWeek, isoWeek } from '../src/weekly-report/week';
import { seal, unseal } from '../src/lib/sealing';
import { buildReport, changeNoise, formatPeriod, type ReportInput, trendOf } from '../src/weekly-report/model';
import { signReportToken, signToken, verifyReportToken, verifyToken } from '../src/lib/signing';
import ConfirmSubscriptionEmail from '../emails/confirm-subscription';
import DigestEmail from '../emails/digest';
import PausedNoticeEmail from '../emails/paused-notice';
import fixture from '../emails/_fixtures/brightdesk-us.json';

const visibility = fixture.visibility as ResponseOf<'getVisibility'>;
const history = fixture.history as ResponseOf<'getAnswerHistory'>;
const topics = fixture.topics as ResponseOf<'listTopics'>;
const input = (over: Partial<ReportInput> = {}): ReportInput => ({
  brand: { id: 1, name: 'Brightdesk' },
  week: { isoWeek: '2026-W48', monday: '2026-11-23' },
  kinds: ['visibility', 'won_lost'],
  visibility,
  history,
  topics,
  ...over,
});
const links = { viewInBrowser: 'https://edge.test/r/tok', unsubscribe: 'https://edge.test/digests/unsubscribe?token=tok' };

describe('sampling noise', () => {
  it('is one standard error of the difference of two shares, in points', () => {
    // p1 = 42 %, n1 = 400; p0 = 40 %, n0 = 400: sqrt(.42*.58/400 + .4*.6/400) = 3.4771 points
    expect(changeNoise(42, 400, 40, 400)).toBeCloseTo(3.4771, 3);
    expect(changeNoise(null, 400, 40, 400)).toBeNull();
    expect(changeNoise(42, 0, 40, 400)).toBeNull();
    expect(trendOf(2, 3.48)).toBe('steady');
    expect(trendOf(-3.5, 3.48)).toBe('down');
    expect(trendOf(3.5, 3.48)).toBe('up');
    expect(trendOf(null, null)).toBe('unknown');
  });
});

describe('the report model over the demo bodies', () => {
  const report = buildReport(input());

  it('shows a change within the noise as steady and says so in the subject', () => {
    // Worked by hand from the fixture: 56.9 % of 1,708 answered runs, the week before 56.8 % of 1,715.
    // noise = 100 * sqrt(.569 * .431 / 1708 + .568 * .432 / 1715) = 100 * sqrt(0.00014358 + 0.00014308) = 1.693 points;
    // the change, +0.1, is under it: steady.
    expect(report.visibility).toEqual(expect.objectContaining({ score: 56.9, previous: 56.8, change: 0.1, noise: 1.69, trend: 'steady', answered_runs: 1708 }));
    expect(report.subject).toBe('Brightdesk: AI visibility 56.9% (steady) · 7 won, 10 lost · week of 16 Nov');
  });

  it('shows a change beyond the noise with its sign: the issue\'s example', () => {
    // 42.0 % of 1,000 against 38.9 % of 1,000: noise = 100 * sqrt(.42 * .58 / 1000 + .389 * .611 / 1000) = 2.19 points < 3.1.
    const points = visibility.history.map((p, i, all) => (i === all.length - 2 ? { ...p, score: 38.9, answered_runs: 1000 } : i === all.length - 1 ? { ...p, score: 42, answered_runs: 1000 } : p));
    const acme = buildReport(
      input({
        brand: { id: 9, name: 'Acme' },
        visibility: { ...visibility, score: 42, change: 3.1, answered_runs: 1000, naming_runs: 420, history: points },
        history: { ...history, counts: { won: 4, lost: 2, held: 36 } },
      }),
    );
    expect(acme.visibility).toEqual(expect.objectContaining({ noise: 2.19, trend: 'up' }));
    expect(acme.subject).toBe('Acme: AI visibility 42.0% (+3.1) · 4 won, 2 lost · week of 16 Nov');
  });

  it('leads with the biggest move, named: question, engines, rival; a loss before a gain of the same size', () => {
    // In the fixture, question 1102001 was won on two engines (2 -> 4) and 1105003, 1106003 and 1106005 were
    // lost on two (5 -> 3, 4 -> 2, 5 -> 3): a tie of size 2, which the loss with the lowest id leads. Its two
    // engines name one rival each (SupportHero, Ticketly): the first seen is named.
    expect(report.lead).toEqual({
      kind: 'loss',
      headline: 'Lost on Claude and Google AI Overviews: “Which help desk software is GDPR compliant and hosts data in the EU?” — SupportHero is named instead.',
      question: 'Which help desk software is GDPR compliant and hosts data in the EU?',
      engines: ['Claude', 'Google AI Overviews'],
      rival: 'SupportHero',
    });
  });

  it('leads with the loss of a tie even when the gain comes first by id', () => {
    const won = history.questions.find((q) => q.question_id === 1102001)!;
    const lost = history.questions.find((q) => q.question_id === 1106003)!;
    const tie = buildReport(input({ history: { ...history, counts: { won: 1, lost: 1, held: 0 }, questions: [won, lost] } }));
    expect(tie.lead).toEqual({
      kind: 'loss',
      headline: 'Lost on ChatGPT and Perplexity: “Is there a cheaper alternative to Ticketly?” — Helpwave is named instead.',
      question: 'Is there a cheaper alternative to Ticketly?',
      engines: ['ChatGPT', 'Perplexity'],
      rival: 'Helpwave',
    });
    // Without the loss, the gain leads.
    const gain = buildReport(input({ history: { ...history, counts: { won: 1, lost: 0, held: 0 }, questions: [won] } }));
    expect(gain.lead.headline).toBe('Won on ChatGPT and Gemini: “What is the best help desk software for a small team?”, ahead of Deskpilot.');
  });

  it('keeps the 12 weekly points, the counts, and the topics that moved most', () => {
    expect(report.visibility!.history.map((b) => b.score)).toEqual(visibility.history.map((p) => p.score));
    expect(report.visibility!.history.at(-1)).toEqual({ week_start: '2026-11-16', week_end: '2026-11-22', label: '16 Nov', score: 56.9, answered_runs: 1708 });
    expect(report.won_lost!.counts).toEqual({ won: 7, lost: 10, held: 25 });
    expect(report.won_lost!.won).toHaveLength(7);
    expect(report.won_lost!.lost).toHaveLength(10);
    // The fixture's topic changes: +2.1, +1.2, +3.9, -4.0, -1.3, -1.4; the three largest in size, largest first.
    expect(report.topics.map((t) => [t.name, t.change])).toEqual([
      ['Integrations and automation', -4],
      ['Pricing and value', 3.9],
      ['Best help desk software overall', 2.1],
    ]);
  });

  it('is about the 7 days the bodies cover, and names their first day, whatever week it was planned for', () => {
    // The fixture was read on Sunday 22 Nov: the fixed windows are 16 to 22 Nov; planned for the week of Monday 23 Nov.
    expect(report.period).toEqual({ from: '2026-11-16', to: '2026-11-22' });
    expect(report.week).toEqual({ iso: '2026-W48', monday: '2026-11-23', label: '16 Nov' });
    expect(formatPeriod(report.period)).toBe('16–22 Nov');
    expect(formatPeriod({ from: '2026-11-26', to: '2026-12-02' })).toBe('26 Nov–2 Dec');
  });

  it('follows the kinds: won_lost only has no visibility section and a shorter subject', () => {
    const only = buildReport(input({ kinds: ['won_lost'] }));
    expect(only.visibility).toBeNull();
    expect(only.subject).toBe(`Brightdesk: ${history.counts.won} won, ${history.counts.lost} lost · week of 16 Nov`);
    expect(buildReport(input({ kinds: ['visibility'] })).won_lost).toBeNull();
  });

  it('says so honestly when nothing changed, and flags nothing measured', () => {
    const quiet = buildReport(
      input({
        kinds: ['won_lost'],
        history: { ...history, counts: { won: 0, lost: 0, held: 42 }, questions: history.questions.map((q) => ({ ...q, outcome: 'held' as const, moved: [] })) },
      }),
    );
    expect(quiet.empty).toBe('nothing_changed');
    expect(quiet.lead.headline).toBe('Nothing changed for Brightdesk this week: no question was won or lost.');
    const nothing = buildReport(input({ visibility: { ...visibility, score: null, change: null, answered_runs: 0, naming_runs: 0, history: visibility.history.map((p) => ({ ...p, score: null, answered_runs: 0 })) } }));
    expect(nothing.empty).toBe('nothing_measured');
  });
});

describe('rendering', () => {
  it('renders HTML and text from the same template, with the figures, the links and an accessible frame', async () => {
    const report = buildReport(input());
    const { html, text, subject } = await renderDigest({ report, links });
    expect(subject).toBe(report.subject);
    expect(html).toMatch(/<html[^>]* lang="en"/);
    expect(html).not.toMatch(/<img|<svg/i);
    for (const part of [html, text]) {
      expect(part).toContain(`${visibility.score!.toFixed(1)}%`);
      expect(part).toContain(`${history.counts.won} won`);
      expect(part).toContain(links.unsubscribe);
      expect(part).toContain(links.viewInBrowser);
    }
    // The chart: 12 bars as table cells in HTML, a plain list in text.
    expect(html).toMatch(/<table[^>]*data-skip-in-text="true"/);
    for (const point of visibility.history) expect(text).toContain(`Week from ${point.week_start.slice(8).replace(/^0/, '')} `);
    expect(text).not.toMatch(/<[a-z]/i);
  });

  it('renders every template from its PreviewProps', async () => {
    expect((await renderDigest(DigestEmail.PreviewProps)).html).toContain('Brightdesk');
    expect((await renderConfirmation(ConfirmSubscriptionEmail.PreviewProps)).text).toContain(ConfirmSubscriptionEmail.PreviewProps.confirmUrl);
    expect((await renderPausedNotice(PausedNoticeEmail.PreviewProps)).text).toContain('revoked');
  });
});

describe('due time', () => {
  it('is Monday 08:00 local, caught up until Tuesday 07:59, in the ISO week of that Monday', () => {
    expect(dueWeek(new Date('2026-11-23T08:00:00Z'), 'UTC')).toEqual({ isoWeek: '2026-W48', monday: '2026-11-23' });
    expect(dueWeek(new Date('2026-11-23T07:59:00Z'), 'UTC')).toBeNull();
    expect(dueWeek(new Date('2026-11-24T07:59:00Z'), 'UTC')).toEqual({ isoWeek: '2026-W48', monday: '2026-11-23' });
    expect(dueWeek(new Date('2026-11-24T08:00:00Z'), 'UTC')).toBeNull();
    expect(dueWeek(new Date('2026-11-23T13:00:00Z'), 'America/New_York')).toEqual({ isoWeek: '2026-W48', monday: '2026-11-23' });
    expect(dueWeek(new Date('2026-11-23T12:00:00Z'), 'America/New_York')).toBeNull();
    // Sunday 23:00 UTC is Monday 08:00 in Tokyo.
    expect(dueWeek(new Date('2026-11-22T23:00:00Z'), 'Asia/Tokyo')).toEqual({ isoWeek: '2026-W48', monday: '2026-11-23' });
    // Summer time: 08:00 in Berlin is 06:00 UTC in July.
    expect(dueWeek(new Date('2026-07-06T06:00:00Z'), 'Europe/Berlin')).toEqual({ isoWeek: '2026-W28', monday: '2026-07-06' });
    expect(dueWeek(new Date('2026-07-06T05:00:00Z'), 'Europe/Berlin')).toBeNull();
  });

  it('computes ISO weeks across year ends', () => {
    expect(isoWeek('2026-11-23')).toBe('2026-W48');
    expect(isoWeek('2026-12-28')).toBe('2026-W53');
    expect(isoWeek('2027-01-04')).toBe('2027-W01');
    expect(isoWeek('2025-12-29')).toBe('2026-W01');
  });

  it('accepts IANA names only', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('America/Argentina/Buenos_Aires')).toMatch(/Buenos_Aires$/);
    for (const bad of ['Mars/Olympus', '+02:00', 'CET ', '', 'Europe/Berlin; DROP']) expect(canonicalTimeZone(bad)).toBeNull();
  });
});

describe('tokens and sealed keys', () => {
  it('signs report links over brand, market, kind and expiry', async () => {
    const now = new Date('2026-11-23T08:00:00Z');
    const token = await signReportToken('secret', { brandId: 1, market: 'US', kind: 'weekly', ref: 'sub:sub_1' }, { now, ttlSeconds: 60 });
    const ok = await verifyReportToken('secret', token, now);
    expect(ok).toEqual({ ok: true, claims: { p: 'report', b: 1, m: 'us', k: 'weekly', r: 'sub:sub_1', exp: Date.parse('2026-11-23T08:01:00Z') / 1000 } });
    expect(await verifyReportToken('secret', token, new Date('2026-11-23T08:01:00Z'))).toEqual({ ok: false, reason: 'expired' });
    expect(await verifyReportToken('other', token, now)).toEqual({ ok: false, reason: 'forged' });
    const unsubscribe = await signToken('secret', { p: 'unsubscribe', s: 'sub_1' }, { ttlSeconds: 60, now });
    expect(await verifyReportToken('secret', unsubscribe, now)).toEqual({ ok: false, reason: 'wrong_purpose' });
    expect(await verifyToken('secret', 'v1.%%%.x', 'confirm', now)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses every spelling of a token but the one it signed', async () => {
    const now = new Date('2026-11-23T08:00:00Z');
    const token = await signToken('secret', { p: 'confirm', s: 'sub_1' }, { ttlSeconds: 60, now });
    // The signature's last base64url character carries 2 unused bits: flipping one of them decodes to the same
    // bytes. Every such variant, and every other change of that character, is refused.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const variants = [...alphabet].filter((c) => c !== token.at(-1)).map((c) => token.slice(0, -1) + c);
    const results = await Promise.all(variants.map((v) => verifyToken('secret', v, 'confirm', now)));
    expect(results.filter((r) => r.ok)).toEqual([]);
    expect((await verifyToken('secret', token, 'confirm', now)).ok).toBe(true);
  });

  it('seals API keys with AES-GCM bound to the subscription', async () => {
    const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
    const sealed = await seal(key, 'demo_pro_single', 'sub_a');
    expect(sealed).not.toContain('demo_pro_single');
    expect(await unseal(key, sealed, 'sub_a')).toBe('demo_pro_single');
    expect(await unseal(key, sealed, 'sub_b')).toBeNull();
    expect(await seal(key, 'demo_pro_single', 'sub_a')).not.toBe(sealed);
  });
});
