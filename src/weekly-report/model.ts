/**
 * The weekly report, as data: a pure function of three API bodies
 * (`/visibility`, `/answers/history`, `/topics`). The digest email (issue 5)
 * and the web report (issue 6) both render this model, so they always say the
 * same thing.
 *
 * ```ts
 * const report = buildReport({ brand: { id: 1, name: 'Brightdesk' }, week, kinds: ['visibility', 'won_lost'], visibility, history, topics });
 * report.subject; // "Brightdesk: AI visibility 56.9% (steady) · 7 won, 10 lost · week of 16 Nov"
 * report.period;  // { from: '2026-11-16', to: '2026-11-22' }: the days every figure covers
 * ```
 *
 * The period. `/visibility` and `/answers/history` have a fixed window, the
 * trailing 7 days ending on the day they are read; `/topics` must be read for
 * the same days (the digest passes that window's `from` and `to`). The report
 * is about those 7 days, whatever ISO week it was planned for, and its label
 * ("week of 16 Nov") names their first day.
 *
 * Sampling noise. A weekly score is a share p of n answered runs. Its standard
 * error is sqrt(p(1-p)/n); the change between two weeks has the standard
 * error of a difference of two independent shares:
 *
 *     noise = 100 * sqrt(p1(1-p1)/n1 + p0(1-p0)/n0)      (percentage points)
 *
 * with p1, n1 this week and p0, n0 the week before (the last two points of the
 * 12-week history). A change whose size is below one such standard error is
 * shown as steady, not as a gain or a loss. Topics carry no run counts, so a
 * topic's n is estimated as the total answered runs times the topic's share of
 * the questions.
 */
import { z } from 'zod';
import type { ResponseOf } from '../contract/operations';
import type { AnswerState, Engine } from '../contract/enums';

export const DIGEST_KINDS = ['visibility', 'won_lost'] as const;
export const DigestKind = z.enum(DIGEST_KINDS);
export type DigestKind = z.infer<typeof DigestKind>;

export type Trend = 'up' | 'down' | 'steady' | 'unknown';

export const ENGINE_LABELS: Record<Engine, string> = {
  chatgpt: 'ChatGPT',
  perplexity: 'Perplexity',
  gemini: 'Gemini',
  claude: 'Claude',
  copilot: 'Copilot',
  google_ai_overviews: 'Google AI Overviews',
};

/** How a reader is told an engine's dominant state, in the email and on the page alike. */
const STATE_WORDS: Record<AnswerState, string> = {
  recommended: 'recommended',
  mentioned: 'mentioned',
  absent: 'not named',
  open: 'no brand named',
  no_answer: 'no answer',
};
export const stateWord = (state: AnswerState | null): string => (state === null ? 'not run' : STATE_WORDS[state]);

export interface ChartBar {
  week_start: string;
  week_end: string;
  /** Short label, e.g. `16 Nov`. */
  label: string;
  score: number | null;
  answered_runs: number;
}

export interface VisibilitySection {
  score: number | null;
  previous: number | null;
  change: number | null;
  /** One standard error of the change, in points (see the module comment); null when either week is unmeasured. */
  noise: number | null;
  trend: Trend;
  answered_runs: number;
  naming_runs: number;
  period: { from: string; to: string };
  history: ChartBar[];
}

export interface TopicMove {
  id: number;
  name: string;
  score: number | null;
  change: number | null;
  noise: number | null;
  trend: Trend;
  rank: number | null;
  top_rival: string | null;
}

export interface EngineMove {
  engine: Engine;
  engine_label: string;
  before: AnswerState | null;
  now: AnswerState | null;
  direction: 'gained' | 'lost';
  top_rival: string | null;
}

export interface QuestionMove {
  question_id: number;
  text: string;
  topic: string | null;
  outcome: 'won' | 'lost';
  engines_naming_now: number;
  engines_naming_before: number;
  engines: EngineMove[];
}

export interface WonLostSection {
  counts: { won: number; lost: number; held: number };
  period: { from: string; to: string };
  previous_period: { from: string; to: string };
  won: QuestionMove[];
  lost: QuestionMove[];
}

export interface Lead {
  kind: 'loss' | 'gain' | 'visibility_up' | 'visibility_down' | 'steady';
  /** One sentence a reader should act on. */
  headline: string;
  question?: string;
  engines?: string[];
  rival?: string | null;
}

export interface Report {
  brand: { id: number; name: string };
  market: { id: number; code: string };
  kinds: DigestKind[];
  /**
   * The ISO week the report was planned for (`iso`, `monday`), and `label`, the
   * first day of `period` (`16 Nov`), which the subject and heading name.
   */
  week: { iso: string; monday: string; label: string };
  /** The 7 days every figure covers: the fixed window of the reads (see the module comment). */
  period: { from: string; to: string };
  generated_at: string;
  /** `nothing_measured`: no answered run in either week, no digest is sent. `nothing_changed`: a short digest that says so. */
  empty: 'nothing_measured' | 'nothing_changed' | null;
  lead: Lead;
  visibility: VisibilitySection | null;
  topics: TopicMove[];
  won_lost: WonLostSection | null;
  subject: string;
}

export interface ReportInput {
  brand: { id: number; name: string };
  week: { isoWeek: string; monday: string };
  kinds: readonly DigestKind[];
  visibility: ResponseOf<'getVisibility'>;
  history: ResponseOf<'getAnswerHistory'>;
  topics: ResponseOf<'listTopics'>;
}

/** How many topics the report lists as "moved most". */
export const TOPICS_SHOWN = 3;
/** Won and lost questions listed per section; the counts always cover all. */
export const QUESTIONS_SHOWN = 10;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-11-16` as `16 Nov`. */
export function shortDay(day: string): string {
  const [, month, date] = day.split('-');
  return `${Number(date)} ${MONTHS[Number(month) - 1]}`;
}

/** A period as `16–22 Nov`, or `30 Nov–6 Dec` across months. */
export function formatPeriod(period: { from: string; to: string }): string {
  const sameMonth = period.from.slice(0, 7) === period.to.slice(0, 7);
  return sameMonth ? `${Number(period.from.slice(8))}–${shortDay(period.to)}` : `${shortDay(period.from)}–${shortDay(period.to)}`;
}

/** One standard error of the difference of two shares (percent), or null when either side is unmeasured. */
export function changeNoise(p1: number | null, n1: number, p0: number | null, n0: number): number | null {
  if (p1 === null || p0 === null || n1 <= 0 || n0 <= 0) return null;
  const a = p1 / 100;
  const b = p0 / 100;
  return 100 * Math.sqrt((a * (1 - a)) / n1 + (b * (1 - b)) / n0);
}

/** Up or down only when the change is at least one standard error. */
export function trendOf(change: number | null, noise: number | null): Trend {
  if (change === null) return 'unknown';
  if (noise !== null && Math.abs(change) < noise) return 'steady';
  if (change > 0) return 'up';
  if (change < 0) return 'down';
  return 'steady';
}

/** `+3.1`, `-2.0`, or `steady` for a change within the noise. */
export function formatChange(change: number | null, trend: Trend): string {
  if (change === null || trend === 'unknown') return 'no comparison';
  if (trend === 'steady') return 'steady';
  return `${change > 0 ? '+' : '-'}${Math.abs(change).toFixed(1)}`;
}

export const formatScore = (score: number | null) => (score === null ? 'not measured' : `${score.toFixed(1)}%`);

const joinNames = (names: string[]) => (names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

function visibilitySection(v: ResponseOf<'getVisibility'>): VisibilitySection {
  const before = v.history.at(-2);
  const previous = before?.score ?? null;
  const n1 = v.answered_runs;
  const n0 = before?.answered_runs ?? 0;
  const noise = changeNoise(v.score, n1, previous, n0);
  return {
    score: v.score,
    previous,
    change: v.change,
    noise: noise === null ? null : Math.round(noise * 100) / 100,
    trend: trendOf(v.change, noise),
    answered_runs: v.answered_runs,
    naming_runs: v.naming_runs,
    period: v.period,
    history: v.history.map((point) => ({ ...point, label: shortDay(point.week_start) })),
  };
}

function topicMoves(t: ResponseOf<'listTopics'>, totalRuns: number): TopicMove[] {
  const totalQuestions = t.topics.reduce((sum, topic) => sum + topic.questions, 0);
  return t.topics
    .map((topic) => {
      const n = totalQuestions > 0 ? (totalRuns * topic.questions) / totalQuestions : 0;
      const previous = topic.score !== null && topic.change !== null ? topic.score - topic.change : null;
      const noise = changeNoise(topic.score, n, previous === null ? null : Math.min(100, Math.max(0, previous)), n);
      return {
        id: topic.id,
        name: topic.name,
        score: topic.score,
        change: topic.change,
        noise: noise === null ? null : Math.round(noise * 100) / 100,
        trend: trendOf(topic.change, noise),
        rank: topic.rank,
        top_rival: topic.rivals[0]?.name ?? null,
      };
    })
    .filter((topic) => topic.change !== null)
    .sort((a, b) => Math.abs(b.change!) - Math.abs(a.change!) || a.id - b.id)
    .slice(0, TOPICS_SHOWN);
}

function questionMoves(h: ResponseOf<'getAnswerHistory'>, topicNames: Map<number, string>, outcome: 'won' | 'lost'): QuestionMove[] {
  return h.questions
    .filter((q) => q.outcome === outcome)
    .map((q) => ({
      question_id: q.question_id,
      text: q.text,
      topic: topicNames.get(q.topic_id) ?? null,
      outcome,
      engines_naming_now: q.engines_naming_now,
      engines_naming_before: q.engines_naming_before,
      // The engines that moved the outcome's way first: they are the news of this question.
      engines: q.moved
        .map((m) => ({ engine: m.engine, engine_label: ENGINE_LABELS[m.engine], before: m.before, now: m.now, direction: m.direction, top_rival: m.top_rival }))
        .sort((a, b) => Number(b.direction === (outcome === 'won' ? 'gained' : 'lost')) - Number(a.direction === (outcome === 'won' ? 'gained' : 'lost'))),
    }))
    .sort((a, b) => Math.abs(b.engines_naming_now - b.engines_naming_before) - Math.abs(a.engines_naming_now - a.engines_naming_before) || a.question_id - b.question_id);
}

/** The most frequent rival among the engines that moved, first seen on ties. */
function mainRival(engines: EngineMove[]): string | null {
  const counts = new Map<string, number>();
  for (const e of engines) if (e.top_rival) counts.set(e.top_rival, (counts.get(e.top_rival) ?? 0) + 1);
  let best: string | null = null;
  for (const [name, count] of counts) if (best === null || count > counts.get(best)!) best = name;
  return best;
}

function leadOf(brand: string, vis: VisibilitySection | null, wonLost: WonLostSection | null, topics: TopicMove[]): Lead {
  // The biggest move by engines; a loss before a gain of the same size, because a loss is what to act on.
  const moves = wonLost ? [...wonLost.lost, ...wonLost.won] : [];
  const size = (q: QuestionMove) => Math.abs(q.engines_naming_now - q.engines_naming_before);
  const top = moves.reduce<QuestionMove | null>((best, q) => (best === null || size(q) > size(best) ? q : best), null);
  if (top) {
    const moved = top.engines.filter((e) => e.direction === (top.outcome === 'won' ? 'gained' : 'lost'));
    const names = moved.map((e) => e.engine_label);
    const rival = mainRival(moved);
    const headline =
      top.outcome === 'lost'
        ? `Lost on ${joinNames(names)}: “${top.text}”${rival ? ` — ${rival} is named instead` : ''}.`
        : `Won on ${joinNames(names)}: “${top.text}”${rival ? `, ahead of ${rival}` : ''}.`;
    return { kind: top.outcome === 'lost' ? 'loss' : 'gain', headline, question: top.text, engines: names, rival };
  }
  if (vis && (vis.trend === 'up' || vis.trend === 'down')) {
    const topic = topics.find((t) => t.trend === vis.trend);
    const headline = `AI visibility ${vis.trend === 'up' ? 'rose' : 'fell'} ${Math.abs(vis.change!).toFixed(1)} points to ${formatScore(vis.score)}${topic ? `, most in “${topic.name}” (${formatChange(topic.change, topic.trend)})` : ''}.`;
    return { kind: vis.trend === 'up' ? 'visibility_up' : 'visibility_down', headline };
  }
  const parts = [];
  if (wonLost) parts.push('no question was won or lost');
  if (vis) parts.push(vis.score === null ? 'visibility was not measured' : `visibility held steady at ${formatScore(vis.score)}`);
  const text = parts.join(' and ');
  return { kind: 'steady', headline: `Nothing changed for ${brand} this week: ${text}.` };
}

function subjectOf(brand: string, week: string, vis: VisibilitySection | null, wonLost: WonLostSection | null): string {
  const parts = [brand + ':'];
  const pieces: string[] = [];
  if (vis) pieces.push(`AI visibility ${formatScore(vis.score)} (${formatChange(vis.change, vis.trend)})`);
  if (wonLost) pieces.push(`${wonLost.counts.won} won, ${wonLost.counts.lost} lost`);
  pieces.push(`week of ${week}`);
  return `${parts[0]} ${pieces.join(' · ')}`;
}

/** The report; see the module comment. Pure: same bodies, same report. */
export function buildReport(input: ReportInput): Report {
  const kinds = DIGEST_KINDS.filter((k) => input.kinds.includes(k));
  const v = input.visibility;
  const vis = visibilitySection(v);
  const topicNames = new Map(input.topics.topics.map((t) => [t.id, t.name]));
  const topics = topicMoves(input.topics, v.answered_runs);
  const wonLost: WonLostSection = {
    counts: input.history.counts,
    period: input.history.period,
    previous_period: input.history.previous_period,
    won: questionMoves(input.history, topicNames, 'won'),
    lost: questionMoves(input.history, topicNames, 'lost'),
  };
  const showVis = kinds.includes('visibility') ? vis : null;
  const showWonLost = kinds.includes('won_lost') ? wonLost : null;
  const previousRuns = v.history.at(-2)?.answered_runs ?? 0;
  const nothingMeasured = v.answered_runs === 0 && previousRuns === 0;
  const anythingMoved =
    (showWonLost !== null && wonLost.counts.won + wonLost.counts.lost > 0) ||
    (showVis !== null && (vis.trend === 'up' || vis.trend === 'down' || topics.some((t) => t.trend === 'up' || t.trend === 'down')));
  const label = shortDay(v.period.from);
  return {
    brand: input.brand,
    market: v.market,
    kinds,
    week: { iso: input.week.isoWeek, monday: input.week.monday, label },
    period: v.period,
    generated_at: v.generated_at,
    empty: nothingMeasured ? 'nothing_measured' : anythingMoved ? null : 'nothing_changed',
    lead: leadOf(input.brand.name, showVis, showWonLost, showVis ? topics : []),
    visibility: showVis,
    topics: showVis ? topics : [],
    won_lost: showWonLost,
    subject: subjectOf(input.brand.name, label, showVis, showWonLost),
  };
}
