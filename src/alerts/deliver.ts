/**
 * The Queue consumer: one message is one Slack or webhook delivery record,
 * or up to 100 email records of one group and evaluation (one Resend batch).
 * Exactly once, as far as the receiver can tell: a record is sent only while
 * `pending`, and every attempt carries the same message id (the bundle's
 * first event id) as `webhook-id` (webhooks) or in the Idempotency-Key
 * (email, `sendInBatches`), over the same bytes; a receiver drops a repeat of
 * an id it has. A retryable failure
 * (network, 408, 429, 5xx) is retried by the Queue with backoff; after the
 * last retry the dead-letter queue's consumer records why (`giveUpDelivery`).
 * A 410 Gone from Slack or a webhook (or Slack naming a removed webhook:
 * `no_service`, `channel_not_found`...) pauses the subscription: its endpoint
 * was removed on purpose.
 *
 * Before each post the endpoint's host is resolved again and must still be
 * public (DNS rebinding: a name that was public at subscribing may point
 * inside later). One resolution per host and batch.
 */
import { checkPublicUrl, type Resolve } from '../lib/public-address';
import { unseal } from '../lib/sealing';
import { runInChunks } from '../lib/d1';
import { postToEndpoint, type PostOutcome } from '../mail/endpoints';
import { batchesByKey, batchKey, chunks, failureReason, sendInBatches } from '../mail/send-batches';
import { reportUrl, type SubscriptionRow, unsubscribeUrl, webhookSecretBinding } from '../subscriptions';
import { NEEDS, notProvidedLines } from '../weekly-report';
import type { AlertDeps, AlertJob } from './deps';
import type { Bundle } from './evaluate';
import { alertEmail, type BundleContext, slackMessage, webhookPayload } from './messages';

export interface DeliveryResult {
  sent: number;
  failed: number;
  skipped: number;
  /** Subscriptions paused by a 410 (or Slack's answer for a removed webhook). */
  paused: number;
  /** Mail calls made (pacing across a Queue batch). */
  calls: number;
  /** Set when some record must be retried: the Queue's delay and why. */
  retry?: { delaySeconds: number; reason: string };
}

interface DeliveryRow extends SubscriptionRow {
  delivery_id: number;
  delivery_key: string;
  message_id: string;
  delivery_status: 'pending' | 'sent' | 'failed' | 'skipped';
  events: string;
  delivery_created_at: string;
  batch_key: string | null;
  channel_type: 'email' | 'slack' | 'webhook';
  channel_url: string | null;
  secret_sealed: string | null;
  quiet_start: number;
  quiet_end: number;
}

/** Backoff by the Queue's attempt count: 30 s, 1 min, 2, 4, 8 ... capped at 1 h. */
export const deliveryRetrySeconds = (attempt: number) => Math.min(3600, 30 * 2 ** Math.max(0, attempt - 1));

async function finish(deps: AlertDeps, ids: number[], status: 'sent' | 'failed' | 'skipped', reason: string | null): Promise<void> {
  const at = deps.now().toISOString();
  const statement = deps.db.prepare(`UPDATE alert_deliveries SET status = ?, reason = ?, sent_at = CASE WHEN ? = 'sent' THEN ? ELSE sent_at END, updated_at = ? WHERE id = ? AND status = 'pending'`);
  await runInChunks(
    deps.db,
    ids.map((id) => statement.bind(status, reason, status, at, at, id)),
  );
}

async function noteRetry(deps: AlertDeps, ids: number[], reason: string): Promise<void> {
  const at = deps.now().toISOString();
  const statement = deps.db.prepare(`UPDATE alert_deliveries SET reason = ?, updated_at = ? WHERE id = ? AND status = 'pending'`);
  await runInChunks(
    deps.db,
    ids.map((id) => statement.bind(`retrying: ${reason}`, at, id)),
  );
}

/** A Resolve that asks once per host for the life of one batch. */
export function memoizedResolve(resolve: Resolve): Resolve {
  const seen = new Map<string, Promise<string[]>>();
  return (host) => {
    let found = seen.get(host);
    if (!found) {
      found = resolve(host);
      seen.set(host, found);
    }
    return found;
  };
}

/** What every channel's message is built from; links signed at the record's creation, so every attempt is the same bytes. */
async function contextOf(deps: AlertDeps, row: DeliveryRow): Promise<BundleContext> {
  const bundle = JSON.parse(row.events) as Bundle;
  const issuedAt = new Date(row.delivery_created_at);
  return {
    row,
    events: bundle.events,
    period: bundle.period,
    createdAt: row.delivery_created_at,
    reportUrl: await reportUrl(deps, row, issuedAt),
    unsubscribeUrl: await unsubscribeUrl(deps, row, issuedAt),
    notProvided: notProvidedLines(NEEDS.alerts, bundle.not_provided ?? [], bundle.map_misses),
  };
}

/** Posts a Slack or webhook bundle, after checking the endpoint's addresses again. */
async function postBundle(deps: AlertDeps, row: DeliveryRow, resolve: Resolve): Promise<PostOutcome> {
  const url = row.channel_url!;
  const verdict = await checkPublicUrl(url, { resolve, allowLocalhost: deps.dev });
  if (!verdict.ok) return { ok: false, status: null, retryable: false, gone: false, reason: `refused before sending: the endpoint ${verdict.reason}` };
  const secret = row.channel_type === 'webhook' && row.secret_sealed ? await unseal(deps.encryptionKey, row.secret_sealed, webhookSecretBinding(row.id)) : null;
  if (row.channel_type === 'webhook' && !secret) return { ok: false, status: null, retryable: false, gone: false, reason: 'the webhook secret cannot be decrypted (was ENCRYPTION_KEY rotated?)' };
  const context = await contextOf(deps, row);
  const body = JSON.stringify(row.channel_type === 'slack' ? slackMessage(context) : webhookPayload(context));
  return postToEndpoint(
    { fetch: deps.fetch, now: deps.now, ...(deps.dev ? { outbox: deps.db } : {}) },
    {
      kind: row.channel_type === 'slack' ? 'slack' : 'webhook',
      url,
      messageId: row.message_id,
      body,
      ...(secret ? { secret } : {}),
      summary: `${row.brand_name} (${row.market_code.toUpperCase()}): ${context.events.length} alert event(s)`,
    },
  );
}

/** One Slack or webhook record: sent, failed, retried, or its subscription paused by a 410 (or Slack's answer for a removed webhook). */
async function deliverToEndpoint(deps: AlertDeps, row: DeliveryRow, resolve: Resolve, attempt: number, result: DeliveryResult): Promise<void> {
  const outcome = await postBundle(deps, row, resolve);
  if (outcome.ok) {
    await finish(deps, [row.delivery_id], 'sent', null);
    result.sent++;
  } else if (outcome.gone) {
    const at = deps.now().toISOString();
    await deps.db.batch([
      deps.db.prepare(`UPDATE digest_subscriptions SET status = 'paused', paused_reason = 'endpoint_gone', paused_at = ?, updated_at = ? WHERE id = ? AND status = 'active'`).bind(at, at, row.id),
      deps.db
        .prepare(`UPDATE alert_deliveries SET status = 'skipped', reason = 'subscription paused', updated_at = ? WHERE subscription_id = ? AND status = 'pending' AND id != ?`)
        .bind(at, row.id, row.delivery_id),
    ]);
    await finish(deps, [row.delivery_id], 'failed', `the endpoint is gone (${outcome.reason}): subscription paused`);
    result.paused++;
  } else if (outcome.retryable) {
    await noteRetry(deps, [row.delivery_id], outcome.reason);
    result.retry ??= { delaySeconds: deliveryRetrySeconds(attempt), reason: outcome.reason };
  } else {
    await finish(deps, [row.delivery_id], 'failed', outcome.reason.slice(0, 500));
    result.failed++;
  }
}

/**
 * Email records of one group and evaluation, as Resend batches through
 * `sendInBatches`: each record gets its batch's idempotency key before the
 * first call and keeps it (`alert/<subscription>/<message id>` for one), so a
 * retry is the same request under the same key.
 */
async function deliverEmails(deps: AlertDeps, rows: DeliveryRow[], attempt: number, callsBefore: number, result: DeliveryResult): Promise<void> {
  const unassigned = rows.filter((r) => !r.batch_key);
  const assign = deps.db.prepare('UPDATE alert_deliveries SET batch_key = ? WHERE id = ? AND batch_key IS NULL');
  const statements: D1PreparedStatement[] = [];
  for (const chunk of chunks(unassigned)) {
    const key = await batchKey(
      'alert',
      chunk.map((r) => r.id),
      chunk[0]!.message_id,
    );
    for (const row of chunk) statements.push(assign.bind(key, row.delivery_id));
  }
  await runInChunks(deps.db, statements);
  if (unassigned.length > 0) {
    // A concurrent delivery's keys win.
    const { results } = await deps.db
      .prepare(`SELECT id, batch_key FROM alert_deliveries WHERE id IN (${rows.map(() => '?').join(',')})`)
      .bind(...rows.map((r) => r.delivery_id))
      .all<{ id: number; batch_key: string }>();
    const keys = new Map(results.map((r) => [r.id, r.batch_key]));
    for (const row of rows) row.batch_key = keys.get(row.delivery_id) ?? null;
  }
  const sent = await sendInBatches(deps, {
    batches: batchesByKey(rows, (r) => r.batch_key),
    callsBefore,
    emailFor: async (row) => alertEmail(await contextOf(deps, row), deps.from),
    record: async ({ rows: members }, outcome) => {
      const ids = members.map((r) => r.delivery_id);
      if (outcome.ok) await finish(deps, ids, 'sent', outcome.replayed ? 'already sent: Resend answered 409 for this key' : null);
      else if (outcome.retryable) await noteRetry(deps, ids, failureReason(outcome));
      else await finish(deps, ids, 'failed', failureReason(outcome));
    },
  });
  result.calls += sent.calls;
  result.sent += sent.sent;
  result.failed += sent.failed;
  if (sent.retry) result.retry ??= { delaySeconds: sent.retry.retryAfter ?? deliveryRetrySeconds(attempt), reason: sent.retry.reason };
}

export interface DeliveryOptions {
  /** The Queue's delivery count (1-based): the backoff. */
  attempt?: number;
  /** How endpoints are resolved (one resolution per host and batch: `memoizedResolve`). */
  resolve?: Resolve;
  /** Mail calls made already in this Queue batch: the next is spaced by `MIN_CALL_SPACING_MS`. */
  callsBefore?: number;
}

/** Sends a job's delivery records; see the module comment. Records no longer pending are left as they are. */
export async function deliverAlerts(job: AlertJob, deps: AlertDeps, options: DeliveryOptions = {}): Promise<DeliveryResult> {
  const { attempt = 1, resolve = deps.resolveHost, callsBefore = 0 } = options;
  const result: DeliveryResult = { sent: 0, failed: 0, skipped: 0, paused: 0, calls: 0 };
  const { results: rows } = await deps.db
    .prepare(
      `SELECT s.*, d.id AS delivery_id, d.delivery_key, d.message_id, d.status AS delivery_status, d.events, d.created_at AS delivery_created_at, d.batch_key,
              c.type AS channel_type, c.url AS channel_url, c.secret_sealed, c.quiet_start, c.quiet_end
         FROM alert_deliveries d JOIN digest_subscriptions s ON s.id = d.subscription_id JOIN alert_channels c ON c.subscription_id = s.id
        WHERE d.id IN (${job.delivery_ids.map(() => '?').join(',')}) AND d.status = 'pending' ORDER BY d.id`,
    )
    .bind(...job.delivery_ids)
    .all<DeliveryRow>();
  const gone = rows.filter((r) => r.status !== 'active');
  for (const row of gone) await finish(deps, [row.delivery_id], 'skipped', `subscription ${row.status} when delivering`);
  result.skipped += gone.length;
  const active = rows.filter((r) => r.status === 'active');
  if (active.length === 0) return result;
  const attempted = deps.db.prepare('UPDATE alert_deliveries SET attempts = attempts + 1, updated_at = ? WHERE id = ?');
  await runInChunks(
    deps.db,
    active.map((r) => attempted.bind(deps.now().toISOString(), r.delivery_id)),
  );
  for (const row of active.filter((r) => r.channel_type !== 'email')) await deliverToEndpoint(deps, row, resolve, attempt, result);
  const emails = active.filter((r) => r.channel_type === 'email');
  if (emails.length > 0) await deliverEmails(deps, emails, attempt, callsBefore, result);
  return result;
}

/** After the last retry (the dead-letter queue): the record says it was not delivered, and why. */
export async function giveUpDelivery(job: AlertJob, deps: Pick<AlertDeps, 'db' | 'now'>): Promise<number> {
  const at = deps.now().toISOString();
  const { results } = await deps.db
    .prepare(
      `UPDATE alert_deliveries SET status = 'failed',
              reason = 'gave up after the Queue''s retries' || CASE WHEN reason IS NULL THEN '' ELSE ' (last: ' || replace(reason, 'retrying: ', '') || ')' END,
              updated_at = ?
        WHERE id IN (${job.delivery_ids.map(() => '?').join(',')}) AND status = 'pending' RETURNING id`,
    )
    .bind(at, ...job.delivery_ids)
    .all<{ id: number }>();
  return results.length;
}
