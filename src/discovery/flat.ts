/** A contract object written flat in its parent (`MarketId`, `MarketCode` for `market`): found, and placed with `"."`. */
import type * as z from 'zod';
import { JOIN } from './joins';
import { compareNames, entityOf, type HouseWords, plainWords, wordsOf } from './names';
import type { Conversion } from '../contract/upstream-map';
import { AMBIGUOUS, type Expected, expectedOf, fitOf, formKeyOf, textKindFits } from './shapes';
import { VOCABULARY } from './vocabulary';
import { hundredths, type Pair, pairOf, type Vocabulary, type Walk } from './walk';

/** A contract object found written flat in its parent: its fields' pairs, and how sure that is. */
export interface FlatObject {
  pairs: Pair[];
  confidence: number;
}

/** Every field of the object found flat, each by name: nearly as sure as the names themselves. */
export const FLAT_ALL = 0.9;

/**
 * Contract objects (`market`, `period`) nothing in this object stands for, whose fields are here under the object's
 * name and theirs (`MarketId`, `MarketCode`; `PeriodFrom`, `PrevPerTo`): the map reads them with `"market": "."`.
 * A key is the object's if its first words are the object's name (in any of the ways `compareNames` relates names);
 * its other words then name the field, or, for the one field no name places, its form does when one key alone fits.
 * Every field so found: sure; half of them or more: a question; fewer: none.
 */
export function flatObjects(
  names: string[],
  keys: string[],
  expected: Record<string, Expected & { nullable: boolean }>,
  valuesOf: (key: string) => unknown[],
  joins: (object: string, field: string, key: string) => boolean = () => false,
  houseWords: HouseWords = new Map(),
): Map<string, FlatObject> {
  const found = new Map<string, FlatObject>();
  const taken = new Set<string>();
  for (const name of names) {
    const object = expected[name]!;
    if (object.kind !== 'object') continue;
    const prefixed = keys.filter((key) => !taken.has(key)).flatMap((key) => restAfter(name, key, houseWords).map((rest) => ({ key, rest })));
    if (prefixed.length === 0) continue;
    const pairs: Pair[] = [];
    const used = new Set<string>();
    const fields = Object.entries(object.shape);
    for (const [inner, schema] of fields)
      for (const { key, rest } of prefixed) {
        // Its fields may carry the object's entity too (`PeriodFrom` inside `previous_period`: `PreviousPeriodPeriodFrom`).
        const match = used.has(key) ? undefined : (compareNames(inner, rest, name) ?? compareNames(inner, rest, entityOf(name)));
        if (!match) continue;
        const pair = pairOf(inner, key, match.by, match.confidence, expectedOf(schema), valuesOf(key));
        if (pair.reason && pair.confidence < match.confidence) continue;
        pairs.push(pair);
        used.add(key);
        break;
      }
    // The fields left and the object's keys left, assigned together by form: each field with one key alone that reads
    // as it, none shared (a plan's `id` the one text, `includes_pro_operations` the one boolean), once a name found the object.
    const leftFields = fields.filter(([inner]) => !pairs.some((p) => p.name === inner));
    const leftKeys = [...new Set(prefixed.map((p) => p.key))].filter((key) => !used.has(key));
    if (leftFields.length > 0 && pairs.length > 0) {
      const fitting = leftFields.map(([inner, schema]) => [inner, schema, leftKeys.filter((key) => fitOf(expectedOf(schema), valuesOf(key)).readings.length > 0)] as const);
      const keys = fitting.map(([, , fit]) => fit[0]);
      if (fitting.every(([, , fit]) => fit.length === 1) && new Set(keys).size === keys.length)
        for (const [inner, schema, [key]] of fitting) pairs.push(pairOf(inner, key!, 'form', FLAT_ALL, expectedOf(schema), valuesOf(key!)));
    }
    // A name's guess its values prove: the resource it names joins them (the rival asked for, its name in the answer).
    for (const [i, pair] of pairs.entries()) if (pair.confidence < JOIN && joins(name, pair.name, pair.key)) pairs[i] = { ...pair, confidence: JOIN, by: 'join' };
    const share = pairs.length / fields.length;
    if (pairs.length === 0 || share < 0.5) continue;
    for (const p of pairs) taken.add(p.key);
    found.set(name, { pairs, confidence: hundredths(share === 1 ? Math.min(FLAT_ALL, ...pairs.map((p) => p.confidence)) : AMBIGUOUS) });
  }
  return found;
}

/**
 * An object the shape reads written flat (`aligned`: each of its fields' key by form), no name found so: a question
 * (which fields of its form are its is told by names or values, never by the form alone), unless each field has one
 * free key its values prove: one that joins its resource (a market's id and code, those `/markets` lists), else the
 * key the service calls by the field's name in the other answers the evidence settled (`words`: one open count per
 * layer; none for an object with a twin beside it, where the words say `to`, not which window's).
 */
export function flatByShape(
  aligned: ReadonlyMap<string, string>,
  inner: Record<string, z.ZodType>,
  free: readonly string[],
  { joins, words }: { joins: (field: string, key: string) => boolean | undefined; words: Vocabulary },
  valuesOf: (key: string) => unknown[],
): FlatObject {
  const found = new Map<string, { key: string; by: Pair['by']; confidence: number }>();
  for (const field of aligned.keys()) {
    const joined = free.filter((key) => joins(field, key) === true);
    const spoken = free.find((key) => words.get(key) === field);
    if (joined.length === 1) found.set(field, { key: joined[0]!, by: 'join', confidence: JOIN });
    else if (spoken !== undefined) found.set(field, { key: spoken, by: 'vocabulary', confidence: VOCABULARY });
  }
  // The one field left once the values proved its siblings: the one free key left that reads as it (a rival's domain
  // beside its name) and that no list refutes (a market id `/markets` does not list is no market's).
  const left = [...aligned.keys()].filter((field) => !found.has(field));
  const usedKeys = new Set([...found.values()].map((f) => f.key));
  if (left.length === 1 && found.size > 0) {
    const field = left[0]!;
    const fitting = free.filter(
      (key) => !usedKeys.has(key) && joins(field, key) !== false && fitOf(expectedOf(inner[field]!), valuesOf(key)).readings.length > 0 && textKindFits(field, valuesOf(key)),
    );
    if (fitting.length === 1) found.set(field, { key: fitting[0]!, by: 'form', confidence: ONLY_OF_FORM });
  }
  // Keys sharing a first word no other key has (`TARIFA_…`: the service's word for the object) are the object's own:
  // each field the one of them that reads as it.
  const group = [...new Set(aligned.values())];
  const word = firstWord(group[0] ?? '');
  if (found.size < aligned.size && word !== undefined && group.length >= 2 && group.every((key) => firstWord(key) === word) && !free.some((key) => !group.includes(key) && firstWord(key) === word))
    for (const [field, key] of aligned) {
      const fitting = group.filter((k) => fitOf(expectedOf(inner[field]!), valuesOf(k)).readings.length > 0 && textKindFits(field, valuesOf(k)));
      if (!found.has(field) && fitting.length === 1 && fitting[0] === key) found.set(field, { key, by: 'structure', confidence: ONLY_OF_FORM });
    }
  const keys = [...found.values()].map((f) => f.key);
  if (found.size === aligned.size && new Set(keys).size === keys.length)
    return {
      pairs: [...found].map(([field, { key, by, confidence }]) => pairOf(field, key, by, confidence, expectedOf(inner[field]!), valuesOf(key))),
      confidence: Math.min(...[...found.values()].map((f) => f.confidence)),
    };
  return { pairs: [...aligned].map(([field, key]) => pairOf(field, key, 'form', AMBIGUOUS, expectedOf(inner[field]!), valuesOf(key))), confidence: AMBIGUOUS };
}

/** A key's first word, of three letters or more (`tarifa` of `TARIFA_MENSUAL_CUOTA`); none for a key of one word. */
const firstWord = (key: string) => {
  const words = wordsOf(key);
  return words.length > 1 && words[0]!.length >= 3 ? words[0]!.toLowerCase() : undefined;
};

/** A field's key proven by elimination: the only one of its form left once its siblings' keys were proven. */
const ONLY_OF_FORM = 0.8;

/** What a key says after the object's name (`MarketCode` after `market`: `Code`; `PrevPerTo` after `previous_period`: `To`), each way it may. */
function restAfter(object: string, key: string, houseWords: HouseWords): string[] {
  // The service's words read as ours where its other answers taught them (`TARIFA_CUOTA`: `plan`, then `cuota`).
  const words = wordsOf(key).map((word) => houseWords.get(plainWords(word)[0] ?? '') ?? word);
  const rests: string[] = [];
  for (let n = 1; n < words.length; n++) if (compareNames(object, words.slice(0, n).join('_'))) rests.push(words.slice(n).join('_'));
  return rests;
}

/** A key of a flat object no surer than a question, with the form of the field it was paired with. */
export interface FlatKey {
  key: string;
  convert: Conversion | undefined;
  form: string;
}

/** The keys of the flat objects found that are questions: any of them of a field's form may be that field's. */
export function unsureFlatKeys(flat: ReadonlyMap<string, FlatObject>, expected: Record<string, Expected>, threshold: number): FlatKey[] {
  return [...flat].flatMap(([name, object]) => {
    const shape = expected[name]?.kind === 'object' ? expected[name].shape : {};
    if (object.confidence >= threshold) return [];
    return object.pairs.map((pair) => ({ key: pair.key, convert: pair.readings[0]!.convert, form: formKeyOf(shape[pair.name]!) }));
  });
}

/** A flat object into the walk: `"."` for it, its fields by their flat names; a question when not every field was found. */
export function placeFlat(walk: Walk, path: string, name: string, flat: FlatObject, expected: Expected, unsureKeys: readonly FlatKey[]): void {
  const sure = flat.confidence >= walk.threshold;
  walk.mapField(path, name, '.', undefined, sure);
  if (sure) walk.fields[path] = { from: '.', confidence: flat.confidence, by: 'flat' };
  else
    walk.toConfirm.push({
      path,
      reason: `its fields are written flat beside it (${flat.pairs.map((p) => `\`${p.key}\``).join(', ')}), but not all of them`,
      candidates: [{ from: '.', confidence: flat.confidence, by: 'flat' }],
    });
  const shape = expected.kind === 'object' ? expected.shape : {};
  for (const pair of flat.pairs) {
    const reading = pair.readings[0]!;
    walk.mapField(`${path}.${pair.name}`, pair.name, pair.key, reading.convert, sure);
    // Found by the service's own words (`flatByShape`), a field says so in the report.
    const by = pair.by === 'vocabulary' ? 'vocabulary' : 'flat';
    if (sure) walk.fields[`${path}.${pair.name}`] = { from: pair.key, confidence: flat.confidence, by, ...(reading.convert ? { convert: reading.convert } : {}) };
    // Unsure, its fields of one form (a period's two days, and the window before's) may be each other's: each is
    // asked among them, so the rules may tell them apart together (`settleGroups`).
    const form = formKeyOf(shape[pair.name]!);
    const alike = unsureKeys.filter((other) => other.form === form);
    if (!sure && alike.length > 1)
      walk.toConfirm.push({
        path: `${path}.${pair.name}`,
        reason: `written flat with ${alike.length - 1 === 1 ? 'another field' : 'other fields'} of its form, and no name tells them apart`,
        candidates: alike.map((other) => ({ from: other.key, ...(other.convert ? { convert: other.convert } : {}), confidence: AMBIGUOUS, by: 'flat' as const })),
      });
  }
  const inner = Object.keys(shape);
  for (const field of inner) if (!flat.pairs.some((p) => p.name === field)) walk.unplaced.push(`${path}.${field}`);
}

/**
 * The questions of a flat object's fields left once the rules have spoken are folded back into its own: asked as it is,
 * it stands for them (one entry for a person, not one per field).
 */
export function foldFlatQuestions(walk: Walk): void {
  const asked = walk.toConfirm.filter((item) => item.value === undefined && item.path !== '' && item.candidates.every((c) => c.from === '.'));
  const folded = walk.toConfirm.filter((item) => asked.some((parent) => item.path.startsWith(`${parent.path}.`)) && item.candidates.every((c) => c.by === 'flat'));
  for (const item of folded) walk.toConfirm.splice(walk.toConfirm.indexOf(item), 1);
}
