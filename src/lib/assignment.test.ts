/** The assignment solver (src/lib/assignment.ts) against every assignment tried, on seeded random weights. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bestAssignment } from './assignment';

/** The largest total over every one-to-one pairing, tried by brute force (rows × columns small). */
function bruteBest(weights: number[][]): number {
  const columns = weights[0]?.length ?? 0;
  const go = (r: number, used: Set<number>): number => {
    if (r === weights.length) return 0;
    let best = go(r + 1, used);
    for (let c = 0; c < columns; c++) {
      if (used.has(c) || weights[r]![c]! <= 0) continue;
      used.add(c);
      best = Math.max(best, weights[r]![c]! + go(r + 1, used));
      used.delete(c);
    }
    return best;
  };
  return go(0, new Set());
}

describe('bestAssignment', () => {
  it('takes the pairing of the largest total, not the largest pair first', () => {
    expect(
      bestAssignment([
        [0.9, 0.8],
        [0.8, 0.1],
      ]),
    ).toEqual([1, 0]);
  });

  it('leaves a row free where it fits no column, and handles more rows than columns', () => {
    expect(
      bestAssignment([
        [0, 0],
        [0.5, 0],
      ]),
    ).toEqual([undefined, 0]);
    expect(bestAssignment([[0.2], [0.7], [0.4]])).toEqual([undefined, 0, undefined]);
    expect(bestAssignment([])).toEqual([]);
    expect(bestAssignment([[], []])).toEqual([undefined, undefined]);
  });

  it('finds the best total on random weights, every column used at most once (fast-check, seeded)', () => {
    const matrix = fc
      .integer({ min: 1, max: 5 })
      .chain((rows) =>
        fc
          .integer({ min: 1, max: 5 })
          .chain((columns) =>
            fc.array(fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true })), { minLength: columns, maxLength: columns }), { minLength: rows, maxLength: rows }),
          ),
      );
    fc.assert(
      fc.property(matrix, (weights) => {
        const chosen = bestAssignment(weights);
        const columns = chosen.filter((c) => c !== undefined);
        expect(new Set(columns).size).toBe(columns.length);
        const total = chosen.reduce<number>((sum, c, r) => sum + (c === undefined ? 0 : weights[r]![c]!), 0);
        expect(total).toBeCloseTo(bruteBest(weights), 9);
        chosen.forEach((c, r) => c !== undefined && expect(weights[r]![c]!).toBeGreaterThan(0));
      }),
      { seed: 57, numRuns: 300 },
    );
  });
});
