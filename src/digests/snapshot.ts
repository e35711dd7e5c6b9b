/**
 * One snapshot per group and week: the bodies a digest is built from,
 * stored at the group's first successful read (`digest_snapshots`). Every
 * retry and redelivery renders from it, never from a second read, so a
 * batch's request is the same bytes on every attempt.
 */
import type { ResponseOf } from '../contract/operations';
import type { PartId, PlanInputs } from '../weekly-report';
import type { DigestJob } from './deps';

export interface Snapshot {
  read_at: string;
  visibility: ResponseOf<'getVisibility'>;
  history: ResponseOf<'getAnswerHistory'>;
  /** Null when the service does not provide topics. */
  topics: ResponseOf<'listTopics'> | null;
  /** Null in snapshots taken before the digest read /prompts (migrations/0011_snapshot_matrix.sql), and when the service does not provide it. */
  matrix: ResponseOf<'getPromptMatrix'> | null;
  /** The parts the service does not provide (migrations/0018_snapshot_not_provided.sql). */
  not_provided: PartId[];
  /** The plan's bodies (migrations/0020_snapshot_plan.sql); null in snapshots taken before the plan. */
  plan: PlanInputs | null;
}

export async function loadSnapshot(db: D1Database, job: Pick<DigestJob, 'group_key' | 'iso_week'>): Promise<Snapshot | null> {
  const row = await db
    .prepare('SELECT read_at, visibility, history, topics, matrix, not_provided, plan FROM digest_snapshots WHERE group_key = ? AND iso_week = ?')
    .bind(job.group_key, job.iso_week)
    .first<{ read_at: string; visibility: string; history: string; topics: string; matrix: string | null; not_provided: string | null; plan: string | null }>();
  // Stored by this module from bodies the client checked against the contract.
  return row
    ? {
        read_at: row.read_at,
        visibility: JSON.parse(row.visibility),
        history: JSON.parse(row.history),
        topics: JSON.parse(row.topics),
        matrix: row.matrix === null ? null : JSON.parse(row.matrix),
        not_provided: row.not_provided === null ? [] : JSON.parse(row.not_provided),
        plan: row.plan === null ? null : JSON.parse(row.plan),
      }
    : null;
}

/** Stores the snapshot unless one is there already (a concurrent delivery), and returns the one stored. */
export async function storeSnapshot(db: D1Database, job: Pick<DigestJob, 'group_key' | 'iso_week'>, snapshot: Snapshot): Promise<Snapshot> {
  const { visibility, history, topics, matrix, not_provided, plan } = snapshot;
  await db
    .prepare(
      `INSERT INTO digest_snapshots (group_key, iso_week, read_at, period_from, period_to, visibility, history, topics, matrix, not_provided, plan) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (group_key, iso_week) DO NOTHING`,
    )
    .bind(
      job.group_key,
      job.iso_week,
      snapshot.read_at,
      visibility.period.from,
      visibility.period.to,
      JSON.stringify(visibility),
      JSON.stringify(history),
      JSON.stringify(topics),
      matrix === null ? null : JSON.stringify(matrix),
      not_provided.length === 0 ? null : JSON.stringify(not_provided),
      plan === null ? null : JSON.stringify(plan),
    )
    .run();
  return (await loadSnapshot(db, job))!;
}
