/**
 * The envelope of an answer (`{"data": {...}, "meta": {...}}`): the child
 * object that holds more of the contract's top fields, by any name or written
 * flat (`PeriodFrom` for `period`), than the answer's top does.
 */
import type * as z from 'zod';
import { envelopeOf, isObject } from '../contract/conform';
import { compareNames, singular, wordsOf } from './names';
import type { OperationRead } from './report';
import type { Json } from './walk';

/** An envelope holding more than half of the contract's top fields by name is plainly the body. */
const ENVELOPE_CLEAR = 0.9;
const ENVELOPE_UNSURE = 0.6;

/** The child object that is the body, when one holds more of the contract's top fields (by any name) than the top object does. */
export function findEnvelope(shape: Record<string, z.ZodType>, body: Json): OperationRead['envelope'] {
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
