/**
 * The Queue consumer: one message is one delivery record. Exactly once, as
 * far as the receiver can tell: a record is sent only while `pending`, and
 * every attempt carries the same message id (the bundle's first event id) as
 * `webhook-id` (webhooks) or in the Idempotency-Key (email), over the same
 * bytes; a receiver drops a repeat of an id it has. A retryable failure
 * (network, 408, 429, 5xx) is retried by the Queue with backoff; after the
 * last retry the dead-letter queue's consumer records why (`giveUpDelivery`).
 * A 410 Gone from Slack or a webhook pauses the subscription: its endpoint
 * was removed on purpose.
 *
 * Before each post the endpoint's host is resolved again and must still be
 * public (DNS rebinding: a name that was public at subscribing may point
 * inside later). One resolution per host and batch.
 */
import { checkPublicUrl, type Resolve } from '../lib/public-address';
import { unseal } from '../lib/sealing';
import { postToEndpoint, type PostOutcome } from '../mail/endpoints';
import { MIN_CALL_SPACING_MS } from '../mail/mailer';
import { failureReason } from '../mail/send-batches';
import { reportUrl, type SubscriptionRow, unsubscribeUrl, webhookSecretBinding } from '../subscriptions';
import type { AlertDeps, AlertJob } from './deps';
import type { Bundle } from './evaluate';
import { alertEmail, type BundleContext, slackMessage, webhookPayload } from './messages';

export type DeliveryResult = { done: 'sent' | 'failed' | 'skipped' | 'paused' | 'already' } | { retry: { delaySeconds: number; reason: string } };

interface DeliveryRow extends SubscriptionRow {
  delivery_id: number;
  delivery_key: string;
  message_id: string;
  delivery_status: 'pending' | 'sent' | 'failed' | 'skipped';
  events: string;
  delivery_created_at: string;
  channel_type: 'email' | 'slack' | 'webhook';
  channel_url: string | null;
  secret_sealed: string | null;
  quiet_start: number;
  quiet_end: number;
}

/** Backoff by the Queue's attempt count: 30 s, 1 min, 2, 4, 8 ... capped at 1 h. */
export const deliveryRetrySeconds = (attempt: number) => Math.min(3600, 30 * 2 ** Math.max(0, attempt - 1));

async function finish(deps: AlertDeps, id: number, status: 'sent' | 'failed' | 'skipped', reason: string | null): Promise<void> {
  const at = deps.now().toISOString();
  await deps.db
    .prepare(`UPDATE alert_deliveries SET status = ?, reason = ?, sent_at = CASE WHEN ? = 'sent' THEN ? ELSE sent_at END, updated_at = ? WHERE id = ? AND status = 'pending'`)
    .bind(status, reason, status, at, at, id)
    .run();
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

/** Posts a Slack or webhook bundle, after checking the endpoint's addresses again. */
async function postBundle(deps: AlertDeps, row: DeliveryRow, context: BundleContext, resolve: Resolve): Promise<PostOutcome> {
  const url = row.channel_url!;
  const verdict = await checkPublicUrl(url, { resolve, allowLocalhost: deps.dev });
  if (!verdict.ok) return { ok: false, status: null, retryable: false, gone: false, reason: `refused before sending: the endpoint ${verdict.reason}` };
  const secret = row.channel_type === 'webhook' && row.secret_sealed ? await unseal(deps.encryptionKey, row.secret_sealed, webhookSecretBinding(row.id)) : null;
  if (row.channel_type === 'webhook' && !secret) return { ok: false, status: null, retryable: false, gone: false, reason: 'the webhook secret cannot be decrypted (was ENCRYPTION_KEY rotated?)' };
  const body = JSON.stringify(row.channel_type === 'slack' ? slackMessage(context) : webhookPayload(context));
  return postToEndpoint(
    { fetch: deps.fetch, now: deps.now, ...(deps.dev ? { outbox: deps.db } : {}) },
    { kind: row.channel_type === 'slack' ? 'slack' : 'webhook', url, messageId: row.message_id, body, ...(secret ? { secret } : {}), summary: `${row.brand_name} (${row.market_code.toUpperCase()}): ${context.events.length} alert event(s)` },
  );
}

export interface DeliveryOptions {
  /** The Queue's delivery count (1-based): the backoff. */
  attempt?: number;
  /** How endpoints are resolved (one resolution per host and batch: `memoizedResolve`). */
  resolve?: Resolve;
  /** Awaited before each call to the mailer: Resend takes about 5 requests a second (`pacedMail`). */
  beforeMail?: () => Promise<void>;
}

/** Spaces the mail calls of one batch by `MIN_CALL_SPACING_MS`, through the `sleep` seam (tests never wait). */
export function pacedMail(sleep: (ms: number) => Promise<void>): () => Promise<void> {
  let calls = 0;
  return async () => {
    if (calls++ > 0) await sleep(MIN_CALL_SPACING_MS);
  };
}

/** Sends one delivery record; see the module comment. */
export async function deliverAlert(job: AlertJob, deps: AlertDeps, options: DeliveryOptions = {}): Promise<DeliveryResult> {
  const { attempt = 1, resolve = deps.resolveHost } = options;
  const row = await deps.db
    .prepare(
      `SELECT s.*, d.id AS delivery_id, d.delivery_key, d.message_id, d.status AS delivery_status, d.events, d.created_at AS delivery_created_at,
              c.type AS channel_type, c.url AS channel_url, c.secret_sealed, c.quiet_start, c.quiet_end
         FROM alert_deliveries d JOIN digest_subscriptions s ON s.id = d.subscription_id JOIN alert_channels c ON c.subscription_id = s.id
        WHERE d.id = ?`,
    )
    .bind(job.delivery_id)
    .first<DeliveryRow>();
  if (!row || row.delivery_status !== 'pending') return { done: 'already' };
  if (row.status !== 'active') {
    await finish(deps, row.delivery_id, 'skipped', `subscription ${row.status} when delivering`);
    return { done: 'skipped' };
  }
  await deps.db.prepare('UPDATE alert_deliveries SET attempts = attempts + 1, updated_at = ? WHERE id = ?').bind(deps.now().toISOString(), row.delivery_id).run();
  const bundle = JSON.parse(row.events) as Bundle;
  // Links signed at the record's creation: the same bytes on every attempt.
  const issuedAt = new Date(row.delivery_created_at);
  const context: BundleContext = {
    row,
    events: bundle.events,
    period: bundle.period,
    createdAt: row.delivery_created_at,
    reportUrl: await reportUrl(deps, row, issuedAt),
    unsubscribeUrl: await unsubscribeUrl(deps, row.id, issuedAt),
  };

  let outcome: PostOutcome;
  if (row.channel_type === 'email') {
    await options.beforeMail?.();
    const sent = await deps.mailer.sendBatch([await alertEmail(context, deps.from)], `alert/${row.delivery_key}`);
    outcome = sent.ok ? { ok: true, status: 200 } : { ok: false, status: sent.status, retryable: sent.retryable, gone: false, reason: failureReason(sent) };
  } else {
    outcome = await postBundle(deps, row, context, resolve);
  }

  if (outcome.ok) {
    await finish(deps, row.delivery_id, 'sent', null);
    return { done: 'sent' };
  }
  if (outcome.gone) {
    const at = deps.now().toISOString();
    await deps.db.batch([
      deps.db.prepare(`UPDATE digest_subscriptions SET status = 'paused', paused_reason = 'endpoint_gone', paused_at = ?, updated_at = ? WHERE id = ? AND status = 'active'`).bind(at, at, row.id),
      deps.db.prepare(`UPDATE alert_deliveries SET status = 'skipped', reason = 'subscription paused' , updated_at = ? WHERE subscription_id = ? AND status = 'pending' AND id != ?`).bind(at, row.id, row.delivery_id),
    ]);
    await finish(deps, row.delivery_id, 'failed', `the endpoint answered 410 Gone: subscription paused`);
    return { done: 'paused' };
  }
  if (outcome.retryable) {
    await deps.db.prepare('UPDATE alert_deliveries SET reason = ?, updated_at = ? WHERE id = ? AND status = ?').bind(`retrying: ${outcome.reason}`, deps.now().toISOString(), row.delivery_id, 'pending').run();
    return { retry: { delaySeconds: deliveryRetrySeconds(attempt), reason: outcome.reason } };
  }
  await finish(deps, row.delivery_id, 'failed', outcome.reason.slice(0, 500));
  return { done: 'failed' };
}

/** After the last retry (the dead-letter queue): the record says it was not delivered, and why. */
export async function giveUpDelivery(job: AlertJob, deps: Pick<AlertDeps, 'db' | 'now'>): Promise<boolean> {
  const at = deps.now().toISOString();
  const changed = await deps.db
    .prepare(
      `UPDATE alert_deliveries SET status = 'failed',
              reason = 'gave up after the Queue''s retries' || CASE WHEN reason IS NULL THEN '' ELSE ' (last: ' || replace(reason, 'retrying: ', '') || ')' END,
              updated_at = ?
        WHERE id = ? AND status = 'pending' RETURNING id`,
    )
    .bind(at, job.delivery_id)
    .first<{ id: number }>();
  return changed !== null;
}
