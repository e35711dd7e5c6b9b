/**
 * The assignment problem: rows and columns paired one to one so that the
 * pairs' total weight is the largest (the Hungarian method, Kuhn 1955, in
 * the O(n²·m) form with potentials of Jonker and Volgenant). Discovery pairs
 * a contract object's fields with an upstream object's fields with it, all
 * siblings at once, so one field's placement constrains the others'.
 *
 * ```ts
 * bestAssignment([[0.9, 0.8], [0.8, 0.1]]); // [1, 0]: 0.8 + 0.8 beats 0.9 + 0.1
 * ```
 */

/**
 * For each row the column it is paired with, or undefined: each column used at most once, the total of the chosen
 * weights the largest there is. Weights are finite and at least 0; a pair of weight 0 is no pair (its row is
 * undefined), so a row that fits no column stays free.
 */
export function bestAssignment(weights: readonly (readonly number[])[]): (number | undefined)[] {
  const rows = weights.length;
  const columns = rows === 0 ? 0 : Math.max(...weights.map((row) => row.length));
  if (rows === 0 || columns === 0) return new Array(rows).fill(undefined);
  const weight = (r: number, c: number) => weights[r]![c] ?? 0;
  // The method wants no more rows than columns: with more, it pairs the columns with the rows instead.
  if (rows > columns) {
    const byColumn = bestAssignment(Array.from({ length: columns }, (_, c) => Array.from({ length: rows }, (_, r) => weight(r, c))));
    const out: (number | undefined)[] = new Array(rows).fill(undefined);
    byColumn.forEach((r, c) => {
      if (r !== undefined) out[r] = c;
    });
    return out;
  }
  // Minimising the cost -weight over rows 1..n and columns 1..m (index 0 is the method's free start).
  const u = new Array<number>(rows + 1).fill(0);
  const v = new Array<number>(columns + 1).fill(0);
  const rowOf = new Array<number>(columns + 1).fill(0);
  const way = new Array<number>(columns + 1).fill(0);
  for (let r = 1; r <= rows; r++) {
    rowOf[0] = r;
    let c0 = 0;
    const least = new Array<number>(columns + 1).fill(Number.POSITIVE_INFINITY);
    const used = new Array<boolean>(columns + 1).fill(false);
    do {
      used[c0] = true;
      const r0 = rowOf[c0]!;
      let delta = Number.POSITIVE_INFINITY;
      let c1 = 0;
      for (let c = 1; c <= columns; c++) {
        if (used[c]) continue;
        const reduced = -weight(r0 - 1, c - 1) - u[r0]! - v[c]!;
        if (reduced < least[c]!) {
          least[c] = reduced;
          way[c] = c0;
        }
        if (least[c]! < delta) {
          delta = least[c]!;
          c1 = c;
        }
      }
      for (let c = 0; c <= columns; c++) {
        if (used[c]) {
          u[rowOf[c]!]! += delta;
          v[c]! -= delta;
        } else least[c]! -= delta;
      }
      c0 = c1;
    } while (rowOf[c0] !== 0);
    do {
      const c1 = way[c0]!;
      rowOf[c0] = rowOf[c1]!;
      c0 = c1;
    } while (c0 !== 0);
  }
  const out: (number | undefined)[] = new Array(rows).fill(undefined);
  for (let c = 1; c <= columns; c++) {
    const r = rowOf[c]!;
    if (r > 0 && weight(r - 1, c - 1) > 0) out[r - 1] = c - 1;
  }
  return out;
}
