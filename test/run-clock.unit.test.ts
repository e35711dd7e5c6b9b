/**
 * The run's clock (test/run-clock.ts): whatever instant a run starts at, or
 * is asked to run as, it has a whole margin before midnight UTC, so the demo
 * data and every window agree on one day for the whole run; the clock is only
 * ever moved ahead, and by no more than the margin. Instants drawn by a seeded
 * generator over years, with times pressed against midnight.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RUN_MARGIN_MS, runStart } from './run-start';

const DAY_MS = 86_400_000;
const toMidnight = (t: number) => DAY_MS - (t % DAY_MS);
/** Instants from 2026 to 2030, a third of them in the last minutes of a day. */
const instant = fc.oneof(
  fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2030, 11, 31) }),
  fc.tuple(fc.integer({ min: 20_454, max: 21_914 }), fc.integer({ min: 1, max: 2 * RUN_MARGIN_MS })).map(([day, before]) => (day + 1) * DAY_MS - before),
);

describe("the run's clock", () => {
  it('starts with a whole margin before midnight, moved ahead by at most the margin (fast-check, seeded)', () => {
    fc.assert(
      fc.property(instant, instant, fc.boolean(), (now, askedAt, asked) => {
        const from = asked ? askedAt : now;
        const start = runStart(now, asked ? new Date(askedAt).toISOString() : undefined);
        expect(toMidnight(start)).toBeGreaterThanOrEqual(RUN_MARGIN_MS);
        expect(start - from).toBeGreaterThanOrEqual(0);
        expect(start - from).toBeLessThanOrEqual(RUN_MARGIN_MS + 1000);
        if (toMidnight(from) >= RUN_MARGIN_MS) expect(start).toBe(from);
      }),
      { seed: 4621, numRuns: 500 },
    );
  });

  it('is installed in the unit project with the offset the config fixed for the run (RUN_OFFSET)', () => {
    expect((globalThis as { runClock?: number }).runClock).toBe(Number(process.env.RUN_OFFSET));
  });

  it("runs the issue's instants as the next day's first second, and a day as that day at the real time of day", () => {
    const noon = Date.UTC(2026, 10, 28, 12, 0, 0);
    expect(new Date(runStart(noon, '2027-02-10T23:59:58Z')).toISOString()).toBe('2027-02-11T00:00:01.000Z');
    expect(new Date(runStart(noon, '2026-12-31T23:59:30Z')).toISOString()).toBe('2027-01-01T00:00:01.000Z');
    expect(new Date(runStart(noon, '2026-12-28')).toISOString()).toBe('2026-12-28T12:00:00.000Z');
    expect(new Date(runStart(Date.UTC(2026, 10, 28, 23, 50), '2026-12-28')).toISOString()).toBe('2026-12-29T00:00:01.000Z');
    expect(() => runStart(noon, 'next week')).toThrow('TEST_DAY: next week is neither a day (YYYY-MM-DD) nor an instant');
  });
});
