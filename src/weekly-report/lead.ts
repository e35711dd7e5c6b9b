/**
 * What the reader of the weekly report is told first (model.ts builds the
 * rest):
 * - The subject: the brand, then the news with units, then the days:
 *   `Brightdesk: AI visibility 47.9% (−3.3 pts) · lost 4 questions, won 3 · 17–23 Nov 2026`;
 *   a week with nothing beyond the noise starts `a quiet week`; a week with no
 *   answered run says `nothing measured in AI answers`. Of lost and won, the
 *   larger comes first (losses on a tie), so the subject and the lead agree
 *   on the week's direction.
 * - The lead: one sentence that names the brand and the one change that
 *   matters most, in this order: nothing measured; the score moved beyond
 *   the noise (with the topic that moved most the same way); the question
 *   that moved on the most engines the week's way (a loss when more were
 *   lost than won, a gain when more were won, a loss on a tie);
 *   a topic that moved beyond the noise; else a quiet week, in one line.
 */
import { mostNamedFirst } from './plan';
import { formatPercent, formatPoints, formatTrend, joinNames, possessive, quoted, sentence } from './words';
import type { Lead, QuestionMove, Report, TopicMove, VisibilitySection, WonLostSection } from './report';

/** How many engines a question moved on: the size of its move. */
export const sizeOf = (q: QuestionMove) => Math.abs(q.engines_naming_now - q.engines_naming_before);

/** Whether the week won more questions than it lost: the lead and the subject tell its direction first. */
const mostlyWon = (counts: { won: number; lost: number }) => counts.won > counts.lost;

/**
 * The question that moved on the most engines the week's way (losses when as many or more were lost, because a
 * loss is what to act on; gains when more were won), so the lead agrees with the subject.
 */
function biggestMove(wonLost: WonLostSection | null): QuestionMove | null {
  if (!wonLost) return null;
  const [first, then] = mostlyWon(wonLost.counts) ? [wonLost.won, wonLost.lost] : [wonLost.lost, wonLost.won];
  const moves = first.length > 0 ? first : then;
  return moves.reduce<QuestionMove | null>((best, q) => (best === null || sizeOf(q) > sizeOf(best) ? q : best), null);
}

/** The lead for a question: `Brightdesk is no longer named by Claude and Gemini for “…”; they name Helpwave instead.` */
function questionLead(brand: string, q: QuestionMove): Lead {
  const way = q.outcome === 'won' ? 'gained' : 'lost';
  const moved = q.engines.filter((e) => e.direction === way);
  const names = moved.map((e) => e.engine_label);
  // Every rival the engines that dropped the brand name instead, first seen first.
  const rivals = [...new Set(moved.flatMap((e) => (e.top_rival ? [e.top_rival] : [])))];
  const instead = rivals.length > 0 ? `; ${names.length === 1 ? 'it names' : 'they name'} ${joinNames(rivals)} instead` : '';
  // Without the engines that moved (a service that does not say), only how many engines name the brand.
  const counted = `${quoted(q.text)}: ${q.engines_naming_now} now, ${q.engines_naming_before} the week before`;
  const headline =
    names.length === 0
      ? sentence(`${brand} is named by ${q.outcome === 'lost' ? 'fewer' : 'more'} engines for ${counted}`)
      : q.outcome === 'lost'
        ? sentence(`${brand} is no longer named by ${joinNames(names)} for ${quoted(q.text)}${instead}`)
        : sentence(`${brand} is now named by ${joinNames(names)} for ${quoted(q.text)}`);
  return { kind: q.outcome === 'lost' ? 'loss' : 'gain', headline, question: q.text, engines: names, rival: mostNamedFirst(moved.map((e) => e.top_rival))[0] ?? null };
}

function visibilityWords(vis: VisibilitySection): string {
  if (vis.score === null) return 'AI visibility was not measured this week';
  if (vis.trend === 'unknown') return `AI visibility was ${formatPercent(vis.score)}, with no week before to compare`;
  return `AI visibility held steady at ${formatPercent(vis.score)}`;
}

export function leadOf(brand: string, periodLabel: string, empty: Report['empty'], vis: VisibilitySection | null, wonLost: WonLostSection | null, topics: TopicMove[]): Lead {
  if (empty === 'nothing_measured') {
    return { kind: 'nothing_measured', headline: `Nothing was measured for ${brand} in ${periodLabel} or the week before: no AI engine answered its questions.` };
  }
  if (vis && (vis.trend === 'up' || vis.trend === 'down')) {
    const topic = topics.find((t) => t.trend === vis.trend);
    const verb = vis.trend === 'up' ? 'rose' : 'fell';
    const where = topic ? `, with the largest ${vis.trend === 'up' ? 'rise' : 'fall'} in ${quoted(topic.name)} (${formatPoints(topic.change!)})` : '';
    return {
      kind: vis.trend === 'up' ? 'visibility_up' : 'visibility_down',
      headline: `${possessive(brand)} AI visibility ${verb} ${Math.abs(vis.change!).toFixed(1)} points to ${formatPercent(vis.score)}${where}.`,
    };
  }
  const top = biggestMove(wonLost);
  if (top) return questionLead(brand, top);
  const topic = topics.find((t) => t.trend === 'up' || t.trend === 'down');
  if (vis && topic) {
    return {
      kind: 'topic',
      headline: `${possessive(brand)} ${visibilityWords(vis)}, but ${quoted(topic.name)} ${topic.trend === 'up' ? 'rose' : 'fell'} ${Math.abs(topic.change!).toFixed(1)} points to ${formatPercent(topic.score)}.`,
    };
  }
  const parts: string[] = [];
  if (vis) parts.push(visibilityWords(vis));
  if (wonLost) parts.push('no question was won or lost');
  return { kind: 'steady', headline: `A quiet week for ${brand}: ${parts.join(' and ')}.` };
}

/** `lost 11 questions, won 10`, `lost 3 questions`, `won 1 question`; null when nothing moved. */
function questionNews(counts: { won: number; lost: number }): string | null {
  const { won, lost } = counts;
  const noun = (n: number) => (n === 1 ? 'question' : 'questions');
  if (lost > 0 && won > 0) return mostlyWon(counts) ? `won ${won} ${noun(won)}, lost ${lost}` : `lost ${lost} ${noun(lost)}, won ${won}`;
  if (lost > 0) return `lost ${lost} ${noun(lost)}`;
  if (won > 0) return `won ${won} ${noun(won)}`;
  return null;
}

export function subjectOf(brand: string, periodLabel: string, empty: Report['empty'], vis: VisibilitySection | null, wonLost: WonLostSection | null): string {
  if (empty === 'nothing_measured') return `${brand}: nothing measured in AI answers · ${periodLabel}`;
  const pieces: string[] = [];
  if (empty === 'nothing_changed') pieces.push('a quiet week');
  if (vis) pieces.push(vis.score === null ? 'AI visibility not measured' : `AI visibility ${formatPercent(vis.score)} (${formatTrend(vis.change, vis.trend)})`);
  const news = wonLost ? questionNews(wonLost.counts) : null;
  if (news) pieces.push(news);
  pieces.push(periodLabel);
  return `${brand}: ${pieces.join(' · ')}`;
}
