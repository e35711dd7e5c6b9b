/**
 * Units of the digests: the report model (noise, lead, subject, empty states,
 * per-engine figures, the chart's scale) over the demo's real bodies, the
 * words it writes figures with, the rendered HTML and text parts, every
 * template from its PreviewProps, the due-time rules and the signed tokens.
 */
import { describe, expect, it } from 'vitest';
import type { ResponseOf } from '../contract/operations';
import { renderConfirmation, renderDigest, renderPausedNotice } from '../mail/render';
import { canonicalTimeZone, dueWeek, isoWeek } from './week';
import { seal, unseal } from '../lib/sealing';
import { buildReport, changeNoise, chartScale, formatCount, formatDay, formatPeriod, formatRange, formatStamp, formatTrend, type QuestionMove, type ReportInput, topQuestions, trendOf } from './model';
import { signReportToken, signToken, verifyReportToken, verifyToken } from '../lib/signing';
import ConfirmSubscriptionEmail from '../../emails/confirm-subscription';
import DigestEmail from '../../emails/digest';
import PausedNoticeEmail from '../../emails/paused-notice';
import us from '../../emails/_fixtures/brightdesk-us.json';
import de from '../../emails/_fixtures/brightdesk-de.json';

/** The demo brand's bodies for market us, read from the reference origin on 23 Nov 2026 (`/prompts` included). */
const visibility = us.visibility as ResponseOf<'getVisibility'>;
const history = us.history as ResponseOf<'getAnswerHistory'>;
const topics = us.topics as ResponseOf<'listTopics'>;
const matrix = us.matrix as ResponseOf<'getPromptMatrix'>;
const input = (over: Partial<ReportInput> = {}): ReportInput => ({
  brand: { id: 1, name: 'Brightdesk' },
  week: { isoWeek: '2026-W48', monday: '2026-11-23' },
  kinds: ['visibility', 'won_lost'],
  visibility,
  history,
  topics,
  ...over,
});
/** The same brand in market de, the same days: its score fell 3.3 points. */
const german = (over: Partial<ReportInput> = {}): ReportInput =>
  input({
    visibility: de.visibility as ResponseOf<'getVisibility'>,
    history: de.history as ResponseOf<'getAnswerHistory'>,
    topics: de.topics as ResponseOf<'listTopics'>,
    ...over,
  });
/** No question won or lost: every question held, no engine moved. */
const allHeld = { ...history, counts: { won: 0, lost: 0, held: 42 }, questions: history.questions.map((q) => ({ ...q, outcome: 'held' as const, moved: [] })) };
/** No answered run in either week. */
const unmeasured = {
  ...visibility,
  score: null,
  change: null,
  answered_runs: 0,
  naming_runs: 0,
  history: visibility.history.map((p) => ({ ...p, score: null, answered_runs: 0 })),
};
const links = { viewInBrowser: `https://edge.test/r/v1.${'r'.repeat(300)}`, unsubscribe: `https://edge.test/digests/unsubscribe?token=v1.${'u'.repeat(300)}` };
/** How many times `needle` occurs in `haystack`. */
const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;
const URL = /https?:\/\/[^\s<>"]+/g;

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

describe('the words of the report', () => {
  it('writes one date format, numbers with separators, and changes with their unit', () => {
    expect(formatDay('2026-11-16')).toBe('16 Nov 2026');
    expect(formatRange({ from: '2026-11-16', to: '2026-11-22' })).toBe('16–22 Nov 2026');
    expect(formatRange({ from: '2026-11-26', to: '2026-12-02' })).toBe('26 Nov–2 Dec 2026');
    expect(formatRange({ from: '2026-12-29', to: '2027-01-04' })).toBe('29 Dec 2026–4 Jan 2027');
    expect(formatStamp('2026-11-23T16:16:49.575Z')).toBe('23 Nov 2026, 16:16 UTC');
    expect(formatCount(1719)).toBe('1,719');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatTrend(2.1, 'up')).toBe('+2.1 pts');
    expect(formatTrend(-3.3, 'down')).toBe('\u22123.3 pts');
    expect(formatTrend(0.2, 'steady')).toBe('steady');
    expect(formatTrend(null, 'unknown')).toBe('no comparison');
    // The page's short forms are unchanged.
    expect(formatPeriod({ from: '2026-11-26', to: '2026-12-02' })).toBe('26 Nov–2 Dec');
  });
});

describe('the report model over the demo bodies', () => {
  const report = buildReport(input());

  it('shows a change within the noise as steady', () => {
    // Worked by hand from the fixture: 56.8 % of 1,719 answered runs, the week before 56.6 % of 1,713.
    // noise = 100 * sqrt(.568 * .432 / 1719 + .566 * .434 / 1713) = 100 * sqrt(0.00014274 + 0.00014340) = 1.692 points;
    // the change, +0.2, is under it: steady.
    expect(report.visibility).toEqual(expect.objectContaining({ score: 56.8, previous: 56.6, change: 0.2, noise: 1.69, trend: 'steady', answered_runs: 1719 }));
  });

  it('a week with only question changes: the subject counts them, the lead names the brand and the biggest move the week’s way', () => {
    // Visibility is steady; 11 questions were lost and 10 won, so the week's direction is a loss: the subject says
    // the losses first and the lead is the question lost on most engines ("GDPR", 4 engines naming Brightdesk -> 2),
    // although a gain was bigger ("Helpwave vs Ticketly", 2 -> 5): a lead that cheered that gain under a subject of
    // losses would not agree with it.
    expect(report.empty).toBeNull();
    expect(report.subject).toBe('Brightdesk: AI visibility 56.8% (steady) · lost 11 questions, won 10 · 17–23 Nov 2026');
    expect(report.lead).toEqual({
      kind: 'loss',
      headline:
        'Brightdesk is no longer named by Perplexity and Google AI Overviews for “Which help desk software is GDPR compliant and hosts data in the EU?”; they name Ticketly and SupportHero instead.',
      question: 'Which help desk software is GDPR compliant and hosts data in the EU?',
      engines: ['Perplexity', 'Google AI Overviews'],
      rival: 'Ticketly',
    });
    // With the counts the other way, both turn: the gains first, and the biggest gain leads.
    const won = buildReport(input({ history: { ...history, counts: { won: 11, lost: 10, held: 21 } } }));
    expect(won.subject).toBe('Brightdesk: AI visibility 56.8% (steady) · won 11 questions, lost 10 · 17–23 Nov 2026');
    expect(won.lead).toEqual(expect.objectContaining({ kind: 'gain', question: 'Helpwave vs Ticketly: which is better?', engines: ['ChatGPT', 'Perplexity', 'Claude', 'Copilot'] }));
  });

  it('a week with a 3-point drop: the subject carries the drop in points, the lead the score and where it fell most', () => {
    // de: 47.9 % of 482 against 51.2 % of 490: noise = 100 * sqrt(.479 * .521 / 482 + .512 * .488 / 490) = 3.21 points,
    // under the 3.3-point drop. Topic "Beste Helpdesk-Software" (4 of 12 questions, n = 482 * 4 / 12 = 160.7) fell 6.0:
    // noise = 100 * sqrt(.516 * .484 / 160.7 + .576 * .424 / 160.7) = 5.54, so it fell beyond its noise too.
    const drop = buildReport(german());
    expect(drop.visibility).toEqual(expect.objectContaining({ score: 47.9, change: -3.3, noise: 3.21, trend: 'down' }));
    expect(drop.subject).toBe('Brightdesk: AI visibility 47.9% (\u22123.3 pts) · lost 4 questions, won 3 · 17–23 Nov 2026');
    expect(drop.lead).toEqual({
      kind: 'visibility_down',
      headline: 'Brightdesk’s AI visibility fell 3.3 points to 47.9%, with the largest fall in “Beste Helpdesk-Software” (\u22126.0 pts).',
    });
    // The issue's own example of a rise: 42.0 % of 1,000 against 38.9 % of 1,000, noise 2.19 < 3.1.
    const points = visibility.history.map((p, i, all) => (i === all.length - 2 ? { ...p, score: 38.9, answered_runs: 1000 } : i === all.length - 1 ? { ...p, score: 42, answered_runs: 1000 } : p));
    const acme = buildReport(
      input({
        brand: { id: 9, name: 'Acme' },
        kinds: ['visibility'],
        visibility: { ...visibility, score: 42, change: 3.1, answered_runs: 1000, naming_runs: 420, history: points },
      }),
    );
    expect(acme.visibility).toEqual(expect.objectContaining({ noise: 2.19, trend: 'up' }));
    expect(acme.subject).toBe('Acme: AI visibility 42.0% (+3.1 pts) · 17–23 Nov 2026');
    // No topic rose beyond its own noise (its n is a sixth of the runs), so none is named.
    expect(acme.lead.headline).toBe('Acme’s AI visibility rose 3.1 points to 42.0%.');
  });

  it('a quiet week: said in one line, in the subject and the lead', () => {
    const quiet = buildReport(input({ history: allHeld }));
    expect(quiet.empty).toBe('nothing_changed');
    expect(quiet.subject).toBe('Brightdesk: a quiet week · AI visibility 56.8% (steady) · 17–23 Nov 2026');
    expect(quiet.lead).toEqual({ kind: 'steady', headline: 'A quiet week for Brightdesk: AI visibility held steady at 56.8% and no question was won or lost.' });
    const questionsOnly = buildReport(input({ kinds: ['won_lost'], history: allHeld }));
    expect(questionsOnly.subject).toBe('Brightdesk: a quiet week · 17–23 Nov 2026');
    expect(questionsOnly.lead.headline).toBe('A quiet week for Brightdesk: no question was won or lost.');
  });

  it('a week with nothing measured: says so, and is flagged so no digest is sent', () => {
    const nothing = buildReport(input({ visibility: unmeasured, history: allHeld }));
    expect(nothing.empty).toBe('nothing_measured');
    expect(nothing.subject).toBe('Brightdesk: nothing measured in AI answers · 17–23 Nov 2026');
    expect(nothing.lead).toEqual({
      kind: 'nothing_measured',
      headline: 'Nothing was measured for Brightdesk in 17–23 Nov 2026 or the week before: no AI engine answered its questions.',
    });
  });

  it('leads with a loss before a gain of the same size, naming the rivals the engines name instead', () => {
    const lostQ = history.questions.find((q) => q.question_id === 1105003)!; // GDPR: 4 -> 2, Perplexity and Google AI Overviews stopped
    const wonQ = history.questions.find((q) => q.question_id === 1101003)!; // top 5 tools: 3 -> 5
    const tie = buildReport(input({ kinds: ['won_lost'], history: { ...history, counts: { won: 1, lost: 1, held: 40 }, questions: [wonQ, lostQ] } }));
    expect(tie.subject).toBe('Brightdesk: lost 1 question, won 1 · 17–23 Nov 2026');
    expect(tie.lead).toEqual({
      kind: 'loss',
      headline:
        'Brightdesk is no longer named by Perplexity and Google AI Overviews for “Which help desk software is GDPR compliant and hosts data in the EU?”; they name Ticketly and SupportHero instead.',
      question: 'Which help desk software is GDPR compliant and hosts data in the EU?',
      engines: ['Perplexity', 'Google AI Overviews'],
      rival: 'Ticketly',
    });
    const gain = buildReport(input({ kinds: ['won_lost'], history: { ...history, counts: { won: 1, lost: 0, held: 41 }, questions: [wonQ] } }));
    expect(gain.subject).toBe('Brightdesk: won 1 question · 17–23 Nov 2026');
    expect(gain.lead.headline).toBe('Brightdesk is now named by Claude and Copilot for “What are the top 5 help desk software tools?”');
  });

  it('lists 3 to 5 questions, losses first, and keeps every question in the full lists', () => {
    expect(report.won_lost!.counts).toEqual({ won: 10, lost: 11, held: 21 });
    expect(report.won_lost!.lost).toHaveLength(11);
    expect(report.won_lost!.won).toHaveLength(10);
    expect(report.won_lost!.top_lost.map((q) => q.question_id)).toEqual([1105003, 1101001, 1102003]);
    expect(report.won_lost!.top_won.map((q) => q.question_id)).toEqual([1106002, 1101003]);
    const q = (n: number) => Array.from({ length: n }, (_, i) => ({ question_id: i }) as QuestionMove);
    const shown = (lost: number, won: number) => Object.values(topQuestions(q(lost), q(won))).map((list) => list.length);
    expect(shown(11, 10)).toEqual([3, 2]);
    expect(shown(1, 10)).toEqual([1, 4]);
    expect(shown(10, 0)).toEqual([5, 0]);
    expect(shown(0, 2)).toEqual([0, 2]);
  });

  it('gives every engine its change in questions from /answers/history, and its count from /prompts when read', () => {
    // From /answers/history alone: per engine, the questions it started and stopped naming Brightdesk for.
    expect(report.engines.map((e) => [e.engine_label, e.gained, e.lost, e.change, e.naming])).toEqual([
      ['ChatGPT', 3, 1, 2, null],
      ['Perplexity', 4, 4, 0, null],
      ['Gemini', 2, 4, -2, null],
      ['Claude', 4, 5, -1, null],
      ['Copilot', 4, 2, 2, null],
      ['Google AI Overviews', 5, 3, 2, null],
    ]);
    // With /prompts for the same days: ChatGPT's usual answer names Brightdesk for 32 of the 42 questions, 30 the week before.
    const counted = buildReport(input({ matrix }));
    const chatgpt = matrix.prompts.map((p) => p.engines.find((c) => c.engine === 'chatgpt')!);
    expect(counted.engines[0]).toEqual({
      engine: 'chatgpt',
      engine_label: 'ChatGPT',
      naming: 32,
      answered: 42,
      naming_before: 30,
      // The page's figures too: how many of the 32 recommend Brightdesk, and the engine's runs.
      recommended: chatgpt.filter((c) => c.state === 'recommended').length,
      runs: chatgpt.reduce((sum, c) => sum + c.runs, 0),
      gained: 3,
      lost: 1,
      change: 2,
    });
    expect(counted.engines[0]!.recommended).toBeGreaterThan(0);
    expect(counted.engines[0]!.runs).toBeGreaterThan(42);
    // Its count agrees with /answers/history question by question: the engines naming the brand now.
    for (const question of history.questions) {
      const row = matrix.prompts.find((p) => p.question_id === question.question_id)!;
      expect(row.engines.filter((c) => c.state === 'recommended' || c.state === 'mentioned')).toHaveLength(question.engines_naming_now);
    }
    // /prompts for other days is not mixed in.
    const stale = buildReport(input({ matrix: { ...matrix, period: { from: '2026-11-16', to: '2026-11-22' } } }));
    expect(stale.engines.every((e) => e.naming === null)).toBe(true);
  });

  it('scales the chart near the data, so a 3-point move is a third of it or more', () => {
    // us: 49.3 to 56.8 -> 48 to 58; de: 47.1 to 53.5 -> 46 to 54, widened to 10 points: 44 to 54.
    expect(report.visibility!.scale).toEqual({ floor: 48, top: 58 });
    expect(buildReport(german()).visibility!.scale).toEqual({ floor: 44, top: 54 });
    expect(chartScale([20, 70])).toEqual({ floor: 10, top: 80 });
    expect(chartScale([0.5, 1.5])).toEqual({ floor: 0, top: 10 });
    expect(chartScale([99, 99.5])).toEqual({ floor: 90, top: 100 });
    expect(chartScale([null, null])).toEqual({ floor: 0, top: 100 });
    for (const scores of [
      [49.3, 56.8],
      [47.1, 53.5],
      [10, 12],
      [50, 50],
    ]) {
      const { floor, top } = chartScale(scores);
      expect(3 / (top - floor)).toBeGreaterThanOrEqual(0.3);
      expect(floor).toBeLessThan(Math.min(...scores));
      expect(top).toBeGreaterThan(Math.max(...scores));
    }
  });

  it('is about the 7 days the bodies cover, and names them', () => {
    expect(report.period).toEqual({ from: '2026-11-17', to: '2026-11-23' });
    expect(report.period_label).toBe('17–23 Nov 2026');
    expect(report.week).toEqual({ iso: '2026-W48', monday: '2026-11-23', label: '17 Nov' });
  });

  it('follows the kinds', () => {
    const only = buildReport(input({ kinds: ['won_lost'] }));
    expect(only.visibility).toBeNull();
    expect(only.subject).toBe('Brightdesk: lost 11 questions, won 10 · 17–23 Nov 2026');
    const visOnly = buildReport(input({ kinds: ['visibility'] }));
    expect(visOnly.won_lost).toBeNull();
    expect(visOnly.subject).toBe('Brightdesk: a quiet week · AI visibility 56.8% (steady) · 17–23 Nov 2026');
  });
});

describe('the report of a Read API without some parts', () => {
  it("without the 12 weeks: the week before from the change, its runs taken as this week's for the noise, no chart", () => {
    const report = buildReport(input({ visibility: { ...visibility, history: [] }, not_provided: ['history'] }));
    // noise = 100 * sqrt(.568 * .432 / 1719 + .566 * .434 / 1719) = 1.691 points: 0.2 is steady, as with the history.
    expect(report.visibility).toEqual(expect.objectContaining({ score: 56.8, previous: 56.6, change: 0.2, noise: 1.69, trend: 'steady', history: [] }));
    expect(report.not_provided).toEqual([
      { part: 'history', operation: 'getVisibility', fields: ['history'], words: 'the 12-week history', line: 'Your Read API does not provide the 12-week history, so the weekly chart is left out.' },
    ]);
    expect(report.empty).toBeNull();
  });

  it('without the engines that moved each question: no engine change is guessed, and the lead counts engines instead of naming them', () => {
    const report = buildReport(input({ history: { ...history, questions: history.questions.map((q) => ({ ...q, moved: [] })) }, matrix, not_provided: ['moved'] }));
    expect(report.engines.every((e) => e.gained === null && e.lost === null && e.change === null && e.naming_before === null)).toBe(true);
    expect(report.engines.find((e) => e.engine === 'chatgpt')!.naming).not.toBeNull();
    expect(report.lead.headline).toMatch(/^Brightdesk is named by (fewer|more) engines for “.+”: \d now, \d the week before\.$/);
    expect(report.won_lost!.top_lost.every((q) => q.engines.length === 0)).toBe(true);
  });

  it('without topics: none listed, no question names a topic, and the rest of the report is as with them', () => {
    const full = buildReport(input());
    const report = buildReport(input({ topics: null, not_provided: ['topics'] }));
    expect(report.topics).toEqual([]);
    expect(report.won_lost!.lost.every((q) => q.topic === null)).toBe(true);
    expect(report.visibility).toEqual(full.visibility);
    expect(report.not_provided.map((p) => p.line)).toEqual(['Your Read API does not provide topics, so the topics that moved are left out.']);
  });

  it('renders the digest with the lines in place of the sections, in both parts', async () => {
    const report = buildReport(
      input({ visibility: { ...visibility, history: [] }, history: { ...history, questions: history.questions.map((q) => ({ ...q, moved: [] })) }, not_provided: ['history', 'moved'] }),
    );
    const { html, text } = await renderDigest({ report, links: { viewInBrowser: 'https://edge.test/r/x', unsubscribe: 'https://edge.test/u/x' } });
    for (const part of [html, text]) {
      expect(part).toContain('Your Read API does not provide the 12-week history, so the weekly chart is left out.');
      expect(part).toContain('Your Read API does not provide the engines that moved each question, so each won or lost question is listed without the engines that moved it.');
      expect(part).not.toContain('Score by week');
    }
    expect(text).toMatch(/Named by \d of 6 engines now, \d the week before\./);
  });
});

describe('rendering', () => {
  it('renders HTML and text from the same template, with the figures and an accessible frame in both schemes', async () => {
    const report = buildReport(input({ matrix }));
    const { html, text, subject } = await renderDigest({ report, links });
    expect(subject).toBe(report.subject);
    expect(html).toMatch(/<html[^>]* lang="en"/);
    expect(html).toContain(`<title>${report.subject.replace(/&/g, '&amp;')}</title>`);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
    expect(html).toContain('<meta name="color-scheme" content="light dark"/>');
    expect(html).toContain('<meta name="supported-color-schemes" content="light dark"/>');
    expect(html).toContain('@media (prefers-color-scheme:dark){');
    expect(html).toMatch(/\[data-ogsc\] \.fg-ink\{color:#f9fafb !important\}/);
    expect(html).toMatch(/\[data-ogsb\] \.bg-page\{background-color:#111827 !important\}/);
    expect(html).toMatch(/<h1[^>]*>Brightdesk in AI answers<\/h1>/);
    for (const h2 of ['AI visibility', 'By engine', 'Questions lost and won']) expect(html).toMatch(new RegExp(`<h2[^>]*>${h2}</h2>`));
    expect(html).not.toMatch(/<img|<svg/i);
    // Nothing is wider than a phone: the one fixed width is the 600 px maximum of the frame.
    const inline = html.replace(/<style[\s\S]*?<\/style>/g, '');
    expect(inline.match(/(?:max-)?width(?::\s*\d+px|="\d+")/g)!.filter((w) => Number(w.match(/\d+/)![0]) > 375)).toEqual(['max-width:600px']);
    for (const part of [html, text]) {
      expect(part).toContain('56.8%');
      expect(part).toContain('977 of 1,719 AI answers');
      expect(part).toContain('11 lost');
      expect(part).toContain('10 won');
      expect(part).toContain('21 held');
      expect(part).toContain('17–23 Nov 2026');
      expect(part).toMatch(/Won: more engines name Brightdesk for the question than the week before; lost: fewer; held: as many\./);
      expect(part).toContain('within sampling noise (±1.7 pts)');
      expect(part).toContain('Helpwave vs Ticketly: which is better?');
    }
    // 5 questions, not 21.
    expect(occurrences(text, '▼ ')).toBe(3);
    expect(occurrences(text, '▲ ')).toBe(2);
    expect(text).toContain(`See all 21 changed questions ${links.viewInBrowser}`);
    // The chart: 12 columns of table cells in HTML, every weekly figure in one line of the text part.
    expect(html).toMatch(/<table[^>]*role="img"[^>]*aria-label="Score by week, last 12 weeks \(1 Sep–23 Nov 2026\): 49\.3%, 51\.5%/);
    expect(text).toContain(`Score by week, last 12 weeks (1 Sep–23 Nov 2026): ${visibility.history.map((p) => `${p.score!.toFixed(1)}%`).join(', ')}.`);
    // Per engine, both parts.
    expect(text).toContain('ChatGPT: 32 of 42 questions, +2');
    expect(html).toMatch(/>32 of 42</);
    expect(text).not.toMatch(/<[a-z]/i);
  });

  it('names each link once in the text part: the digest, the confirmation and the paused notice', async () => {
    const digest = await renderDigest({ report: buildReport(input()), links });
    expect(digest.text.match(URL)).toEqual([links.viewInBrowser, links.unsubscribe]);
    const confirmation = await renderConfirmation(ConfirmSubscriptionEmail.PreviewProps);
    expect(confirmation.text.match(URL)).toEqual([ConfirmSubscriptionEmail.PreviewProps.confirmUrl, ConfirmSubscriptionEmail.PreviewProps.unsubscribeUrl]);
    // In HTML the confirm link is also written out, for clients that do not show buttons, and wraps anywhere.
    expect(occurrences(confirmation.html, `href="${ConfirmSubscriptionEmail.PreviewProps.confirmUrl}"`)).toBe(2);
    expect(confirmation.html).toMatch(/<a[^>]*style="[^"]*overflow-wrap:anywhere[^"]*"[^>]*>https:\/\/edge\.example\.com\/digests\/confirm/);
    const paused = await renderPausedNotice(PausedNoticeEmail.PreviewProps);
    expect(paused.text.match(URL)).toEqual([PausedNoticeEmail.PreviewProps.unsubscribeUrl]);
  });

  it('says a quiet week in one line, and nothing measured without figures', async () => {
    const quiet = await renderDigest({ report: buildReport(input({ history: allHeld })), links });
    expect(quiet.text).toContain('A quiet week for Brightdesk: AI visibility held steady at 56.8% and no question was won or lost.');
    expect(quiet.text).toContain('All 42 questions held: each is named by as many engines as the week before.');
    expect(quiet.text).toContain('No change on any of the 6 engines');
    expect(quiet.text).not.toMatch(/topics that moved|\(steady\) ·/i);
    expect(quiet.text).toContain(`Open the full report ${links.viewInBrowser}`);
    const nothing = await renderDigest({ report: buildReport(input({ visibility: unmeasured, history: allHeld })), links });
    expect(nothing.text).toContain('Nothing was measured for Brightdesk');
    expect(nothing.html).not.toContain('<h2');
  });

  it('the paused notice speaks to a reader: what changed and what to ask for, no HTTP verbs or paths', async () => {
    for (const [reason, why] of [
      ['invalid_api_key', 'revoked'],
      ['plan_inactive', 'the plan of the account is no longer active'],
      ['feature_not_in_plan', 'no longer includes this data'],
      ['something_new', 'can no longer read this brand'],
    ] as const) {
      const { text, subject } = await renderPausedNotice({ ...PausedNoticeEmail.PreviewProps, brandName: 'Brightdesk', reason });
      expect(subject).toBe('Paused: your weekly digest for Brightdesk');
      expect(text).toContain(why);
      expect(text).toContain('ask the owner of your Brand AI-Visibility account');
      expect(text).toContain('subscribe to the weekly digest again');
      expect(text).not.toMatch(/\b(POST|GET|PUT|DELETE)\b|\/digests\/subscriptions|API docs|something_new/);
    }
  });

  it('renders every template from its PreviewProps, with long signed links and a long brand name', async () => {
    const digest = DigestEmail.PreviewProps;
    expect(digest.report.brand.name.length).toBeGreaterThan(40);
    for (const url of [
      digest.links.viewInBrowser,
      digest.links.unsubscribe,
      ConfirmSubscriptionEmail.PreviewProps.confirmUrl,
      ConfirmSubscriptionEmail.PreviewProps.unsubscribeUrl,
      PausedNoticeEmail.PreviewProps.unsubscribeUrl,
    ]) {
      expect(url).toMatch(/^https:\/\/edge\.example\.com\/.*v1\.[A-Za-z0-9_-]{300,}/);
    }
    expect(ConfirmSubscriptionEmail.PreviewProps.offer.brandName.length).toBeGreaterThan(40);
    expect(PausedNoticeEmail.PreviewProps.brandName.length).toBeGreaterThan(40);
    expect((await renderDigest(digest)).html).toContain('Brightdesk Customer Service Cloud for Enterprise Teams');
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

  it('accepts IANA names only, and a city as people write it', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('Berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('new york')).toBe('America/New_York');
    expect(canonicalTimeZone(' buenos aires ')).toMatch(/^America\/(Argentina\/)?Buenos_Aires$/);
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
