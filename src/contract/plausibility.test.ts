/**
 * The rules table (src/contract/plausibility.ts): each rule holds on a right
 * body and fails on one planted bad value, naming itself, the fields and the
 * values seen. A rule that cannot fail is a defect: every rule of the table
 * is failed here at least once (the last test says so).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { RULE_IDS, RULES, type Violation, violationsOf, viewViolations } from './plausibility';
import type { OperationId } from './operations';

type Body = Record<string, unknown>;
const failed = new Set<string>();

const week = (i: number, score: number | null) => {
  const end = new Date(Date.UTC(2026, 10, 25) - (11 - i) * 7 * 86_400_000);
  const start = new Date(end.getTime() - 6 * 86_400_000);
  return { week_start: start.toISOString().slice(0, 10), week_end: end.toISOString().slice(0, 10), score, answered_runs: i === 11 ? 1710 : 1700 };
};
const visibility = (): Body => ({
  period: { from: '2026-11-19', to: '2026-11-25' },
  score: 56.2,
  change: 1.2,
  answered_runs: 1710,
  naming_runs: 961,
  history: Array.from({ length: 12 }, (_, i) => week(i, i === 10 ? 55 : i === 11 ? 56.2 : 50 + i / 2)),
});
const answerHistory = (): Body => ({
  period: { from: '2026-11-19', to: '2026-11-25' },
  previous_period: { from: '2026-11-12', to: '2026-11-18' },
  counts: { won: 1, lost: 1, held: 1 },
  questions: [
    { outcome: 'won', engines_naming_now: 3, engines_naming_before: 2, moved: [{ engine: 'chatgpt' }] },
    { outcome: 'lost', engines_naming_now: 1, engines_naming_before: 2, moved: [{ engine: 'claude' }] },
    { outcome: 'held', engines_naming_now: 2, engines_naming_before: 2, moved: [] },
  ],
});
/** /answers/history as the service sends it: each moved engine with its state before and now. */
const moves = (): Body => ({
  counts: { won: 2, lost: 1, held: 1 },
  questions: [
    {
      question_id: 1,
      outcome: 'won',
      engines_naming_now: 3,
      engines_naming_before: 1,
      moved: [
        { engine: 'chatgpt', before: 'absent', now: 'recommended', direction: 'gained' },
        { engine: 'claude', before: 'open', now: 'mentioned', direction: 'gained' },
      ],
    },
    { question_id: 2, outcome: 'won', engines_naming_now: 2, engines_naming_before: 1, moved: [{ engine: 'gemini', before: null, now: 'mentioned', direction: 'gained' }] },
    { question_id: 3, outcome: 'lost', engines_naming_now: 0, engines_naming_before: 1, moved: [{ engine: 'copilot', before: 'mentioned', now: 'absent', direction: 'lost', top_rival: 'Helpwave' }] },
    {
      question_id: 4,
      outcome: 'held',
      engines_naming_now: 1,
      engines_naming_before: 1,
      moved: [
        { engine: 'chatgpt', before: 'mentioned', now: 'open', direction: 'lost', top_rival: null },
        { engine: 'claude', before: 'absent', now: 'recommended', direction: 'gained' },
      ],
    },
  ],
});
const TODAY = '2026-11-25';
const topics = (): Body => ({
  topics: [
    {
      score: 45.2,
      change: -6.3,
      rank: 1,
      questions: 7,
      rivals: [
        { name: 'A', share: 30.1 },
        { name: 'B', share: 12 },
      ],
    },
    { score: 61, change: 2.1, rank: 1, questions: 7, rivals: [{ name: 'A', share: 0.4 }] },
    { score: 30.5, change: 0, rank: 1, questions: 7, rivals: [] },
    { score: 12.3, change: 0.8, questions: 7, rivals: [] },
  ],
});
const matrix = (): Body => ({
  period: { from: '2026-11-19', to: '2026-11-25' },
  engines: ['chatgpt', 'claude', 'grok', 'meta_ai'],
  prompts: [
    {
      engines: [
        { engine: 'chatgpt', rate: 71.4, runs: 7 },
        { engine: 'claude', rate: 100, runs: 7 },
        { engine: 'grok', rate: null, runs: 0 },
        { engine: 'meta_ai', rate: 42.9, runs: 14 },
      ],
    },
    {
      engines: [
        { engine: 'chatgpt', rate: 28.6, runs: 7 },
        { engine: 'claude', rate: 50, runs: 8 },
        { engine: 'grok', rate: null, runs: 0 },
        { engine: 'meta_ai', rate: 35.7, runs: 14 },
      ],
    },
  ],
});
/** The overview's figures that are made of counts beside them, and the brand's own row among its rivals. */
const overview = (): Body => ({
  visibility: { score: 56.2, change: 1.2, answered_runs: 1710, naming_runs: 961 },
  share_of_voice: { share: 29.6, change: 0.1, brand_mentions: 957, rival_mentions: 2272 },
  competition: { brand: { name: 'Brightdesk', visibility: 56.2, share_of_voice: 29.6 }, rivals: [] },
  perception: { engines_measured: 6, engines_knowing: 5, engines_recommending: 1, recommend_rate: 16.7 },
  readiness: {
    score: 30,
    signals: [
      { value: 40, weight: 2 },
      { value: 10, weight: 1 },
    ],
  },
});
/** /pages: totals divided by engine, by topic and by page, each page by engine and topic, with their changes. */
const pages = (): Body => ({
  totals: { citations: 30, previous_citations: 25, change: 5 },
  by_engine: [
    { engine: 'chatgpt', citations: 20, previous_citations: 10 },
    { engine: 'claude', citations: 10, previous_citations: 15 },
  ],
  by_topic: [{ id: 1, citations: 30, previous_citations: 25, change: 5 }],
  pages: [
    {
      url: 'a',
      citations: 18,
      previous_citations: 5,
      change: 13,
      by_engine: [
        { citations: 12, previous_citations: 2 },
        { citations: 6, previous_citations: 3 },
      ],
      by_topic: [{ citations: 18, previous_citations: 5 }],
    },
    {
      url: 'b',
      citations: 12,
      previous_citations: 20,
      change: -8,
      by_engine: [
        { citations: 8, previous_citations: 8 },
        { citations: 4, previous_citations: 12 },
      ],
      by_topic: [{ citations: 12, previous_citations: 20 }],
    },
  ],
});
const perception = (): Body => ({ summary: { engines_measured: 6, engines_knowing: 5, engines_recommending: 1, recommend_rate: 16.7 } });
type Planted = OperationId | 'moves';
const RIGHT: Partial<Record<Planted, () => Body>> = {
  getVisibility: visibility,
  getAnswerHistory: answerHistory,
  listTopics: topics,
  getPromptMatrix: matrix,
  moves,
  getOverview: overview,
  getBrandPerception: perception,
  listPages: pages,
};

/** The violations of `id`'s right body with one change planted, read on `TODAY`. */
function planted(id: Planted, change: (body: Body) => void): Violation[] {
  const body = RIGHT[id]!();
  change(body);
  const found = violationsOf(id === 'moves' ? 'getAnswerHistory' : id, body, { today: TODAY });
  for (const v of found) failed.add(v.rule);
  return found;
}
const rules = (found: Violation[]) => found.map((v) => [v.rule, v.fields[0]]);

describe('on right bodies', () => {
  it('no rule is broken', () => {
    for (const [id, body] of Object.entries(RIGHT)) expect([id, violationsOf(id === 'moves' ? 'getAnswerHistory' : (id as OperationId), body(), { today: TODAY })]).toEqual([id, []]);
    // A day either side of the windows' last day: a time zone, or a body cached before midnight.
    for (const today of ['2026-11-24', '2026-11-26']) expect(violationsOf('getAnswerHistory', answerHistory(), { today })).toEqual([]);
  });
});

describe('each rule fails on a planted bad value', () => {
  it('score_is_share_named: the score that is not naming over answered, with the figures in words', () => {
    const found = planted('getVisibility', (b) => void (b.score = 11));
    expect(found).toEqual([
      {
        rule: 'score_is_share_named',
        operation: 'getVisibility',
        fields: ['score', 'naming_runs', 'answered_runs'],
        values: { score: 11, naming_runs: 961, answered_runs: 1710 },
        message: 'score 11.0, but 961 of 1,710 answers name the brand (56.2%): is `score` read from the right field?',
      },
    ]);
    expect(rules(planted('getVisibility', (b) => void (b.naming_runs = 2000)))).toEqual([['score_is_share_named', 'naming_runs']]);
    expect(rules(planted('getVisibility', (b) => void (b.score = null)))).toEqual([['score_is_share_named', 'score']]);
    // Rounding is not a violation: a share written with two decimals.
    expect(planted('getVisibility', (b) => void (b.score = 56))).toEqual([]);
  });

  it('within_range: a share above 100, a change below -100', () => {
    expect(rules(planted('listTopics', (b) => void ((b.topics as Body[])[0]!.score = 452)))).toEqual([['within_range', 'topics[].score']]);
    expect(rules(planted('getPromptMatrix', (b) => void ((b.prompts as { engines: Body[] }[])[0]!.engines[0]!.rate = 714)))).toEqual([['within_range', 'prompts[].engines[].rate']]);
    const change = planted('listTopics', (b) => void ((b.topics as Body[])[1]!.change = -210));
    expect(change[0]).toMatchObject({ rule: 'within_range', fields: ['topics[].change'], values: { 'topics[].change': [-210] } });
    expect(change[0]!.message).toContain('topics[].change -210: outside -100 to 100');
  });

  it('points_not_fractions: 0-1 changes beside right scores', () => {
    const found = planted('listTopics', (b) => {
      for (const t of b.topics as Body[]) t.change = Math.round((t.change as number) * 10) / 1000;
    });
    expect(rules(found)).toEqual([['points_not_fractions', 'topics[].change']]);
    expect(found[0]!.message).toBe(
      'topics[].change -0.063, 0.021, 0.008: every value is below one point and written to more decimals than a percentage has, as a 0-1 share is: is `topics[].change` read without `convert: percent`?',
    );
  });

  it('whole_counts: a negative count, a fraction', () => {
    expect(rules(planted('getAnswerHistory', (b) => void ((b.questions as Body[])[0]!.engines_naming_now = -1)))).toEqual([
      ['whole_counts', 'questions[].engines_naming_now'],
      ['outcome_follows_engines', 'questions[].outcome'],
    ]);
    expect(rules(planted('getVisibility', (b) => void ((b.history as Body[])[3]!.answered_runs = 12.5)))).toEqual([['whole_counts', 'history[].answered_runs']]);
  });

  it('outcomes_add_up: counts that are not the questions compared', () => {
    const found = planted('getAnswerHistory', (b) => void ((b.counts as Body).held = 30));
    expect(found.map((v) => v.message)).toEqual(['won 1 + lost 1 + held 30 = 32, but 3 questions are compared: are `counts` read from the right fields?']);
    expect(rules(planted('getAnswerHistory', (b) => void (b.counts = { won: 2, lost: 0, held: 1 })))).toEqual([['outcomes_add_up', 'counts.won']]);
  });

  it('outcome_follows_engines: won and lost mapped the wrong way round, counted per outcome', () => {
    const found = planted('getAnswerHistory', (b) => {
      const [won, lost] = b.questions as Body[];
      [won!.outcome, lost!.outcome] = ['lost', 'won'];
    });
    expect(rules(found)).toEqual([['outcome_follows_engines', 'questions[].outcome']]);
    expect(found[0]!.message).toBe(
      "1 question is lost though more engines name the brand now than before (a question: 3 now, 2 before), 1 won though fewer engines name the brand now than before (a question: 1 now, 2 before): are the outcomes' values (won, lost, held) mapped the right way round, or `engines_naming_now` and `engines_naming_before` read from the wrong fields?",
    );
  });

  it('absent_names_a_rival: a move that ends absent with no rival named blames the state, counting the moves', () => {
    const found = planted('moves', (b) => {
      const held = (b.questions as Body[])[3]!.moved as Body[];
      held[0]!.now = 'absent';
    });
    expect(found.map((v) => [v.rule, v.fields, v.values])).toEqual([
      ['absent_names_a_rival', ['questions[].moved[].now', 'questions[].moved[].top_rival'], { 'questions[].moved[].now': 'absent', 'questions[].moved[].top_rival': null, moves: 1 }],
    ]);
    expect(found[0]!.message).toContain('1 move ends `absent` with no rival named');
    // A service that does not give the rival says nothing of it.
    expect(
      planted('moves', (b) => {
        for (const q of b.questions as Body[])
          for (const m of q.moved as Body[]) {
            delete m.top_rival;
          }
      }),
    ).toEqual([]);
  });

  it('outcome_follows_engines: the counts swapped blame the counts, as the moved engines say, and count each outcome apart', () => {
    const found = planted('moves', (b) => {
      for (const q of b.questions as Body[]) [q.engines_naming_now, q.engines_naming_before] = [q.engines_naming_before, q.engines_naming_now];
    });
    expect(found.map((v) => [v.rule, v.fields, v.values])).toEqual([
      ['outcome_follows_engines', ['questions[].engines_naming_now', 'questions[].engines_naming_before'], { questions: 3, won: 2, lost: 1 }],
    ]);
    expect(found[0]!.message).toBe(
      '2 questions are won though fewer engines name the brand now than before (question 1: 1 now, 3 before), 1 lost though more engines name the brand now than before (question 3: 1 now, 0 before), while the engines that moved each go its way: are `engines_naming_now` and `engines_naming_before` read from the right fields (each from the other’s)?',
    );
    // The outcomes' values the wrong way round: the moves agree with the counts, so the outcome is blamed.
    const outcome = planted('moves', (b) => {
      for (const q of b.questions as Body[]) q.outcome = q.outcome === 'won' ? 'lost' : q.outcome === 'lost' ? 'won' : q.outcome;
    });
    expect(outcome.filter((v) => v.rule !== 'outcomes_add_up').map((v) => [v.rule, v.fields, v.values])).toEqual([
      ['outcome_follows_engines', ['questions[].outcome'], { questions: 3, won: 1, lost: 2 }],
    ]);
  });

  it("moves_follow_outcome: the moved engines' before and now swapped, counted per outcome, blaming them", () => {
    const found = planted('moves', (b) => {
      for (const q of b.questions as { moved: Body[] }[]) for (const m of q.moved) [m.before, m.now] = [m.now, m.before];
    });
    expect(found.map((v) => [v.rule, v.fields, v.values])).toEqual([['moves_follow_outcome', ['questions[].moved[].before', 'questions[].moved[].now'], { questions: 3, won: 2, lost: 1 }]]);
    expect(found[0]!.message).toBe(
      '2 questions are won though their moved engines name the brand less now than before (question 1: chatgpt recommended → absent), 1 lost though their moved engines name the brand more now than before (question 3: copilot absent → mentioned): are `moved[].before` and `moved[].now` read from the right fields (each from the other’s)?',
    );
    // A body without the states says nothing of them.
    expect(planted('getAnswerHistory', () => {})).toEqual([]);
  });

  it('rate_is_share_of_runs: a rate read from its runs, and one that no whole number of runs makes', () => {
    const found = planted('getPromptMatrix', (b) => {
      for (const p of b.prompts as { engines: Body[] }[]) for (const c of p.engines) if (c.runs !== 0) c.rate = c.runs;
    });
    expect(found.map((v) => [v.rule, v.fields, v.values])).toEqual([['rate_is_share_of_runs', ['prompts[].engines[].rate'], { cells: 6, wrong: 6, equal_to_runs: 6, example: { rate: 7, runs: 7 } }]]);
    expect(found[0]!.message).toBe(
      "prompts[].engines[].rate is not the share of its cell's runs in 6 of 6 cells (rate 7 of 7 runs is 0.49 runs, and a dominant state holds at least 20%), and equals its cell's runs in all 6: is `rate` read from the right field (it reads `runs`)?",
    );
    const one = planted('getPromptMatrix', (b) => void ((b.prompts as { engines: Body[] }[])[0]!.engines[0]!.rate = 65));
    expect(one.map((v) => [v.rule, v.values.wrong])).toEqual([['rate_is_share_of_runs', 1]]);
  });

  it('fixed_windows: the period read from the comparison window, a window not 7 days long, a comparison window that is not the week before', () => {
    const late = planted('getAnswerHistory', (b) => void (b.period = b.previous_period));
    expect(late.map((v) => [v.rule, v.fields])).toEqual([['fixed_windows', ['period.from', 'period.to']]]);
    expect(late[0]!.message).toBe(
      '/answers/history period 2026-11-12 to 2026-11-18 ends 7 days before today (2026-11-25), but its window is the last 7 days ending today: is `period` read from the comparison window (`previous_period`)?',
    );
    // Without the clock, the comparison window the same as the period still says it.
    const same = violationsOf('getAnswerHistory', { ...answerHistory(), period: { from: '2026-11-12', to: '2026-11-18' } });
    expect(same.map((v) => [v.rule, v.fields.length, v.message])).toEqual([
      [
        'fixed_windows',
        4,
        '/answers/history compares 2026-11-12 to 2026-11-18 with 2026-11-12 to 2026-11-18, but its comparison window is the 7 days before: are `period` and `previous_period` read from the same field?',
      ],
    ]);
    expect(rules(planted('getVisibility', (b) => void (b.period = { from: '2026-11-01', to: '2026-11-25' })))).toEqual([['fixed_windows', 'period.from']]);
    expect(planted('getPromptMatrix', (b) => void (b.period = { from: '2026-11-05', to: '2026-11-11' })).map((v) => v.message)).toEqual([
      '/prompts period 2026-11-05 to 2026-11-11 ends 14 days before today (2026-11-25), but its window is the last 7 days ending today: is `period` read from the right fields?',
    ]);
  });

  it('engines_ours_or_declared: a vendor alias that answered, left unmapped; one that answered nothing is not judged', () => {
    const found = planted('getPromptMatrix', (b) => {
      for (const p of b.prompts as { engines: Body[] }[])
        for (const c of p.engines) c.engine = ({ chatgpt: 'OPENAI', claude: 'ANTHROPIC', grok: 'XAI_GROK' } as Record<string, string>)[c.engine as string] ?? c.engine;
    });
    expect(found.map((v) => [v.rule, v.fields, v.values])).toEqual([['engines_ours_or_declared', ['prompts[].engines[].engine'], { 'prompts[].engines[].engine': ['OPENAI', 'ANTHROPIC'] }]]);
    expect(found[0]!.message).toBe(
      'prompts[].engines[].engine `OPENAI`, `ANTHROPIC`: 2 engines that answered, under names neither ours nor declared, each counted as an engine of its own: map each onto ours in `values`, or declare each as another engine in our form ("OPENAI": "openai", "ANTHROPIC": "anthropic")?',
    );
    expect(rules(planted('getAnswerHistory', (b) => void ((b.questions as { moved: Body[] }[])[1]!.moved[0]!.engine = 'Google AIO')))).toEqual([
      ['engines_ours_or_declared', 'questions[].moved[].engine'],
    ]);
    // An engine of the service's own, in a form of its own, is carried under its name (DESIGN section 13).
    expect(planted('getPromptMatrix', (b) => void ((b.prompts as { engines: Body[] }[])[0]!.engines[3]!.engine = 'Grok-2'))).toEqual([]);
  });

  it('weeks_consecutive: a gap between weeks, and a history that ends before the period', () => {
    expect(rules(planted('getVisibility', (b) => void ((b.history as Body[])[5] = week(6, 50))))).toEqual([['weeks_consecutive', 'history[].week_start']]);
    const late = planted('getVisibility', (b) => void (b.period = { from: '2026-12-03', to: '2026-12-09' }));
    expect(late.filter((v) => v.rule === 'weeks_consecutive').map((v) => v.message)).toEqual([
      "the history's last week ends 2026-11-25, outside the period 2026-12-03 to 2026-12-09: is the history read oldest first, from the right fields?",
    ]);
  });

  it('change_against_week_before: a 0-1 change read as points', () => {
    const found = planted('getVisibility', (b) => void (b.change = 0.012));
    expect(found.map((v) => [v.rule, v.message])).toEqual([
      [
        'change_against_week_before',
        'change 0.012, but the score went from 55.0 the week before to 56.2 (+1.2 points): is `change` read from the right field, in points (a 0-1 change needs `convert: percent`)?',
      ],
    ]);
  });

  it("last_week_is_the_period: the history's last week read from another count, or from another unit, than the period's", () => {
    const found = planted('getVisibility', (b) => void ((b.history as Body[]).at(-1)!.answered_runs = 285));
    expect(found.map((v) => [v.rule, v.fields])).toEqual([['last_week_is_the_period', ['history[].answered_runs', 'answered_runs']]]);
    expect(found[0]!.message).toMatch(/^[\d,]+ answered in the period, but 285 in the history's last week, which is the period: is `history\[\]\.answered_runs` read from the right field\?$/);
    const score = planted('getVisibility', (b) => void ((b.history as Body[]).at(-1)!.score = 0.562));
    expect(rules(score)).toContainEqual(['last_week_is_the_period', 'history[].score']);
  });

  it('engines_by_our_names: vendor ids of our engines; an engine of its own is carried', () => {
    const found = planted('getPromptMatrix', (b) => void (b.engines = ['openai-chatgpt', 'anthropic-claude', 'grok']));
    expect(found.map((v) => [v.rule, v.fields, v.values])).toEqual([['engines_by_our_names', ['engines[]'], { 'engines[]': ['openai-chatgpt', 'anthropic-claude'] }]]);
    expect(found[0]!.message).toContain('map them in `values` ("openai-chatgpt": "chatgpt", "anthropic-claude": "claude")');
    expect(rules(planted('getAnswerHistory', (b) => void ((b.questions as { moved: Body[] }[])[0]!.moved[0]!.engine = 'ChatGPT')))).toEqual([['engines_by_our_names', 'questions[].moved[].engine']]);
  });

  it('engines_answered: a view that counts an engine with no run', () => {
    const found = viewViolations([
      { engine: 'chatgpt', runs: 42 },
      { engine: 'grok', runs: 0 },
    ]);
    for (const v of found) failed.add(v.rule);
    expect(found).toEqual([
      {
        rule: 'engines_answered',
        operation: null,
        fields: ['engines[].runs'],
        values: { engines: ['grok'] },
        message: "`grok` answered nothing in the period, yet is counted among the brand's 2 engines",
      },
    ]);
    expect(
      viewViolations([
        { engine: 'chatgpt', runs: 42 },
        { engine: 'grok', runs: null },
      ]),
    ).toEqual([]);
  });

  it("score_is_share_named: the overview's visibility read from a 0-1 share without `percent`", () => {
    const found = planted('getOverview', (b) => void ((b.visibility as Body).score = 0.562));
    expect(found.map((v) => [v.rule, v.fields[0], v.message])).toEqual([
      ['score_is_share_named', 'visibility.score', 'score 0.562, but 961 of 1,710 answers name the brand (56.2%): is `visibility.score` read from the right field?'],
      [
        'brand_standing_is_its_figures',
        'competition.brand.visibility',
        'competition.brand.visibility 56.2, but visibility.score is 0.562: is `competition.brand.visibility` read from the right field, as a percentage?',
      ],
    ]);
  });

  it("share_of_voice_is_share_of_mentions: a share that is not the brand's part of the mentions", () => {
    const found = planted('getOverview', (b) => void ((b.share_of_voice as Body).rival_mentions = 957));
    expect(found.map((v) => [v.rule, v.fields[0], v.message])).toEqual([
      ['share_of_voice_is_share_of_mentions', 'share_of_voice.share', 'share 29.6, but 957 of 1,914 mentions are of the brand (50.0%): is `share_of_voice.share` read from the right field?'],
    ]);
  });

  it('recommend_rate_is_share_of_engines: in the perception summary and the overview', () => {
    expect(rules(planted('getBrandPerception', (b) => void ((b.summary as Body).recommend_rate = 0.167)))).toEqual([['recommend_rate_is_share_of_engines', 'summary.recommend_rate']]);
    expect(planted('getOverview', (b) => void ((b.perception as Body).engines_recommending = 5))[0]!.message).toBe(
      'recommend_rate 16.7, but 5 of 6 measured engines would recommend the brand (83.3%): is `perception.recommend_rate` read from the right field?',
    );
  });

  it('engines_counted: the summary counts the engines listed with a verdict, knowing the brand, recommending it', () => {
    const engines = [
      { knows_brand: true, recommends: true },
      { knows_brand: true, recommends: false },
      { knows_brand: false, recommends: false },
      { knows_brand: null, recommends: null },
    ];
    const summary = { engines_measured: 3, engines_knowing: 2, engines_recommending: 1 };
    const found = (id: 'getBrandPerception' | 'getOverview', body: Body) => {
      const violations = violationsOf(id, body);
      for (const v of violations) failed.add(v.rule);
      return violations.filter((v) => v.rule === 'engines_counted').map((v) => [v.fields[0], v.values.engines]);
    };
    expect(found('getBrandPerception', { summary, engines })).toEqual([]);
    expect(found('getOverview', { perception: { included: true, ...summary, engines } })).toEqual([]);
    // A verdict read from the other: 1 engine knows the brand, 2 would recommend it.
    const swapped = engines.map((e) => ({ knows_brand: e.recommends, recommends: e.knows_brand }));
    expect(found('getBrandPerception', { summary, engines: swapped })).toEqual([
      ['summary.engines_knowing', 1],
      ['summary.engines_recommending', 2],
    ]);
    expect(found('getOverview', { perception: { included: true, ...summary, engines: swapped } })).toEqual([
      ['perception.engines_knowing', 1],
      ['perception.engines_recommending', 2],
    ]);
    expect(violationsOf('getBrandPerception', { summary: { ...summary, engines_measured: 4 }, engines }).find((v) => v.rule === 'engines_counted')?.message).toBe(
      'summary.engines_measured is 4, but 3 of the 4 engines listed have a verdict: are they read from the right fields?',
    );
  });

  it("verdict_is_its_latest_week: an engine's verdict is its week as_of's, the latest of its history", () => {
    const week = (week_start: string, knows_brand: boolean, recommends: boolean) => ({ week_start, knows_brand, recommends, sentiment: 0.2 });
    const engines = [
      { engine: 'chatgpt', as_of: '2026-11-23', knows_brand: true, recommends: false, history: [week('2026-11-16', false, false), week('2026-11-23', true, false)] },
      { engine: 'gemini', as_of: null, knows_brand: null, recommends: null, history: [] },
    ];
    const found = (body: Body) => {
      const violations = violationsOf('getBrandPerception', body).filter((v) => v.rule === 'verdict_is_its_latest_week');
      for (const v of violations) failed.add(v.rule);
      return violations.map((v) => [v.fields, v.values.engines]);
    };
    expect(found({ engines })).toEqual([]);
    // The weeks' verdicts read from each other's field: the latest week no longer says what the engine says.
    const swapped = engines.map((e) => ({ ...e, history: e.history.map((w) => ({ ...w, knows_brand: w.recommends, recommends: w.knows_brand })) }));
    expect(found({ engines: swapped })).toEqual([[['engines[].history[].knows_brand', 'engines[].history[].recommends'], 1]]);
  });

  it("open_total_is_its_layers: the overview's open tasks are its layers' together", () => {
    const tasks = { included: true, open_total: 8, open_counts: { content: 1, technical: 2, authority: 0, brand: 5 } };
    const found = (body: Body) => {
      const violations = violationsOf('getOverview', body).filter((v) => v.rule === 'open_total_is_its_layers');
      for (const v of violations) failed.add(v.rule);
      return violations.map((v) => v.message);
    };
    expect(found({ tasks })).toEqual([]);
    // The total read from the brand layer's count, and that from the total.
    expect(found({ tasks: { ...tasks, open_total: 5, open_counts: { ...tasks.open_counts, brand: 8 } } })).toEqual([
      "tasks.open_total is 5, but the layers' open tasks add up to 11: are they read from the right fields?",
    ]);
  });

  it("readiness_is_weighted_signals: a score that is not its signals' weighted mean", () => {
    const found = planted('getOverview', (b) => void ((b.readiness as Body).score = 0.3));
    expect(found.map((v) => [v.rule, v.fields, v.message])).toEqual([
      ['readiness_is_weighted_signals', ['readiness.score'], 'readiness.score 0.3, but its 2 signals weigh in at 30.0: is `readiness.score` read from the right field, as a percentage?'],
    ]);
  });

  it("brand_standing_is_its_figures: the brand's row read from another field", () => {
    expect(rules(planted('getOverview', (b) => void ((b.competition as { brand: Body }).brand.share_of_voice = 56.2)))).toEqual([
      ['brand_standing_is_its_figures', 'competition.brand.share_of_voice'],
    ]);
  });

  it("citations_add_up: a page's citations by engine read the wrong way round", () => {
    const found = planted('listPages', (b) => {
      for (const page of b.pages as { by_engine: Body[] }[]) for (const e of page.by_engine) [e.citations, e.previous_citations] = [e.previous_citations, e.citations];
    });
    expect(found.map((v) => [v.rule, v.fields, v.message])).toEqual([
      [
        'citations_add_up',
        ['pages[].by_engine[].citations', 'pages[].citations'],
        'pages[].by_engine[].citations add up to 5, but pages[].citations is 18 (item 1 of `pages[]`, and 1 more): are they read from the right fields?',
      ],
      [
        'citations_add_up',
        ['pages[].by_engine[].previous_citations', 'pages[].previous_citations'],
        'pages[].by_engine[].previous_citations add up to 18, but pages[].previous_citations is 5 (item 1 of `pages[]`, and 1 more): are they read from the right fields?',
      ],
    ]);
  });

  it('change_of_counts: citations now and before swapped against their change', () => {
    const found = planted('listPages', (b) => void (((b.totals as Body).citations = 25), ((b.totals as Body).previous_citations = 30)));
    expect(found.filter((v) => v.rule === 'change_of_counts').map((v) => [v.fields[0], v.message])).toEqual([
      ['totals.change', 'totals.change 5, but 25 now against 30 before is -5: are `totals.citations` and `totals.previous_citations` read the right way round?'],
    ]);
  });

  it('position_where_named: a position where no run named the brand, and none where the state names it', () => {
    const cells = (position: (state: string, i: number) => unknown) => (b: Body) => {
      const states = ['recommended', 'absent', 'mentioned', 'open'];
      for (const p of b.prompts as { engines: Body[] }[]) p.engines.forEach((c, i) => Object.assign(c, { state: c.runs === 0 ? null : states[i], position: position(states[i]!, i) }));
    };
    // Right: the naming states ranked, the others not; absent at 71.4% may hold a rank from its other runs.
    expect(
      planted(
        'getPromptMatrix',
        cells((state, i) => (state === 'recommended' || state === 'mentioned' ? 1.5 : i === 1 ? null : null)),
      ),
    ).toEqual([]);
    const found = planted(
      'getPromptMatrix',
      cells(() => 602),
    );
    expect(found.map((v) => [v.rule, v.fields, v.message])).toEqual([
      [
        'position_where_named',
        ['prompts[].engines[].position', 'prompts[].engines[].state'],
        'prompts[].engines[].position 602 where the state is "absent": a position is the brand\'s rank where an answer named it, none where none did: is `prompts[].engines[].position` read from the right field?',
      ],
    ]);
    expect(
      rules(
        planted(
          'getPromptMatrix',
          cells(() => null),
        ),
      ),
    ).toEqual([['position_where_named', 'prompts[].engines[].position']]);
  });

  it("most_named_first: rivals' shares read from a field that rises down the list", () => {
    const found = planted('listTopics', (b) => void (b.topics as { rivals: Body[] }[])[0]!.rivals.reverse());
    expect(found.map((v) => [v.rule, v.fields, v.message])).toEqual([
      ['most_named_first', ['topics[].rivals[].share'], 'topics[].rivals[].share 12, 30.1: the list is most named first, so these never rise: is `topics[].rivals[].share` read from the right field?'],
    ]);
  });

  it("rank_among_rivals: a topic's rank read from a count beside it, never from a rank past a list that stops short or a tie", () => {
    const found = planted('listTopics', (b) => void ((b.topics as Body[])[0]!.rank = 7));
    expect(found.map((v) => [v.rule, v.fields, v.message])).toEqual([
      [
        'rank_among_rivals',
        ['topics[].rank'],
        'topics[0].rank is 7, but 0 of the 2 rivals listed have a larger share than its score 45.2: the rank is one more than those; is it read from the right field?',
      ],
    ]);
    const topic = (rank: number, score: number, shares: number[]) => ({ topic: { rank, score, rivals: shares.map((share, i) => ({ name: `R${i}`, share })) } });
    expect(rules(violationsOf('getTopic', topic(1, 20, [30, 25])))).toEqual([['rank_among_rivals', 'topic.rank']]);
    // Below the least share listed, the rank may be past the list; a tie rounded alike may be either place.
    for (const [rank, score, shares] of [
      [5, 10, [30, 20]],
      [3, 20, [30, 25]],
      [1, 30.1, [30.1]],
      [2, 30.1, [30.1]],
    ] as const)
      expect(violationsOf('getTopic', topic(rank, score, [...shares]))).toEqual([]);
  });

  it("questions_listed: a topic's count of questions that is not the questions it lists", () => {
    const topic = { topic: { id: 1, questions: 2, rivals: [] }, questions: [{ id: 11 }, { id: 12 }] };
    expect(violationsOf('getTopic', topic)).toEqual([]);
    const found = violationsOf('getTopic', { ...topic, topic: { ...topic.topic, questions: 1101 } });
    for (const v of found) failed.add(v.rule);
    expect(found.map((v) => [v.rule, v.message])).toEqual([['questions_listed', 'topic.questions 1,101, but the topic lists 2 questions: is `topic.questions` read from the right field?']]);
  });

  it('period_is_the_window, previous_period_before_it: a dated read judged by the window it asked for, each window apart, silent without it', () => {
    const asked = (body: Body, window = { from: '2026-11-12', to: '2026-11-25' }) => {
      const found = violationsOf('listPages', body, { today: TODAY, window });
      for (const v of found) failed.add(v.rule);
      return found;
    };
    // 14 days asked (`days=14`): its window before is the 14 days before it; a day either side of each end is a time zone.
    const right = { period: { from: '2026-11-12', to: '2026-11-25' }, previous_period: { from: '2026-10-29', to: '2026-11-11' } };
    expect(asked(right)).toEqual([]);
    expect(asked({ period: { from: '2026-11-13', to: '2026-11-26' } })).toEqual([]);
    // From and to read from each other's fields, the window before read as the period: each blames only its own window.
    expect(rules(asked({ ...right, period: { from: '2026-11-25', to: '2026-11-12' } }))).toEqual([['period_is_the_window', 'period.from']]);
    const before = asked({ period: right.previous_period, previous_period: right.previous_period });
    expect(before.map((v) => [v.rule, v.message])).toEqual([
      ['period_is_the_window', 'period reads 2026-10-29 to 2026-11-11, but the read asked for 2026-11-12 to 2026-11-25: is `period` read from the right fields?'],
    ]);
    expect(asked({ previous_period: right.period }).map((v) => v.message)).toEqual([
      'previous_period reads 2026-11-12 to 2026-11-25, but the read asked for 2026-11-12 to 2026-11-25, so the window before is 2026-10-29 to 2026-11-11: is `previous_period` read from the right fields?',
    ]);
    // A window as long but a week off, and one a day short: both broken.
    expect(rules(asked({ previous_period: { from: '2026-10-22', to: '2026-11-04' } }))).toEqual([['previous_period_before_it', 'previous_period.from']]);
    expect(rules(asked({ period: { from: '2026-11-13', to: '2026-11-25' } }))).toEqual([['period_is_the_window', 'period.from']]);
    // Without the window (the compatibility check, the digest), nothing is said of a dated read's period.
    expect(violationsOf('listPages', { period: { from: '2026-11-25', to: '2026-11-12' } }, { today: TODAY })).toEqual([]);
  });

  it('updated_not_before_created: a task updated before it was made, its two times read from each other', () => {
    const tasks = {
      tasks: [
        { created_at: '2026-11-02T09:00:00Z', updated_at: '2026-11-20T10:30:00Z' },
        { created_at: '2026-11-10T09:00:00Z', updated_at: '2026-11-10T09:00:00Z' },
      ],
    };
    expect(violationsOf('listTasks', tasks)).toEqual([]);
    const swapped = { tasks: tasks.tasks.map((t) => ({ created_at: t.updated_at, updated_at: t.created_at })) };
    const found = violationsOf('listTasks', swapped);
    for (const v of found) failed.add(v.rule);
    expect(found.map((v) => [v.rule, v.message])).toEqual([['updated_not_before_created', "tasks[].updated_at is before tasks[].created_at in 1 of 2: are they read from each other's fields?"]]);
    expect(violationsOf('getTask', { task: swapped.tasks[0] }).map((v) => v.rule)).toEqual(['updated_not_before_created']);
  });

  it("the content gaps: a question's page, citations and action, and the counts of actions", () => {
    const page = { url: 'https://brightdesk.com/a', title: 'A' };
    const gaps = (): Body => ({
      counts: { write: 1, improve: 1, leave: 1 },
      questions: [
        { page: null, has_page: false, page_citations: 0, cited: false, action: 'write' },
        { page, has_page: true, page_citations: 0, cited: false, action: 'improve' },
        { page, has_page: true, page_citations: 4, cited: true, action: 'leave' },
      ],
    });
    const found = (change: (b: Body) => void) => {
      const body = gaps();
      change(body);
      const violations = violationsOf('getContentGaps', body);
      for (const v of violations) failed.add(v.rule);
      return violations.map((v) => v.rule);
    };
    const questions = (b: Body) => b.questions as Body[];
    expect(found(() => {})).toEqual([]);
    // `has_page` and `cited` read from each other's fields.
    expect(
      found((b) => {
        for (const q of questions(b)) [q.has_page, q.cited] = [q.cited, q.has_page];
      }),
    ).toEqual(['has_page_is_a_page', 'cited_is_page_cited', 'action_follows_coverage']);
    expect(found((b) => void (questions(b)[2]!.page_citations = 0))).toEqual(['cited_is_page_cited']);
    expect(found((b) => void (questions(b)[1]!.action = 'leave'))).toEqual(['action_follows_coverage', 'actions_counted']);
    const counts = violationsOf('getContentGaps', { ...gaps(), counts: { write: 1, improve: 2, leave: 0 } });
    for (const v of counts) failed.add(v.rule);
    expect(counts.map((v) => v.message)).toEqual(['counts.improve is 2, but 1 questions are to improve: are the counts read from the right fields?']);
    // Actions in the service's own words say nothing of the counts.
    expect(found((b) => void questions(b).forEach((q) => (q.action = String(q.action).toUpperCase())))).toEqual([]);
  });

  it('the task list: matching and the open counts against the tasks listed, by the limit the read asked', () => {
    const task = (layer: string) => ({ layer, status: 'open' });
    const list = (): Body => ({ open_counts: { content: 2, technical: 1, authority: 0, brand: 0 }, matching: 3, tasks: [task('content'), task('content'), task('technical')] });
    const asked = { query: {} };
    const found = (body: Body, context: { query?: Record<string, unknown> } = asked) => {
      const violations = violationsOf('listTasks', body, context);
      for (const v of violations) failed.add(v.rule);
      return violations.map((v) => v.rule);
    };
    expect(found(list())).toEqual([]);
    // Fewer than the default limit (30) listed: matching is all of them, and each layer's open count is its listed tasks.
    expect(found({ ...list(), matching: 5 })).toEqual(['matching_counts_the_list']);
    expect(found({ ...list(), open_counts: { content: 1, technical: 2, authority: 0, brand: 0 } })).toEqual(['open_counts_cover_the_list']);
    // Without the query (the check, the digest), only what any read keeps: never fewer than listed.
    expect(found({ ...list(), matching: 5, open_counts: { content: 3, technical: 1, authority: 2, brand: 0 } }, {})).toEqual([]);
    expect(found({ ...list(), matching: 2, open_counts: { content: 1, technical: 1, authority: 0, brand: 0 } }, {})).toEqual(['matching_counts_the_list', 'open_counts_cover_the_list']);
    // A limit reached, or a layer asked: more may match, and other layers may have more open tasks.
    expect(found({ ...list(), matching: 9 }, { query: { limit: 3 } })).toEqual([]);
    expect(found({ ...list(), open_counts: { content: 2, technical: 1, authority: 4, brand: 0 } }, { query: { layer: 'content' } })).toEqual([]);
  });

  it("traffic: the totals against their bots, assistants and pages, the days with hits against the window, the visits' change", () => {
    const crawlers = (): Body => ({
      period: { from: '2026-11-19', to: '2026-11-25' },
      total_hits: 12,
      previous_hits: 40,
      days_with_hits: 5,
      bots: [{ hits: 8 }, { hits: 4 }],
      pages: [
        { hits: 9, bots: [{ hits: 6 }, { hits: 3 }] },
        { hits: 3, bots: [{ hits: 2 }, { hits: 1 }] },
      ],
    });
    const found = (id: OperationId, body: Body) => {
      const violations = violationsOf(id, body);
      for (const v of violations) failed.add(v.rule);
      return violations.map((v) => v.rule);
    };
    expect(found('getAiCrawlers', crawlers())).toEqual([]);
    // The total and the hits before read from each other's fields (neither the bots' nor the pages' sum); the days from the hits before.
    expect(found('getAiCrawlers', { ...crawlers(), total_hits: 40, previous_hits: 12 })).toEqual(['traffic_adds_up', 'traffic_adds_up']);
    expect(found('getAiCrawlers', { ...crawlers(), days_with_hits: 40, previous_hits: 5 })).toEqual(['days_with_traffic']);
    expect(violationsOf('getAiCrawlers', { ...crawlers(), days_with_hits: 8 }).map((v) => v.message)).toEqual(['days_with_hits is 8, but the window has 7 days: are they read from the right fields?']);
    expect(found('getAiCrawlers', { ...crawlers(), total_hits: 0, days_with_hits: 0, bots: [], pages: [] })).toEqual([]);
    const visitors = { total_visits: 10, previous_visits: 4, change: 6, assistants: [{ visits: 10 }], pages: [{ visits: 10, assistants: [{ visits: 10 }] }] };
    expect(found('getAiVisitors', visitors)).toEqual([]);
    expect(found('getAiVisitors', { ...visitors, total_visits: 4, previous_visits: 10 })).toEqual(['change_of_counts', 'traffic_adds_up', 'traffic_adds_up']);
  });

  it("head_to_heads_partition: the brand's runs the same for every rival, the runs with one ahead among those naming both, most named first", () => {
    const row = (both_named: number, brand_only: number, rival_only: number, brand_ahead: number, rival_ahead: number) => ({ both_named, brand_only, rival_only, brand_ahead, rival_ahead });
    const topic = () => ({ head_to_heads: [row(10, 20, 30, 6, 4), row(12, 18, 5, 2, 1)] });
    const found = (body: Body) => {
      const violations = violationsOf('getTopic', body);
      for (const v of violations) failed.add(v.rule);
      return violations.map((v) => [v.rule, v.fields[0]]);
    };
    expect(found(topic())).toEqual([]);
    // The rival's runs read as the brand's: the brand's runs differ by rival.
    expect(found({ head_to_heads: topic().head_to_heads.map((r) => ({ ...r, brand_only: r.rival_only, rival_only: r.brand_only })) })).toEqual([
      ['head_to_heads_partition', 'head_to_heads[].both_named'],
    ]);
    // Both named read from a count of the brand alone: more runs ahead than name both.
    expect(found({ head_to_heads: [row(4, 26, 30, 6, 4), row(6, 24, 5, 2, 1)] })).toEqual([['head_to_heads_partition', 'head_to_heads[].brand_ahead']]);
    expect(found({ head_to_heads: [...topic().head_to_heads].reverse() })).toEqual([['head_to_heads_partition', 'head_to_heads[].rival_only']]);
  });

  it("market_code_is_its_country: a market's code begins with its country, in any case, alone or with a language suffix", () => {
    const found = (id: 'listMarkets' | 'listBrands', body: Body) => {
      const violations = violationsOf(id, body);
      for (const v of violations) failed.add(v.rule);
      return violations.map((v) => [v.rule, v.fields[0], v.values.markets]);
    };
    const markets = [
      { code: 'us', language: 'en', country: 'US' },
      { code: 'DE', language: 'de', country: 'de' },
      { code: 'ch-fr', language: 'fr', country: 'CH' },
    ];
    expect(found('listMarkets', { markets })).toEqual([]);
    expect(found('listBrands', { brands: [{ markets }] })).toEqual([]);
    // The language read as the country: `us` and `ch-fr` do not begin with `en` and `fr`; `de` alone cannot tell them apart.
    const swapped = markets.map((m) => ({ ...m, country: m.language, language: m.country }));
    expect(found('listMarkets', { markets: swapped })).toEqual([['market_code_is_its_country', 'markets[].country', 2]]);
    expect(found('listBrands', { brands: [{ markets: swapped }, { markets }] })).toEqual([['market_code_is_its_country', 'brands[].markets[].country', 2]]);
    expect(violationsOf('listMarkets', { markets: swapped })[0]!.message).toBe('2 market codes do not begin with their country ("en", "fr"): is `markets[].country` read from the right field?');
  });

  it('counts_cover_the_list: a count of every item at least those listed, its flagged part between the flagged listed and the count', () => {
    const thread = (cited: boolean) => ({ title: 'Best payroll tool?', cited });
    const forum = (): Body => ({
      topics: [
        { threads_total: 9, threads_cited: 2, threads: [thread(true), thread(true), thread(false)] },
        { threads_total: 1, threads_cited: 0, threads: [thread(false)] },
      ],
    });
    const found = (id: OperationId, body: Body) => {
      const violations = violationsOf(id, body);
      for (const v of violations) failed.add(v.rule);
      return violations.map((v) => [v.rule, v.values.holders]);
    };
    expect(found('getForumSignals', forum())).toEqual([]);
    // The two counts read from each other's fields: fewer threads in all than cited.
    const swapped = (forum().topics as Body[]).map((t) => ({ ...t, threads_total: t.threads_cited, threads_cited: t.threads_total }));
    expect(found('getForumSignals', { topics: swapped })).toEqual([['counts_cover_the_list', 2]]);
    // Fewer cited than the cited threads listed.
    expect(found('getForumSignals', { topics: [{ threads_total: 9, threads_cited: 1, threads: [thread(true), thread(true)] }] })).toEqual([['counts_cover_the_list', 1]]);
    const search = (): Body => ({
      totals: { clicks: 30, impressions: 900, rows: 40, search_only: 12 },
      rows: [
        { clicks: 20, impressions: 500, ctr: 4, search_only: true },
        { clicks: 10, impressions: 400, ctr: 2.5, search_only: false },
      ],
    });
    expect(found('getSearchPerformance', search())).toEqual([]);
    expect(found('getSearchPerformance', { ...search(), totals: { clicks: 30, impressions: 900, rows: 12, search_only: 40 } })).toEqual([['counts_cover_the_list', 1]]);
    // Read with a limit the list stays under, every item is listed: a count and its part are exactly those listed.
    const asked = (id: OperationId, body: Body, limit: number) => violationsOf(id, body, { query: { limit } }).map((v) => [v.rule, v.values.holders ?? v.fields[0]]);
    const whole = { topics: [{ threads_total: 3, threads_cited: 2, threads: [thread(true), thread(true), thread(false)] }] };
    expect(asked('getForumSignals', whole, 20)).toEqual([]);
    expect(asked('getForumSignals', forum(), 3)).toEqual([]);
    expect(asked('getForumSignals', forum(), 20)).toEqual([['counts_cover_the_list', 1]]);
    expect(asked('getForumSignals', { topics: [{ ...whole.topics[0], threads_cited: 3 }] }, 20)).toEqual([['counts_cover_the_list', 1]]);
    const rows = { ...search(), totals: { clicks: 30, impressions: 900, rows: 2, search_only: 1 } };
    expect(asked('getSearchPerformance', rows, 25)).toEqual([]);
    expect(asked('getSearchPerformance', search(), 25)).toEqual([['counts_cover_the_list', 1]]);
    expect(asked('getSearchPerformance', { ...rows, totals: { ...rows.totals, clicks: 31 } }, 25)).toEqual([['search_totals_cover_rows', 'totals.clicks']]);
    expect(asked('getSearchPerformance', search(), 2)).toEqual([]);
  });

  it("sources_add_up: the classes add up to the total, the counts cover the sources listed, a source's share is of the total", () => {
    const source = (citations: number, classification: string) => ({ domain: `${classification}.example`, citations, share: Math.round((1000 * citations) / 50) / 10, classification });
    const sources = (over: Body = {}): Body => ({
      total_citations: 50,
      domains_cited: 4,
      by_class: { own: 10, competitor: 15, third_party: 25 },
      sources: [source(20, 'third_party'), source(15, 'competitor'), source(10, 'own')],
      ...over,
    });
    const found = (body: Body) => {
      const violations = violationsOf('listSources', body);
      for (const v of violations) failed.add(v.rule);
      return violations.map((v) => [v.rule, v.fields[0]]);
    };
    expect(found(sources())).toEqual([]);
    // An extra count read as a class; the own and third-party counts read from each other's fields.
    expect(found(sources({ by_class: { own: 3, competitor: 15, third_party: 25 } }))).toEqual([['sources_add_up', 'total_citations']]);
    expect(found(sources({ by_class: { own: 25, competitor: 15, third_party: 10 } }))).toEqual([['sources_add_up', 'by_class.third_party']]);
    // Every domain listed: each count is exactly its sources' (45 citations listed, not 50; 20 third-party, not 25).
    expect(found(sources({ domains_cited: 3 }))).toEqual([['sources_add_up', 'total_citations']]);
    expect(found(sources({ domains_cited: 3, total_citations: 45, by_class: { own: 10, competitor: 10, third_party: 25 } }))).toEqual([['sources_add_up', 'by_class.competitor']]);
    expect(found(sources({ domains_cited: 2 }))).toEqual([['sources_add_up', 'domains_cited']]);
    // Fewer sources than the limit asked: every domain is listed, whatever `domains_cited` says.
    const asked = (body: Body, limit: number) => violationsOf('listSources', body, { query: { limit } }).map((v) => [v.rule, v.fields[0]]);
    expect(asked(sources(), 100)).toEqual([['sources_add_up', 'total_citations']]);
    const listed = sources({ domains_cited: 3, sources: [source(25, 'third_party'), source(15, 'competitor'), source(10, 'own')] });
    expect(asked(listed, 100)).toEqual([]);
    expect(asked({ ...listed, domains_cited: 4 }, 100)).toEqual([['sources_add_up', 'domains_cited']]);
    expect(asked(sources(), 3)).toEqual([]);
    expect(found(sources({ sources: [{ ...source(20, 'third_party'), share: 20 }] }))).toEqual([['sources_add_up', 'sources[].share']]);
  });

  it('rival_leads_its_questions: more runs name the rival than the brand in each question it wins, largest lead first', () => {
    const question = (rival_runs: number, brand_runs: number) => ({ text: 'Which payroll tool?', rival_runs, brand_runs, answered_runs: 30 });
    const found = (questions: Body[]) => {
      const violations = violationsOf('getCompetitor', { questions_won: questions });
      for (const v of violations) failed.add(v.rule);
      return violations.map((v) => v.message);
    };
    expect(found([question(12, 2), question(9, 4), question(3, 2)])).toEqual([]);
    expect(found([question(2, 12), question(4, 9)])).toEqual([
      'a question the rival wins has as many runs naming the brand, or more: are `questions_won[].rival_runs` and `questions_won[].brand_runs` read from the right fields?',
    ]);
    expect(found([question(3, 2), question(12, 2)])).toEqual([
      'the questions are not listed largest lead first: are `questions_won[].rival_runs` and `questions_won[].brand_runs` read from the right fields?',
    ]);
  });

  it('search_totals_cover_rows: totals at least the rows listed, clicks at most impressions, a CTR its clicks over its impressions', () => {
    const row = (clicks: number, impressions: number, ctr: number | null) => ({ clicks, impressions, ctr });
    const body = (totals: Body, rows: Body[]): Body => ({ totals: { rows: 40, search_only: 3, ...totals }, rows });
    const found = (b: Body) => {
      const violations = violationsOf('getSearchPerformance', b);
      for (const v of violations) failed.add(v.rule);
      return violations.map((v) => [v.rule, v.fields[0]]);
    };
    const rows = [row(20, 500, 4), row(10, 400, 2.5), row(0, 0, null)];
    expect(found(body({ clicks: 31, impressions: 950 }, rows))).toEqual([]);
    // The totals read from each other's fields, or from a count of fewer than the rows listed.
    expect(found(body({ clicks: 950, impressions: 31 }, rows))).toEqual([['search_totals_cover_rows', 'totals.clicks']]);
    expect(found(body({ clicks: 12, impressions: 950 }, rows))).toEqual([['search_totals_cover_rows', 'totals.clicks']]);
    // A row's clicks and impressions swapped; a CTR that is not its clicks over its impressions.
    expect(found(body({ clicks: 600, impressions: 950 }, [row(500, 20, 4)]))).toEqual([['search_totals_cover_rows', 'rows[].clicks']]);
    expect(found(body({ clicks: 31, impressions: 950 }, [row(20, 500, 40)]))).toEqual([['search_totals_cover_rows', 'rows[].ctr']]);
  });

  it('the table holds every rule but the one of what a view counts', () => {
    expect(RULES.map((r) => r.id).sort()).toEqual(RULE_IDS.filter((id) => id !== 'engines_answered').sort());
  });
  // After every test of the block, in whatever order they ran: each rule of the table was failed by one of them.
  afterAll(() => {
    expect([...failed].sort()).toEqual([...RULE_IDS].sort());
  });
});
