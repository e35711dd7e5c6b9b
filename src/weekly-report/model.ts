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
 * What the reader is told first, the subject and the lead: lead.ts. The
 * report's shape: report.ts; how engines are named: engines.ts.
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
 * Which engines. Ours, then any other the service names. With `/prompts`, an
 * engine with no run in the period (one the service carries, or one of ours,
 * that answered nothing) is left out: an engine that answered nothing cannot
 * name the brand, so it is neither listed nor counted ("of 6 engines"), and
 * the page, the email, its text, the alerts and MCP `weekly_report` all read
 * this one list. That holds for an engine that named the brand the week
 * before and answered nothing this week too: its stop is told where the
 * question's move is (`won_lost`, "not run"), not as a row of the engines.
 * Without `/prompts` the runs are unknown and no engine is left out.
 *
 * Parts the service does not provide (parts.ts: the 12-week history,
 * per-engine answers, the engines that moved each question, topics, rivals)
 * are listed in `not_provided`, each with the line a reader sees where its
 * section is left out; the figures that need them are null, never guessed.
 * One estimate: without the history, the week before's answered runs are
 * taken as this week's for the noise (its score is this week's less the
 * change), as a topic's runs are estimated.
 */
import type { ResponseOf } from '../contract/operations';
import { NAMING_STATES } from '../contract/enums';
import { type MapMisses, NEEDS, notProvidedLine, PARTS, type PartId } from './parts';
import { changeNoise, trendOf } from './noise';
import { engineLabel, enginesOf } from './engines';
import { leadOf, sizeOf, subjectOf } from './lead';
import { figuresViolations } from './guard';
import { planOf } from './plan';
import { DIGEST_KINDS, type EngineFigures, type NotProvided, type QuestionMove, type Report, type ReportInput, type TopicMove, type VisibilitySection, type WonLostSection } from './report';
import { formatPercent, formatRange, shortDay, type Trend } from './words';

export * from './engines';
export * from './noise';
export * from './report';
export * from './words';
export * from './plan';

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
  const figures = enginesOf(named).map((engine): EngineFigures => {
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
  // "Which engines" in the module comment: with /prompts, one that answered nothing in the period is not listed.
  return matrix ? figures.filter((e) => e.runs! > 0) : figures;
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
  const engines = engineFigures(input.history, matrix, !missing.includes('moved'));
  const notProvided = notProvidedOf(missing, input.misses ?? {});
  const planLines = notProvided.filter((p) => PLAN_PARTS.includes(p.part)).map((p) => p.line);
  const plan = showWonLost && input.plan && !nothingMeasured ? planOf({ brand: input.brand.name, history: input.history, topicNames, inputs: input.plan, notProvided: planLines }) : null;
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
    plan,
    engines,
    subject: subjectOf(input.brand.name, periodLabel, empty, showVis, showWonLost),
    not_provided: notProvided,
    implausible: figuresViolations({ visibility: v, history: input.history, topics: input.topics, matrix: input.matrix ?? null, ...input.plan, today: input.today }, engines),
  };
}

/** The parts only the plan reads: their lines are said in the plan's section. */
const PLAN_PARTS: readonly PartId[] = ['coverage', 'tasks', 'cited_instead'];

/** The parts not provided, each with its line (one per part: the report's sections are separate). */
function notProvidedOf(missing: readonly PartId[], misses: Partial<Record<PartId, MapMisses>>): NotProvided[] {
  return missing.flatMap((part) => {
    const consequence = NEEDS.digest[part];
    if (consequence === undefined || consequence === 'required') return [];
    const { operation, fields, words } = PARTS[part];
    return [{ part, operation, fields, words, line: notProvidedLine(part, consequence, misses[part]) }];
  });
}

/** The line said where the report leaves out `part`'s section, when the service does not provide it. */
export const notProvidedIn = (report: Pick<Report, 'not_provided'>, part: PartId): string | undefined => report.not_provided.find((p) => p.part === part)?.line;
