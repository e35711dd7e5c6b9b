/**
 * The week's plan (src/weekly-report/plan.ts) over the demo brand's real
 * bodies (emails/_fixtures: the week, and the plan's `/content-gaps`,
 * `/tasks` and `/pages` of the same days), then over generated variations of
 * them: questions dropped, tasks dropped and reordered, pages and coverage
 * missing. The rendering of the plan is checked where it shows (the digest's
 * and the report's tests); here, what it says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResponseOf } from '../contract/operations';
import { buildReport, planLines, type PlanInputs, type ReportInput, TASKS_NOT_IN_PLAN } from './model';
import { actionLine } from './plan';
import { PLAN_SHOWN, previewOf } from '../../emails/digest';
import { renderDigest } from '../mail/render';
import us from '../../emails/_fixtures/brightdesk-us.json';
import de from '../../emails/_fixtures/brightdesk-de.json';

const history = us.history as ResponseOf<'getAnswerHistory'>;
const plan = us.plan as PlanInputs;
const input = (over: Partial<ReportInput> = {}): ReportInput => ({
  brand: { id: 1, name: 'Brightdesk' },
  week: { isoWeek: '2026-W48', monday: '2026-11-23' },
  kinds: ['visibility', 'won_lost'],
  visibility: us.visibility as ResponseOf<'getVisibility'>,
  history,
  topics: us.topics as ResponseOf<'listTopics'>,
  plan,
  ...over,
});
const lostQuestions = (h: ResponseOf<'getAnswerHistory'>) => h.questions.filter((q) => q.outcome === 'lost');
const enginesLost = (q: ResponseOf<'getAnswerHistory'>['questions'][number]) => q.engines_naming_before - q.engines_naming_now;

describe('the plan of the demo week', () => {
  const report = buildReport(input());
  const items = report.plan!.items;

  it('puts first the task and page the data gives for the question lost on the most engines', () => {
    const top = [...lostQuestions(history)].sort((a, b) => enginesLost(b) - enginesLost(a))[0]!;
    const task = plan.tasks!.tasks.find((t) => t.topics.some((topic) => topic.id === top.topic_id))!;
    const gap = plan.gaps!.questions.find((g) => g.question_id === top.question_id)!;
    const first = items[0]!;
    expect(first.task?.id).toBe(task.id);
    expect(first.headline).toBe(`${task.title}.`);
    const question = first.questions.find((q) => q.question_id === top.question_id)!;
    expect(question.page?.url).toBe(gap.page?.url);
    expect(question.action).toBe(gap.action);
    // Who took it: the rival its dropping engines name.
    expect(question.rivals).toEqual(expect.arrayContaining(top.moved.filter((m) => m.direction === 'lost' && m.top_rival).map((m) => m.top_rival)));
    expect(first.why).toMatch(/questions? lost on \d+ engines?, to /i);
  });

  it('holds every lost question once, one item per task, ranked by engines lost and saying so', () => {
    const held = items.flatMap((i) => i.questions.filter((q) => q.outcome === 'lost').map((q) => q.question_id));
    expect(held.sort()).toEqual(
      lostQuestions(history)
        .map((q) => q.question_id)
        .sort(),
    );
    const tasks = items.flatMap((i) => (i.task ? [i.task.id] : []));
    expect(new Set(tasks).size).toBe(tasks.length);
    expect(items.map((i) => i.engines_lost)).toEqual([...items.map((i) => i.engines_lost)].sort((a, b) => b - a));
    expect(report.plan!.ranking).toBe('Ranked by the engines that stopped naming Brightdesk for the item’s questions this week; ties by the task’s expected gain.');
    expect(report.plan!.questions.lost).toBe(history.counts.lost);
  });

  it('adds each won question that is still weak (no page, or one AI does not cite), and no other', () => {
    const weak = history.questions.filter((q) => q.outcome === 'won' && plan.gaps!.questions.find((g) => g.question_id === q.question_id)!.action !== 'leave');
    const inPlan = items.flatMap((i) => i.questions.filter((q) => q.outcome === 'won').map((q) => q.question_id));
    expect(inPlan.sort()).toEqual(weak.map((q) => q.question_id).sort());
  });

  it('names the domains AI cites instead of an uncited page', () => {
    const uncited = plan.pages!.uncited[0]!;
    const q = items.flatMap((i) => i.questions).find((x) => x.page?.url === uncited.url);
    if (q) expect(q.cited_instead).toEqual([...new Set(uncited.cited_instead.map((c) => c.domain))].slice(0, 3));
    const withDomains = items.flatMap((i) => i.questions).filter((x) => x.cited_instead.length > 0);
    expect(withDomains.length).toBeGreaterThan(0);
  });

  it('says itself in text, and in the preview after the lead', () => {
    const text = planLines(report.plan!).join('\n');
    expect(text).toContain(`1. ${items[0]!.headline}`);
    expect(text).toContain('Expected +');
    // The inbox shows the preview's first words: the first item leads it.
    expect(previewOf(report)).toBe(`This week: ${items[0]!.headline} ${report.lead.headline}`);
  });

  it('gives a change alert about a lost question its action in one line: the task, then the page', () => {
    const top = [...lostQuestions(history)].sort((a, b) => enginesLost(b) - enginesLost(a))[0]!;
    const task = plan.tasks!.tasks.find((t) => t.topics.some((topic) => topic.id === top.topic_id))!;
    const question = { id: top.question_id, text: top.text, topic_id: top.topic_id };
    const line = actionLine(question, plan)!;
    expect(line).toMatch(new RegExp(`^Next: ${task.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. Expected \\+`));
    expect(line).not.toContain('\n');
    // A Starter key: the page's action alone; a service with neither: no line.
    const gap = plan.gaps!.questions.find((g) => g.question_id === top.question_id)!;
    const pageOnly = actionLine(question, { ...plan, tasks: null })!;
    expect(pageOnly).toMatch(gap.action === 'write' ? /^Next: Write a page answering “/ : gap.action === 'improve' ? /^Next: Improve “/ : /^Next: Leave “/);
    expect(actionLine(question, { gaps: null, tasks: null, pages: null })).toBeNull();
  });
});

describe('in the digest', () => {
  const links = { viewInBrowser: `https://edge.test/r/v1.${'r'.repeat(300)}`, unsubscribe: `https://edge.test/digests/unsubscribe?token=v1.${'u'.repeat(300)}` };

  it('shows the top three as “This week” right after the score, before the chart, in both parts, and names the first in the preview', async () => {
    const report = buildReport(input({ matrix: us.matrix as ResponseOf<'getPromptMatrix'> }));
    const { html, text } = await renderDigest({ report, links });
    const items = report.plan!.items;
    const order = ['>AI visibility</h2>', '>56.8%', '>This week</h2>', `1. ${items[0]!.headline}`, `3. ${items[2]!.headline}`, 'Score by week, last 12 weeks', '>By engine</h2>'].map((marker) =>
      html.indexOf(marker.replaceAll('"', '&quot;')),
    );
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(html).not.toContain(`4. ${items[3]!.headline}`);
    for (const item of items.slice(0, PLAN_SHOWN)) expect(text).toContain(item.why);
    expect(text).toContain(`${report.plan!.ranking} ${items.length - PLAN_SHOWN} more in the full report.`);
    expect(html).toContain(previewOf(report).slice(0, 60).replaceAll('"', '&quot;'));
    expect(text).toContain(`See the whole plan and all 21 changed questions ${links.viewInBrowser}`);
  });

  it('says why tasks are missing on a Starter key, and a week with nothing to win back in one line', async () => {
    const starter = await renderDigest({ report: buildReport(input({ plan: { ...plan, tasks: null, tasks_in_plan: false } })), links });
    expect(starter.text).toContain(TASKS_NOT_IN_PLAN);
    const quiet = { ...history, counts: { won: 0, lost: 0, held: 42 }, questions: history.questions.map((q) => ({ ...q, outcome: 'held' as const, moved: [] })) };
    const none = await renderDigest({ report: buildReport(input({ history: quiet })), links });
    expect(none.text).toContain('No question was lost this week, and none won is still weak: nothing to win back.');
  });
});

describe('the plan by plan and by service', () => {
  it('a Starter key: from content coverage alone, with one line saying tasks come with Pro', () => {
    const report = buildReport(input({ plan: { ...plan, tasks: null, tasks_in_plan: false } }));
    expect(report.plan!.tasks).toBe('not_in_plan');
    expect(report.plan!.items.every((i) => i.task === null)).toBe(true);
    expect(report.plan!.lines).toEqual([TASKS_NOT_IN_PLAN]);
    // Grouped by page instead: one item per page, and a question without a page is an item of its own that says to write one.
    const write = report.plan!.items.find((i) => i.action === 'write')!;
    expect(write.headline).toMatch(/^Write a page answering “/);
    expect(report.not_provided).toEqual([]);
  });

  it('a service without /content-gaps or /tasks: the plan keeps who took each question, and says what it leaves out', () => {
    const report = buildReport(input({ plan: { gaps: null, tasks: null, pages: null, tasks_in_plan: true }, not_provided: ['coverage', 'tasks', 'cited_instead'] }));
    const plan = report.plan!;
    expect(plan.tasks).toBe('not_provided');
    expect(plan.coverage).toBe(false);
    expect(plan.items.length).toBe(history.counts.lost);
    expect(plan.items.every((i) => i.action === null && i.page === null && i.rivals.length > 0)).toBe(true);
    expect(plan.lines).toEqual([
      'Your Read API does not provide content coverage, so the plan leaves out the brand’s page for each question and what to do with it.',
      'Your Read API does not provide tasks, so the plan leaves out the task that would win each question back.',
      'Your Read API does not provide what AI cites instead of the brand’s pages, so the plan leaves out the domains AI cites instead.',
    ]);
  });

  it('has no plan without the won and lost questions, or from a snapshot kept before the plan', () => {
    expect(buildReport(input({ kinds: ['visibility'] })).plan).toBeNull();
    expect(buildReport(input({ plan: undefined })).plan).toBeNull();
  });
});

describe('the subject and the lead agree on the week’s direction', () => {
  it('a week with more lost: both lead with a loss; with more won: both with a gain', () => {
    const mostlyLost = buildReport(input());
    expect(mostlyLost.subject).toContain(`lost ${history.counts.lost} questions, won ${history.counts.won}`);
    if (mostlyLost.lead.kind === 'loss' || mostlyLost.lead.kind === 'gain') expect(mostlyLost.lead.kind).toBe('loss');
    const flipped = { ...history, counts: { ...history.counts, won: history.counts.lost + 2 } };
    const mostlyWon = buildReport(input({ history: flipped }));
    expect(mostlyWon.subject).toContain(`won ${flipped.counts.won} questions, lost ${flipped.counts.lost}`);
    if (mostlyWon.visibility?.trend !== 'up' && mostlyWon.visibility?.trend !== 'down') expect(mostlyWon.lead.kind).toBe('gain');
  });
});

describe('over generated variations of the bodies (fast-check, seeded)', () => {
  const gaps = plan.gaps!;
  const tasks = plan.tasks!;
  const variation = fc.record({
    drop: fc.subarray(history.questions.map((q) => q.question_id)),
    taskOrder: fc.shuffledSubarray(tasks.tasks.map((t) => t.id)),
    coverage: fc.boolean(),
    pages: fc.boolean(),
    taskPlan: fc.constantFrom('included', 'not_in_plan', 'not_provided'),
  });

  it('every lost question is in one item; an item’s task is the first that moves its topic; items are ranked', () => {
    fc.assert(
      fc.property(variation, (v) => {
        const questions = history.questions.filter((q) => !v.drop.includes(q.question_id));
        const h = { ...history, questions };
        const taskList = { ...tasks, tasks: v.taskOrder.map((id) => tasks.tasks.find((t) => t.id === id)!) };
        const inputs: PlanInputs = {
          gaps: v.coverage ? { ...gaps, questions: gaps.questions.filter((g) => !v.drop.includes(g.question_id)) } : null,
          tasks: v.taskPlan === 'included' ? taskList : null,
          pages: v.pages ? plan.pages : null,
          tasks_in_plan: v.taskPlan !== 'not_in_plan',
        };
        const report = buildReport(input({ history: h, plan: inputs }));
        const items = report.plan!.items;
        const lost = items.flatMap((i) => i.questions.filter((q) => q.outcome === 'lost').map((q) => q.question_id));
        expect(lost.sort()).toEqual(
          lostQuestions(h)
            .map((q) => q.question_id)
            .sort(),
        );
        for (const item of items) {
          for (const q of item.questions) {
            const first = inputs.tasks?.tasks.find((t) => t.topics.some((topic) => topic.id === q.topic.id));
            expect(item.task?.id ?? null).toBe(first?.id ?? null);
            if (!inputs.gaps) expect([q.page, q.action, q.cited]).toEqual([null, null, null]);
            if (!inputs.pages) expect(q.cited_instead).toEqual([]);
          }
        }
        const keys = items.map((i) => i.key);
        expect(new Set(keys).size).toBe(keys.length);
        expect(items.map((i) => i.engines_lost)).toEqual([...items.map((i) => i.engines_lost)].sort((a, b) => b - a));
        expect(report.plan!.lines.includes(TASKS_NOT_IN_PLAN)).toBe(v.taskPlan === 'not_in_plan');
      }),
      { seed: 44, numRuns: 150 },
    );
  });

  it('holds in market de too', () => {
    const report = buildReport(
      input({
        visibility: de.visibility as ResponseOf<'getVisibility'>,
        history: de.history as ResponseOf<'getAnswerHistory'>,
        topics: de.topics as ResponseOf<'listTopics'>,
        plan: de.plan as PlanInputs,
      }),
    );
    expect(report.plan!.items.flatMap((i) => i.questions.filter((q) => q.outcome === 'lost')).length).toBe(de.history.counts.lost);
    expect(report.implausible).toEqual([]);
  });
});
