/**
 * One batch of a job Queue or of its dead-letter queue, message by message:
 * the loop the digest sends and the alert deliveries share.
 *
 * - A body that does not parse is logged and acknowledged: not ours, or from
 *   an older version, and retrying cannot fix it.
 * - On the dead-letter queue, `gaveUp` records why the job ended there, and
 *   the message is acknowledged.
 * - Otherwise `run` does the job. Its `retry` asks the Queue for another try
 *   after that delay; a throw (D1, a bug) is retried after
 *   `retryDelaySeconds(attempts)`: the job's own records say what is left.
 */
import type * as z from 'zod';
import { errorText } from './log';

export interface JobRun {
  retry?: { delaySeconds: number; reason: string };
}

export interface JobQueue<Job, Run extends JobRun> {
  /** Names the job in log lines: "digest group", "alert delivery". */
  name: string;
  schema: z.ZodType<Job>;
  deadLetterQueue: string;
  /** The job's fields for log lines (ids, never an address or a key). */
  describe(job: Job): Record<string, unknown>;
  gaveUp(job: Job): Promise<unknown>;
  run(job: Job, attempts: number): Promise<Run>;
  retryDelaySeconds(attempts: number): number;
}

export async function consumeJobs<Job, Run extends JobRun>(batch: MessageBatch<unknown>, queue: JobQueue<Job, Run>): Promise<void> {
  const log = (line: object) => JSON.stringify(line);
  for (const message of batch.messages) {
    const parsed = queue.schema.safeParse(message.body);
    if (!parsed.success) {
      console.error(log({ msg: `${queue.name} ignored: malformed`, queue: batch.queue, id: message.id }));
      message.ack();
      continue;
    }
    const job = parsed.data;
    if (batch.queue === queue.deadLetterQueue) {
      const recorded = await queue.gaveUp(job);
      console.error(log({ msg: `${queue.name} gave up after retries`, ...queue.describe(job), recorded }));
      message.ack();
      continue;
    }
    try {
      const result = await queue.run(job, message.attempts);
      console.log(
        log({
          msg: `${queue.name} processed`,
          ...queue.describe(job),
          attempt: message.attempts,
          ...result,
          ...(result.retry ? { retry: { ...result.retry, reason: errorText(result.retry.reason) } } : {}),
        }),
      );
      if (result.retry) message.retry({ delaySeconds: result.retry.delaySeconds });
      else message.ack();
    } catch (error) {
      console.error(log({ msg: `${queue.name} failed`, ...queue.describe(job), error: errorText(error) }));
      message.retry({ delaySeconds: queue.retryDelaySeconds(message.attempts) });
    }
  }
}
