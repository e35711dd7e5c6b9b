/**
 * Shape alignment: how well an upstream value fits a contract schema as a
 * whole, whatever its fields are called. Each contract field is scored
 * against each upstream field by what its values are (a date, an engine
 * spelled as ours, an address, a share, a count, an object whose own fields
 * align, a list of such), and the siblings of an object are paired all at
 * once (`bestAssignment`), so one field's placement constrains the others'.
 * A score is from 0 (nothing fits) to 1 (every field fits by a form that
 * says what it is).
 *
 * ```ts
 * alignObject(shape, [answer.payload]).score; // 0.8: the body
 * alignObject(shape, [answer.meta]).score;    // 0.1: a request id and a version
 * ```
 *
 * Names play no part here: a service named in tokens or another language
 * aligns as well as one named like the contract. Only their form does: the
 * keys of an object written flat share its name as their first words.
 */
import type * as z from 'zod';
import { isObject } from '../contract/conform';
import { bestAssignment } from '../lib/assignment';
import { DAY_MS } from '../lib/time';
import { wordsOf } from '../contract/enum-spelling';
import { timeOf } from '../contract/upstream-map';
import { spellsAsOurs } from './by-shape';
import { columnarOf, type Expected, expectedOf, fitOf, flatFields, formatOf, formOf, isKeyedList } from './shapes';
import { keyedItems, present } from './walk';

type Json = Record<string, unknown>;

/**
 * How much a fitting value says it is the field, by its form: a time or one of our enumeration's values is the
 * field's own kind of value; a count or a word fits many fields.
 */
const SAYS = {
  /** A date, a date-time or an epoch where the contract has one: a day at midnight, an instant at its hour. */
  time: 1,
  /** A day where the contract has an instant, or an instant where it has a day: it converts, but is likely another field. */
  otherTime: 0.4,
  /** An enumeration's values that spell as ours. */
  ours: 1,
  /** An address or a host name where the contract names one. */
  address: 0.9,
  /** A boolean. */
  boolean: 0.6,
  /** A percentage or a change of one, in some unit. */
  percent: 0.5,
  /** A number, or a whole one where the contract wants it whole. */
  number: 0.4,
  /** Text, or text that may be an enumeration's values in a spelling of its own. */
  text: 0.4,
  /** Values a time would be where the contract has a count: it fits, barely. */
  unlike: 0.1,
} as const;
/** A field the values leave no evidence for (null or absent everywhere): as likely as not, nullable or not. */
const NOTHING_SEEN = { nullable: 0.15, required: 0.05 } as const;
/** What an object or list is worth before its contents: its kind alone. */
const CONTAINER = 0.1;
/** A list written as an object keyed by its items: read so, a little less sure than a list. */
const KEYED_LIST = 0.9;
/** Items read from a list, enough to see their forms. */
const SAMPLE = 24;

/** How well values (one upstream field's, across every object it is in) fit a contract schema, 0 to 1. */
export function shapeScore(schema: z.ZodType, values: readonly unknown[], name?: string): number {
  const expected = expectedOf(schema);
  const seen = present(values);
  if (seen.length === 0) return expected.nullable ? NOTHING_SEEN.nullable : NOTHING_SEEN.required;
  switch (expected.kind) {
    case 'object': {
      if (!seen.every(isObject)) return 0;
      return CONTAINER + (1 - CONTAINER) * alignObject(expected.shape, seen as Json[]).score;
    }
    case 'array':
      return listScore(expected.element, seen);
    case 'union':
      return Math.max(0, ...expected.options.map((option) => shapeScore(option, seen, name)));
    default:
      return leafScore(expected, seen, name);
  }
}

/** A list's fit: its items' (an array's, or a keyed object's values with their keys beside them). */
function listScore(element: z.ZodType, seen: readonly unknown[]): number {
  const elementKind = expectedOf(element).kind;
  if (seen.every(Array.isArray)) {
    const items = (seen as unknown[][]).flat().slice(0, SAMPLE);
    if (items.length === 0) return CONTAINER;
    return CONTAINER + (1 - CONTAINER) * shapeScore(element, items);
  }
  if (elementKind === 'object' && seen.every((v) => columnarOf(v) !== undefined)) {
    const items = seen.flatMap((v) => columnarOf(v)!.items).slice(0, SAMPLE);
    return KEYED_LIST * (CONTAINER + (1 - CONTAINER) * (items.length === 0 ? 0 : shapeScore(element, items)));
  }
  if (elementKind === 'object' && seen.every(isKeyedList)) {
    const items = seen.flatMap((list) => keyedItems(list as Json)).slice(0, SAMPLE);
    if (items.length === 0) return KEYED_LIST * CONTAINER;
    return KEYED_LIST * (CONTAINER + (1 - CONTAINER) * shapeScore(element, items));
  }
  return 0;
}

function leafScore(expected: Expected & { nullable: boolean }, seen: readonly unknown[], name?: string): number {
  if (fitOf(expected, seen, name).readings.length === 0) return 0;
  const form = formOf(seen);
  switch (expected.kind) {
    case 'enum':
      return spellsAsOurs(expected, [...seen]) ? SAYS.ours : SAYS.text;
    case 'number':
      if (form === 'epoch') return SAYS.unlike;
      return expected.percent || expected.change ? SAYS.percent : SAYS.number;
    default: {
      if (form === 'ordered-date') return formatOf(expected) === 'date' ? SAYS.time : SAYS.otherTime;
      if (form === 'date' || form === 'date-time' || form === 'epoch') {
        const format = formatOf(expected);
        if (!format) return SAYS.unlike;
        // A day is written at midnight, an instant rarely is: each says which of the two a time is.
        const midnight = seen.every((v) => timeOf(v) % DAY_MS === 0);
        return (format === 'date') === midnight ? SAYS.time : SAYS.otherTime;
      }
      if (form === 'boolean') return SAYS.boolean;
      if (typeof seen[0] === 'string' && name !== undefined && /(^|_)(url|domain)($|_)/.test(name)) return SAYS.address;
      return SAYS.text;
    }
  }
}

/** A contract object aligned with upstream objects: each contract field's upstream field (all siblings at once), and how well the whole fits. */
export interface Alignment {
  /**
   * The fits of the pairs, over the contract's fields and, at `EXTRA_KEY` each, the upstream fields left unpaired:
   * an upstream object much larger than the contract's is not it.
   */
  score: number;
  /** Contract field to upstream field; a contract object written flat in this one maps to `"."` (its fields in `flat`). */
  pairs: Map<string, string>;
  /** Each pair's own fit. */
  fits: Map<string, number>;
  /** For each contract object written flat here: its fields' upstream fields. */
  flat: Map<string, Map<string, string>>;
}

/** What an upstream field no contract field is paired with costs, against one contract field. */
const EXTRA_KEY = 0.5;
/** A contract object written flat in its parent: as likely as one of its own, a little less. */
const FLAT = 0.9;

/** The rows of an alignment (each contract field, then each field of each object that may be written flat), its keys and weights. */
interface Weighed {
  names: string[];
  keys: string[];
  rows: { name: string; inner?: string }[];
  weights: number[][];
}

function weigh(shape: Record<string, z.ZodType>, objects: readonly Json[]): Weighed {
  const names = Object.keys(shape);
  const sample = objects.slice(0, SAMPLE);
  const keys = [...new Set(sample.flatMap((o) => Object.keys(o)))];
  const rows: { name: string; inner?: string; schema: z.ZodType }[] = names.map((name) => ({ name, schema: shape[name]! }));
  for (const name of names) for (const [inner, schema] of Object.entries(flatFields(shape[name]!) ?? {})) rows.push({ name, inner, schema });
  const weights = rows.map((row) =>
    keys.map((key) =>
      shapeScore(
        row.schema,
        sample.map((o) => o[key]),
        row.inner ?? row.name,
      ),
    ),
  );
  const groupOf = prefixGroups(keys);
  for (const name of names) {
    const inner = rows.flatMap((row, r) => (row.name === name && row.inner !== undefined ? [r] : []));
    const group = groupOf(inner.length);
    if (!group) continue;
    for (const r of inner) weights[r] = weights[r]!.map((x, k) => (group.has(keys[k]!) ? x : x * OUTSIDE_PREFIX));
  }
  return { names, keys, rows, weights };
}

/** A key beside the one group of keys that share first words, as a field of the object that group is written flat. */
const OUTSIDE_PREFIX = 0.5;

/**
 * The keys of an object written flat (`OpenCountsContent`, `OpenCountsBrand`), by its number of fields: the only group
 * of exactly that many keys whose first words are the same and are followed by more, the object's name in the house's
 * words, whatever they mean.
 */
function prefixGroups(keys: readonly string[]): (size: number) => ReadonlySet<string> | undefined {
  const groups = new Map<string, Set<string>>();
  for (const key of keys) {
    const words = wordsOf(key);
    for (let n = 1; n < words.length; n++) {
      const prefix = words.slice(0, n).join(' ');
      (groups.get(prefix) ?? groups.set(prefix, new Set()).get(prefix)!).add(key);
    }
  }
  // The same keys under a longer prefix (`open`, `open counts`) are one group.
  const distinct = new Map([...groups.values()].map((group) => [[...group].sort().join('\n'), group] as const));
  return (size) => {
    if (size < 2) return undefined;
    const sized = [...distinct.values()].filter((group) => group.size === size);
    return sized.length === 1 ? sized[0] : undefined;
  };
}

/** A pair taken away: a field's key (`"."`: its being written flat). */
type Without = { name: string; key: string };

/**
 * The best alignment of weighed rows with the objects of `flat` written flat (their fields' rows in place of their
 * own): each flat field's weight is its share of the object's fit as flat, so the total is the alignment's.
 */
function solveWith({ names, keys, rows, weights }: Weighed, flat: ReadonlySet<string>, without?: Without): Alignment & { total: number } {
  const active = rows.map((row, r) => ({ row, r })).filter(({ row }) => (row.inner === undefined ? !flat.has(row.name) : flat.has(row.name)));
  const count = (name: string) => rows.filter((row) => row.name === name && row.inner !== undefined).length;
  // A flat object's field weighs its share of the object's fit as flat: the assignment's total is the alignment's.
  const w = active.map(({ row, r }) =>
    weights[r]!.map((x, k) => {
      if (without && row.name === without.name && row.inner === undefined && keys[k] === without.key) return 0;
      return row.inner === undefined || x === 0 ? x : (FLAT * (CONTAINER + (1 - CONTAINER) * x)) / count(row.name);
    }),
  );
  const chosen = bestAssignment(w);
  const pairs = new Map<string, string>();
  const fits = new Map<string, number>();
  const flatPairs = new Map<string, Map<string, string>>();
  const used = new Set<number>();
  active.forEach(({ row }, i) => {
    const k = chosen[i];
    if (k === undefined) return;
    used.add(k);
    if (row.inner === undefined) {
      pairs.set(row.name, keys[k]!);
      fits.set(row.name, w[i]![k]!);
    } else {
      (flatPairs.get(row.name) ?? flatPairs.set(row.name, new Map()).get(row.name)!).set(row.inner, keys[k]!);
      fits.set(row.name, (fits.get(row.name) ?? 0) + w[i]![k]!);
    }
  });
  // An object is flat only with every field of it found; short of that it is nowhere.
  for (const name of flat) {
    if ((flatPairs.get(name)?.size ?? 0) < count(name)) {
      for (const key of flatPairs.get(name)?.values() ?? []) used.delete(keys.indexOf(key));
      flatPairs.delete(name);
      fits.delete(name);
    } else pairs.set(name, '.');
  }
  const total = [...fits.values()].reduce((sum, fit) => sum + fit, 0);
  const extra = keys.length - used.size;
  return { score: names.length === 0 ? 0 : total / (names.length + EXTRA_KEY * extra), pairs, fits, flat: flatPairs, total };
}

/** Objects that may be written flat, up to which every way of reading them is tried; past it, one at a time. */
const FLAT_EXHAUSTIVE = 5;

/**
 * The best alignment over the ways the objects that may be written flat are read (each its own fields or the
 * parent's, never both): every way while they are few (an object flat and its twin not, or the other way round, are
 * both seen), else one object at a time while that raises the total.
 */
function solve(weighed: Weighed, without?: Without): Alignment & { total: number } {
  const candidates = [...new Set(weighed.rows.filter((row) => row.inner !== undefined).map((row) => row.name))].filter((name) => !(without?.key === '.' && without.name === name));
  let best = solveWith(weighed, new Set(), without);
  const better = (tried: Alignment & { total: number }, flat: ReadonlySet<string>) => tried.total > best.total + 1e-9 && [...flat].every((name) => tried.pairs.get(name) === '.');
  if (candidates.length <= FLAT_EXHAUSTIVE) {
    for (let mask = 1; mask < 1 << candidates.length; mask++) {
      const flat = new Set(candidates.filter((_, i) => mask & (1 << i)));
      const tried = solveWith(weighed, flat, without);
      if (better(tried, flat)) best = tried;
    }
    return best;
  }
  const flat = new Set<string>();
  for (let improved = true; improved; ) {
    improved = false;
    for (const name of candidates) {
      if (flat.has(name)) continue;
      const next = new Set([...flat, name]);
      const tried = solveWith(weighed, next, without);
      if (better(tried, next)) {
        flat.add(name);
        best = tried;
        improved = true;
      }
    }
  }
  return best;
}

/**
 * The contract object `shape` aligned with upstream objects (the same object in every item of a list), its siblings
 * paired at once. Each object of scalars may also be written flat: its fields then compete for the parent's own, and
 * it is read flat where that fits better than any object of the parent does.
 */
export function alignObject(shape: Record<string, z.ZodType>, objects: readonly Json[]): Alignment {
  // The same objects are aligned with the same contract object many times (by their parent's alignment, then their
  // own walk): remembered by the first object, the shape and how many objects.
  const first = objects[0];
  const memo = first ? alignMemo.get(first)?.get(shape) : undefined;
  if (memo && memo.count === Math.min(objects.length, SAMPLE)) return memo.alignment;
  const { total: _total, ...alignment } = solve(weigh(shape, objects));
  if (first) {
    const byShape = alignMemo.get(first) ?? alignMemo.set(first, new Map()).get(first)!;
    byShape.set(shape, { count: Math.min(objects.length, SAMPLE), alignment });
  }
  return alignment;
}
const alignMemo = new WeakMap<Json, Map<Record<string, z.ZodType>, { count: number; alignment: Alignment }>>();

/**
 * The alignment with each pair's margin: how much the best alignment loses when that pair is taken away (the field
 * then goes elsewhere, or nowhere, and its siblings move). A small margin is two ways nearly as good: a question, not
 * a placement (two objects of the same shape, `visibility` and `share_of_voice`, told apart only by their figures).
 */
export function alignWithMargins(shape: Record<string, z.ZodType>, objects: readonly Json[]): Alignment & { margins: Map<string, number>; second: Map<string, string> } {
  const weighed = weigh(shape, objects);
  const best = solve(weighed);
  const margins = new Map<string, number>();
  /** Where each field goes in the best alignment without its pair: its other candidate, when the margin is small. */
  const second = new Map<string, string>();
  for (const [name, key] of best.pairs) {
    const other = solve(weighed, { name, key });
    margins.set(name, best.total - other.total);
    const elsewhere = other.pairs.get(name);
    if (elsewhere !== undefined) second.set(name, elsewhere);
  }
  const { total: _total, ...alignment } = best;
  return { ...alignment, margins, second };
}

/** The least margin (in fit, 0 to 1) that makes a pair the only way: below it, another way is as good as it. */
export const FORCED = 0.15;
