/**
 * The digests' entry points, called from the Worker (src/index.ts):
 * `digestFetch` for the routes, `digestScheduled` for the hourly cron and
 * `digestQueue` for the send queue and its dead-letter queue.
 */
import { z } from 'zod';
import type { AppEnv } from '../config/env';
import { ApiError, errorResponse } from '../contract/errors';
import { giveUp, processDigestJob, retryDelaySeconds } from './consumer';
import { type DigestDeps, digestDeps, type DigestJob, withTestOverrides } from './deps';
import { planDigests } from './planner';
import { handleDigestRoutes, isDigestPath, unsubscribeById } from './routes';
import { verifyToken } from '../signing';

export { isDigestPath };
export type { DigestDeps, DigestJob };

/** The dead-letter queue's name (wrangler.toml); every other queue is the send queue. */
export const DEAD_LETTER_QUEUE = 'digest-sends-dlq';

const Job = z.object({
  v: z.literal(1),
  iso_week: z.string().regex(/^\d{4}-W\d{2}$/),
  week_monday: z.iso.date(),
  group_key: z.string().regex(/^\d+:\d+:[0-9a-f]{1,64}$/),
  brand_id: z.number().int().positive(),
  market_id: z.number().int().positive(),
}) satisfies z.ZodType<DigestJob>;

type Overrides = Partial<DigestDeps>;

/** A DigestConfigError (PUBLIC_URL, DIGEST_FROM) is logged by name for the operator, then thrown: the run fails, nothing is sent. */
function configured(make: () => DigestDeps): DigestDeps {
  try {
    return make();
  } catch (error) {
    console.error(JSON.stringify({ msg: 'digests misconfigured', error: String(error) }));
    throw error;
  }
}

export async function digestFetch(request: Request, env: AppEnv, ctx: ExecutionContext, overrides: Overrides = {}): Promise<Response> {
  let deps: DigestDeps;
  try {
    deps = digestDeps(env, ctx, withTestOverrides(overrides));
  } catch (error) {
    // DigestConfigError: named for the operator, a plain 500 for the caller.
    console.error(JSON.stringify({ msg: 'digests misconfigured', error: String(error) }));
    return errorResponse(new ApiError('internal_error', 'The digests are misconfigured.'));
  }
  return handleDigestRoutes(request, deps);
}

/**
 * The `mailto:` half of `List-Unsubscribe`: with Cloudflare Email Routing
 * sending `unsubscribe@<sending domain>` to this Worker, a mail whose subject
 * carries the signed token (`unsubscribe <token>`, as the header's mailto
 * prefills it) unsubscribes, like the one-click POST.
 */
export async function digestEmail(message: Pick<ForwardableEmailMessage, 'headers' | 'setReject'>, env: AppEnv): Promise<'unsubscribed' | 'rejected'> {
  const deps = configured(() => digestDeps(env, undefined, withTestOverrides({})));
  const token = /unsubscribe\s+(v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/i.exec(message.headers.get('subject') ?? '')?.[1];
  const result = await verifyToken(deps.signingSecret, token, 'unsubscribe', deps.now());
  if (!result.ok) {
    message.setReject('This address only takes unsubscribe requests sent from the link in a digest.');
    return 'rejected';
  }
  await unsubscribeById(deps, String(result.claims.s));
  return 'unsubscribed';
}

export async function digestScheduled(controller: ScheduledController, env: AppEnv, ctx: ExecutionContext, overrides: Overrides = {}) {
  const deps = configured(() => digestDeps(env, ctx, withTestOverrides({ now: () => new Date(controller.scheduledTime), ...overrides })));
  const result = await planDigests(deps);
  console.log(JSON.stringify({ msg: 'digests planned', cron: controller.cron, at: new Date(controller.scheduledTime).toISOString(), planned: result.planned, groups: result.groups, requeued: result.requeued, notices: result.notices }));
  return result;
}

export async function digestQueue(batch: MessageBatch<unknown>, env: AppEnv, ctx: ExecutionContext, overrides: Overrides = {}): Promise<void> {
  const deps = configured(() => digestDeps(env, ctx, withTestOverrides(overrides)));
  for (const message of batch.messages) {
    const parsed = Job.safeParse(message.body);
    if (!parsed.success) {
      // Not ours or from an older version: retrying cannot fix it.
      console.error(JSON.stringify({ msg: 'digest job ignored: malformed', queue: batch.queue, id: message.id }));
      message.ack();
      continue;
    }
    const job = parsed.data;
    if (batch.queue === DEAD_LETTER_QUEUE) {
      const n = await giveUp(job, deps);
      console.error(JSON.stringify({ msg: 'digest group gave up after retries', group: job.group_key, week: job.iso_week, records: n }));
      message.ack();
      continue;
    }
    try {
      const result = await processDigestJob(job, deps, message.attempts);
      console.log(JSON.stringify({ msg: 'digest group processed', group: job.group_key, week: job.iso_week, attempt: message.attempts, ...result }));
      if (result.retry) message.retry({ delaySeconds: result.retry.delaySeconds });
      else message.ack();
    } catch (error) {
      // D1 or a bug: the records say what was sent, so a retry only does what is left.
      console.error(JSON.stringify({ msg: 'digest group failed', group: job.group_key, week: job.iso_week, error: String(error) }));
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}
