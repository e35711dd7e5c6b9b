/**
 * The same figure in two answers (src/contract/same-figures.ts) as evidence:
 * a field one answer leaves in question (a lone share from 0 to 1, two counts
 * either way round) is read the way that gives, for every thing both answers
 * name, the figure the other answer settled. A topic's score of `0.528` in
 * `/topics/{id}` is a share of 52.8 where `/topics` settled 52.8 for that
 * topic from its many values. And the service's own precision: where it
 * writes its percentages in points to one decimal, a lone `0.267` is a share.
 */
import type * as z from 'zod';
import type { OperationId } from '../contract/operations';
import { figurePairs, SAME_FIGURES, SAME_WITHIN } from '../contract/same-figures';
import type { DiscoveryReport, ToConfirm } from './report';
import { CONFIRMABLE, EVIDENCE, settleQuestions } from './rules';
import { conformBody } from '../contract/conform';
import { AMBIGUOUS } from './shapes';
import { atOrUnder, parentOf, valuesAtPath } from '../contract/paths';
import type { Json, Walk } from './walk';

/** A figure another answer settled, for one field of this one: by thing (`key`'s value), on the contract's scale. */
export interface FigureEvidence {
  path: string;
  key?: string;
  expected: ReadonlyMap<string, unknown>;
}

/** Whether `path` of the operation's answer is placed surely and under no open question (its own, or its object's). */
export function settledIn(entry: DiscoveryReport['operations'][string] | undefined, path: string): boolean {
  if (entry?.status !== 200 || !('fields' in entry) || !entry.fields[path]) return false;
  return !entry.to_confirm.some((item) => item.value === undefined && (item.path === '' || atOrUnder(path, item.path)));
}

/**
 * The figures the other answers settled for `id`'s fields: `placed` holds each answer on the contract's names as
 * the sure map reads it, and `settled` says which of its fields to trust (a key too, so things are matched right).
 */
export function figuresFor(id: OperationId, placed: ReadonlyMap<OperationId, unknown>, settled: (operation: OperationId, path: string) => boolean): FigureEvidence[] {
  const found: FigureEvidence[] = [];
  for (const relation of SAME_FIGURES)
    for (const [mine, theirs] of [
      [0, 1],
      [1, 0],
    ] as const) {
      const [side, other] = [relation.sides[mine], relation.sides[theirs]];
      // A count of items (`tally`) settles the field it is compared with, never the other way round.
      if (side.operation !== id || side.tally || !placed.has(other.operation) || (other.key !== undefined && !settled(other.operation, other.key))) continue;
      for (const pair of relation.fields) {
        if (!other.tally && !settled(other.operation, pair[theirs])) continue;
        const expected = new Map(figurePairs(placed.get(other.operation), pair[theirs], other.key, other.tally));
        if (expected.size > 0) found.push({ path: pair[mine], ...(side.key !== undefined ? { key: side.key } : {}), expected });
      }
    }
  return found;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * How `read` stands to the figures `evidence` expects: `differs` where a thing both name has another figure,
 * `agrees` where every one compared is the same, `none` where they name nothing in common (a rival the other answer
 * read is not among this one's top rivals): no evidence either way.
 */
function compared(read: unknown, evidence: FigureEvidence): 'agrees' | 'differs' | 'none' {
  let same = 0;
  for (const [key, value] of figurePairs(read, evidence.path, evidence.key)) {
    if (!evidence.expected.has(key)) continue;
    const expected = evidence.expected.get(key);
    if ((value === null || value === undefined) && (expected === null || expected === undefined)) continue;
    if (!isNum(value) || !isNum(expected) || Math.abs(value - expected) > SAME_WITHIN) return 'differs';
    same++;
  }
  return same > 0 ? 'agrees' : 'none';
}
const agrees = (read: unknown, evidence: FigureEvidence) => compared(read, evidence) === 'agrees';

/** Questions of `walk` the figures settle: the one candidate whose reading gives the other answers' figures. */
export function settleByFigures(schema: z.ZodType, body: Json, walk: Walk, figures: readonly FigureEvidence[]): void {
  if (figures.length === 0) return;
  const about = (item: ToConfirm) => figures.filter((f) => f.path === item.path);
  settleQuestions(
    schema,
    body,
    walk,
    (item, read) => about(item).every((f) => agrees(read, f)),
    (item) => about(item).length > 0,
  );
}

/** Decimals a number is written with (to 7). */
export function decimalsOf(x: number): number {
  for (let k = 0; k < 7; k++) if (Math.abs(x * 10 ** k - Math.round(x * 10 ** k)) < 1e-6) return k;
  return 7;
}

/** Percentages read as points, settled, before the service's precision is evidence: enough to have seen its habit. */
const PRECISION_EVIDENCE = 20;

/**
 * The decimals the service writes its percentages with, where it writes them in points: the most of any value of at
 * least one point in the fields placed surely without a conversion (`55.9`: 1). Undefined before enough are seen.
 */
export function pointsPrecision(
  entries: ReadonlyMap<OperationId, DiscoveryReport['operations'][string]>,
  placed: ReadonlyMap<OperationId, unknown>,
  isPercent: (id: OperationId, path: string) => boolean,
): number | undefined {
  const decimals: number[] = [];
  for (const [id, entry] of entries) {
    if (entry?.status !== 200 || !('fields' in entry)) continue;
    for (const [path, placement] of Object.entries(entry.fields))
      if (!placement.convert && settledIn(entry, path) && isPercent(id, path))
        for (const v of valuesAtPath(placed.get(id), path)) if (typeof v === 'number' && Math.abs(v) >= 1) decimals.push(decimalsOf(v));
  }
  return decimals.length >= PRECISION_EVIDENCE ? Math.max(...decimals) : undefined;
}

/**
 * A unit question the service's precision settles: read as points, a `0.267` has more decimals than the service
 * writes its percentages with (`55.9`), read as a share it has as many (26.7); the one reading that keeps the
 * service's precision is taken. A `0.3` keeps it either way and stays a question.
 */
export function settleByPrecision(schema: z.ZodType, body: Json, walk: Walk, precision: number | undefined): void {
  if (precision === undefined) return;
  settleQuestions(schema, body, walk, (item, read) => {
    // A 0 (no open task in a layer) keeps any precision: nothing to judge by is no evidence against a reading.
    const values = valuesAtPath(read, item.path).filter((v): v is number => typeof v === 'number');
    return values.length > 0 && values.every((v) => decimalsOf(v) <= precision);
  });
}

/**
 * A field placed by a guess (a form, an abbreviation, the service's word elsewhere) that gives other figures than
 * another answer settled for it is no placement: a guess never stands against the evidence. Of its object's other
 * fields, the one alone that gives those figures takes its place (and the field that held it is asked again, since
 * it was placed by what was left); none or several, the field is asked, those that give them its candidates.
 */
export function overturnByFigures(schema: z.ZodType, body: Json, walk: Walk, figures: readonly FigureEvidence[]): void {
  for (const evidence of figures) {
    const placed = walk.fields[evidence.path];
    if (!placed || !CONFIRMABLE.has(placed.by) || placed.from === '.' || placed.from.includes('.')) continue;
    if (compared(conformBody(schema, body, walk.guess), evidence) !== 'differs') continue;
    const parent = parentOf(evidence.path);
    const siblings = Object.entries(walk.fields).filter(
      ([path, p]) => path !== evidence.path && parentOf(path) === parent && !path.slice(parent.length + (parent ? 1 : 0)).includes('.') && p.from !== '.',
    );
    const unused = walk.unused.filter((at) => parentOf(at) === parent).map((at) => at.slice(parent ? parent.length + 1 : 0));
    const keys = [...new Set([...siblings.map(([, p]) => p.from), ...unused])];
    const giving = keys.filter((key) => {
      const map = { ...walk.guess, fields: { ...walk.guess.fields, [evidence.path]: key }, convert: { ...walk.guess.convert } };
      return agrees(conformBody(schema, body, map), evidence);
    });
    const name = evidence.path.split('.').at(-1)!;
    const demote = (path: string, from: string, reason: string, candidates: string[]) => {
      delete walk.fields[path];
      delete walk.sure.fields[path];
      delete walk.sure.convert[path];
      walk.toConfirm.push({ path, reason, candidates: candidates.map((c) => ({ from: c, confidence: AMBIGUOUS, by: 'type' as const })) });
      if (candidates[0] !== undefined) walk.guess.fields[path] = candidates[0];
      else walk.guess.fields[path] = from;
    };
    if (giving.length === 1) {
      const [from] = giving as [string];
      const holder = siblings.find(([, p]) => p.from === from);
      if (holder) demote(holder[0], from, `\`${from}\` gives the figures another answer has for \`${name}\`, so it is not this field; \`${placed.from}\` is left`, [placed.from]);
      walk.mapField(evidence.path, name, from, placed.convert, true);
      walk.fields[evidence.path] = { from, confidence: EVIDENCE, by: 'evidence', ...(placed.convert ? { convert: placed.convert } : {}) };
    } else demote(evidence.path, placed.from, `read from \`${placed.from}\` it gives other figures than another answer has for it`, giving.length > 0 ? giving : [placed.from]);
  }
}
