/**
 * Figures the contract states in two answers: the same figure of the same
 * thing (a topic by its id, a page by its URL, the brand over the default 7
 * days), read with the requests the features and discovery make. One answer
 * alone may not tell a unit (a lone `0.559`: a share of 55.9, or half a
 * point?) or which of two counts is which; the same figure settled in the
 * other answer does. Discovery reads them so (src/discovery/figures.ts);
 * test/same-figures.test.ts holds every pair on the origin's answers.
 *
 * ```ts
 * figurePairs(topicBody, 'topic.score', 'topic.id');   // [['1101', 52.8]]
 * figurePairs(listBody, 'topics[].score', 'topics[].id'); // [['1101', 52.8], ['1102', 40.1], ...]
 * ```
 */
import type { OperationId } from './operations';
import { listOf, valuesAtPath } from './paths';

/** One answer's side of a relation: the operation, and the path whose values name the thing (a list's item key). */
export interface FigureSide {
  operation: OperationId;
  /** Where the thing's identity is read (`topics[].id`); none where the answer is about one thing only (the brand). */
  key?: string;
  /** The figure is how many items of the list (the side's path, `prompts[]`) name each thing by `key`: a count. */
  tally?: true;
}

export interface SameFigures {
  says: string;
  sides: readonly [FigureSide, FigureSide];
  /** Pairs of contract paths, the first side's and the second's, that hold the same figure. */
  fields: readonly (readonly [string, string])[];
}

export const SAME_FIGURES: readonly SameFigures[] = [
  {
    says: 'A topic in full has the figures the topic list gives it.',
    sides: [
      { operation: 'getTopic', key: 'topic.id' },
      { operation: 'listTopics', key: 'topics[].id' },
    ],
    fields: [
      ['topic.score', 'topics[].score'],
      ['topic.change', 'topics[].change'],
      ['topic.rank', 'topics[].rank'],
      ['topic.questions', 'topics[].questions'],
    ],
  },
  {
    says: "The overview's topics have the figures the topic list gives them.",
    sides: [
      { operation: 'getOverview', key: 'topics[].id' },
      { operation: 'listTopics', key: 'topics[].id' },
    ],
    fields: [
      ['topics[].score', 'topics[].score'],
      ['topics[].change', 'topics[].change'],
      ['topics[].rank', 'topics[].rank'],
    ],
  },
  {
    says: "A task's topics have the scores the topic list gives them.",
    sides: [
      { operation: 'getTask', key: 'task.topics[].id' },
      { operation: 'listTopics', key: 'topics[].id' },
    ],
    fields: [['task.topics[].score', 'topics[].score']],
  },
  {
    says: "A topic's count of questions is how many of the tracked questions name it.",
    sides: [
      { operation: 'listTopics', key: 'topics[].id' },
      { operation: 'getPromptMatrix', key: 'prompts[].topic_id', tally: true },
    ],
    fields: [['topics[].questions', 'prompts[]']],
  },
  {
    says: "A topic's count of questions is how many of the questions listed name it.",
    sides: [
      { operation: 'listTopics', key: 'topics[].id' },
      { operation: 'listAnswers', key: 'questions[].topic.id', tally: true },
    ],
    fields: [['topics[].questions', 'questions[]']],
  },
  {
    says: 'The overview of the default 7 days has the visibility score of the trailing 7 days.',
    sides: [{ operation: 'getOverview' }, { operation: 'getVisibility' }],
    fields: [
      ['visibility.score', 'score'],
      ['visibility.answered_runs', 'answered_runs'],
      ['visibility.naming_runs', 'naming_runs'],
    ],
  },
  {
    says: "A task's topics have the scores the overview gives them.",
    sides: [
      { operation: 'getTask', key: 'task.topics[].id' },
      { operation: 'getOverview', key: 'topics[].id' },
    ],
    fields: [['task.topics[].score', 'topics[].score']],
  },
  {
    says: "The overview's perception is the perception summary.",
    sides: [{ operation: 'getOverview' }, { operation: 'getBrandPerception' }],
    fields: [
      ['perception.recommend_rate', 'summary.recommend_rate'],
      ['perception.engines_measured', 'summary.engines_measured'],
      ['perception.engines_knowing', 'summary.engines_knowing'],
      ['perception.engines_recommending', 'summary.engines_recommending'],
    ],
  },
  {
    says: "Against a rival, the brand's share of answered runs is its visibility of the period.",
    sides: [{ operation: 'getCompetitor' }, { operation: 'getOverview' }],
    fields: [
      ['overall.brand_share', 'visibility.score'],
      ['overall.answered_runs', 'visibility.answered_runs'],
    ],
  },
  {
    says: "Against a rival, the brand's share of answered runs is its visibility score of the trailing 7 days.",
    sides: [{ operation: 'getCompetitor' }, { operation: 'getVisibility' }],
    fields: [
      ['overall.brand_share', 'score'],
      ['overall.answered_runs', 'answered_runs'],
    ],
  },
  {
    says: "A rival's share of answered runs is its visibility among the overview's rivals.",
    sides: [
      { operation: 'getCompetitor', key: 'competitor.name' },
      { operation: 'getOverview', key: 'competition.rivals[].name' },
    ],
    fields: [['overall.rival_share', 'competition.rivals[].visibility']],
  },
  {
    says: "The overview's cited pages have the citations the page list gives them.",
    sides: [
      { operation: 'getOverview', key: 'cited_pages[].url' },
      { operation: 'listPages', key: 'pages[].url' },
    ],
    fields: [
      ['cited_pages[].citations', 'pages[].citations'],
      ['cited_pages[].previous_citations', 'pages[].previous_citations'],
      ['cited_pages[].change', 'pages[].change'],
    ],
  },
];

/**
 * The figure at `path` of `body` (on the contract's names) by the thing it is of, as `[key, value]` pairs: one per
 * item of a list, the key read at `key` within the same item; one pair for a field outside lists (key `''` without
 * `key`). Items without a key are left out. With `tally`, `path` is a list and the figure how many of its items
 * name each thing.
 */
export function figurePairs(body: unknown, path: string, key?: string, tally = false): [string, unknown][] {
  if (tally) {
    // How many items of the list name each thing.
    const counts = new Map<string, number>();
    for (const [id] of figurePairs(body, `${path}.${key!.slice(path.length + 1)}`, key)) counts.set(id, (counts.get(id) ?? 0) + 1);
    return [...counts];
  }
  const list = listOf(path);
  if (!list) {
    const id = key === undefined ? '' : valuesAtPath(body, key)[0];
    return id === undefined || id === null ? [] : [[String(id), valuesAtPath(body, path)[0]]];
  }
  const rest = path.slice(list.length + 1);
  const keyRest = key?.startsWith(`${list}.`) ? key.slice(list.length + 1) : undefined;
  if (keyRest === undefined) return [];
  return valuesAtPath(body, list).flatMap((item): [string, unknown][] => {
    const id = valuesAtPath(item, keyRest)[0];
    return id === undefined || id === null ? [] : [[String(id), valuesAtPath(item, rest)[0]]];
  });
}

/** Written to the contract's one decimal on both sides: two readings of one figure differ by float noise at most. */
export const SAME_WITHIN = 0.051;
