/**
 * The metric definitions of DESIGN section 4 on a world worked out by hand
 * (test/fixtures/metrics-world.ts). Every expected number is derived below.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../src/contract/window';
import { FIX, loadMetricsWorld, runId } from './fixtures/metrics-world';
import { api, json } from './helpers';
import { zodSide } from '../src/contract/zod-side';

/** The contract's zod side: the response schemas the bodies are checked with. */
const zs = await zodSide();

let today: string;
beforeAll(async () => {
  today = await loadMetricsWorld();
});

const read = async <T>(path: string): Promise<T> => {
  const response = await api(path, { key: FIX.key });
  expect(response.status).toBe(200);
  return json<T>(response);
};

describe('visibility', () => {
  it('is 100 x naming runs / answered runs over the trailing 7 days, with 12 weekly points', async () => {
    const body = zs.response('getVisibility').parse(await read('/visibility'));
    // Current week: 11 runs, 1 no_answer -> 10 answered; naming: runs 1, 2, 6, 10, 11 -> 5 -> 50.0.
    expect(body).toMatchObject({ score: 50, answered_runs: 10, naming_runs: 5, period: { from: addDays(today, -6), to: today } });
    // The week before: 5 answered, naming runs 15 and 16 -> 40.0; change +10.0 points.
    expect(body.change).toBe(10);
    expect(body.history.map((p) => p.score)).toEqual([null, null, null, null, null, null, null, null, null, 100, 40, 50]);
    expect(body.history.map((p) => p.answered_runs)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 5, 10]);
    expect(body.history[11]).toMatchObject({ week_start: addDays(today, -6), week_end: today });
    expect(body.history[0]).toMatchObject({ week_start: addDays(today, -83), week_end: addDays(today, -77) });
  });
});

describe('prompt-by-engine matrix', () => {
  it('gives the dominant state (ties to the better state), its rate and the mean position', async () => {
    const body = zs.response('getPromptMatrix').parse(await read('/prompts'));
    const cell = (q: number, engine: string) => body.prompts.find((p) => p.question_id === q)!.engines.find((e) => e.engine === engine);
    // Q1 on chatgpt: recommended, mentioned, absent once each -> tie -> recommended, 1/3; positions 1 and 3 -> 2.0.
    expect(cell(FIX.q1, 'chatgpt')).toEqual({ engine: 'chatgpt', state: 'recommended', rate: 33.3, position: 2, runs: 3 });
    // Q1 on perplexity: absent twice, mentioned once (position 2).
    expect(cell(FIX.q1, 'perplexity')).toEqual({ engine: 'perplexity', state: 'absent', rate: 66.7, position: 2, runs: 3 });
    // Q2 on chatgpt: absent, open, no_answer -> tie -> absent; never named.
    expect(cell(FIX.q2, 'chatgpt')).toEqual({ engine: 'chatgpt', state: 'absent', rate: 33.3, position: null, runs: 3 });
    expect(cell(FIX.q2, 'perplexity')).toEqual({ engine: 'perplexity', state: 'mentioned', rate: 100, position: 2, runs: 2 });
    // Engines not run in the window: nothing measured, not zero.
    expect(cell(FIX.q1, 'gemini')).toEqual({ engine: 'gemini', state: null, rate: null, position: null, runs: 0 });
  });
});

describe('won and lost', () => {
  it('counts engines naming the brand now and a week before, and names the engines that moved', async () => {
    const body = zs.response('getAnswerHistory').parse(await read('/answers/history'));
    expect(body.counts).toEqual({ won: 1, lost: 1, held: 0 });
    expect(body.previous_period).toEqual({ from: addDays(today, -13), to: addDays(today, -7) });
    expect(body.questions).toEqual([
      {
        // Q1: now chatgpt names it (recommended), before neither engine did (absent, absent) -> 1 vs 0 -> won.
        question_id: FIX.q1,
        text: FIX.q1Text,
        topic_id: FIX.topic,
        outcome: 'won',
        engines_naming_now: 1,
        engines_naming_before: 0,
        // Alpha and Beta are each named in 2 of Q1's chatgpt runs this week: the tie goes to Alpha.
        moved: [{ engine: 'chatgpt', before: 'absent', now: 'recommended', direction: 'gained', top_rival: 'Alpha' }],
      },
      {
        // Q2: before chatgpt (recommended) and perplexity (mentioned), now only perplexity -> 2 vs 1 -> lost.
        question_id: FIX.q2,
        text: FIX.q2Text,
        topic_id: FIX.topic,
        outcome: 'lost',
        engines_naming_now: 1,
        engines_naming_before: 2,
        moved: [{ engine: 'chatgpt', before: 'recommended', now: 'absent', direction: 'lost', top_rival: 'Beta' }],
      },
    ]);
  });
});

describe('topics', () => {
  it('rank the brand among its rivals by share of answered runs naming each', async () => {
    const body = zs.response('listTopics').parse(await read('/topics'));
    // Of 10 answered runs, Alpha is named in 6 (runs 2-6, 10), Beta in 5 (1, 2, 5, 7, 11), the brand in 5.
    // Only Alpha is named strictly more often than the brand -> rank 2.
    expect(body.topics).toEqual([
      {
        id: FIX.topic,
        name: 'Fixtures',
        score: 50,
        change: 10,
        rank: 2,
        questions: 2,
        rivals: [
          { name: 'Alpha', share: 60 },
          { name: 'Beta', share: 50 },
        ],
      },
    ]);
  });

  it('compare a custom window with the period of the same length before it', async () => {
    // Days today-2 .. today: runs 1-6 answered, naming 1, 2, 6 -> 50.0; the 3 days before: 7 (absent), 8 (open), 9 (no_answer) -> 0.0.
    const body = zs.response('listTopics').parse(await read(`/topics?days=3`));
    expect(body.topics[0]).toMatchObject({ score: 50, change: 50 });
  });

  it("in full: head-to-heads, sources, each engine's latest answer and the history", async () => {
    const body = zs.response('getTopic').parse(await read(`/topics/${FIX.topic}`));
    // Alpha is named in 6 runs, 3 of them with the brand (2, 6, 10), each time ahead of it; the brand is named alone in 2 (1, 11).
    // Beta: 5 runs, with the brand in 3 (1: brand first; 2 and 11: Beta first).
    expect(body.head_to_heads).toEqual([
      { rival: 'Alpha', both_named: 3, brand_only: 2, rival_only: 3, brand_ahead: 0, rival_ahead: 3 },
      { rival: 'Beta', both_named: 3, brand_only: 2, rival_only: 2, brand_ahead: 1, rival_ahead: 2 },
    ]);
    expect(body.top_sources).toEqual([
      { domain: 'alpha.com', citations: 1, classification: 'competitor' },
      { domain: 'fixco.com', citations: 1, classification: 'own' },
      { domain: 'g2.com', citations: 1, classification: 'third_party' },
    ]);
    const latest = (q: number, engine: string) => body.questions.find((x) => x.id === q)!.engines.find((e) => e.engine === engine)!.latest;
    expect(latest(FIX.q1, 'chatgpt')).toMatchObject({
      state: 'recommended',
      position: 1,
      text: 'Answer 1',
      citations: [
        { url: 'https://www.fixco.com/guide', domain: 'fixco.com' },
        { url: 'https://www.g2.com/categories/fixtures', domain: 'g2.com' },
      ],
    });
    // Runs 10 and 11 are on the same day; 11 ran later.
    expect(latest(FIX.q2, 'perplexity')).toMatchObject({ text: 'Answer 11' });
    expect(latest(FIX.q1, 'claude')).toBeNull();
    expect(body.history.map((p) => p.score).slice(-3)).toEqual([100, 40, 50]);
    expect(body.content_analysis).toEqual({ facts_compared: ['Price'], cited_pages_share: ['A table'], updated_on: today });
  });
});

describe('answer runs', () => {
  it('lists the runs of the rolling window newest first, with the exact text and whether the brand was named', async () => {
    const body = zs.response('getAnswerRuns').parse(await read(`/answers/runs?prompt=${encodeURIComponent(FIX.q1Text)}`));
    expect(body.runs.map((r) => [r.id, r.brand_named])).toEqual([
      [runId(4), false],
      [runId(1), true],
      [runId(5), false],
      [runId(2), true],
      [runId(6), true],
      [runId(3), false],
    ]);
    expect(body.question).toEqual({ id: FIX.q1, text: FIX.q1Text, topic_id: FIX.topic });
  });

  it('answers 404 not_found for a text that is not exactly a tracked question', async () => {
    const response = await api(`/answers/runs?prompt=${encodeURIComponent(FIX.q1Text.toUpperCase())}`, { key: FIX.key });
    expect(response.status).toBe(404);
    expect((await json<{ error: { code: string } }>(response)).error.code).toBe('not_found');
  });
});
