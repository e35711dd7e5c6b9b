/**
 * The weekly digests: the hourly planner (planner.ts), the Queue consumer
 * (consumer.ts) and its dead-letter queue, and the dev route that plans as if
 * the cron fired at a given time. Called from the Worker (src/app/worker.ts).
 */
import { asIfAt } from '../contract/params';
import { json } from '../lib/http';
import { consumeJobs } from '../lib/queue';
import type { Route } from '../lib/router';
import { giveUp, processDigestJob, retryDelaySeconds } from './consumer';
import { type DigestDeps, DigestJob } from './deps';
import { planDigests } from './planner';

export type { DigestDeps };
export { DigestJob };
export { type JobResult, processDigestJob } from './consumer';
export { planDigests, type PlanResult } from './planner';

/** The dead-letter queue's name (wrangler.toml); every other queue is the send queue. */
export const DEAD_LETTER_QUEUE = 'digest-sends-dlq';

/** Dev only (like the outbox): runs the planner as if the cron fired at `?at=` (ISO time), since `/__scheduled` always uses now. */
export const DEV_PLAN_PATH = '/dev/digests/plan';

export async function runDigestPlanner(deps: DigestDeps, cron: string) {
  const result = await planDigests(deps);
  console.log(
    JSON.stringify({
      msg: 'digests planned',
      cron,
      at: deps.now().toISOString(),
      planned: result.planned,
      replanned: result.replanned,
      groups: result.groups,
      requeued: result.requeued,
      notices: result.notices,
    }),
  );
  return result;
}

/** One batch of the send queue or of its dead-letter queue (src/lib/queue.ts). */
export async function consumeDigestBatch(batch: MessageBatch<unknown>, deps: DigestDeps): Promise<void> {
  await consumeJobs(batch, {
    name: 'digest group',
    schema: DigestJob,
    deadLetterQueue: DEAD_LETTER_QUEUE,
    describe: (job) => ({ group: job.group_key, week: job.iso_week }),
    gaveUp: (job) => giveUp(job, deps),
    run: (job, attempts) => processDigestJob(job, deps, attempts),
    retryDelaySeconds,
  });
}

async function devPlan(url: URL, deps: DigestDeps): Promise<Response> {
  const when = asIfAt(url, deps.now);
  const result = await planDigests({ ...deps, now: () => when });
  return json({ at: when.toISOString(), planned: result.planned, groups: result.groups });
}

/** Mounted only with `DEV_ROUTES = "on"` (dev; src/app/routes.ts): it has no authentication. */
export const digestDevRoutes: Route<DigestDeps>[] = [{ path: DEV_PLAN_PATH, answers: 'json', methods: { POST: (_, __, deps, url) => devPlan(url, deps) } }];
