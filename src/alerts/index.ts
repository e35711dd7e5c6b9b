/**
 * Change alerts (DESIGN section 10): the daily evaluation run by the hourly
 * cron (evaluate.ts), the Queue consumer of deliveries and its dead-letter
 * queue (deliver.ts), and the dev route that evaluates as if the cron fired
 * at a given time. Called from the Worker (src/app/worker.ts).
 */
import { invalidParameter } from '../contract/errors';
import { json } from '../lib/http';
import { errorText } from '../lib/log';
import type { Route } from '../lib/router';
import { deliverAlerts, deliveryRetrySeconds, giveUpDelivery, memoizedResolve } from './deliver';
import { type AlertDeps, AlertJob } from './deps';
import { evaluateAlerts, type EvaluationResult } from './evaluate';

export type { AlertDeps, EvaluationResult };
export { AlertJob, deliverAlerts, evaluateAlerts };

/** The delivery queue and its dead-letter queue (wrangler.toml). */
export const ALERT_QUEUE = 'alert-deliveries';
export const ALERT_DEAD_LETTER_QUEUE = 'alert-deliveries-dlq';
export const isAlertQueue = (name: string) => name === ALERT_QUEUE || name === ALERT_DEAD_LETTER_QUEUE;

/** Dev only (like the outbox): evaluates as if the cron fired at `?at=` (ISO time). */
export const DEV_ALERTS_PATH = '/dev/alerts/run';

export async function runAlertEvaluation(deps: AlertDeps, cron: string): Promise<EvaluationResult> {
  const result = await evaluateAlerts(deps);
  console.log(JSON.stringify({ msg: 'alerts evaluated', cron, at: deps.now().toISOString(), ...result }));
  return result;
}

/** One batch of the delivery queue or of its dead-letter queue. */
export async function consumeAlertBatch(batch: MessageBatch<unknown>, deps: AlertDeps): Promise<void> {
  const resolve = memoizedResolve(deps.resolveHost);
  let mailCalls = 0;
  for (const message of batch.messages) {
    const parsed = AlertJob.safeParse(message.body);
    if (!parsed.success) {
      console.error(JSON.stringify({ msg: 'alert job ignored: malformed', queue: batch.queue, id: message.id }));
      message.ack();
      continue;
    }
    const job = parsed.data;
    if (batch.queue === ALERT_DEAD_LETTER_QUEUE) {
      const recorded = await giveUpDelivery(job, deps);
      console.error(JSON.stringify({ msg: 'alert delivery gave up after retries', deliveries: job.delivery_ids, recorded }));
      message.ack();
      continue;
    }
    try {
      const result = await deliverAlerts(job, deps, { attempt: message.attempts, resolve, callsBefore: mailCalls });
      mailCalls += result.calls;
      console.log(JSON.stringify({ msg: 'alert delivery processed', deliveries: job.delivery_ids, attempt: message.attempts, ...result }));
      if (result.retry) message.retry({ delaySeconds: result.retry.delaySeconds });
      else message.ack();
    } catch (error) {
      // D1 or a bug: the record is still pending, so a retry does what is left.
      console.error(JSON.stringify({ msg: 'alert delivery failed', deliveries: job.delivery_ids, error: errorText(error) }));
      message.retry({ delaySeconds: deliveryRetrySeconds(message.attempts) });
    }
  }
}

async function devRun(url: URL, deps: AlertDeps): Promise<Response> {
  const at = url.searchParams.get('at');
  const when = at ? new Date(at) : deps.now();
  if (Number.isNaN(when.getTime())) throw invalidParameter('at', '`at` must be an ISO 8601 time, e.g. 2026-11-23T08:00:00Z.');
  const result = await evaluateAlerts({ ...deps, now: () => when });
  return json({ at: when.toISOString(), ...result });
}

/** Mounted only with `DEV_ROUTES = "on"` (dev; src/app/routes.ts): it has no authentication. */
export const alertDevRoutes: Route<AlertDeps>[] = [{ path: DEV_ALERTS_PATH, answers: 'json', methods: { POST: (_, __, deps, url) => devRun(url, deps) } }];
