/**
 * Where a test run's clock starts (test/run-clock.ts): a pure function, so the
 * config computes it once for the whole run in Node (`RUN_OFFSET`, the run's
 * start less the real time, bound for every worker of the suite) and the
 * setup file falls back to it alone.
 */
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
