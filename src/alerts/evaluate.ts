/**
 * The daily evaluation, run by the hourly cron. Each brand + market + key
 * group of active alert subscriptions is evaluated once a day, at the first
 * cron run from 07:00 in the group's timezone (that of its oldest
 * subscription): three reads through `apiFor` (`/visibility` and `/prompts`,
 * fixed trailing 7 days, then `/topics` for their days), compared with the
 * snapshot kept from the group's last evaluation (src/weekly-report/changes.ts).
 * The first evaluation only stores. Only the score is required
 * (`NEEDS.alerts`): without per-engine answers, topics or rivals, their
 * events are not looked for, and each delivery says so in one line.
 *
 * A change is raised as an event at most once per direction within 7 days
 * (`alert_changes`); the opposite direction is a reversal and is raised at
 * once. Each active subscription of the group gets one delivery record
 * bundling the events, held until the end of its quiet hours when found
 * inside them. Records, changes and the new snapshot are written in one D1
 * transaction, and ids are derived from the group, the local day and the
 * change, so a run repeated or retried the same day adds nothing.
 *
 * Then every delivery that is due and not yet on the Queue is enqueued.
 */
import { ApiClientError } from '../client';
import { runInChunks } from '../lib/d1';
import { sha256Hex } from '../lib/hash';
import { DAY_MS } from '../lib/time';
import { chunks } from '../mail/send-batches';
import { groupApiKey, groupKeyOf, type SubscriptionRow, UNREADABLE_KEY } from '../subscriptions';
import type { Violation } from '../contract/plausibility';
import {
  actionLine,
  ALERT_HOUR,
  type AlertChange,
  type AlertEvent,
  type AlertSnapshot,
  alertSnapshotOf,
  changesBetween,
  figuresViolations,
  implausibleReason,
  localTime,
  logImplausible,
  NEEDS,
  type MapMisses,
  missesByPart,
  type PartId,
  readParts,
} from '../weekly-report';
import type { AlertDeps, AlertJob } from './deps';
import { releaseAt } from './quiet';

/** The same change, in the same direction, is not raised again within this many days. */
export const REPEAT_AFTER_DAYS = 7;
/** Delivery records are kept this long after they are done (the reason of a failure, for the owner's questions). */
export const KEEP_DELIVERIES_DAYS = 30;
/** Queues' sendBatch takes at most 100 messages. */
const QUEUE_BATCH = 100;

/** An event as delivered: with its stable id (`webhook-id` of the bundle it leads, and idempotency key). */
export type IdentifiedEvent = AlertEvent & { id: string };
/** A delivery's content (`alert_deliveries.events`): the evaluation's days and its events, most important first. */
export interface Bundle {
  period: { from: string; to: string };
  events: IdentifiedEvent[];
  /** The parts the Read API does not provide, whose events were not looked for (absent in bundles kept before: none). */
  not_provided?: PartId[];
  /** Of those, what the map missed in an answer that held them (parts.ts `MapMisses`): their lines name it. */
  map_misses?: Partial<Record<PartId, MapMisses>>;
}

export interface EvaluationResult {
  /** Groups evaluated now. */
  evaluated: number;
  /** API reads made. */
  reads: number;
  /** Events raised (before fan-out to subscriptions). */
  events: number;
  /** Delivery records created, and of them held by quiet hours. */
  deliveries: number;
  held: number;
  /** Delivery records put on the Queue (new and released ones). */
  enqueued: number;
  /** Groups whose read failed (evaluated again next hour) or whose key was refused (their subscriptions paused). */
  failed: number;
  /** Groups whose figures broke a rule of src/contract/plausibility.ts: nothing sent, each subscription's record says why. */
  implausible: number;
  paused: number;
}

interface AlertRow extends SubscriptionRow {
  quiet_start: number;
  quiet_end: number;
}

/** `evt_` and 24 hex of the group, the local day, the subject and the direction: the same change the same day is the same event. */
const eventIdOf = async (groupKey: string, day: string, change: AlertChange) => `evt_${(await sha256Hex(`${groupKey}|${day}|${change.subject}|${change.direction}`)).slice(0, 24)}`;

/** What one evaluation read, and what the map missed in the parts left out (said with their lines). */
type Bodies = Parameters<typeof alertSnapshotOf>[0] & { map_misses?: Partial<Record<PartId, MapMisses>> };

/** The group's three reads, the fixed-window pair read again once when it straddled midnight UTC; null when still misaligned. */
async function readGroup(deps: AlertDeps, apiKey: string, row: AlertRow): Promise<Bodies | null> {
  const client = deps.api(apiKey, null);
  const scope = { brand_id: row.brand_id, market: String(row.market_id) };
  const fixed = () => Promise.all([readParts(client, NEEDS.alerts, 'getVisibility', scope), readParts(client, NEEDS.alerts, 'getPromptMatrix', scope)]);
  let [visibility, matrix] = await fixed();
  // The score is required (never null); a service without /prompts aligns with anything.
  const aligned = () => !matrix.data || (visibility.data!.period.from === matrix.data.period.from && visibility.data!.period.to === matrix.data.period.to);
  if (!aligned()) [visibility, matrix] = await fixed();
  if (!aligned()) return null;
  const { period } = visibility.data!;
  const topics = await readParts(client, NEEDS.alerts, 'listTopics', { ...scope, from: period.from, to: period.to });
  const reads = [matrix, topics];
  const misses = missesByPart(reads);
  return {
    visibility: visibility.data!,
    matrix: matrix.data,
    topics: topics.data,
    not_provided: reads.flatMap((read) => read.notProvided),
    ...(Object.keys(misses).length > 0 ? { map_misses: misses } : {}),
  };
}

/**
 * Each lost question's action, one line (the week's plan's, src/weekly-report/plan.ts): two more reads, content
 * coverage and open tasks, made only when a question was lost. Best effort: the events are news either way, so a
 * part the service or the key's plan lacks, or a failed read, leaves the line out. Returns the reads made.
 */
async function addActions(deps: AlertDeps, apiKey: string, row: AlertRow, after: AlertSnapshot, events: IdentifiedEvent[]): Promise<number> {
  if (!events.some((e) => e.type === 'question_lost')) return 0;
  const client = deps.api(apiKey, null);
  const scope = { brand_id: row.brand_id, market: String(row.market_id) };
  const optional = async <T>(read: Promise<{ data: T | null }>): Promise<T | null> => {
    try {
      return (await read).data;
    } catch (error) {
      if (!(error instanceof ApiClientError)) throw error;
      return null;
    }
  };
  const [gaps, tasks] = await Promise.all([optional(readParts(client, NEEDS.digest, 'getContentGaps', scope)), optional(readParts(client, NEEDS.digest, 'listTasks', scope))]);
  const topicOf = new Map(after.cells.map((c) => [c.question_id, c.topic_id]));
  for (const event of events) {
    if (event.type !== 'question_lost') continue;
    const action = actionLine({ id: event.question.id, text: event.question.text, topic_id: topicOf.get(event.question.id) ?? -1 }, { gaps, tasks, pages: null });
    if (action) event.action = action;
  }
  return 2;
}

/** The changes that are news now: not raised in the same direction within `REPEAT_AFTER_DAYS` (reversals always are). */
async function newsOf(deps: AlertDeps, groupKey: string, day: string, changes: AlertChange[], now: Date) {
  const { results } = await deps.db
    .prepare('SELECT subject, direction, raised_at FROM alert_changes WHERE group_key = ?')
    .bind(groupKey)
    .all<{ subject: string; direction: string; raised_at: string }>();
  const last = new Map(results.map((r) => [r.subject, r]));
  const repeatUntil = (raisedAt: string) => Date.parse(raisedAt) + REPEAT_AFTER_DAYS * DAY_MS;
  const at = now.toISOString();
  const record = deps.db.prepare(
    `INSERT INTO alert_changes (group_key, subject, direction, event_id, raised_at) VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT (group_key, subject) DO UPDATE SET direction = ?3, event_id = ?4, raised_at = ?5`,
  );
  const events: IdentifiedEvent[] = [];
  const statements: D1PreparedStatement[] = [];
  for (const change of changes) {
    const previous = last.get(change.subject);
    const reversal = previous !== undefined && previous.direction !== change.direction;
    if (!change.event) {
      // Only marks the reversal (a rival back behind): overtaking again is news again.
      if (reversal) statements.push(record.bind(groupKey, change.subject, change.direction, null, at));
      continue;
    }
    if (previous && !reversal && now.getTime() < repeatUntil(previous.raised_at)) continue;
    const id = await eventIdOf(groupKey, day, change);
    events.push({ ...change.event, id });
    statements.push(record.bind(groupKey, change.subject, change.direction, id, at));
  }
  return { events, statements };
}

/** Pauses a group's alert subscriptions whose key the API refuses (401, 403): nothing can be evaluated with it. */
async function pauseGroup(deps: AlertDeps, rows: AlertRow[], code: string): Promise<number> {
  const at = deps.now().toISOString();
  const pause = deps.db.prepare(`UPDATE digest_subscriptions SET status = 'paused', paused_reason = ?, paused_at = ?, updated_at = ? WHERE id = ? AND status = 'active' RETURNING id`);
  const moved = await deps.db.batch<{ id: string }>(rows.map((r) => pause.bind(code, at, at, r.id)));
  return moved.flatMap((r) => r.results).length;
}

/**
 * Figures that break a rule the spec implies are compared with nothing and sent to no one: each subscription gets a
 * skipped delivery record saying why, and the group's day is marked evaluated (its last plausible snapshot kept, so
 * tomorrow compares with it), so it is read and logged once that day.
 */
async function skipImplausible(deps: AlertDeps, groupKey: string, rows: AlertRow[], day: string, period: Bundle['period'], broken: Violation[]): Promise<void> {
  const at = deps.now().toISOString();
  const messageId = `implausible-${day}`;
  const bundle = JSON.stringify({ period, events: [] } satisfies Bundle);
  const skip = deps.db.prepare(
    `INSERT INTO alert_deliveries (delivery_key, message_id, subscription_id, group_key, events, status, reason, deliver_after, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'skipped', ?, ?, ?, ?) ON CONFLICT (delivery_key) DO NOTHING`,
  );
  await deps.db.batch([
    ...rows.map((row) => skip.bind(`${row.id}/${messageId}`, messageId, row.id, groupKey, bundle, implausibleReason(broken), at, at, at)),
    deps.db
      .prepare(`INSERT INTO alert_snapshots (group_key, local_day, evaluated_at, snapshot) VALUES (?1, ?2, ?3, 'null') ON CONFLICT (group_key) DO UPDATE SET local_day = ?2, evaluated_at = ?3`)
      .bind(groupKey, day, at),
  ]);
  logImplausible('alert', groupKey, broken);
}

/** Evaluates one group that is due; see the module comment. */
async function evaluateGroup(deps: AlertDeps, groupKey: string, rows: AlertRow[], day: string, before: AlertSnapshot | null, result: EvaluationResult): Promise<void> {
  const now = deps.now();
  const apiKey = await groupApiKey(deps.encryptionKey, rows);
  if (!apiKey) {
    console.error(JSON.stringify({ msg: `alert group skipped: ${UNREADABLE_KEY}`, group: groupKey }));
    result.failed++;
    return;
  }
  let bodies: Bodies | null;
  try {
    result.reads += 3;
    bodies = await readGroup(deps, apiKey, rows[0]!);
  } catch (error) {
    if (!(error instanceof ApiClientError)) throw error;
    if (error.status === 401 || error.status === 403) {
      result.paused += await pauseGroup(deps, rows, error.code);
      return;
    }
    console.error(JSON.stringify({ msg: 'alert group not evaluated: read failed, next hour tries again', group: groupKey, status: error.status, code: error.code }));
    result.failed++;
    return;
  }
  if (!bodies) {
    result.failed++;
    return;
  }
  const broken = figuresViolations(bodies);
  if (broken.length > 0) {
    await skipImplausible(deps, groupKey, rows, day, bodies.visibility.period, broken);
    result.implausible++;
    return;
  }
  const after = alertSnapshotOf(bodies);
  const { events, statements } = await newsOf(deps, groupKey, day, changesBetween(before, after), now);
  result.reads += await addActions(deps, apiKey, rows[0]!, after, events);
  const at = now.toISOString();
  statements.push(
    deps.db
      .prepare(
        `INSERT INTO alert_snapshots (group_key, local_day, evaluated_at, snapshot) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (group_key) DO UPDATE SET local_day = ?2, evaluated_at = ?3, snapshot = ?4`,
      )
      .bind(groupKey, day, at, JSON.stringify(after)),
  );
  if (events.length > 0) {
    const insert = deps.db.prepare(
      `INSERT INTO alert_deliveries (delivery_key, message_id, subscription_id, group_key, events, status, deliver_after, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?) ON CONFLICT (delivery_key) DO NOTHING`,
    );
    const messageId = events[0]!.id;
    const bundle: Bundle = { period: after.period, events, ...(after.not_provided ? { not_provided: after.not_provided } : {}), ...(bodies.map_misses ? { map_misses: bodies.map_misses } : {}) };
    const json = JSON.stringify(bundle);
    for (const row of rows) {
      const release = releaseAt(now, row.timezone, { start: row.quiet_start, end: row.quiet_end });
      if (release > now) result.held++;
      statements.push(insert.bind(`${row.id}/${messageId}`, messageId, row.id, groupKey, json, release.toISOString(), at, at));
    }
    result.deliveries += rows.length;
  }
  // One transaction: the changes raised, the deliveries and the snapshot, or none of them.
  await deps.db.batch(statements);
  result.events += events.length;
  result.evaluated++;
}

/**
 * Enqueues the deliveries that are due and not yet on the Queue (new ones,
 * and those quiet hours held): a Slack or webhook delivery alone, the emails
 * of one group and evaluation together, up to a Resend batch.
 */
async function enqueueDue(deps: AlertDeps, now: Date): Promise<number> {
  const { results } = await deps.db
    .prepare(
      `SELECT d.id, d.group_key, d.message_id, c.type FROM alert_deliveries d JOIN alert_channels c ON c.subscription_id = d.subscription_id
        WHERE d.status = 'pending' AND d.enqueued_at IS NULL AND d.deliver_after <= ? ORDER BY d.id`,
    )
    .bind(now.toISOString())
    .all<{ id: number; group_key: string; message_id: string; type: string }>();
  const emails = new Map<string, number[]>();
  const jobs: AlertJob[] = [];
  for (const row of results) {
    if (row.type !== 'email') jobs.push({ v: 1, delivery_ids: [row.id] });
    else emails.set(`${row.group_key}|${row.message_id}`, [...(emails.get(`${row.group_key}|${row.message_id}`) ?? []), row.id]);
  }
  for (const ids of emails.values()) for (const chunk of chunks(ids)) jobs.push({ v: 1, delivery_ids: chunk });
  // A failure between the send and the mark enqueues them again next hour: the consumer sends a record once.
  for (let i = 0; i < jobs.length; i += QUEUE_BATCH) {
    await deps.alertQueue.sendBatch(jobs.slice(i, i + QUEUE_BATCH).map((body) => ({ body, contentType: 'json' as const })));
  }
  const mark = deps.db.prepare('UPDATE alert_deliveries SET enqueued_at = ?, updated_at = ? WHERE id = ?');
  await runInChunks(
    deps.db,
    results.map((r) => mark.bind(now.toISOString(), now.toISOString(), r.id)),
  );
  return results.length;
}

/** One cron run: evaluates the groups that are due, then enqueues what is due. */
export async function evaluateAlerts(deps: AlertDeps): Promise<EvaluationResult> {
  const now = deps.now();
  const result: EvaluationResult = { evaluated: 0, reads: 0, events: 0, deliveries: 0, held: 0, enqueued: 0, failed: 0, implausible: 0, paused: 0 };
  const { results: rows } = await deps.db
    .prepare(
      `SELECT s.*, c.quiet_start, c.quiet_end FROM digest_subscriptions s JOIN alert_channels c ON c.subscription_id = s.id
        WHERE s.status = 'active' AND s.confirmed_at IS NOT NULL ORDER BY s.created_at, s.id`,
    )
    .all<AlertRow>();
  const groups = new Map<string, AlertRow[]>();
  for (const row of rows) {
    const key = groupKeyOf(row);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const { results: kept } = await deps.db.prepare('SELECT group_key, local_day, snapshot FROM alert_snapshots').all<{ group_key: string; local_day: string; snapshot: string }>();
  const snapshots = new Map(kept.map((s) => [s.group_key, s]));
  for (const [groupKey, members] of groups) {
    // The group's day is that of its oldest subscription's timezone; the others' quiet hours hold their deliveries.
    const local = localTime(now, members[0]!.timezone);
    const stored = snapshots.get(groupKey);
    if (local.hour < ALERT_HOUR || (stored && stored.local_day >= local.day)) continue;
    await evaluateGroup(deps, groupKey, members, local.day, stored ? (JSON.parse(stored.snapshot) as AlertSnapshot) : null, result);
  }
  result.enqueued = await enqueueDue(deps, now);
  // What no rule reads any more: records done for a month, changes past the 7 days.
  await deps.db.batch([
    deps.db.prepare(`DELETE FROM alert_deliveries WHERE status != 'pending' AND updated_at < ?`).bind(new Date(now.getTime() - KEEP_DELIVERIES_DAYS * DAY_MS).toISOString()),
    deps.db.prepare('DELETE FROM alert_changes WHERE raised_at < ?').bind(new Date(now.getTime() - REPEAT_AFTER_DAYS * DAY_MS).toISOString()),
  ]);
  return result;
}
