/**
 * The suite as if it ran on another day (`npm run test:days`, scripts/test-days.mjs): a setup file that
 * vitest.config.ts runs before test/setup.ts when it is given `TEST_DAY`. From its first line, `Date` is moved by a
 * fixed offset and keeps moving with the real clock, so the demo data is generated for that day and every clock the
 * tests and the Worker read follows it (`vi.useFakeTimers()` fakes, and `vi.useRealTimers()` restores, the `Date`
 * it finds when it installs: this one). The demo data, the weeks of the reports and which rival wins what all
 * depend on the day a run falls on.
 *
 * `TEST_DAY` is a day (`2026-12-28`: the offset is whole days, the time of day stays the real one) or an instant
 * (`2026-12-28T23:59:30Z`). workerd's own clock (KV and Cache API expiry) is not moved, so only days from today on
 * are the same as a run on that day.
 */
import { env } from 'cloudflare:test';

const global = globalThis as unknown as { Date: DateConstructor; shiftedDay?: string };
// Test files share one isolate and each runs the setup files: the first one moves the clock.
if (global.shiftedDay === undefined) {
  const RealDate = Date;
  const target = env.TEST_DAY!;
  const now = RealDate.now();
  const offset = /^\d{4}-\d{2}-\d{2}$/.test(target) ? RealDate.parse(target) - (now - (now % 86_400_000)) : RealDate.parse(target) - now;
  if (Number.isNaN(offset)) throw new Error(`TEST_DAY: ${target} is neither a day (YYYY-MM-DD) nor an instant`);
  class ShiftedDate extends RealDate {
    constructor(...args: ConstructorParameters<DateConstructor> | []) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...(args as ConstructorParameters<DateConstructor>));
    }
    static override now(): number {
      return RealDate.now() + offset;
    }
  }
  global.Date = ShiftedDate as DateConstructor;
  global.shiftedDay = target;
}
