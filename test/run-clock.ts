/**
 * The run's clock, the one time seam of a test run: a setup file every test
 * config runs first (`SETUP_FILES` in vitest.config.ts). From its first line
 * `Date` is moved by an offset fixed once per run and keeps moving with the
 * real clock, so the demo data is generated for the run's day and every clock
 * the tests and the Worker read follows it (`vi.useFakeTimers()` fakes, and
 * `vi.useRealTimers()` restores, the `Date` it finds when it installs: this
 * one).
 *
 * - The run's start is now, or `TEST_DAY` (`npm run test:days`): a day
 *   (`2026-12-28`: whole days, the time of day stays the real one) or an
 *   instant (`2026-12-28T23:59:30Z`).
 * - A run never crosses midnight UTC: one that would start within
 *   `RUN_MARGIN_MS` of it starts as the next day's first second instead. The
 *   demo data and every window then agree on one day for the whole run, on
 *   whatever hour CI lands.
 *
 * workerd's own clock (KV and Cache API expiry, alarms) is not moved, so only
 * offsets forward are the same as a real run: the clock is only ever moved
 * ahead.
 */
import { env } from 'cloudflare:test';

const DAY_MS = 86_400_000;
/** Longer than any run of a suite here (about 2.5 minutes, twice that on a loaded machine). */
export const RUN_MARGIN_MS = 15 * 60_000;

/** Where the run's clock starts, for a run started at `now` and asked to run as `asked` (`TEST_DAY`). */
export function runStart(now: number, asked?: string): number {
  let start = asked === undefined ? now : /^\d{4}-\d{2}-\d{2}$/.test(asked) ? Date.parse(asked) + (now % DAY_MS) : Date.parse(asked);
  if (Number.isNaN(start)) throw new Error(`TEST_DAY: ${asked} is neither a day (YYYY-MM-DD) nor an instant`);
  const toMidnight = DAY_MS - (start % DAY_MS);
  if (toMidnight < RUN_MARGIN_MS) start += toMidnight + 1000;
  return start;
}

const global = globalThis as unknown as { Date: DateConstructor; runClock?: number };
// Test files share one isolate and each runs the setup files: the first one sets the clock.
if (global.runClock === undefined) {
  const RealDate = Date;
  const now = RealDate.now();
  const offset = runStart(now, env.TEST_DAY) - now;
  class RunDate extends RealDate {
    constructor(...args: ConstructorParameters<DateConstructor> | []) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...(args as ConstructorParameters<DateConstructor>));
    }
    static override now(): number {
      return RealDate.now() + offset;
    }
  }
  global.Date = RunDate as DateConstructor;
  global.runClock = offset;
}
