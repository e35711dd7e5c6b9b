// The origin's metrics: dominant state with tie-breaks (and its SQL rendering agreeing with it, property-tested in D1), percentages and null, won/lost, rank, classification.
import { env } from 'cloudflare:test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STATES } from '../src/contract/enums';
import { classifyDomain, delta, dominantState, dominantStateSql, meanPosition, outcome, percent, rankAmong } from '../src/origin/metrics';

describe('dominantState', () => {
  it('is the most frequent state, with its share of runs', () => {
    expect(dominantState({ absent: 3, mentioned: 1 })).toEqual({ state: 'absent', rate: 75 });
  });
  it('breaks ties toward the better state', () => {
    expect(dominantState({ no_answer: 2, open: 2 })).toEqual({ state: 'open', rate: 50 });
    expect(dominantState({ absent: 1, mentioned: 1, recommended: 1 })).toEqual({ state: 'recommended', rate: 33.3 });
  });
  it('is null without runs', () => {
    expect(dominantState({})).toBeNull();
  });
  it('is the same in SQL (dominantStateSql) as in code, ties and empty cells included', async () => {
    const sql = `SELECT ${dominantStateSql()} AS state FROM (SELECT ${STATES.map((s) => `? AS ${s}`).join(', ')})`;
    // Small counts make ties frequent.
    const counts = fc.tuple(...STATES.map(() => fc.integer({ min: 0, max: 3 })));
    await fc.assert(
      fc.asyncProperty(counts, async (values) => {
        const row = await env.DB.prepare(sql)
          .bind(...values)
          .first<{ state: string | null }>();
        const expected = dominantState(Object.fromEntries(STATES.map((s, i) => [s, values[i]])))?.state ?? null;
        expect(row!.state).toBe(expected);
      }),
      { seed: 20261123, numRuns: 300 },
    );
  });
});

describe('percentages', () => {
  it('are one decimal, and null (not 0) when nothing was measured', () => {
    expect(percent(1, 3)).toBe(33.3);
    expect(percent(0, 4)).toBe(0);
    expect(percent(0, 0)).toBeNull();
    expect(delta(50, 40)).toBe(10);
    expect(delta(50, null)).toBeNull();
  });
});

describe('outcome', () => {
  it('compares engines naming the brand now and before', () => {
    expect(outcome(1, 2)).toBe('won');
    expect(outcome(2, 1)).toBe('lost');
    expect(outcome(2, 2)).toBe('held');
  });
});

describe('rank and position', () => {
  it('counts only rivals named strictly more often', () => {
    expect(rankAmong(50, [60, 50, 10])).toBe(2);
  });
  it('averages positions where named', () => {
    expect(meanPosition(5, 2)).toBe(2.5);
    expect(meanPosition(0, 0)).toBeNull();
  });
});

describe('classifyDomain', () => {
  it('knows own, competitor and third-party domains, subdomains included', () => {
    expect(classifyDomain('help.brightdesk.com', ['brightdesk.com'], ['helpwave.io'])).toBe('own');
    expect(classifyDomain('helpwave.io', ['brightdesk.com'], ['helpwave.io'])).toBe('competitor');
    expect(classifyDomain('notbrightdesk.com', ['brightdesk.com'], ['helpwave.io'])).toBe('third_party');
  });
});
