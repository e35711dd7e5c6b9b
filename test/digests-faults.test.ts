/**
 * Digest faults (issue 7), beyond test/digests-run.test.ts: Resend answering
 * 500, a consumer that is retried after a crash, and a cron that fires
 * twice around a failure. Nothing is lost, nothing is sent twice.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { clearDigests, deliver, FakeQueue, FakeResend, runCron, seedSubscriptions, sendRecords, testEnv } from './digests-helpers';

const MONDAY_0800_UTC = '2026-11-23T08:00:00Z';

let resend: FakeResend;
let queue: FakeQueue;
let digestEnv: Env;

beforeEach(async () => {
  await clearDigests();
  resend = new FakeResend().install();
  queue = new FakeQueue();
  digestEnv = testEnv(queue);
});
afterEach(() => vi.unstubAllGlobals());

it('retries a group after Resend answers 500, and the retry delivers each digest exactly once', async () => {
  await seedSubscriptions([{ email: 'a@example.com' }, { email: 'b@example.com' }]);
  await runCron(MONDAY_0800_UTC, digestEnv);
  resend.failNext(500);
  const first = await deliver(queue.sent, digestEnv);
  expect(first.retryMessages).toHaveLength(1);
  expect(resend.delivered).toHaveLength(0);
  // The Queue redelivers; the cron fires again meanwhile and plans nothing new.
  await runCron(MONDAY_0800_UTC, digestEnv);
  await deliver(queue.sent, digestEnv, { attempts: 2 });
  expect(resend.delivered.map((e) => e.to).flat().sort()).toEqual(['a@example.com', 'b@example.com']);
  expect((await sendRecords()).map((r) => r.status)).toEqual(['sent', 'sent']);
  // A third delivery of the same messages (a consumer that died after sending) sends nothing more.
  await deliver(queue.sent, digestEnv, { attempts: 3 });
  expect(resend.delivered).toHaveLength(2);
});
