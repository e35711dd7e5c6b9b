/**
 * The demo data is relative to the day it is generated for: the runs of "n
 * days ago" are the same whatever today is, only their dates move. So the
 * tests, which seed it for the day they run, read the same winners, losers
 * and scores every day, and CI does not pass or fail by the day a change
 * lands (issue 35).
 */
import { describe, expect, it } from 'vitest';
import { addDays } from '../../contract/window';
import { DEMO_ACCOUNTS, DEMO_MARKETS } from './catalog';
import { buildMarket, DEMO_PROFILE, runsOfDay } from './generate';

const brand = DEMO_ACCOUNTS[0]!.brands[0]!;
const market = DEMO_MARKETS[0]!;

/** The runs of the day `daysAgo` before `today`, without their dates: what a report reads of them. */
function runsBefore(today: string, daysAgo: number) {
  const world = buildMarket(brand, market, 0, DEMO_PROFILE, today);
  const dayIndex = DEMO_PROFILE.days - 1 - daysAgo;
  const { runs, rivals } = runsOfDay(world, addDays(today, -daysAgo), dayIndex, DEMO_PROFILE, 1);
  return {
    runs: runs.map((r) => ({ question: r.question_id, engine: r.engine, state: r.state, position: r.position, time: r.ran_at.slice(10), answer: r.answer })),
    rivals: rivals.map((r) => ({ run: r.run_id, rival: r.rival_id, position: r.position })),
  };
}

describe('the demo data', () => {
  it('is the same, relative to today, whatever today is: across a week, a month, a year', () => {
    for (const daysAgo of [0, 1, 6, 7, 13, 45, DEMO_PROFILE.days - 1]) {
      const now = runsBefore('2026-11-26', daysAgo);
      expect(now.runs.length).toBeGreaterThan(0);
      for (const other of ['2026-11-27', '2026-12-31', '2027-01-04', '2027-03-01', '2028-02-29']) expect(runsBefore(other, daysAgo), `${daysAgo} days before ${other}`).toEqual(now);
    }
  });

  it('differs from one day to the next: each day has runs of its own', () => {
    expect(runsBefore('2026-11-26', 0)).not.toEqual(runsBefore('2026-11-26', 1));
  });
});
