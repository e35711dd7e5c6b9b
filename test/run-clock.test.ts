/**
 * The Worker's tests read the run's clock the config fixed (test/run-clock.ts reads `RUN_OFFSET` from
 * `process.env`, which workerd fills from the string bindings): the same offset as the binding, not an
 * isolate's own.
 */
import { env } from 'cloudflare:test';
import { expect, it } from 'vitest';

it('moves Date by the offset the config fixed for the run', () => {
  expect((globalThis as { runClock?: number }).runClock).toBe(Number(env.RUN_OFFSET));
});
