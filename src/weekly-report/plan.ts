/**
 * The week's plan (DESIGN section 15): what to do about the questions the
 * brand lost, built from the bodies the report already reads and three more
 * (`/content-gaps`, `/tasks`, `/pages`). A pure function, like the rest of
 * the model.
 *
 * ```ts
 * const plan = planOf({ brand: 'Brightdesk', history, topicNames, inputs: { gaps, tasks, pages, tasks_in_plan: true } });
 * plan.items[0].headline; // "Let AI crawlers read the Integrations and automation pages."
 * plan.items[0].why;      // "4 questions lost on 6 engines, to Ticketly, Caseflow and SupportHero."
 * ```
 *
 * Which questions. Every question lost this week, and every question won
 * that is still weak: content coverage says the brand has no page for it, or
 * a page AI does not cite (`write` or `improve`).
 *
 * For each: who took it (the rival the engines that dropped the brand named
 * most, `moved[].top_rival`); the brand's page for it, whether AI cites it
 * and the action (`/content-gaps`: write, improve, leave); the domains AI
 * cites instead (`/pages`: its uncited topic pages, with what the topic's
 * answers cite); and the open task that moves its topic (`/tasks`, best
 * first: the first that names the topic).
 *
 * One item per task, else per page, else per question: the questions one
 * task moves, or one page answers, are worked on together. Items are ranked
 * by one measure, said in `ranking`: the engines that stopped naming the
 * brand for the item's questions this week; ties go to the larger expected
 * gain of the task, then to the item holding the first question.
 *
 * Degrading. A part the service does not provide (parts.ts: `coverage`,
 * `tasks`, `cited_instead`) leaves its columns null or empty, and the plan
 * says so in `lines`; a key whose plan has no tasks (`/tasks` answered 403
 * `feature_not_in_plan`) gets the plan from content coverage alone, with a
 * line saying tasks come with Pro and Growth.
 */
import type { ResponseOf } from '../contract/operations';
import type { CONTENT_ACTIONS } from '../contract/enums';
import { engineLabel } from './engines';
import { countOf, formatCount, joinNames, quoted, sentence } from './words';

export type ContentAction = (typeof CONTENT_ACTIONS)[number];

/** The bodies the plan reads besides the week's; each null when the service does not provide it (or, for tasks, the key's plan). */
export interface PlanInputs {
  gaps: ResponseOf<'getContentGaps'> | null;
  tasks: ResponseOf<'listTasks'> | null;
  pages: ResponseOf<'listPages'> | null;
  /** False when `/tasks` answered 403 `feature_not_in_plan`: the key's plan has no tasks. */
  tasks_in_plan: boolean;
}

export interface PlanQuestion {
  question_id: number;
  text: string;
  topic: { id: number; name: string | null };
  /** `lost` this week, or `won` and still weak (see the module comment). */
  outcome: 'lost' | 'won';
  /** The engines that moved it this week: stopped naming the brand (lost) or started (won), as labels. */
  engines: string[];
  /** How many fewer engines name the brand for it than the week before: the measure items are ranked by (0 for a won one). */
  engines_lost: number;
  /** The rivals the engines that moved name instead, most named first. */
  rivals: string[];
  /** The brand's page for the question; null when it has none or content coverage is not provided. */
  page: { url: string; title: string } | null;
  /** Whether AI cites that page for the question; null without content coverage. */
  cited: boolean | null;
  /** Content coverage's recommended action; null without it. */
  action: ContentAction | null;
  /** Share of the question's answered runs naming the brand (content coverage); null without it. */
  visibility: number | null;
  /** Domains AI cites for the question's topic instead of the brand's pages, most cited first (at most 3). */
  cited_instead: string[];
}

export interface PlanTask {
  id: number;
  title: string;
  /** Visibility points the service expects the task to gain. */
  expected_gain: number;
  effort: string;
}

export interface PlanItem {
  /** `task:<id>`, `page:<url>` or `question:<id>`: what the item is one of. */
  key: string;
  /** What to do, one sentence. */
  headline: string;
  /** Why: the questions lost and to whom, one sentence. */
  why: string;
  /** The pages to work on with it, one sentence each (an item of a task may touch several pages). */
  steps: string[];
  task: PlanTask | null;
  /** The page the item is about, when it is one page's (and for a task, when its questions share one). */
  page: { url: string; title: string; cited: boolean | null } | null;
  /** The most pressing action of its questions' pages (write, then improve, then leave); null without content coverage. */
  action: ContentAction | null;
  questions: PlanQuestion[];
  rivals: string[];
  cited_instead: string[];
  /** The ranking measure: engines lost over its questions. */
  engines_lost: number;
}

export interface PlanSection {
  /** Best first (`ranking`). */
  items: PlanItem[];
  /** How the items are ranked, in words. */
  ranking: string;
  /** Questions the plan covers: lost, and won but still weak. */
  questions: { lost: number; weak: number };
  /** `included`, `not_in_plan` (the key's plan has no tasks) or `not_provided` (the service has none). */
  tasks: 'included' | 'not_in_plan' | 'not_provided';
  /** Whether content coverage (pages, whether AI cites them, the action) was read. */
  coverage: boolean;
  /** What the plan leaves out and why, one line each (tasks with Pro; parts the service does not provide). */
  lines: string[];
}

/** How many domains an item names as cited instead. */
const INSTEAD_SHOWN = 3;
const ACTION_ORDER: Record<ContentAction, number> = { write: 0, improve: 1, leave: 2 };

/** The line said when the key's plan has no tasks. */
export const TASKS_NOT_IN_PLAN = 'Tasks come with the Pro and Growth plans: with them, each item names the task that would win its questions back, with its expected gain and effort.';

export interface PlanSource {
  brand: string;
  history: ResponseOf<'getAnswerHistory'>;
  topicNames: ReadonlyMap<number, string>;
  inputs: PlanInputs;
  /** The lines of the parts the service does not provide (parts.ts), already worded. */
  notProvided: readonly string[];
}

/** Rival names, most often named first, first seen on ties (the lead's rival too: lead.ts). */
export function mostNamedFirst(names: readonly (string | null)[]): string[] {
  const counts = new Map<string, number>();
  for (const name of names) if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([name]) => name);
}

const unique = (values: Iterable<string>) => [...new Set(values)];

/** The domains AI cites instead for a question: its page's alternatives when `/pages` lists the page uncited, else its topic's. */
function citedInstead(pages: ResponseOf<'listPages'> | null, page: { url: string } | null, topicId: number): string[] {
  const uncited = pages?.uncited ?? [];
  const own = page ? uncited.find((u) => u.url === page.url) : undefined;
  const entries = own ? [own] : uncited.filter((u) => u.topic.id === topicId);
  const instead = entries.flatMap((u) => u.cited_instead).sort((a, b) => b.citations - a.citations);
  return unique(instead.map((c) => c.domain)).slice(0, INSTEAD_SHOWN);
}

function planQuestions({ history, topicNames, inputs }: PlanSource): PlanQuestion[] {
  const gaps = new Map((inputs.gaps?.questions ?? []).map((g) => [g.question_id, g]));
  return history.questions.flatMap((q): PlanQuestion[] => {
    const gap = gaps.get(q.question_id);
    const weak = q.outcome === 'won' && gap !== undefined && gap.action !== 'leave';
    if (q.outcome !== 'lost' && !weak) return [];
    const way = q.outcome === 'lost' ? 'lost' : 'gained';
    const moved = q.moved.filter((m) => m.direction === way);
    const page = gap?.page ?? null;
    return [
      {
        question_id: q.question_id,
        text: q.text,
        topic: { id: q.topic_id, name: topicNames.get(q.topic_id) ?? gap?.topic?.name ?? null },
        outcome: q.outcome === 'lost' ? 'lost' : 'won',
        engines: moved.map((m) => engineLabel(m.engine)),
        engines_lost: Math.max(0, q.engines_naming_before - q.engines_naming_now),
        // Who took it: for a won question, no one.
        rivals: q.outcome === 'lost' ? mostNamedFirst(moved.map((m) => m.top_rival)) : [],
        page,
        cited: gap ? gap.cited : null,
        action: gap ? gap.action : null,
        visibility: gap ? gap.visibility : null,
        cited_instead: citedInstead(inputs.pages, page, q.topic_id),
      },
    ];
  });
}

/** The open task that moves a topic: the first of `/tasks` (open ones, best first: the API's default) naming it. */
function taskFor(tasks: ResponseOf<'listTasks'> | null, topicId: number): PlanTask | null {
  const task = tasks?.tasks.find((t) => t.topics.some((topic) => topic.id === topicId));
  return task ? { id: task.id, title: task.title, expected_gain: task.expected_gain, effort: task.effort } : null;
}

const pageName = (page: { url: string; title: string }) => (page.title ? quoted(page.title) : page.url);

/** The page for a question, named by its title, and the question only where the title is not the question itself. */
function pageFor(q: { text: string; page: { url: string; title: string } }): string {
  return q.page.title && q.page.title !== q.text ? `${pageName(q.page)} (for ${quoted(q.text)})` : pageName(q.page);
}

/** What to do with one question's page, as a sentence: the item's step, or its headline when it has no task. */
function pageStep(q: Pick<PlanQuestion, 'text' | 'action' | 'page' | 'cited_instead'>): string | null {
  if (q.action === null) return null;
  const instead = q.cited_instead.length > 0 ? `; AI cites ${joinNames(q.cited_instead)} instead` : '';
  if (q.action === 'write' || q.page === null) return sentence(`Write a page answering ${quoted(q.text)}${instead}`);
  if (q.action === 'improve') return sentence(`Improve ${pageFor({ ...q, page: q.page })} so AI cites it${instead}`);
  return sentence(`Leave ${pageFor({ ...q, page: q.page })} as it is: AI cites it`);
}

/** The steps of an item: each page to write or improve, then the pages to leave as they are in one line. */
function stepsOf(questions: readonly PlanQuestion[]): string[] {
  const work = unique(questions.filter((q) => q.action !== 'leave').flatMap((q) => pageStep(q) ?? []));
  const leave = unique(questions.filter((q) => q.action === 'leave' && q.page).map((q) => q.page!.url));
  if (leave.length <= 1) return [...work, ...unique(questions.filter((q) => q.action === 'leave').flatMap((q) => pageStep(q) ?? []))];
  return [...work, `Leave ${formatCount(leave.length)} pages as they are: AI cites them.`];
}

/** `Ticketly, Caseflow and Helpwave`, `Ticketly, Caseflow, Helpwave and 2 others`. */
function rivalNames(rivals: readonly string[]): string {
  if (rivals.length <= 3) return joinNames(rivals);
  return `${rivals.slice(0, 3).join(', ')} and ${countOf(rivals.length - 3, 'other')}`;
}

/** `4 questions lost on 6 engines, to Ticketly and Caseflow.` / `Lost on ChatGPT and Claude, to Ticketly.` */
function whyOf(questions: readonly PlanQuestion[], rivals: readonly string[]): string {
  const lost = questions.filter((q) => q.outcome === 'lost');
  const weak = questions.length - lost.length;
  const engines = lost.reduce((sum, q) => sum + q.engines_lost, 0);
  const to = rivals.length > 0 ? `, to ${rivalNames(rivals)}` : '';
  const parts: string[] = [];
  if (lost.length === 1 && questions.length === 1) {
    const [q] = lost;
    parts.push(q!.engines.length > 0 ? `Lost on ${joinNames(q!.engines)}${to}` : `Lost on ${countOf(q!.engines_lost, 'engine')}${to}`);
  } else if (lost.length > 0) parts.push(`${countOf(lost.length, 'question')} lost on ${countOf(engines, 'engine')}${to}`);
  if (weak > 0) parts.push(`${countOf(weak, 'question')} won back but still weak: no page of the brand AI cites for ${weak === 1 ? 'it' : 'them'}`);
  return sentence(parts.join('; '));
}

function itemOf(key: string, questions: PlanQuestion[], task: PlanTask | null): PlanItem {
  const rivals = mostNamedFirst(questions.flatMap((q) => q.rivals));
  const pages = unique(questions.flatMap((q) => (q.page ? [q.page.url] : [])));
  const first = questions[0]!;
  const shared = pages.length === 1 && questions.every((q) => q.page?.url === pages[0]) ? first.page! : null;
  const actions = questions.flatMap((q) => (q.action ? [q.action] : []));
  const action = actions.length === 0 ? null : actions.reduce((a, b) => (ACTION_ORDER[b] < ACTION_ORDER[a] ? b : a));
  const steps = stepsOf(questions);
  let headline: string;
  if (task) headline = sentence(task.title);
  else if (steps.length > 0) headline = steps[0]!;
  else headline = sentence(`Win back ${quoted(first.text)}`);
  return {
    key,
    headline,
    why: whyOf(questions, rivals),
    // A task's item lists each page's work; an item of one page or question says it in its headline.
    steps: task ? steps : steps.slice(1),
    task,
    page: shared ? { ...shared, cited: first.cited } : null,
    action,
    questions,
    rivals,
    cited_instead: unique(questions.flatMap((q) => q.cited_instead)).slice(0, INSTEAD_SHOWN),
    engines_lost: questions.reduce((sum, q) => sum + q.engines_lost, 0),
  };
}

/** The plan; see the module comment. */
export function planOf(source: PlanSource): PlanSection {
  const { inputs } = source;
  const questions = planQuestions(source);
  const groups = new Map<string, { task: PlanTask | null; questions: PlanQuestion[] }>();
  for (const q of questions) {
    const task = taskFor(inputs.tasks, q.topic.id);
    const key = task ? `task:${task.id}` : q.page ? `page:${q.page.url}` : `question:${q.question_id}`;
    const group = groups.get(key) ?? { task, questions: [] };
    group.questions.push(q);
    groups.set(key, group);
  }
  const order = new Map(questions.map((q, i) => [q.question_id, i]));
  const items = [...groups]
    .map(([key, group]) => itemOf(key, group.questions, group.task))
    .sort(
      (a, b) => b.engines_lost - a.engines_lost || (b.task?.expected_gain ?? 0) - (a.task?.expected_gain ?? 0) || order.get(a.questions[0]!.question_id)! - order.get(b.questions[0]!.question_id)!,
    );
  const tasks = inputs.tasks ? 'included' : inputs.tasks_in_plan ? 'not_provided' : 'not_in_plan';
  return {
    items,
    ranking: `Ranked by the engines that stopped naming ${source.brand} for the item’s questions this week${tasks === 'included' ? '; ties by the task’s expected gain' : ''}.`,
    questions: { lost: questions.filter((q) => q.outcome === 'lost').length, weak: questions.filter((q) => q.outcome === 'won').length },
    tasks,
    coverage: inputs.gaps !== null,
    lines: [...(tasks === 'not_in_plan' ? [TASKS_NOT_IN_PLAN] : []), ...source.notProvided],
  };
}

/** The item's task in words: `Expected +6.6 points, medium effort.` */
export const taskWords = (task: PlanTask): string => `Expected +${task.expected_gain.toFixed(1)} points, ${task.effort} effort.`;

/** The plan as lines of text (the report's text form, MCP): each item's headline, why, task and steps. */
export function planLines(plan: PlanSection, shown = plan.items.length): string[] {
  if (plan.items.length === 0) return ['No question was lost this week, and none won is still weak: nothing to win back.', ...plan.lines];
  return [
    `This week’s plan, ${countOf(plan.items.length, 'item')}. ${plan.ranking}`,
    ...plan.items.slice(0, shown).flatMap((item, i) => [`${i + 1}. ${item.headline} ${item.why}${item.task ? ` ${taskWords(item.task)}` : ''}`, ...item.steps.map((step) => `   - ${step}`)]),
    ...(shown < plan.items.length ? [`…and ${formatCount(plan.items.length - shown)} more.`] : []),
    ...plan.lines,
  ];
}

/**
 * The one line a change alert about a lost question adds (src/alerts): what would win it back, from the same bodies
 * the plan reads: the open task that moves its topic, and what to do with its page. Null when they say neither.
 */
export function actionLine(question: { id: number; text: string; topic_id: number }, inputs: Omit<PlanInputs, 'tasks_in_plan'>): string | null {
  const gap = inputs.gaps?.questions.find((g) => g.question_id === question.id);
  const page = gap?.page ?? null;
  const step = gap ? pageStep({ text: question.text, action: gap.action, page, cited_instead: citedInstead(inputs.pages, page, question.topic_id) }) : null;
  const task = taskFor(inputs.tasks, question.topic_id);
  if (task) return `Next: ${sentence(task.title)} ${taskWords(task)}${step ? ` ${step}` : ''}`;
  return step ? `Next: ${step}` : null;
}

/** The plan's CSV columns (a CSV link of kind `plan`): one row per question, its item's columns repeated. */
export const PLAN_COLUMNS = [
  'rank',
  'do',
  'why',
  'task',
  'expected_gain',
  'effort',
  'question',
  'topic',
  'outcome',
  'engines_lost',
  'engines',
  'taken_by',
  'page_url',
  'page_title',
  'page_cited',
  'page_action',
  'cited_instead',
] as const;

/** The plan as rows of `PLAN_COLUMNS`: lists as text (`ChatGPT; Claude`), so a sheet can filter them. */
export function planRecords(plan: PlanSection): Record<(typeof PLAN_COLUMNS)[number], string | number | boolean | null>[] {
  return plan.items.flatMap((item, i) =>
    item.questions.map((q) => ({
      rank: i + 1,
      do: item.headline,
      why: item.why,
      task: item.task?.title ?? null,
      expected_gain: item.task?.expected_gain ?? null,
      effort: item.task?.effort ?? null,
      question: q.text,
      topic: q.topic.name,
      outcome: q.outcome,
      engines_lost: q.engines_lost,
      engines: q.engines.join('; '),
      taken_by: q.rivals.join('; '),
      page_url: q.page?.url ?? null,
      page_title: q.page?.title ?? null,
      page_cited: q.cited,
      page_action: q.action,
      cited_instead: q.cited_instead.join('; '),
    })),
  );
}
