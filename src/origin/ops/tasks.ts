/** Tasks: the stored briefs (derived upstream by language models), listed best first with open counts per layer. */
import * as z from 'zod';
import type { TaskLayer, TaskStatus } from '../../contract/enums';
import { ApiError } from '../../contract/errors';
import { lastDays, previousPeriod } from '../../contract/window';
import { percent } from '../metrics';
import { openTaskCounts, topicTotals } from '../queries';
import { scopeOf } from './core';
import type { Implementation } from './context';

interface TaskRow {
  id: number;
  title: string;
  layer: TaskLayer;
  status: TaskStatus;
  impact: number;
  effort: 'low' | 'medium' | 'high';
  created_at: string;
  updated_at: string;
}

const TASK_COLUMNS = 'id, title, layer, status, impact, effort, created_at, updated_at';

/**
 * "Best first": the largest expected gain first; on a tie the smaller effort,
 * then the older task (lower id).
 */
const BEST_FIRST = "impact DESC, CASE effort WHEN 'low' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, id";

/** `impact` is stored in tenths of a visibility point. */
const summaryOf = (t: TaskRow) => ({
  id: t.id,
  title: t.title,
  layer: t.layer,
  status: t.status,
  expected_gain: t.impact / 10,
  effort: t.effort,
  created_at: t.created_at,
  updated_at: t.updated_at,
});

async function topicsOfTasks(db: D1Database, taskIds: number[]) {
  if (taskIds.length === 0) return [];
  const { results } = await db
    .prepare(
      `SELECT tt.task_id, t.id, t.name FROM task_topics tt JOIN topics t ON t.id = tt.topic_id
        WHERE tt.task_id IN (SELECT value FROM json_each(?)) ORDER BY tt.task_id, t.id`,
    )
    .bind(JSON.stringify(taskIds))
    .all<{ task_id: number; id: number; name: string }>();
  return results;
}

export const listTasks: Implementation<'listTasks'> = async (c) => {
  const { layer, status, limit } = c.query;
  const where = `market_id = ? AND status = ?${layer ? ' AND layer = ?' : ''}`;
  const binds = layer ? [c.market.id, status, layer] : [c.market.id, status];
  const [openCounts, matching, { results: tasks }] = await Promise.all([
    openTaskCounts(c.db, c.market.id),
    c.db
      .prepare(`SELECT count(*) AS n FROM tasks WHERE ${where}`)
      .bind(...binds)
      .first<{ n: number }>(),
    c.db
      .prepare(`SELECT ${TASK_COLUMNS} FROM tasks WHERE ${where} ORDER BY ${BEST_FIRST} LIMIT ?`)
      .bind(...binds, limit)
      .all<TaskRow>(),
  ]);
  const topics = await topicsOfTasks(
    c.db,
    tasks.map((t) => t.id),
  );
  return {
    ...scopeOf(c),
    filter: { layer: layer ?? null, status },
    open_counts: openCounts,
    matching: matching?.n ?? 0,
    tasks: tasks.map((t) => ({ ...summaryOf(t), topics: topics.filter((x) => x.task_id === t.id).map(({ id, name }) => ({ id, name })) })),
  };
};

/** The stored brief's JSON columns, checked on the way out. */
const Steps = z.array(z.string());
const Evidence = z.array(z.object({ kind: z.string(), text: z.string(), url: z.string().optional() }));

export const getTask: Implementation<'getTask'> = async (c) => {
  // Another brand's or market's task is not found: ids do not reveal what the key cannot read.
  const task = await c.db
    .prepare(`SELECT ${TASK_COLUMNS}, why, steps, evidence FROM tasks WHERE id = ? AND brand_id = ? AND market_id = ?`)
    .bind(c.path.id, c.brand.id, c.market.id)
    .first<TaskRow & { why: string; steps: string; evidence: string }>();
  if (!task) throw new ApiError('not_found', `No task ${c.path.id} in this brand and market (see \`GET /tasks\`).`);
  const week = lastDays(c.today, 7);
  const [topics, totals] = await Promise.all([topicsOfTasks(c.db, [task.id]), topicTotals(c.db, c.market.id, week, previousPeriod(week))]);
  return {
    ...scopeOf(c),
    task: {
      ...summaryOf(task),
      why: task.why,
      steps: Steps.parse(JSON.parse(task.steps)),
      evidence: Evidence.parse(JSON.parse(task.evidence)).map((e) => ({ kind: e.kind, text: e.text, url: e.url ?? null })),
      topics: topics.map((t) => {
        const now = totals.find((r) => r.topic_id === t.id && r.current === 1);
        return { id: t.id, name: t.name, score: percent(now?.naming ?? 0, now?.answered ?? 0) };
      }),
    },
  };
};
