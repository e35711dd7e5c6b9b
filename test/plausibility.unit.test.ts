/**
 * The rules table (src/contract/plausibility.ts): each rule holds on a right
 * body and fails on one planted bad value, naming itself, the fields and the
 * values seen. A rule that cannot fail is a defect: every rule of the table
 * is failed here at least once (the last test says so).
 */
import { describe, expect, it } from 'vitest';
import { oursWithin, RULE_IDS, RULES, type Violation, violationsOf, viewViolations } from '../src/contract/plausibility';
import { ENGINES } from '../src/contract/enums';
import type { OperationId } from '../src/contract/operations';

type Body = Record<string, unknown>;
const failed = new Set<string>();

const week = (i: number, score: number | null) => {
  const end = new Date(Date.UTC(2026, 10, 25) - (11 - i) * 7 * 86_400_000);
  const start = new Date(end.getTime() - 6 * 86_400_000);
  return { week_start: start.toISOString().slice(0, 10), week_end: end.toISOString().slice(0, 10), score, answered_runs: 1700 };
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
  counts: { won: 1, lost: 1, held: 1 },
  questions: [
    { outcome: 'won', engines_naming_now: 3, engines_naming_before: 2, moved: [{ engine: 'chatgpt' }] },
    { outcome: 'lost', engines_naming_now: 1, engines_naming_before: 2, moved: [{ engine: 'claude' }] },
    { outcome: 'held', engines_naming_now: 2, engines_naming_before: 2, moved: [] },
  ],
});
const topics = (): Body => ({
  topics: [
    { score: 45.2, change: -6.3, questions: 7, rivals: [{ name: 'A', share: 30.1 }, { name: 'B', share: 12 }] },
    { score: 61, change: 2.1, questions: 7, rivals: [{ name: 'A', share: 0.4 }] },
    { score: 30.5, change: 0, questions: 7, rivals: [] },
    { score: 12.3, change: 0.8, questions: 7, rivals: [] },
  ],
});
const matrix = (): Body => ({
  engines: ['chatgpt', 'claude', 'grok'],
  prompts: [{ engines: [{ engine: 'chatgpt', rate: 71.4, runs: 7 }, { engine: 'claude', rate: 100, runs: 7 }, { engine: 'grok', rate: null, runs: 0 }] }],
});
const RIGHT: Partial<Record<OperationId, () => Body>> = { getVisibility: visibility, getAnswerHistory: answerHistory, listTopics: topics, getPromptMatrix: matrix };

/** The violations of `id`'s right body with one change planted. */
function planted(id: OperationId, change: (body: Body) => void): Violation[] {
  const body = RIGHT[id]!();
  change(body);
  const found = violationsOf(id, body);
  for (const v of found) failed.add(v.rule);
  return found;
}
const rules = (found: Violation[]) => found.map((v) => [v.rule, v.fields[0]]);

describe('on right bodies', () => {
  it('no rule is broken', () => {
    for (const [id, body] of Object.entries(RIGHT)) expect([id, violationsOf(id as OperationId, body())]).toEqual([id, []]);
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
    expect(found[0]!.message).toBe('topics[].change -0.063, 0.021, 0.008: every value is below one point and written to more decimals than a percentage has, as a 0-1 share is: is `topics[].change` read without `convert: percent`?');
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

  it('outcome_follows_engines: won and lost mapped the wrong way round', () => {
    const found = planted('getAnswerHistory', (b) => {
      const [won, lost] = b.questions as Body[];
      [won!.outcome, lost!.outcome] = ['lost', 'won'];
    });
    expect(rules(found)).toEqual([['outcome_follows_engines', 'questions[].outcome']]);
    expect(found[0]!.message).toBe('2 questions are "lost" though 3 engines name the brand now and 2 before: are the outcomes\' values (won, lost, held) mapped the right way round?');
  });

  it('weeks_consecutive: a gap between weeks, and a history that ends before the period', () => {
    expect(rules(planted('getVisibility', (b) => void ((b.history as Body[])[5] = week(6, 50))))).toEqual([['weeks_consecutive', 'history[].week_start']]);
    const late = planted('getVisibility', (b) => void (b.period = { from: '2026-12-03', to: '2026-12-09' }));
    expect(late.map((v) => v.message)).toEqual(["the history's last week ends 2026-11-25, outside the period 2026-12-03 to 2026-12-09: is the history read oldest first, from the right fields?"]);
  });

  it('change_against_week_before: a 0-1 change read as points', () => {
    const found = planted('getVisibility', (b) => void (b.change = 0.012));
    expect(found.map((v) => [v.rule, v.message])).toEqual([
      ['change_against_week_before', 'change 0.012, but the score went from 55.0 the week before to 56.2 (+1.2 points): is `change` read from the right field, in points (a 0-1 change needs `convert: percent`)?'],
    ]);
  });

  it('engines_by_our_names: vendor ids of our engines; an engine of its own is carried', () => {
    const found = planted('getPromptMatrix', (b) => void (b.engines = ['openai-chatgpt', 'anthropic-claude', 'grok']));
    expect(found.map((v) => [v.rule, v.fields, v.values])).toEqual([['engines_by_our_names', ['engines[]'], { 'engines[]': ['openai-chatgpt', 'anthropic-claude'] }]]);
    expect(found[0]!.message).toContain('map them in `values` ("openai-chatgpt": "chatgpt", "anthropic-claude": "claude")');
    expect(rules(planted('getAnswerHistory', (b) => void ((b.questions as { moved: Body[] }[])[0]!.moved[0]!.engine = 'ChatGPT')))).toEqual([['engines_by_our_names', 'questions[].moved[].engine']]);
  });

  it('engines_answered: a view that counts an engine with no run', () => {
    const found = viewViolations([{ engine: 'chatgpt', runs: 42 }, { engine: 'grok', runs: 0 }]);
    for (const v of found) failed.add(v.rule);
    expect(found).toEqual([
      { rule: 'engines_answered', operation: null, fields: ['engines[].runs'], values: { engines: ['grok'] }, message: "`grok` answered nothing in the period, yet is counted among the brand's 2 engines" },
    ]);
    expect(viewViolations([{ engine: 'chatgpt', runs: 42 }, { engine: 'grok', runs: null }])).toEqual([]);
  });

  it('every rule of the table was failed above', () => {
    expect([...failed].sort()).toEqual([...RULE_IDS].sort());
    expect(RULES.map((r) => r.id).sort()).toEqual(RULE_IDS.filter((id) => id !== 'engines_answered').sort());
  });
});

describe('oursWithin', () => {
  it('finds one of ours under a vendor prefix or suffix, or respelled; never in another word', () => {
    expect(['openai-chatgpt', 'anthropic-claude', 'perplexity-sonar', 'google-ai-overviews', 'Microsoft_Copilot', 'chatgpt', 'grok', 'chatgpt4', 'xai-grok'].map((v) => oursWithin(v, ENGINES))).toEqual([
      'chatgpt', 'claude', 'perplexity', 'google_ai_overviews', 'copilot', undefined, undefined, undefined, undefined,
    ]);
  });
});
