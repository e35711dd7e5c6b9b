/**
 * The envelope of an answer (`{"data": {...}, "meta": {...}}`): the child
 * object that holds more of the contract's top fields, by any name or written
 * flat (`PeriodFrom` for `period`), than the answer's top does.
 */
import type * as z from 'zod';
import { envelopeOf, isObject } from '../contract/conform';
import { compareNames, NAME_GUESS, singular, wordsOf } from './names';
import { alignObject, shapeScore } from './align';
import { FORM_UNIQUE } from './by-shape';
import { bestAssignment } from '../lib/assignment';
import { expectedOf, fitOf, formatOf, formOf } from './shapes';
import type { OperationRead } from './report';
import type { Json, Walk } from './walk';

/** An envelope holding more than half of the contract's top fields by name is plainly the body. */
const ENVELOPE_CLEAR = 0.9;
const ENVELOPE_UNSURE = 0.6;

/**
 * The envelope of an answer: by its shape first (the wrapper that, taken off, makes the rest align best with the
 * contract's top, whatever it is called and whatever lies beside it), then by the contract's names it holds.
 */
export function findEnvelope(shape: Record<string, z.ZodType>, body: Json): OperationRead['envelope'] {
  const named = envelopeByNames(shape, body);
  if (named && named.confidence >= ENVELOPE_CLEAR) return named;
  const byShape = envelopeByShape(shape, body);
  // A name or two is no envelope where the answer's top aligns as well as that child does (`counts` written `COUNT_WON`
  // in its own object): the top is the body.
  if (!byShape) return named && liftedScore(shape, body[named.at] as Json, [body]) > alignObject(shape, [body]).score ? named : null;
  return { at: byShape.at, confidence: byShape.clear ? ENVELOPE_CLEAR : ENVELOPE_UNSURE, in_map: envelopeOf(shape, body) !== byShape.at };
}

/** How much better the answer must align with its wrapper taken off: less is a question. */
const SHAPE_MARGIN = 0.15;
/** Clearly the body: it aligns this much better, and aligns at least `SHAPE_FLOOR`. */
const SHAPE_CLEAR = 0.25;
const SHAPE_FLOOR = 0.4;

/**
 * The child object (or a child's child: `{"response": {"data": {...}}}`) that aligns best with the contract's top,
 * when that is clearly better than the answer as it is; undefined when the answer's top is the body. A top field the
 * wrapper lacks may stand beside it (`meta.asOf`), as the map reads it: a leaf of what lies beside counts, a little
 * less than one inside.
 */
function envelopeByShape(shape: Record<string, z.ZodType>, body: Json): { at: string; clear: boolean } | undefined {
  const top = alignObject(shape, [body]).score;
  let best: { at: string; score: number } | undefined;
  const consider = (at: string, inner: Json, beside: Json[]) => {
    const score = liftedScore(shape, inner, beside);
    if (score > (best?.score ?? top)) best = { at, score };
  };
  for (const [a, child] of Object.entries(body)) if (isObject(child)) consider(a, child, [body]);
  // A wrapper inside a wrapper: looked for only inside the child that is the best wrapper so far.
  const outer = best as { at: string } | undefined;
  if (outer) {
    const child = body[outer.at] as Json;
    for (const [b, grandchild] of Object.entries(child)) if (isObject(grandchild)) consider(`${outer.at}.${b}`, grandchild, [body, child]);
  }
  const found = best as { at: string; score: number } | undefined;
  if (!found || found.score - top < SHAPE_MARGIN) return undefined;
  return { at: found.at, clear: found.score - top >= SHAPE_CLEAR && found.score >= SHAPE_FLOOR };
}

/** A top field found beside the body rather than in it: as a map reads it, but less likely. */
const BESIDE = 0.8;

/** How well `inner` aligns as the body, with the leaves of the objects around it (and of their objects) for the top leaves it lacks. */
function liftedScore(shape: Record<string, z.ZodType>, inner: Json, around: Json[]): number {
  const aligned = alignObject(shape, [inner]);
  const names = Object.keys(shape);
  const lacking = names.filter((name) => !aligned.pairs.has(name) && isLeaf(shape[name]!));
  const beside: unknown[] = [];
  for (const object of around)
    for (const value of Object.values(object)) {
      if (value === inner || Array.isArray(value)) continue;
      if (!isObject(value)) beside.push(value);
      else for (const v of Object.values(value)) if (v !== inner && !isObject(v) && !Array.isArray(v)) beside.push(v);
    }
  const weights = lacking.map((name) => beside.map((value) => BESIDE * shapeScore(shape[name]!, [value], name)));
  const chosen = bestAssignment(weights);
  const extra = chosen.reduce<number>((sum, k, i) => sum + (k === undefined ? 0 : weights[i]![k]!), 0);
  return aligned.score + extra / names.length;
}

const isLeaf = (schema: z.ZodType) => !['object', 'array', 'union'].includes(expectedOf(schema).kind);

/** The child object that is the body, when one holds more of the contract's top fields (by any name) than the top object does. */
function envelopeByNames(shape: Record<string, z.ZodType>, body: Json): OperationRead['envelope'] {
  const names = Object.keys(shape);
  // A name held as it is, or written flat (`PeriodFrom`, `MarketId`: the object's words first).
  const flatOf = (name: string, key: string) => {
    const [ours, theirs] = [wordsOf(name).map(singular), wordsOf(key).map(singular)];
    return theirs.length > ours.length && ours.every((word, i) => theirs[i] === word);
  };
  // Inside an object that is one of the contract's (`task`), its own fields carry its name (`TaskStatus`): not the body's.
  const held = (value: Json, at?: string) =>
    names.filter((name) => Object.keys(value).some((key) => compareNames(name, key) || (!(at !== undefined && compareNames(name, at)) && flatOf(name, key)))).length;
  let best: { at: string; count: number } | undefined;
  const top = held(body);
  const counts = Object.entries(body).flatMap(([at, child]) => (isObject(child) ? [{ at, count: held(child, at) }] : []));
  for (const child of counts) if (child.count > (best?.count ?? top)) best = child;
  if (!best) return null;
  // Most of the contract's top fields, or the only object that holds any where the answer's top holds none: the body.
  const alone = top === 0 && best.count >= 2 && counts.every((child) => child === best || child.count * 2 <= best!.count);
  return { at: best.at, confidence: best.count * 2 > names.length || alone ? ENVELOPE_CLEAR : ENVELOPE_UNSURE, in_map: envelopeOf(shape, body) !== best.at };
}

/**
 * Top-level fields still unplaced, looked for beside the envelope (`{"data": {...}, "meta": {"asOf": ...}}`): in the
 * answer's other objects and its own fields. By name first; else the only value there that reads as the field's
 * form (a date-time or an epoch where the contract has a timestamp). The map names it by its path in the answer.
 */
export function besideEnvelope(shape: Record<string, z.ZodType>, body: Json, envelope: string, walk: Walk): void {
  const places: [string, unknown][] = [];
  for (const [name, value] of Object.entries(body)) {
    if (name === envelope) continue;
    if (isObject(value)) for (const [inner, v] of Object.entries(value)) places.push([`${name}.${inner}`, v]);
    else places.push([name, value]);
  }
  // A top field guessed only by the type of fields inside (a day read as the answer's time) is looked for too.
  const guessed = walk.toConfirm.filter((item) => item.value === undefined && item.candidates.length > 0 && item.candidates.every((c) => c.by === 'type')).map((item) => item.path);
  for (const path of [...walk.unplaced, ...guessed]) {
    if (path === '' || path.includes('.') || path.includes('[')) continue;
    const expected = expectedOf(shape[path]!);
    if (expected.kind === 'object' || expected.kind === 'array' || expected.kind === 'union') continue;
    // A null beside the body (a next page's pointer on the last page) fits any form, so it says none.
    const fitting = places
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([from, v]) => ({ from, fit: fitOf(expected, [v]) }))
      .filter((c) => c.fit.readings.length > 0 && c.fit.readings[0]!.confidence >= walk.threshold && formOf([pick(body, c.from)]) !== 'text');
    // For a field guessed by type, only a time where the contract has one says enough by its form: a count beside
    // (`tookMs`) fits any count, an epoch fits a count too.
    const unplaced = walk.unplaced.includes(path);
    if (!unplaced && formatOf(expected) === undefined) continue;
    const forms = unplaced ? fitting : fitting.filter((c) => TIME_FORMS.has(formOf([pick(body, c.from)])));
    const named = forms.filter((c) => compareNames(path, c.from.split('.').at(-1)!));
    const chosen = named.length === 1 ? { ...named[0]!, by: 'name' as const, confidence: NAME_GUESS } : forms.length === 1 ? { ...forms[0]!, by: 'form' as const, confidence: FORM_UNIQUE } : undefined;
    if (!chosen) continue;
    const convert = chosen.fit.readings[0]!.convert;
    if (unplaced) walk.unplaced.splice(walk.unplaced.indexOf(path), 1);
    else
      walk.toConfirm.splice(
        walk.toConfirm.findIndex((item) => item.path === path && item.value === undefined),
        1,
      );
    walk.mapField(path, path, chosen.from, convert, true);
    walk.fields[path] = { from: chosen.from, confidence: chosen.confidence, by: chosen.by, ...(convert ? { convert } : {}) };
  }
}

const TIME_FORMS: ReadonlySet<string> = new Set(['date', 'date-time', 'epoch', 'ordered-date']);

/** The value at a dotted path of the answer. */
const pick = (body: Json, path: string): unknown => path.split('.').reduce<unknown>((here, name) => (isObject(here) ? here[name] : undefined), body);
