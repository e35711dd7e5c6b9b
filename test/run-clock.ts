/**
 * The run's clock, the one time seam of a test run: a setup file every test
 * config runs first (`SETUP_FILES` in vitest.config.ts). From its first line
 * `Date` is moved by an offset fixed once per run and keeps moving with the
 * real clock, so the demo data is generated for the run's day and every clock
 * the tests and the Worker read follows it (`vi.useFakeTimers()` fakes, and
 * `vi.useRealTimers()` restores, the `Date` it finds when it installs: this
 * one).
 *
 * - The run's start is now, or `TEST_DAY` (`npm test -- days`): a day
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
 *
 * Both projects of vitest.config.ts run it: the offset (`RUN_OFFSET`) and
 * `TEST_DAY` are read from `process.env`, which workerd fills from the
 * Worker's string bindings (`nodejs_compat`) and Node from the unit project's
 * `env`.
 */
import { runStart } from './run-start';

const vars = (globalThis as unknown as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};

const global = globalThis as unknown as { Date: DateConstructor; runClock?: number };
// The files of one worker share one isolate and each runs the setup files: the first one sets the clock.
if (global.runClock === undefined) {
  const RealDate = Date;
  const now = RealDate.now();
  // The offset the config fixed once for the whole run (every worker of the suite alike, never negative); else this isolate's own.
  const offset = vars.RUN_OFFSET ? Number(vars.RUN_OFFSET) : runStart(now, vars.TEST_DAY) - now;
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
