/**
 * Change alerts (DESIGN section 10): the daily evaluation run by the hourly
 * cron (evaluate.ts), the Queue consumer of deliveries and its dead-letter
 * queue (deliver.ts), and the dev route that evaluates as if the cron fired
 * at a given time. Called from the Worker (src/app/worker.ts).
 */
import { asIfAt } from '../contract/params';
import { json } from '../lib/http';
import { consumeJobs } from '../lib/queue';
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

/** One batch of the delivery queue or of its dead-letter queue (src/lib/queue.ts). */
export async function consumeAlertBatch(batch: MessageBatch<unknown>, deps: AlertDeps): Promise<void> {
  // Across the batch: one resolution per host, and the mail calls made so far (Resend's pacing).
  const resolve = memoizedResolve(deps.resolveHost);
  let mailCalls = 0;
  await consumeJobs(batch, {
    name: 'alert delivery',
    schema: AlertJob,
    deadLetterQueue: ALERT_DEAD_LETTER_QUEUE,
    describe: (job) => ({ deliveries: job.delivery_ids }),
    gaveUp: (job) => giveUpDelivery(job, deps),
    async run(job, attempts) {
      const result = await deliverAlerts(job, deps, { attempt: attempts, resolve, callsBefore: mailCalls });
      mailCalls += result.calls;
      return result;
    },
    retryDelaySeconds: deliveryRetrySeconds,
  });
}

async function devRun(url: URL, deps: AlertDeps): Promise<Response> {
  const when = asIfAt(url, deps.now);
  const result = await evaluateAlerts({ ...deps, now: () => when });
  return json({ at: when.toISOString(), ...result });
}

/** Mounted only with `DEV_ROUTES = "on"` (dev; src/app/routes.ts): it has no authentication. */
export const alertDevRoutes: Route<AlertDeps>[] = [{ path: DEV_ALERTS_PATH, answers: 'json', methods: { POST: (_, __, deps, url) => devRun(url, deps) } }];
