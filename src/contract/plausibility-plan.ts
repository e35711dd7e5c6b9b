/**
 * The checks of the rules of the plan's reads (the table, `RULES`, is in
 * src/contract/plausibility.ts): a question's coverage (its page, the runs
 * citing it, its action) and the counts of actions in `/content-gaps`; a task
 * list's counts against the tasks it lists in `/tasks`, and a task's two
 * times.
 */
import { CONTENT_ACTIONS, TASK_LAYERS } from './enums';
import type { OperationId } from './operations';
import { holdersOf, valuesAtPath } from './paths';
import { askedLimit, at, type Finding, isNum, whole } from './plausibility-words';
import type { Rule } from './plausibility-rule';

/** What a rule of a read may know of its request: the query discovery asked (`limit`, `layer`, `status`). */
interface Asked {
  query?: Readonly<Record<string, unknown>> | undefined;
}

const field = (path: string) => path.split('.').at(-1)!;
const isAction = (v: unknown): v is (typeof CONTENT_ACTIONS)[number] => typeof v === 'string' && (CONTENT_ACTIONS as readonly string[]).includes(v);

/** `n of m questions …`: one finding blaming `fields`, or none when no holder breaks it. */
function counted(fields: readonly string[], broken: number, of: number, words: string): Finding[] {
  if (broken === 0) return [];
  return [{ fields: [...fields], values: { broken, of }, message: `${whole(broken)} of ${whole(of)} questions ${words}: are ${fields.map((f) => `\`${f}\``).join(', ')} read from the right fields?` }];
}

/** `has_page` is true exactly where the question has a page of the brand's (`page` not null). */
export function checkHasPage(body: unknown, fields: readonly string[]): Finding[] {
  const [hasPage, page] = fields.map(field) as [string, string];
  const holders = holdersOf(body, fields[0]!).filter((q) => typeof q[hasPage] === 'boolean' && q[page] !== undefined);
  return counted(fields, holders.filter((q) => q[hasPage] !== (q[page] !== null)).length, holders.length, 'say whether they have a page against their page');
}

/** `cited` is true exactly where runs of the window cite the page (`page_citations` above 0), and only a question with a page has its page cited. */
export function checkCited(body: unknown, fields: readonly string[]): Finding[] {
  const [cited, citations, hasPage] = fields.map(field) as [string, string, string];
  const holders = holdersOf(body, fields[0]!).filter((q) => typeof q[cited] === 'boolean' && isNum(q[citations]));
  const broken = holders.filter((q) => q[cited] !== (q[citations] as number) > 0 || ((q[citations] as number) > 0 && q[hasPage] === false));
  return counted(fields, broken.length, holders.length, 'say they are cited against the runs citing their page');
}

/** The action follows the coverage: `write` with no page, `leave` for a page AI cites, `improve` for one it does not. */
export function checkActionFollowsCoverage(body: unknown, fields: readonly string[]): Finding[] {
  const [action, hasPage, cited] = fields.map(field) as [string, string, string];
  const holders = holdersOf(body, fields[0]!).filter((q) => isAction(q[action]) && typeof q[hasPage] === 'boolean' && typeof q[cited] === 'boolean');
  const due = (q: Record<string, unknown>) => (!q[hasPage] ? 'write' : q[cited] ? 'leave' : 'improve');
  return counted(fields, holders.filter((q) => q[action] !== due(q)).length, holders.length, 'have an action their page and citations do not call for');
}

/** Each count of actions (`counts.write`, …, in `CONTENT_ACTIONS`' order) is the number of questions with that action; judged only where every action is one of ours. */
export function checkActionsCounted(body: unknown, fields: readonly string[]): Finding[] {
  const counts = fields.slice(0, CONTENT_ACTIONS.length).map((f) => at(body, f));
  const actions = valuesAtPath(body, fields[CONTENT_ACTIONS.length]!);
  if (!counts.every(isNum) || !Array.isArray(at(body, 'questions')) || !actions.every(isAction)) return [];
  const off = CONTENT_ACTIONS.findIndex((a, i) => actions.filter((x) => x === a).length !== counts[i]);
  if (off < 0) return [];
  const action = CONTENT_ACTIONS[off]!;
  return [
    {
      fields: fields.slice(0, CONTENT_ACTIONS.length),
      values: Object.fromEntries(fields.slice(0, CONTENT_ACTIONS.length).map((f, i) => [f, counts[i]])),
      message: `${fields[off]} is ${whole(counts[off] as number)}, but ${whole(actions.filter((x) => x === action).length)} questions are to ${action}: are the counts read from the right fields?`,
    },
  ];
}

/** The tasks listed, and whether they are all the read's filter matches: fewer than the `limit` it asked (or its default). */
function listed(body: unknown, operation: OperationId, context: Asked): { tasks: Record<string, unknown>[]; whole: boolean | undefined } | undefined {
  const tasks = at(body, 'tasks');
  if (!Array.isArray(tasks)) return undefined;
  const limit = askedLimit(operation, context);
  return { tasks: tasks.filter((t): t is Record<string, unknown> => typeof t === 'object' && t !== null), whole: limit === undefined ? undefined : tasks.length < limit };
}

/** `matching` counts the tasks the filter matches before `limit`: at least those listed, and as many where fewer than the limit are listed. */
export function checkMatching(body: unknown, fields: readonly string[], operation: OperationId, context: Asked): Finding[] {
  const matching = at(body, fields[0]!);
  const list = listed(body, operation, context);
  if (!isNum(matching) || !list) return [];
  const n = list.tasks.length;
  if (matching === n || (matching > n && list.whole !== true)) return [];
  const words = matching < n ? `but ${whole(n)} are listed` : `but all ${whole(n)} are listed (fewer than the limit)`;
  return [{ fields: [fields[0]!], values: { [fields[0]!]: matching, listed: n }, message: `${fields[0]} is ${whole(matching)}, ${words}: is \`${fields[0]}\` read from the right field?` }];
}

/**
 * `open_counts` counts each layer's open tasks whatever the filter: at least the open tasks of the layer listed, and
 * as many where the read asked for every layer's open tasks and got them all.
 */
export function checkOpenCounts(body: unknown, fields: readonly string[], operation: OperationId, context: Asked): Finding[] {
  const counts = fields.slice(0, TASK_LAYERS.length).map((f) => at(body, f));
  const [layer, status] = fields.slice(TASK_LAYERS.length).map(field) as [string, string];
  const list = listed(body, operation, context);
  if (!counts.every(isNum) || !list) return [];
  const open = list.tasks.filter((t) => t[status] === 'open');
  const unfiltered = context.query !== undefined && context.query.layer === undefined && (context.query.status ?? 'open') === 'open' && open.length === list.tasks.length;
  const exact = unfiltered && list.whole === true;
  const off = TASK_LAYERS.findIndex((l, i) => {
    const n = open.filter((t) => t[layer] === l).length;
    return exact ? counts[i] !== n : (counts[i] as number) < n;
  });
  if (off < 0) return [];
  const n = open.filter((t) => t[layer] === TASK_LAYERS[off]).length;
  return [
    {
      fields: fields.slice(0, TASK_LAYERS.length),
      values: { [fields[off]!]: counts[off], listed: n },
      message: `${fields[off]} is ${whole(counts[off] as number)}, but ${whole(n)} open ${TASK_LAYERS[off]} tasks are listed${exact ? ', every open task' : ''}: are the counts read from the right fields?`,
    },
  ];
}

/** A task is updated no earlier than it was made. */
export function checkUpdatedNotBeforeCreated(body: unknown, fields: readonly string[]): Finding[] {
  const [made, updated] = fields.map(field) as [string, string];
  const holders = holdersOf(body, fields[0]!);
  const early = holders.filter((h) => Date.parse(String(h[updated])) < Date.parse(String(h[made])));
  if (early.length === 0) return [];
  const message = `${fields[1]} is before ${fields[0]} in ${whole(early.length)} of ${whole(holders.length)}: are they read from each other's fields?`;
  return [{ fields: [...fields], values: { early: early.length }, message }];
}

/** `[total, ...parts]`: the open tasks in all are those of each layer together. */
export function checkOpenTotal(body: unknown, fields: readonly string[]): Finding[] {
  const [total, ...parts] = fields.map((f) => at(body, f));
  if (!isNum(total) || !parts.every(isNum)) return [];
  const sum = (parts as number[]).reduce((s, n) => s + n, 0);
  if (sum === total) return [];
  return [
    {
      fields: [fields[0]!],
      values: { [fields[0]!]: total, layers: sum },
      message: `${fields[0]} is ${whole(total)}, but the layers' open tasks add up to ${whole(sum)}: are they read from the right fields?`,
    },
  ];
}

/** The rules of tasks and content gaps, in the table (src/contract/plausibility.ts `RULES`). */
export const PLAN_RULES: readonly Rule[] = [
  {
    id: 'updated_not_before_created',
    // A task is updated no earlier than it was made.
    reads: { listTasks: ['tasks[].created_at', 'tasks[].updated_at'], getTask: ['task.created_at', 'task.updated_at'] },
    check: checkUpdatedNotBeforeCreated,
  },
  {
    id: 'has_page_is_a_page',
    // A question has a page exactly where the brand's page for it is given.
    reads: { getContentGaps: ['questions[].has_page', 'questions[].page'] },
    check: checkHasPage,
  },
  {
    id: 'cited_is_page_cited',
    // A question's page is cited exactly where runs of the window cite it, and only a question with a page has it cited.
    reads: { getContentGaps: ['questions[].cited', 'questions[].page_citations', 'questions[].has_page'] },
    check: checkCited,
  },
  {
    id: 'action_follows_coverage',
    // The action is `write` for a question with no page, `leave` for a page AI cites, `improve` for one it does not.
    reads: { getContentGaps: ['questions[].action', 'questions[].has_page', 'questions[].cited'] },
    check: checkActionFollowsCoverage,
  },
  {
    id: 'actions_counted',
    // Each count of actions is the number of questions with that action (every question is listed).
    reads: { getContentGaps: ['counts.write', 'counts.improve', 'counts.leave', 'questions[].action'] },
    pins: ['counts.write', 'counts.improve', 'counts.leave'],
    check: checkActionsCounted,
  },
  {
    id: 'matching_counts_the_list',
    // `matching` counts the tasks the filter matches before `limit`: at least those listed, all of them when fewer than the limit are.
    reads: { listTasks: ['matching', 'tasks'] },
    pins: ['matching'],
    check: checkMatching,
  },
  {
    id: 'open_counts_cover_the_list',
    // Each layer's open count is at least its open tasks listed, and as many when the read listed every open task.
    reads: { listTasks: ['open_counts.content', 'open_counts.technical', 'open_counts.authority', 'open_counts.brand', 'tasks[].layer', 'tasks[].status'] },
    pins: ['open_counts.content', 'open_counts.technical', 'open_counts.authority', 'open_counts.brand'],
    check: checkOpenCounts,
  },
  {
    id: 'open_total_is_its_layers',
    // The overview's open tasks in all are its layers' open tasks together.
    reads: { getOverview: ['tasks.open_total', 'tasks.open_counts.content', 'tasks.open_counts.technical', 'tasks.open_counts.authority', 'tasks.open_counts.brand'] },
    pins: ['tasks.open_total'],
    check: checkOpenTotal,
  },
];
