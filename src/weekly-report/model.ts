/**
 * The weekly report, as data: a pure function of three API bodies
 * (`/visibility`, `/answers/history`, `/topics`), and of `/prompts` when it is
 * given. The digest email (issue 5) and the web report (issue 6) both render
 * this model, so they always say the same thing.
 *
 * ```ts
 * const report = buildReport({ brand: { id: 1, name: 'Brightdesk' }, week, kinds: ['visibility', 'won_lost'], visibility, history, topics });
 * report.subject;      // "Brightdesk: AI visibility 56.8% (steady) · lost 11 questions, won 10 · 17–23 Nov 2026"
 * report.lead.headline // "Brightdesk is now named by ChatGPT, Perplexity, Claude and Copilot for “Helpwave vs Ticketly: which is better?”"
 * report.period;       // { from: '2026-11-17', to: '2026-11-23' }: the days every figure covers
 * ```
 *
 * The period. `/visibility` and `/answers/history` have a fixed window, the
 * trailing 7 days ending on the day they are read; `/topics` (and `/prompts`)
 * must be read for the same days (the digest passes that window's `from` and
 * `to`). The report is about those 7 days, whatever ISO week it was planned
 * for, and names them (`period_label`, "17–23 Nov 2026").
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
 *
 * What the reader is told first.
 * - The subject: the brand, then the news with units, then the days:
 *   `Brightdesk: AI visibility 47.9% (−3.3 pts) · lost 4 questions, won 3 · 17–23 Nov 2026`;
 *   a week with nothing beyond the noise starts `a quiet week`; a week with no
 *   answered run says `nothing measured in AI answers`.
 * - The lead: one sentence that names the brand and the one change that
 *   matters most, in this order: nothing measured; the score moved beyond
 *   the noise (with the topic that moved most the same way); the question
 *   that moved on the most engines (a loss before a gain of the same size);
 *   a topic that moved beyond the noise; else a quiet week, in one line.
 *
 * Per engine. No body gives a score per engine. `/answers/history` gives, per
 * question, the engines whose dominant state started or stopped naming the
 * brand: summed per engine, that is each engine's change in questions naming
 * the brand (`gained`, `lost`, `change`). `/prompts` gives each engine's
 * dominant state per question this week: with it, `naming` and `answered`
 * are the engine's questions naming the brand and answered, and
 * `naming_before` is `naming - gained + lost`. Without it they are null, and
 * nothing is guessed.
 *
 * Parts the service does not provide (parts.ts: the 12-week history,
 * per-engine answers, the engines that moved each question, topics, rivals)
 * are listed in `not_provided`, each with the line a reader sees where its
 * section is left out; the figures that need them are null, never guessed.
 * One estimate: without the history, the week before's answered runs are
 * taken as this week's for the noise (its score is this week's less the
 * change), as a topic's runs are estimated.
 */
import * as z from 'zod';
import type { ResponseOf } from '../contract/operations';
import { type AnswerState, type Engine, ENGINES, NAMING_STATES } from '../contract/enums';
import { NEEDS, notProvidedLine, PARTS, type PartId } from './parts';
import { changeNoise, trendOf } from './noise';
import { formatPercent, formatPoints, formatRange, formatTrend, joinNames, type MoveWords, possessive, quoted, type ScoreWords, sentence, shortDay, type Trend } from './words';

export * from './noise';
export * from './words';

export const DIGEST_KINDS = ['visibility', 'won_lost'] as const;
export const DigestKind = z.enum(DIGEST_KINDS);
export type DigestKind = z.infer<typeof DigestKind>;

export const ENGINE_LABELS: Record<Engine, string> = {
  chatgpt: 'ChatGPT',
  perplexity: 'Perplexity',
  gemini: 'Gemini',
  claude: 'Claude',
  copilot: 'Copilot',
  google_ai_overviews: 'Google AI Overviews',
};

/** How an engine is named to a reader: our label, or another implementation's own value as it is. */
export const engineLabel = (engine: string): string => (Object.hasOwn(ENGINE_LABELS, engine) ? ENGINE_LABELS[engine as Engine] : engine);

/** Where an engine sorts: ours in their order, any other after them. */
export const engineOrder = (engine: string): number => {
  const at = (ENGINES as readonly string[]).indexOf(engine);
  return at === -1 ? ENGINES.length : at;
};

/** Our engines in their order, then any other an upstream names, in the order first met. */
export function enginesOf(named: Iterable<string>): string[] {
  const all: string[] = [...ENGINES];
  for (const engine of named) if (!all.includes(engine)) all.push(engine);
  return all;
}

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

/** The score's figures (`ScoreWords`: what its line says), its week, the chart's bars and scale. */
export interface VisibilitySection extends ScoreWords {
  period: { from: string; to: string };
  history: ChartBar[];
  /**
   * The chart's scale in percent (`chartScale`): near the data, at least 10
   * points tall, so a 3-point move is a third of the chart and a change
   * within the noise looks flat.
   */
  scale: { floor: number; top: number };
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
  /** One of ours, or another implementation's own value. */
  engine: string;
  engine_label: string;
  before: AnswerState | null;
  now: AnswerState | null;
  direction: 'gained' | 'lost';
  top_rival: string | null;
}

/** A question won or lost: how its engines moved (`MoveWords`: what its line says), and which question. */
export interface QuestionMove extends MoveWords {
  question_id: number;
  text: string;
  topic: string | null;
  engines: EngineMove[];
}

export interface WonLostSection {
  counts: { won: number; lost: number; held: number };
  period: { from: string; to: string };
  previous_period: { from: string; to: string };
  won: QuestionMove[];
  lost: QuestionMove[];
  /** The few the digest lists (`topQuestions`): 3 to 5 in all, losses first. */
  top_lost: QuestionMove[];
  top_won: QuestionMove[];
}

/** One engine's figures for the week (see "Per engine" in the module comment). */
export interface EngineFigures {
  /** One of ours, or another implementation's own value. */
  engine: string;
  engine_label: string;
  /** Questions whose dominant answer on this engine names the brand this week; null without `/prompts`. */
  naming: number | null;
  /** Questions this engine answered this week (a dominant state other than no answer); null without `/prompts`. */
  answered: number | null;
  /** `naming - gained + lost`: the same count for the week before; null without `/prompts`. */
  naming_before: number | null;
  /** Of `naming`, the questions whose dominant answer recommends the brand; null without `/prompts`. */
  recommended: number | null;
  /** Runs of this engine over the week, all questions; null without `/prompts`. */
  runs: number | null;
  /** Questions this engine started naming the brand for, and stopped; null when the service does not say which engines moved. */
  gained: number | null;
  lost: number | null;
  /** `gained - lost`. */
  change: number | null;
}

/** A part of the report the service does not provide, and the line said where its section is left out. */
export interface NotProvided {
  part: PartId;
  operation: string;
  fields: readonly string[];
  words: string;
  line: string;
}

export interface Lead {
  kind: 'loss' | 'gain' | 'visibility_up' | 'visibility_down' | 'topic' | 'steady' | 'nothing_measured';
  /** One sentence that names the brand and the change to act on. */
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
   * first day of `period` (`16 Nov`).
   */
  week: { iso: string; monday: string; label: string };
  /** The 7 days every figure covers: the fixed window of the reads (see the module comment). */
  period: { from: string; to: string };
  /** `period` as the email writes it: `17–23 Nov 2026`. */
  period_label: string;
  generated_at: string;
  /** `nothing_measured`: no answered run in either week, no digest is sent. `nothing_changed`: a quiet week, said in one line. */
  empty: 'nothing_measured' | 'nothing_changed' | null;
  lead: Lead;
  visibility: VisibilitySection | null;
  topics: TopicMove[];
  won_lost: WonLostSection | null;
  /** Every engine, in the order of `ENGINE_LABELS`, then any other the upstream names. */
  engines: EngineFigures[];
  subject: string;
  /** The parts the service does not provide; empty for one that provides everything. */
  not_provided: NotProvided[];
}

export interface ReportInput {
  brand: { id: number; name: string };
  week: { isoWeek: string; monday: string };
  kinds: readonly DigestKind[];
  visibility: ResponseOf<'getVisibility'>;
  history: ResponseOf<'getAnswerHistory'>;
  /** Null when the service does not provide topics. */
  topics: ResponseOf<'listTopics'> | null;
  /** `/prompts` for the same 7 days, when read: gives each engine's questions naming the brand. Ignored when its days differ. */
  matrix?: ResponseOf<'getPromptMatrix'> | null;
  /** The parts the service does not provide (parts.ts); their lists are empty. */
  not_provided?: readonly PartId[];
}

/** How many topics the report lists as "moved most". */
export const TOPICS_SHOWN = 3;
/** Won and lost questions listed per section of the page; the counts always cover all. */
export const QUESTIONS_SHOWN = 10;
/** Questions the digest lists: at most this many in all, and up to `LOST_SHOWN` losses before any gain. */
export const DIGEST_QUESTIONS = 5;
export const LOST_SHOWN = 3;

/** A period as `16–22 Nov`, or `30 Nov–6 Dec` across months (log lines; the email writes `formatRange`). */
export function formatPeriod(period: { from: string; to: string }): string {
  const sameMonth = period.from.slice(0, 7) === period.to.slice(0, 7);
  return sameMonth ? `${Number(period.from.slice(8))}–${shortDay(period.to)}` : `${shortDay(period.from)}–${shortDay(period.to)}`;
}

/** `+3.1`, `-2.0`, or `steady` for a change within the noise (the page's form; the email writes `formatTrend`, with units). */
export function formatChange(change: number | null, trend: Trend): string {
  if (change === null || trend === 'unknown') return 'no comparison';
  if (trend === 'steady') return 'steady';
  return `${change > 0 ? '+' : '-'}${Math.abs(change).toFixed(1)}`;
}

export const formatScore = formatPercent;

/**
 * The chart's scale: from a round value below the lowest score to one above
 * the highest, in steps of 2, 5 or 10 points by the spread, widened to 10
 * points at least and kept within 0 to 100. Without a score, 0 to 100.
 */
export function chartScale(scores: readonly (number | null)[]): { floor: number; top: number } {
  const values = scores.filter((s): s is number => s !== null);
  if (values.length === 0) return { floor: 0, top: 100 };
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const spread = hi - lo;
  const step = spread <= 8 ? 2 : spread <= 20 ? 5 : 10;
  let floor = Math.max(0, (Math.ceil(lo / step) - 1) * step);
  let top = Math.min(100, (Math.floor(hi / step) + 1) * step);
  while (top - floor < 10) {
    if (floor > 0) floor = Math.max(0, floor - step);
    if (top - floor < 10 && top < 100) top = Math.min(100, top + step);
  }
  return { floor, top };
}

/** `withoutHistory`: the 12 weeks are not provided, so the week before is known only by the change (see the module comment). */
function visibilitySection(v: ResponseOf<'getVisibility'>, withoutHistory: boolean): VisibilitySection {
  const before = v.history.at(-2);
  const fromChange = withoutHistory && v.score !== null && v.change !== null ? Math.round((v.score - v.change) * 10) / 10 : null;
  const previous = before?.score ?? fromChange;
  const n1 = v.answered_runs;
  const n0 = before?.answered_runs ?? (fromChange === null ? 0 : n1);
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
    scale: chartScale(v.history.map((p) => p.score)),
  };
}

function topicMoves(t: ResponseOf<'listTopics'> | null, totalRuns: number): TopicMove[] {
  const topics = t?.topics ?? [];
  const totalQuestions = topics.reduce((sum, topic) => sum + topic.questions, 0);
  return topics
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

const sizeOf = (q: QuestionMove) => Math.abs(q.engines_naming_now - q.engines_naming_before);

function questionMoves(h: ResponseOf<'getAnswerHistory'>, topicNames: Map<number, string>, outcome: 'won' | 'lost'): QuestionMove[] {
  const way = outcome === 'won' ? 'gained' : 'lost';
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
        .map((m) => ({ engine: m.engine, engine_label: engineLabel(m.engine), before: m.before, now: m.now, direction: m.direction, top_rival: m.top_rival }))
        .sort((a, b) => Number(b.direction === way) - Number(a.direction === way)),
    }))
    .sort((a, b) => sizeOf(b) - sizeOf(a) || a.question_id - b.question_id);
}

/**
 * The questions the digest lists, biggest moves first: up to `LOST_SHOWN`
 * losses (more when there are fewer gains to show), then gains, 5 in all.
 */
export function topQuestions(lost: readonly QuestionMove[], won: readonly QuestionMove[]): { lost: QuestionMove[]; won: QuestionMove[] } {
  const lostShown = Math.min(lost.length, Math.max(LOST_SHOWN, DIGEST_QUESTIONS - won.length));
  return { lost: lost.slice(0, lostShown), won: won.slice(0, DIGEST_QUESTIONS - lostShown) };
}

/** Every engine's figures (see "Per engine" in the module comment); `moves`: whether the service says which engines moved each question. */
function engineFigures(h: ResponseOf<'getAnswerHistory'>, matrix: ResponseOf<'getPromptMatrix'> | null, moves: boolean): EngineFigures[] {
  const named = [...(matrix?.engines ?? []), ...h.questions.flatMap((q) => q.moved.map((m) => m.engine))];
  return enginesOf(named).map((engine) => {
    let gained = 0;
    let lost = 0;
    for (const q of h.questions) for (const m of q.moved) if (m.engine === engine) m.direction === 'gained' ? gained++ : lost++;
    let naming: number | null = null;
    let answered: number | null = null;
    let recommended: number | null = null;
    let runs: number | null = null;
    if (matrix) {
      const cells = matrix.prompts.flatMap((p) => p.engines.filter((c) => c.engine === engine));
      const states = cells.map((c) => c.state);
      naming = states.filter((s) => s !== null && NAMING_STATES.includes(s)).length;
      answered = states.filter((s) => s !== null && s !== 'no_answer').length;
      recommended = states.filter((s) => s === 'recommended').length;
      runs = cells.reduce((sum, c) => sum + c.runs, 0);
    }
    if (!moves) return { engine, engine_label: engineLabel(engine), naming, answered, naming_before: null, recommended, runs, gained: null, lost: null, change: null };
    return { engine, engine_label: engineLabel(engine), naming, answered, naming_before: naming === null ? null : naming - gained + lost, recommended, runs, gained, lost, change: gained - lost };
  });
}

/** The most frequent rival among the engines that moved, first seen on ties. */
function mainRival(engines: EngineMove[]): string | null {
  const counts = new Map<string, number>();
  for (const e of engines) if (e.top_rival) counts.set(e.top_rival, (counts.get(e.top_rival) ?? 0) + 1);
  let best: string | null = null;
  for (const [name, count] of counts) if (best === null || count > counts.get(best)!) best = name;
  return best;
}

/** The question that moved on the most engines; a loss before a gain of the same size, because a loss is what to act on. */
function biggestMove(wonLost: WonLostSection | null): QuestionMove | null {
  const moves = wonLost ? [...wonLost.lost, ...wonLost.won] : [];
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
  return { kind: q.outcome === 'lost' ? 'loss' : 'gain', headline, question: q.text, engines: names, rival: mainRival(moved) };
}

function visibilityWords(vis: VisibilitySection): string {
  if (vis.score === null) return 'AI visibility was not measured this week';
  if (vis.trend === 'unknown') return `AI visibility was ${formatPercent(vis.score)}, with no week before to compare`;
  return `AI visibility held steady at ${formatPercent(vis.score)}`;
}

function leadOf(brand: string, periodLabel: string, empty: Report['empty'], vis: VisibilitySection | null, wonLost: WonLostSection | null, topics: TopicMove[]): Lead {
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
  if (lost > 0 && won > 0) return `lost ${lost} ${noun(lost)}, won ${won}`;
  if (lost > 0) return `lost ${lost} ${noun(lost)}`;
  if (won > 0) return `won ${won} ${noun(won)}`;
  return null;
}

function subjectOf(brand: string, periodLabel: string, empty: Report['empty'], vis: VisibilitySection | null, wonLost: WonLostSection | null): string {
  if (empty === 'nothing_measured') return `${brand}: nothing measured in AI answers · ${periodLabel}`;
  const pieces: string[] = [];
  if (empty === 'nothing_changed') pieces.push('a quiet week');
  if (vis) pieces.push(vis.score === null ? 'AI visibility not measured' : `AI visibility ${formatPercent(vis.score)} (${formatTrend(vis.change, vis.trend)})`);
  const news = wonLost ? questionNews(wonLost.counts) : null;
  if (news) pieces.push(news);
  pieces.push(periodLabel);
  return `${brand}: ${pieces.join(' · ')}`;
}

/** The report; see the module comment. Pure: same bodies, same report. */
export function buildReport(input: ReportInput): Report {
  const kinds = DIGEST_KINDS.filter((k) => input.kinds.includes(k));
  const v = input.visibility;
  const missing = input.not_provided ?? [];
  const withoutHistory = missing.includes('history');
  const vis = visibilitySection(v, withoutHistory);
  const topicNames = new Map((input.topics?.topics ?? []).map((t) => [t.id, t.name]));
  const topics = topicMoves(input.topics, v.answered_runs);
  const won = questionMoves(input.history, topicNames, 'won');
  const lost = questionMoves(input.history, topicNames, 'lost');
  const top = topQuestions(lost, won);
  const wonLost: WonLostSection = {
    counts: input.history.counts,
    period: input.history.period,
    previous_period: input.history.previous_period,
    won,
    lost,
    top_lost: top.lost,
    top_won: top.won,
  };
  const matrix = input.matrix && input.matrix.period.from === v.period.from && input.matrix.period.to === v.period.to ? input.matrix : null;
  const showVis = kinds.includes('visibility') ? vis : null;
  const showWonLost = kinds.includes('won_lost') ? wonLost : null;
  const showTopics = showVis ? topics : [];
  const previousRuns = v.history.at(-2)?.answered_runs ?? 0;
  // Without the history, a change says the week before was measured.
  const nothingMeasured = v.answered_runs === 0 && (withoutHistory ? v.change === null : previousRuns === 0);
  const anythingMoved =
    (showWonLost !== null && wonLost.counts.won + wonLost.counts.lost > 0) ||
    (showVis !== null && (vis.trend === 'up' || vis.trend === 'down' || topics.some((t) => t.trend === 'up' || t.trend === 'down')));
  const empty = nothingMeasured ? 'nothing_measured' : anythingMoved ? null : 'nothing_changed';
  const periodLabel = formatRange(v.period);
  return {
    brand: input.brand,
    market: v.market,
    kinds,
    week: { iso: input.week.isoWeek, monday: input.week.monday, label: shortDay(v.period.from) },
    period: v.period,
    period_label: periodLabel,
    generated_at: v.generated_at,
    empty,
    lead: leadOf(input.brand.name, periodLabel, empty, showVis, showWonLost, showTopics),
    visibility: showVis,
    topics: showTopics,
    won_lost: showWonLost,
    engines: engineFigures(input.history, matrix, !missing.includes('moved')),
    subject: subjectOf(input.brand.name, periodLabel, empty, showVis, showWonLost),
    not_provided: notProvidedOf(missing),
  };
}

/** The parts not provided, each with its line (one per part: the report's sections are separate). */
function notProvidedOf(missing: readonly PartId[]): NotProvided[] {
  return missing.flatMap((part) => {
    const consequence = NEEDS.digest[part];
    if (consequence === undefined || consequence === 'required') return [];
    const { operation, fields, words } = PARTS[part];
    return [{ part, operation, fields, words, line: notProvidedLine(part, consequence) }];
  });
}

/** The line said where the report leaves out `part`'s section, when the service does not provide it. */
export const notProvidedIn = (report: Pick<Report, 'not_provided'>, part: PartId): string | undefined => report.not_provided.find((p) => p.part === part)?.line;
