/**
 * The week's plan through the Worker (DESIGN section 15, issue 44): the
 * report's JSON, page and text forms, the CSV link, by plan (a Pro key, a
 * Starter key whose `/tasks` answers 403) and by service (one without
 * `/tasks` and `/content-gaps`, whose digest still goes out with the plan's
 * other columns). The figures are checked against the API's own answers.
 */
import { SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { API_BASE } from '../src/contract/operations';
import type { ResponseOf } from '../src/contract/operations';
import { TASKS_NOT_IN_PLAN } from '../src/weekly-report/plan';
import { clearDigests, deliver, demoMonday, FakeQueue, runCron, seedSubscriptions, sendRecords, testEnv } from './digests-helpers';
import { mintExport, readCsv } from './exports-helpers';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { call, reportJson, visibleText } from './reports-helpers';
import { ReshapingUpstream } from './reshape';

afterEach(() => {
  restoreUpstream();
  vi.useRealTimers();
});

async function api<T>(path: string, key: string): Promise<T> {
  const response = await SELF.fetch(`https://edge.test${API_BASE}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

/** The lost question the most engines stopped naming the brand for, from `/answers/history` itself. */
async function topLost(key: string) {
  const history = await api<ResponseOf<'getAnswerHistory'>>('/answers/history?market=us', key);
  return history.questions.filter((q) => q.outcome === 'lost').sort((a, b) => b.engines_naming_before - b.engines_naming_now - (a.engines_naming_before - a.engines_naming_now))[0]!;
}

describe('a Pro key', () => {
  it('gets a plan whose first item is the task and page the API gives for its top lost question, on the page, in JSON and in text', async () => {
    const key = 'demo_pro_single';
    const top = await topLost(key);
    const [tasks, gaps] = await Promise.all([api<ResponseOf<'listTasks'>>('/tasks?market=us', key), api<ResponseOf<'getContentGaps'>>('/content-gaps?market=us', key)]);
    const task = tasks.tasks.find((t) => t.topics.some((topic) => topic.id === top.topic_id))!;
    const gap = gaps.questions.find((g) => g.question_id === top.question_id)!;

    const { report } = await reportJson('/reports/weekly?market=us', key);
    const plan = report.plan!;
    expect(plan.tasks).toBe('included');
    const first = plan.items[0]!;
    expect(first.task).toEqual({ id: task.id, title: task.title, expected_gain: task.expected_gain, effort: task.effort });
    const question = first.questions.find((q) => q.question_id === top.question_id)!;
    expect([question.page?.url ?? null, question.action, question.cited]).toEqual([gap.page?.url ?? null, gap.action, gap.cited]);
    expect(question.rivals.length).toBeGreaterThan(0);

    const page = await call('/reports/weekly?market=us', { key });
    const html = await page.text();
    const text = visibleText(html);
    expect(text).toContain('This week’s plan');
    expect(text).toContain(first.headline);
    expect(text).toContain(plan.ranking);
    // Right after the score, before the chart.
    expect(html.indexOf('data-testid="score"')).toBeLessThan(html.indexOf('data-testid="plan-section"'));
    expect(html.indexOf('data-testid="plan-section"')).toBeLessThan(html.indexOf('data-testid="chart"'));
    expect(html).toContain(`data-task-id="${task.id}"`);

    const plain = await (await call('/reports/weekly?market=us&format=text', { key })).text();
    expect(plain).toContain(`1. ${first.headline}`);
  });

  it('gets the plan as a CSV link: one row per question, the first item’s task on its rows', async () => {
    const key = 'demo_pro_single';
    const { report } = await reportJson('/reports/weekly?market=us', key);
    const link = await mintExport({ operation: 'plan', params: { market: 'us' } }, key);
    const csv = await readCsv(link.url);
    expect(csv.status).toBe(200);
    const rows = csv.records;
    expect(csv.header).toEqual([
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
    ]);
    expect(rows).toHaveLength(report.plan!.items.reduce((n, item) => n + item.questions.length, 0));
    const first = report.plan!.items[0]!;
    expect(rows.filter((r) => r.rank === '1').map((r) => r.task)).toEqual(first.questions.map(() => first.task!.title));
  });
});

describe('a Starter key', () => {
  it('gets a plan from content coverage alone, with one line saying tasks come with Pro: never a 403 or a 502', async () => {
    const { report } = await reportJson('/reports/weekly?market=us', 'demo_starter');
    const plan = report.plan!;
    expect(plan.tasks).toBe('not_in_plan');
    expect(plan.items.length).toBeGreaterThan(0);
    expect(plan.items.every((item) => item.task === null)).toBe(true);
    expect(plan.items.some((item) => item.action !== null)).toBe(true);
    expect(plan.lines).toEqual([TASKS_NOT_IN_PLAN]);
    const html = await (await call('/reports/weekly?market=us', { key: 'demo_starter' })).text();
    expect(visibleText(html)).toContain(TASKS_NOT_IN_PLAN);
  });
});

describe('a service without /tasks and /content-gaps', () => {
  type Body = Record<string, unknown>;
  const lacking = (body: Body, url: URL): unknown => {
    const path = url.pathname.slice(API_BASE.length);
    if (path === '/tasks' || path === '/content-gaps') return Response.json({ error: { code: 'not_found', message: 'No such endpoint.' } }, { status: 404 });
    return body;
  };
  const LINES = [
    'Your Read API does not provide content coverage, so the plan leaves out the brand’s page for each question and what to do with it.',
    'Your Read API does not provide tasks, so the plan leaves out the task that would win each question back.',
  ];

  it('still sends the digest, with each lost question and who took it, and says what the plan leaves out', async () => {
    const monday = demoMonday();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(monday);
    await clearDigests();
    new ReshapingUpstream(lacking).install();
    const queue = new FakeQueue();
    const outboxEnv = testEnv(queue, { RESEND_API_KEY: '' });
    const key = freshKey('plan-lacking');
    await seedSubscriptions([{ email: 'plan@example.com', key }]);
    await runCron(monday.toISOString(), outboxEnv);
    await deliver(queue.sent, outboxEnv);
    expect((await sendRecords()).map((r) => [r.status, r.reason])).toEqual([['sent', null]]);
    const { messages } = (await (await SELF.fetch('https://edge.test/dev/outbox?format=json&to=plan@example.com')).json()) as { messages: { id: number }[] };
    const { message } = (await (await SELF.fetch(`https://edge.test/dev/outbox/${messages[0]!.id}?format=json`)).json()) as { message: { html: string; text: string } };
    for (const part of [message.text, visibleText(message.html)]) {
      expect(part).toContain('This week');
      for (const line of LINES) expect(part).toContain(line);
      expect(part).toMatch(/1\. Win back “[^”]+”\.?\s+Lost on [^.]+, to /);
      expect(part).toContain('Ranked by the engines that stopped naming Brightdesk for the item’s questions this week.');
    }

    const { report } = await reportJson('/reports/weekly?market=us', key);
    expect(report.plan!.items.every((item) => item.task === null && item.action === null && item.rivals.length > 0)).toBe(true);
    expect(report.not_provided.map((p) => p.part)).toEqual(['coverage', 'tasks']);
  });
});
