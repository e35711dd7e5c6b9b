/**
 * The orders the contract gives its lists (the operations' descriptions:
 * "most cited first", "newest first", "oldest first"), as data: discovery
 * reads them as evidence (src/discovery/order.ts: of two counts in a cited
 * page, the one in that order in every list is its citations), and a test
 * holds the reference origin to each.
 */
import type { OperationId } from './operations';
import { valuesAtPath } from './paths';

export interface ListOrder {
  operation: OperationId;
  /** The list, as a contract path (`uncited[].cited_instead`). */
  list: string;
  /** The field of each item the list is ordered by. */
  by: string;
  direction: 'descending' | 'ascending';
  /** The contract's words for it. */
  says: string;
}

const most = (operation: OperationId, list: string, by: string, says: string): ListOrder => ({ operation, list, by, direction: 'descending', says });
const oldest = (operation: OperationId, list: string, by: string): ListOrder => ({ operation, list, by, direction: 'ascending', says: 'oldest first' });

/**
 * Each order by one field. An order by several ("best first": the largest gain, then the lower effort, then the
 * older task) is one by its first field alone (ties allowed); its later fields order nothing by themselves.
 */
export const LIST_ORDERS: readonly ListOrder[] = [
  oldest('getVisibility', 'history', 'week_start'),
  most('listTasks', 'tasks', 'expected_gain', 'best first: the largest expected gain first'),
  most('getAnswerRuns', 'runs', 'ran_at', 'newest first'),
  oldest('getTopic', 'history', 'week_start'),
  most('listSources', 'sources', 'citations', 'most cited first'),
  most('listPages', 'pages', 'citations', 'most cited first'),
  most('listPages', 'uncited[].cited_instead', 'citations', 'the URLs most cited instead, most cited first'),
  most('getCompetitor', 'cited_pages', 'citations', 'most cited first'),
  most('listActivity', 'entries', 'occurred_at', 'newest first'),
  oldest('getBrandPerception', 'engines[].history', 'week_start'),
  most('getPerceptionTranscript', 'transcripts', 'asked_at', 'newest first'),
  most('getForumSignals', 'topics[].threads', 'ai_citations', 'most cited first'),
  most('getSearchPerformance', 'rows', 'impressions', 'ordered by impressions'),
  most('getAiCrawlers', 'bots', 'hits', 'largest first'),
  most('getAiCrawlers', 'pages', 'hits', 'largest first'),
  most('getAiVisitors', 'assistants', 'visits', 'largest first'),
  most('getAiVisitors', 'pages', 'visits', 'largest first'),
  most('getOverview', 'competition.rivals', 'visibility', 'most named first'),
  most('getOverview', 'cited_pages', 'citations', 'the most cited pages'),
  { operation: 'getOverview', list: 'topics', by: 'score', direction: 'ascending', says: 'weakest first, nothing measured last' },
];

/** How a body keeps one order: the lists holding two items or more, the steps that strictly move, those that break it. */
export interface OrderKept {
  lists: number;
  steps: number;
  broken: number;
}

const comparable = (v: unknown): v is number | string => (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string';

/**
 * `order` judged on `body` (on the contract's names): null (unmeasured) sorts last either way; a value that is
 * neither a number nor a string, or numbers beside strings, breaks it.
 */
export function orderKept(body: unknown, order: ListOrder): OrderKept {
  const kept: OrderKept = { lists: 0, steps: 0, broken: 0 };
  for (const list of valuesAtPath(body, order.list)) {
    if (!Array.isArray(list) || list.length < 2) continue;
    kept.lists++;
    const values = list.map((item) => (item !== null && typeof item === 'object' ? (item as Record<string, unknown>)[order.by] : undefined));
    for (let i = 1; i < values.length; i++) {
      const [a, b] = [values[i - 1], values[i]];
      if (b === null) continue;
      if (a === null || !comparable(a) || !comparable(b) || typeof a !== typeof b) {
        kept.broken++;
        continue;
      }
      if (a === b) continue;
      if (order.direction === 'descending' ? a > b : a < b) kept.steps++;
      else kept.broken++;
    }
  }
  return kept;
}
