/**
 * Change alerts, as data: what moved between two evaluations of a brand and
 * market, a day apart. Pure: two snapshots in, changes out. The alert
 * evaluator (src/alerts) keeps a group's snapshot, compares the next one with
 * it, and bundles the events; the email (emails/alert.tsx), the Slack message
 * and the webhook's JSON all say what `headlineOf` says.
 *
 * ```ts
 * const after = alertSnapshotOf({ visibility, matrix, topics });
 * const changes = changesBetween(before, after); // [] on the first evaluation: it only stores
 * changes.filter((c) => c.event).map((c) => headlineOf(c.event!, 'Brightdesk'));
 * ```
 *
 * The events, and the rule against noise behind each (answers differ from run
 * to run, so a single run proves nothing):
 * - `question_lost`, `question_won`: an engine's dominant state for a question
 *   (`/prompts`, trailing 7 days) stops or starts naming the brand, with at
 *   least `MIN_RUNS` runs behind each of the two states. A dominant
 *   `no_answer` says nothing about the brand and is no side of a change.
 * - `visibility_moved`: the 7-day score moves by at least one standard error
 *   of the difference, the band the digest uses (`changeNoise`, `trendOf` of
 *   model.ts), from the two scores and their answered runs.
 * - `rival_overtook`: in a topic, a rival that was not ahead of the brand
 *   (its share of answers at most the brand's) is now ahead by more than one
 *   standard error of the two shares (the topic's runs estimated as the
 *   digest does: the answered runs times the topic's share of questions).
 *   A rival falling back behind is a change with no event: it only marks the
 *   reversal, so that overtaking again is news again.
 *
 * Every change has a `subject` (what it is about) and a `direction`: the
 * evaluator raises an event for a subject at most once per direction within
 * 7 days; the opposite direction (a reversal) is raised at once.
 *
 * A part the Read API does not provide (parts.ts: per-engine answers,
 * topics, rivals) is kept in the snapshot as not provided, and its events are
 * not looked for while either day lacks it: a rival missing yesterday is not
 * one that overtook the brand today.
 */
import type { ResponseOf } from '../contract/operations';
import { type AnswerState, NAMING_STATES } from '../contract/enums';
import { changeNoise, engineLabel, engineOrder, formatPercent, formatPoints, possessive, quoted, stateWord, trendOf } from './model';
import type { PartId } from './parts';

/** Runs needed behind each of the two states of a question's change. */
export const MIN_RUNS = 5;

export const ALERT_EVENT_TYPES = ['question_lost', 'question_won', 'visibility_moved', 'rival_overtook'] as const;
export type AlertEventType = (typeof ALERT_EVENT_TYPES)[number];

/** What an evaluation keeps of a group's figures: enough to compare the next day with. */
export interface AlertSnapshot {
  period: { from: string; to: string };
  visibility: { score: number | null; answered_runs: number };
  /** One per question and engine that ran. */
  cells: { question_id: number; text: string; topic_id: number; engine: string; state: AnswerState | null; runs: number }[];
  topics: { id: number; name: string; score: number | null; runs: number; rivals: { name: string; share: number }[] }[];
  /** The parts the Read API did not provide; absent in snapshots kept before it was recorded (every part was read). */
  not_provided?: PartId[];
}

export type AlertEvent =
  | {
      type: 'question_lost' | 'question_won';
      question: { id: number; text: string; topic: string | null };
      engine: string;
      engine_label: string;
      before: AnswerState;
      now: AnswerState;
      runs_before: number;
      runs_now: number;
      /** For a lost question, what would win it back, one line (plan.ts `actionLine`); absent when the service says neither its page nor a task. */
      action?: string;
    }
  | { type: 'visibility_moved'; direction: 'up' | 'down'; score: number; previous: number; change: number; noise: number; period: { from: string; to: string } }
  | { type: 'rival_overtook'; topic: { id: number; name: string }; rival: string; rival_share: number; brand_share: number; previous_rival_share: number | null };

export interface AlertChange {
  subject: string;
  direction: string;
  /** Null for a change that only marks a reversal (a rival falling back behind). */
  event: AlertEvent | null;
}

/**
 * The snapshot of one evaluation's bodies (`/visibility`, `/prompts` and `/topics` for the same 7 days); `/prompts` and
 * `/topics` null, and `not_provided` naming their parts, when the Read API does not provide them.
 */
export function alertSnapshotOf(bodies: {
  visibility: ResponseOf<'getVisibility'>;
  matrix: ResponseOf<'getPromptMatrix'> | null;
  topics: ResponseOf<'listTopics'> | null;
  not_provided?: PartId[];
}): AlertSnapshot {
  const { visibility, matrix, topics } = bodies;
  const topicList = topics?.topics ?? [];
  const totalQuestions = topicList.reduce((sum, t) => sum + t.questions, 0);
  return {
    period: visibility.period,
    visibility: { score: visibility.score, answered_runs: visibility.answered_runs },
    cells: (matrix?.prompts ?? []).flatMap((p) =>
      p.engines.filter((c) => c.runs > 0).map((c) => ({ question_id: p.question_id, text: p.text, topic_id: p.topic_id, engine: c.engine, state: c.state, runs: c.runs })),
    ),
    topics: topicList.map((t) => ({
      id: t.id,
      name: t.name,
      score: t.score,
      runs: totalQuestions > 0 ? Math.round((visibility.answered_runs * t.questions) / totalQuestions) : 0,
      rivals: t.rivals.map((r) => ({ name: r.name, share: r.share })),
    })),
    ...(bodies.not_provided && bodies.not_provided.length > 0 ? { not_provided: bodies.not_provided } : {}),
  };
}

const names = (state: AnswerState) => NAMING_STATES.includes(state);
/** A state that says something about the brand, with enough runs behind it. */
const telling = (cell: { state: AnswerState | null; runs: number } | undefined): cell is { state: AnswerState; runs: number } =>
  cell !== undefined && cell.state !== null && cell.state !== 'no_answer' && cell.runs >= MIN_RUNS;

function questionChanges(before: AlertSnapshot, after: AlertSnapshot): AlertChange[] {
  const earlier = new Map(before.cells.map((c) => [`${c.question_id}:${c.engine}`, c]));
  const topicNames = new Map(after.topics.map((t) => [t.id, t.name]));
  const changes: AlertChange[] = [];
  for (const cell of after.cells) {
    const was = earlier.get(`${cell.question_id}:${cell.engine}`);
    if (!telling(was) || !telling(cell) || names(was.state) === names(cell.state)) continue;
    const lost = names(was.state);
    changes.push({
      subject: `q:${cell.question_id}:${cell.engine}`,
      direction: lost ? 'lost' : 'won',
      event: {
        type: lost ? 'question_lost' : 'question_won',
        question: { id: cell.question_id, text: cell.text, topic: topicNames.get(cell.topic_id) ?? null },
        engine: cell.engine,
        engine_label: engineLabel(cell.engine),
        before: was.state,
        now: cell.state,
        runs_before: was.runs,
        runs_now: cell.runs,
      },
    });
  }
  return changes;
}

function visibilityChange(before: AlertSnapshot, after: AlertSnapshot): AlertChange[] {
  const { score, answered_runs } = after.visibility;
  const previous = before.visibility.score;
  if (score === null || previous === null) return [];
  const change = Math.round((score - previous) * 10) / 10;
  const noise = changeNoise(score, answered_runs, previous, before.visibility.answered_runs);
  const trend = trendOf(change, noise);
  if (noise === null || (trend !== 'up' && trend !== 'down')) return [];
  return [{ subject: 'visibility', direction: trend, event: { type: 'visibility_moved', direction: trend, score, previous, change, noise: Math.round(noise * 100) / 100, period: after.period } }];
}

function rivalChanges(before: AlertSnapshot, after: AlertSnapshot): AlertChange[] {
  const earlier = new Map(before.topics.map((t) => [t.id, t]));
  const changes: AlertChange[] = [];
  for (const topic of after.topics) {
    const was = earlier.get(topic.id);
    if (!was || topic.score === null || was.score === null) continue;
    for (const rival of topic.rivals) {
      const share = was.rivals.find((r) => r.name === rival.name)?.share ?? null;
      const wasAhead = share !== null && share > was.score;
      const noise = changeNoise(rival.share, topic.runs, topic.score, topic.runs) ?? 0;
      const nowAhead = rival.share - topic.score > noise;
      if (!wasAhead && nowAhead) {
        changes.push({
          subject: `rival:${topic.id}:${rival.name}`,
          direction: 'ahead',
          event: { type: 'rival_overtook', topic: { id: topic.id, name: topic.name }, rival: rival.name, rival_share: rival.share, brand_share: topic.score, previous_rival_share: share },
        });
      }
    }
    // Back behind (or no longer named): no event, but overtaking again is news again.
    for (const rival of was.rivals) {
      if (rival.share <= was.score) continue;
      const share = topic.rivals.find((r) => r.name === rival.name)?.share ?? 0;
      if (share <= topic.score) changes.push({ subject: `rival:${topic.id}:${rival.name}`, direction: 'behind', event: null });
    }
  }
  return changes;
}

/** Most important first: a fall of the score, lost questions, rivals ahead, then the good news. */
const RANK: Record<string, number> = { 'visibility_moved:down': 0, question_lost: 1, rival_overtook: 2, 'visibility_moved:up': 3, question_won: 4 };
const rankOf = (e: AlertEvent) => RANK[e.type === 'visibility_moved' ? `visibility_moved:${e.direction}` : e.type]!;
const orderWithin = (e: AlertEvent): [number, number] =>
  e.type === 'question_lost' || e.type === 'question_won' ? [e.question.id, engineOrder(e.engine)] : e.type === 'rival_overtook' ? [e.topic.id, -e.rival_share] : [0, 0];

export function byImportance(a: AlertEvent, b: AlertEvent): number {
  const [a1, a2] = orderWithin(a);
  const [b1, b2] = orderWithin(b);
  return rankOf(a) - rankOf(b) || a1 - b1 || a2 - b2;
}

/**
 * What changed from `before` to `after` (see the module comment), most
 * important events first; none when the two cover the same days (a second
 * evaluation of one day) or there is no `before` (the first evaluation).
 */
export function changesBetween(before: AlertSnapshot | null, after: AlertSnapshot): AlertChange[] {
  if (!before || (before.period.from === after.period.from && before.period.to === after.period.to)) return [];
  const bothHave = (...parts: PartId[]) => parts.every((part) => !before.not_provided?.includes(part) && !after.not_provided?.includes(part));
  const changes = [...visibilityChange(before, after), ...(bothHave('per_engine') ? questionChanges(before, after) : []), ...(bothHave('topics', 'rivals') ? rivalChanges(before, after) : [])];
  return changes.sort((a, b) => (a.event && b.event ? byImportance(a.event, b.event) : a.event ? -1 : b.event ? 1 : 0));
}

// ---------------------------------------------------------------- words

/** One sentence per event, the same in the email, Slack and the webhook's `summary`. */
export function headlineOf(event: AlertEvent, brand: string): string {
  switch (event.type) {
    case 'question_lost':
      return `${event.engine_label} stopped naming ${brand} for ${quoted(event.question.text)} (${stateWord(event.before)} → ${stateWord(event.now)}).${event.action ? ` ${event.action}` : ''}`;
    case 'question_won':
      return `${event.engine_label} now names ${brand} for ${quoted(event.question.text)} (${stateWord(event.before)} → ${stateWord(event.now)}).`;
    case 'visibility_moved':
      return `${possessive(brand)} AI visibility ${event.direction === 'up' ? 'rose' : 'fell'} to ${formatPercent(event.score)} (${formatPoints(event.change)}, beyond its noise of ±${event.noise.toFixed(1)} pts).`;
    case 'rival_overtook':
      return `${event.rival} overtook ${brand} in ${quoted(event.topic.name)}: named in ${formatPercent(event.rival_share)} of answers, ${brand} in ${formatPercent(event.brand_share)}.`;
  }
}

/** The subject line of a bundle: `Brightdesk (US): ChatGPT stopped naming it for 1 question · 2 more changes`. */
export function alertSubject(brand: string, market: string, events: readonly AlertEvent[]): string {
  const first = events[0];
  const scope = `${brand} (${market.toUpperCase()})`;
  if (!first) return `${scope}: no change`;
  const lead: Record<AlertEventType, string> = {
    question_lost: first.type === 'question_lost' ? `${first.engine_label} stopped naming it for a question` : '',
    question_won: first.type === 'question_won' ? `${first.engine_label} now names it for a question` : '',
    visibility_moved: first.type === 'visibility_moved' ? `AI visibility ${formatPercent(first.score)} (${formatPoints(first.change)})` : '',
    rival_overtook: first.type === 'rival_overtook' ? `${first.rival} overtook it in ${quoted(first.topic.name)}` : '',
  };
  const more = events.length - 1;
  return `${scope}: ${lead[first.type]}${more > 0 ? ` · ${more} more ${more === 1 ? 'change' : 'changes'}` : ''}`;
}
