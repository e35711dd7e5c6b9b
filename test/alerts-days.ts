/**
 * The alert tests' days of bodies, with no binding (the unit tests beside the
 * code import them in Node; test/alerts-helpers.ts re-exports them): the demo
 * brand's real bodies (emails/_fixtures/brightdesk-us.json) shifted and changed
 * by hand, and the host table of the fake DNS-over-HTTPS resolver.
 */
import { type AnswerState, NAMING_STATES } from '../src/contract/enums';
import type { ResponseOf } from '../src/contract/operations';
import { addDays } from '../src/contract/window';
import fixture from '../emails/_fixtures/brightdesk-us.json';

export interface DayBodies {
  visibility: ResponseOf<'getVisibility'>;
  matrix: ResponseOf<'getPromptMatrix'>;
  topics: ResponseOf<'listTopics'>;
}

/** The fixture's bodies with their 7 days ending `days` after the fixture's (23 Nov 2026). */
export function fixtureDay(days = 0): DayBodies {
  const bodies = structuredClone({ visibility: fixture.visibility, matrix: fixture.matrix, topics: fixture.topics }) as unknown as DayBodies;
  const period = { from: addDays(fixture.visibility.period.from, days), to: addDays(fixture.visibility.period.to, days) };
  for (const body of Object.values(bodies)) body.period = period;
  // The history moves with the period: its weeks stay consecutive and the last one ends in it (src/contract/plausibility.ts).
  for (const week of bodies.visibility.history) Object.assign(week, { week_start: addDays(week.week_start, days), week_end: addDays(week.week_end, days) });
  return bodies;
}

/**
 * A visibility body with another score that keeps the rules the spec implies (src/contract/plausibility.ts): the
 * runs naming the brand follow it, and so do the last week of the history and the change against the week before.
 */
export function withScore<Body extends { score: number | null; change: number | null; answered_runs: number; naming_runs: number; history: { score: number | null }[] }>(
  body: Body,
  score: number,
): Body {
  const naming = Math.round((score / 100) * body.answered_runs);
  const exact = Math.round((1000 * naming) / body.answered_runs) / 10;
  const history = body.history.map((week, i, all) => (i === all.length - 1 ? { ...week, score: exact } : week));
  const before = history.at(-2)?.score;
  return { ...body, score: exact, naming_runs: naming, history, change: typeof before === 'number' ? Math.round((exact - before) * 10) / 10 : body.change };
}

/**
 * Plants a cell's dominant state as the service would send it (src/contract/plausibility.ts): every one of its
 * `runs` in that state (rate 100), ranked where the state names the brand and unranked where it does not.
 */
export function plantCell(bodies: DayBodies, questionId: number, engine: string, state: AnswerState, runs: number): void {
  const found = cell(bodies, questionId, engine);
  Object.assign(found, { state, runs, rate: 100, position: NAMING_STATES.includes(state) ? (found.position ?? 2) : null });
}

/** The hand-worked changes of day 2 (src/alerts/alerts-model.test.ts works them): score down, Claude lost, Deskpilot ahead, ChatGPT won. */
export function changedDay2(): DayBodies {
  const day2 = fixtureDay(1);
  day2.visibility = withScore(day2.visibility, 50);
  plantCell(day2, 1101001, 'claude', 'absent', 7);
  plantCell(day2, 1101001, 'chatgpt', 'mentioned', 7);
  // Deskpilot ahead in the first topic: the brand's rank there follows (src/contract/plausibility.ts, rank_among_rivals).
  const topic = day2.topics.topics[0]!;
  topic.rivals[0]!.share = 60;
  topic.rank = 1 + topic.rivals.filter((r) => r.share > (topic.score ?? 0)).length;
  return day2;
}

/** One engine's cell of a question, to change by hand. */
export function cell(bodies: DayBodies, questionId: number, engine: string) {
  const found = bodies.matrix.prompts.find((p) => p.question_id === questionId)?.engines.find((c) => c.engine === engine);
  if (!found) throw new Error(`no cell ${questionId} ${engine}`);
  return found;
}

/** Names the fake resolver knows: public ones, and one that resolves inside a private network. */
export const HOSTS: Record<string, string[]> = {
  'hooks.slack.com': ['34.233.120.10'],
  'receiver.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'rebinding.example.com': ['93.184.216.35'],
  'intranet.example.com': ['10.0.0.5'],
  'mapped.example.com': ['::ffff:192.168.1.1'],
};
