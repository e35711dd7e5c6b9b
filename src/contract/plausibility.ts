/**
 * Readable is not right (DESIGN section 13). The relations the spec states
 * or implies between what an answer holds, as one table of rules, each with
 * the fields it reads: the compatibility check calls a feature whose reads
 * break one "implausible", the digest and the alerts send nothing whose
 * figures break one, and discovery prefers the reading of a body that keeps
 * them. Bodies are read on the contract's names (after the upstream map).
 *
 * ```ts
 * violationsOf('getVisibility', body);
 * // [{ rule: 'score_is_share_named', operation: 'getVisibility', fields: ['score', 'naming_runs', 'answered_runs'],
 * //    values: { score: 11, naming_runs: 961, answered_runs: 1710 },
 * //    message: 'score 11.0, but 961 of 1,710 answers name the brand (56.2%): is `score` read from the right field?' }]
 * ```
 *
 * Plain code over plain values, no schema: a fresh isolate's `/api/v1` never
 * loads it, and discovery runs it on bodies the contract does not read yet.
 */
import { ENGINES } from './enums';
import { valuesAtPath } from './paths';
import {
  checkAbsentNamesARival,
  checkChangeOfCounts,
  checkEnginesDeclared,
  checkLargestFirst,
  checkFixedWindows,
  checkWindowAsked,
  checkMovesFollowOutcome,
  checkOutcomeFollowsEngines,
  checkPartsAddUp,
  checkPointsNotFractions,
  checkPositionWhereNamed,
  checkRateIsShare,
  checkWholeCounts,
  checkWithinRange,
} from './plausibility-checks';
import { MARKET_RULES } from './plausibility-markets';
import { LIST_RULES } from './plausibility-lists';
import { PART_RULES } from './plausibility-parts';
import { oursUnderVendor } from './enum-spelling';
import { PLAN_RULES } from './plausibility-plan';
import { checkChangeAgainstWeekBefore, checkLastWeekIsThePeriod, checkWeeksConsecutive } from './plausibility-history';
import { type OperationId, operations, OPERATION_IDS } from './operations';
import type { Rule, Violation, RuleContext } from './plausibility-rule';
import { at, figure, isNum, present, ROUNDING, shareOfCounts, whole } from './plausibility-words';

export { ROUNDING } from './plausibility-words';

export { RULE_IDS, type Rule, type RuleContext, type RuleId, type Violation } from './plausibility-rule';

/** The cited pages' counts and what divides them: by engine, by topic, by page, now and in the previous period. */
const CITATION_PARTS = (['citations', 'previous_citations'] as const).flatMap(
  (n) =>
    [
      [`totals.${n}`, `by_engine[].${n}`],
      [`totals.${n}`, `by_topic[].${n}`],
      [`totals.${n}`, `pages[].${n}`],
      [`pages[].${n}`, `pages[].by_engine[].${n}`],
      [`pages[].${n}`, `pages[].by_topic[].${n}`],
    ] as const,
);
/** Counts with their change against the previous period. */
const COUNT_CHANGES = (holders: readonly string[]) => holders.map((h) => [`${h}citations`, `${h}previous_citations`, `${h}change`] as const);

/** The same fields of every operation with a time window. */
const windowed = (fields: readonly string[]) => Object.fromEntries(OPERATION_IDS.filter((id) => operations[id].window.kind !== 'none').map((id) => [id, fields]));

/** The table. Fields are contract paths; each rule reads only those it lists. */
export const RULES: readonly Rule[] = [
  {
    id: 'score_is_share_named',
    // The score is the share of answered runs that name the brand: 100 × naming_runs / answered_runs (null when none answered).
    reads: { getVisibility: ['score', 'naming_runs', 'answered_runs'], getOverview: ['visibility.score', 'visibility.naming_runs', 'visibility.answered_runs'] },
    pins: ['score', 'naming_runs', 'answered_runs', 'visibility.score', 'visibility.naming_runs', 'visibility.answered_runs'],
    check: (body, fields) => {
      const [score, naming, answered] = fields.map((f) => at(body, f));
      if (isNum(naming) && isNum(answered) && naming > answered) {
        const values = { [fields[0]!]: score, [fields[1]!]: naming, [fields[2]!]: answered };
        return [
          {
            fields: fields.slice(1),
            values,
            message: `${whole(naming)} answers name the brand, but only ${whole(answered)} answered: are \`${fields[1]}\` and \`${fields[2]}\` read from the right fields?`,
          },
        ];
      }
      return shareOfCounts(fields, score, naming, answered, 'answers name the brand');
    },
  },
  {
    id: 'within_range',
    // Shares and scores lie within 0 to 100 once converted; a change of one lies within -100 to 100.
    reads: {
      getVisibility: ['score', 'history[].score', 'change'],
      listTopics: ['topics[].score', 'topics[].rivals[].share', 'topics[].change'],
      getPromptMatrix: ['prompts[].engines[].rate'],
    },
    check: checkWithinRange,
  },
  {
    id: 'points_not_fractions',
    // Percentages are points from 0 to 100: many values all below one point, written with more decimals than a percentage has, are 0-1 shares read without `percent` (a change beside a 0-1 share is
    // a 0-1 change).
    reads: {
      listTopics: ['topics[].score', 'topics[].change', 'topics[].rivals[].share'],
      getVisibility: ['history[].score'],
      getPromptMatrix: ['prompts[].engines[].rate'],
    },
    check: checkPointsNotFractions,
  },
  {
    id: 'whole_counts',
    // Counts are whole numbers, never negative.
    reads: {
      getVisibility: ['answered_runs', 'naming_runs', 'history[].answered_runs'],
      getAnswerHistory: ['counts.won', 'counts.lost', 'counts.held', 'questions[].engines_naming_now', 'questions[].engines_naming_before'],
      getPromptMatrix: ['prompts[].engines[].runs'],
      listTopics: ['topics[].questions'],
    },
    check: checkWholeCounts,
  },
  {
    id: 'outcomes_add_up',
    // Won, lost and held add up to the questions compared, each the number of questions with that outcome.
    reads: { getAnswerHistory: ['counts.won', 'counts.lost', 'counts.held', 'questions[].outcome'] },
    pins: ['counts.won', 'counts.lost', 'counts.held'],
    check: (body, fields) => {
      const [won, lost, held] = fields.slice(0, 3).map((f) => at(body, f));
      const outcomes = valuesAtPath(body, 'questions[].outcome');
      if (!isNum(won) || !isNum(lost) || !isNum(held) || !Array.isArray(at(body, 'questions'))) return [];
      const [w, l, h] = [won, lost, held];
      const values = { 'counts.won': w, 'counts.lost': l, 'counts.held': h, questions: outcomes.length };
      if (w + l + h !== outcomes.length)
        return [
          {
            fields: [...fields],
            values,
            message: `won ${whole(w)} + lost ${whole(l)} + held ${whole(h)} = ${whole(w + l + h)}, but ${whole(outcomes.length)} questions are compared: are \`counts\` read from the right fields?`,
          },
        ];
      const counted = { won: w, lost: l, held: h };
      const off = (Object.keys(counted) as (keyof typeof counted)[]).find((o) => outcomes.filter((x) => x === o).length !== counted[o]);
      if (!off) return [];
      return [
        {
          fields: [...fields],
          values,
          message: `counts.${off} is ${whole(counted[off])}, but ${whole(outcomes.filter((x) => x === off).length)} questions are ${off}: are the counts or the outcomes' values mapped the wrong way round?`,
        },
      ];
    },
  },
  {
    id: 'outcome_follows_engines',
    // A question is won when more engines name the brand now than before, lost when fewer, held when as many.
    reads: { getAnswerHistory: ['questions[].outcome', 'questions[].engines_naming_now', 'questions[].engines_naming_before'] },
    check: checkOutcomeFollowsEngines,
  },
  {
    id: 'weeks_consecutive',
    // A history's weeks are 7 days each, consecutive, oldest first, and the last ends in the period.
    reads: { getVisibility: ['history[].week_start', 'history[].week_end', 'period.from', 'period.to'] },
    check: checkWeeksConsecutive,
  },
  {
    id: 'change_against_week_before',
    // The change is the score less the score of the 7 days before: with a history whose last week is the period, its week before.
    reads: { getVisibility: ['change', 'score', 'history[].score', 'history[].week_start', 'history[].week_end', 'naming_runs', 'answered_runs'] },
    pins: ['change'],
    check: checkChangeAgainstWeekBefore,
  },
  {
    id: 'last_week_is_the_period',
    // A history whose last week is the period has the period's figures there: its score and its answered runs.
    reads: { getVisibility: ['score', 'answered_runs', 'history[].score', 'history[].answered_runs', 'history[].week_start', 'history[].week_end', 'period.from', 'period.to'] },
    check: checkLastWeekIsThePeriod,
  },
  {
    id: 'engines_by_our_names',
    // An engine of ours is named as ours: a vendor's spelling of it (`openai-chatgpt`) left unmapped splits its figures in two.
    reads: { getPromptMatrix: ['engines[]', 'prompts[].engines[].engine'], getAnswerHistory: ['questions[].moved[].engine'] },
    check: (body, fields) =>
      fields.flatMap((field) => {
        const split = [...new Set(present(valuesAtPath(body, field)))].filter((v): v is string => typeof v === 'string' && oursUnderVendor(v, ENGINES) !== undefined);
        if (split.length === 0) return [];
        const pairs = split.map((v) => `"${v}": "${oursUnderVendor(v, ENGINES)}"`);
        return [
          {
            fields: [field],
            values: { [field]: split },
            message: `${field} ${split.map((v) => `\`${v}\``).join(', ')}: our engine${split.length === 1 ? '' : 's'} under a vendor's name, counted apart from ours: map ${split.length === 1 ? 'it' : 'them'} in \`values\` (${pairs.join(', ')})?`,
          },
        ];
      }),
  },
  {
    id: 'moves_follow_outcome',
    // The engines that moved a question go its way: a won question's moved engines name the brand more now than before (their `before` and `now` states), a lost one's less, a held one's as much;
    // and a move `gained` goes from not naming the brand to naming it.
    reads: { getAnswerHistory: ['questions[].moved[].before', 'questions[].moved[].now', 'questions[].outcome', 'questions[].engines_naming_now', 'questions[].engines_naming_before'] },
    check: checkMovesFollowOutcome,
  },
  {
    id: 'absent_names_a_rival',
    // An engine whose answers are `absent` names rivals and not the brand (DESIGN section 4): a move that ends absent has the rival it named most.
    reads: { getAnswerHistory: ['questions[].moved[].now', 'questions[].moved[].top_rival'] },
    check: checkAbsentNamesARival,
  },
  {
    id: 'rate_is_share_of_runs',
    // A dominant state's rate is the share of the cell's runs in that state: rate × runs / 100 is a whole number of runs, and, the most frequent of 5 states, at least 20.
    reads: { getPromptMatrix: ['prompts[].engines[].rate', 'prompts[].engines[].runs', 'prompts[].engines[].state'] },
    check: checkRateIsShare,
  },
  {
    id: 'fixed_windows',
    // The fixed windows (`/visibility`, `/prompts`, `/answers/history`) are the 7 days ending today (a day either side: time zones, the cache), compared with the 7 days before.
    reads: {
      getVisibility: ['period.from', 'period.to'],
      getPromptMatrix: ['period.from', 'period.to'],
      getAnswerHistory: ['period.from', 'period.to', 'previous_period.from', 'previous_period.to'],
    },
    check: checkFixedWindows,
  },
  {
    id: 'period_is_the_window',
    // Every windowed read's period is the window it asked for (`context.window`), a day either side for time zones.
    reads: windowed(['period.from', 'period.to']),
    check: checkWindowAsked('period'),
  },
  {
    id: 'previous_period_before_it',
    // Its window before (where it has one) is as many days, ending the day before: judged apart, so either settles alone.
    reads: windowed(['previous_period.from', 'previous_period.to']),
    check: checkWindowAsked('previous_period'),
  },
  {
    id: 'engines_ours_or_declared',
    // An engine that answered is ours, mapped onto ours by the map, or declared as another engine by a name in our form (lower case, `_` between words, as `google_ai_overviews`): a vendor's alias
    // left unmapped (upper case, `OPENAI`, `GOOGLE_AIO`, or naming a vendor of ours) is counted as an engine of its own. A value of the service's own in another form (`Grok-2`) is carried under
    // its name.
    reads: { getPromptMatrix: ['prompts[].engines[].engine', 'prompts[].engines[].runs'], getAnswerHistory: ['questions[].moved[].engine'] },
    check: checkEnginesDeclared,
  },
  {
    id: 'share_of_voice_is_share_of_mentions',
    // Share of voice is the brand's share of the mentions of it and its rivals: 100 × brand_mentions / (brand_mentions + rival_mentions).
    reads: { getOverview: ['share_of_voice.share', 'share_of_voice.brand_mentions', 'share_of_voice.rival_mentions'] },
    pins: ['share_of_voice.share'],
    check: (body, fields) => {
      const [share, brand, rivals] = fields.map((f) => at(body, f));
      return shareOfCounts(fields, share, brand, isNum(brand) && isNum(rivals) ? brand + rivals : undefined, 'mentions are of the brand');
    },
  },
  {
    id: 'recommend_rate_is_share_of_engines',
    // The recommend rate is the share of measured engines that would recommend the brand: 100 × engines_recommending / engines_measured.
    reads: {
      getBrandPerception: ['summary.recommend_rate', 'summary.engines_recommending', 'summary.engines_measured'],
      getOverview: ['perception.recommend_rate', 'perception.engines_recommending', 'perception.engines_measured'],
    },
    pins: ['summary.recommend_rate', 'perception.recommend_rate'],
    check: (body, fields) => {
      const [rate, recommending, measured] = fields.map((f) => at(body, f));
      return shareOfCounts(fields, rate, recommending, measured, 'measured engines would recommend the brand');
    },
  },
  {
    id: 'brand_standing_is_its_figures',
    // The brand's own row among its rivals holds its visibility and share of voice of the period.
    reads: { getOverview: ['competition.brand.visibility', 'visibility.score', 'competition.brand.share_of_voice', 'share_of_voice.share'] },
    pins: ['competition.brand.visibility', 'competition.brand.share_of_voice'],
    check: (body, fields) =>
      [0, 2].flatMap((i) => {
        const [row, value] = [at(body, fields[i]!), at(body, fields[i + 1]!)];
        if (!isNum(value) || (isNum(row) && Math.abs(row - value) <= ROUNDING)) return [];
        return [
          {
            fields: [fields[i]!],
            values: { [fields[i]!]: row, [fields[i + 1]!]: value },
            message: `${fields[i]} ${figure(row)}, but ${fields[i + 1]} is ${figure(value)}: is \`${fields[i]}\` read from the right field, as a percentage?`,
          },
        ];
      }),
  },
  {
    id: 'citations_add_up',
    // Citations counted by engine, by topic or by page add up to the whole they divide (the totals, a page), now and in the previous period.
    reads: { listPages: [...new Set(CITATION_PARTS.flat())] },
    check: checkPartsAddUp(CITATION_PARTS),
  },
  {
    id: 'change_of_counts',
    // A count's change is the count now less the count before.
    reads: {
      listPages: COUNT_CHANGES(['totals.', 'pages[].', 'by_topic[].']).flat(),
      getOverview: COUNT_CHANGES(['cited_pages[].']).flat(),
      getAiVisitors: ['total_visits', 'previous_visits', 'change'],
    },
    check: (body, fields) => checkChangeOfCounts(Array.from({ length: fields.length / 3 }, (_, i) => [fields[3 * i]!, fields[3 * i + 1]!, fields[3 * i + 2]!] as const))(body),
  },
  {
    id: 'position_where_named',
    // A position is the brand's rank where an answer named it: a cell or answer whose state names the brand has one; a cell whose every run does not name it (rate 100), or an answer that does not,
    // has none.
    reads: {
      getPromptMatrix: ['prompts[].engines[].state', 'prompts[].engines[].rate', 'prompts[].engines[].position'],
      getTopic: ['questions[].engines[].latest.state', 'questions[].engines[].latest.position'],
    },
    check: (body, fields) => (fields.length === 3 ? checkPositionWhereNamed(fields[0]!, fields[2]!, fields[1]!) : checkPositionWhereNamed(fields[0]!, fields[1]!))(body),
  },
  {
    id: 'most_named_first',
    // A topic's rivals are listed most named first: their shares never rise down the list.
    reads: { listTopics: ['topics[].rivals[].share'], getTopic: ['topic.rivals[].share'] },
    check: (body, fields) => checkLargestFirst(fields[0]!)(body),
  },
  ...PLAN_RULES,
  ...PART_RULES,
  ...LIST_RULES,
  ...MARKET_RULES,
];

/** Of what a view counts: an engine that answered nothing in the period is not one of the brand's engines. */
export const ENGINES_ANSWERED: Omit<Rule, 'reads' | 'check'> & { fields: readonly string[] } = {
  id: 'engines_answered',
  // An engine that answered nothing in the period is not one of the brand's engines: it is neither listed nor counted.
  fields: ['engines[].runs'],
};

/** Every rule that reads `operation`, run on its body (on the contract's names); `context.today` for the rules of the clock. */
export function violationsOf(operation: OperationId, body: unknown, context: RuleContext = {}): Violation[] {
  if (body === null || body === undefined) return [];
  return RULES.flatMap((rule) => {
    const fields = rule.reads[operation];
    return fields ? rule.check(body, fields, operation, context).map((found) => ({ rule: rule.id, operation, ...found })) : [];
  });
}

/** The engines a view lists and counts (`runs` null when unknown): one with no run in the period breaks `engines_answered`. */
export function viewViolations(engines: readonly { engine: string; runs: number | null }[]): Violation[] {
  const silent = engines.filter((e) => e.runs === 0).map((e) => e.engine);
  if (silent.length === 0) return [];
  return [
    {
      rule: ENGINES_ANSWERED.id,
      operation: null,
      fields: [...ENGINES_ANSWERED.fields],
      values: { engines: silent },
      message: `${silent.map((e) => `\`${e}\``).join(', ')} answered nothing in the period, yet ${silent.length === 1 ? 'is' : 'are'} counted among the brand's ${engines.length} engines`,
    },
  ];
}
