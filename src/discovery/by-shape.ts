/**
 * Fields no name placed, by what their values are (steps 5 of propose.ts): an
 * object or list holding most of the contract's fields (`structure`), the only
 * value of the field's form left on both sides (`form`), or, several left, a
 * question (`type`). An enumeration's candidates are those whose values spell
 * as ours, where some do.
 */
import type * as z from 'zod';
import { isObject } from '../contract/conform';
import { spelledValue } from '../contract/enum-spelling';
import { compareNames } from './names';
import { AMBIGUOUS, columnarOf, type Expected, expectedOf, fitOf, flatFields, isKeyedList } from './shapes';
import { hundredths, KEY_FIELD, MAX_SAMPLES, type Pair, pairOf, present } from './walk';

/**
 * A value of the field's form, the only one left on both sides (the only date-time where one timestamp is left): placed,
 * since a service writes every field the contract holds; a second field of that form left makes it a question.
 */
export const FORM_UNIQUE = 0.8;
/** The contract's fields that identify an item: what a list written as an object is keyed by. */
export const IDENTITY: ReadonlySet<string> = new Set(['id', 'name', 'code', 'domain', 'url', 'text']);
const TYPE_GUESS = 0.3;
/** `structure`: this plus `STRUCTURE_WEIGHT` times the share of the contract's inner fields found by name. */
const STRUCTURE_BASE = 0.4;
const STRUCTURE_WEIGHT = 0.45;

/** Fields no name placed, by what their values are: an object's contents, or only its type. */
export function byShape(
  names: string[],
  keys: string[],
  expected: Record<string, Expected & { nullable: boolean }>,
  valuesOf: (key: string) => unknown[],
  /** The fields and keys aligned all at once by shape (`align.ts`): an object or list may stand only where it put it. */
  aligned: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
): Map<string, Pair[]> {
  const found = new Map<string, Pair[]>();
  const taken = new Set<string>();
  // An object (or list of objects) fits when each of the contract's fields inside has a field whose values read as its.
  const fits = (name: string, key: string) =>
    present(valuesOf(key)).length > 0 &&
    fitOf(expected[name]!, valuesOf(key), name).readings.length > 0 &&
    // Any text is an open value (an engine): by its form alone, only values that spell as ours say it is one.
    (expected[name]!.kind !== 'enum' || !expected[name]!.open || spellsAsOurs(expected[name]!, valuesOf(key)) === true) &&
    (expected[name]!.kind === 'union'
      ? aligned.get(name)?.has(key) === true
      : !innerShape(expected[name]!) ||
        emptyLists(valuesOf(key), expected[name]!.kind === 'array') ||
        (aligned.get(name)?.has(key) === true && holdsForms(innerShape(expected[name]!)!, valuesOf(key), expected[name]!.kind === 'array')));
  // Of an enumeration's candidates, those whose values spell as ours, when some do: a state is never a vendor's version tag.
  const ofOurs = (name: string, keys: string[]) => {
    const spelled = keys.filter((key) => spellsAsOurs(expected[name]!, valuesOf(key)));
    return spelled.length > 0 ? spelled : keys;
  };
  const optionsOf = (field: string) =>
    ofOurs(
      field,
      keys.filter((key) => !taken.has(key) && fits(field, key)),
    );
  // A list written as an object is keyed by its items' identity: of the identifiers left, the one its keys read as,
  // when exactly one does, takes the key (`{"1": {...}}` for an id beside a number that is no id).
  if (keys.includes(KEY_FIELD)) {
    const identities = names.filter((name) => IDENTITY.has(name) && fits(name, KEY_FIELD));
    if (identities.length === 1) {
      const [name] = identities as [string];
      found.set(name, [
        {
          ...pairOf(name, KEY_FIELD, 'form', FORM_UNIQUE, expected[name]!, valuesOf(KEY_FIELD)),
          reason: `a list written as an object is keyed by its items' identity, and \`${name}\` is the only identifier left whose values its keys read as`,
        },
      ]);
      taken.add(KEY_FIELD);
    }
  }
  // A field with one field of its form left, which no other field needs as its only one, takes it; what it frees may
  // leave another field one (a count that is no position leaves the position one field): until nothing changes.
  for (let changed = true; changed; ) {
    changed = false;
    for (const name of names) {
      if (found.has(name)) continue;
      const [only, ...more] = optionsOf(name);
      if (!only || more.length > 0 || names.some((other) => other !== name && !found.has(other) && optionsOf(other).length === 1 && optionsOf(other)[0] === only)) continue;
      const inner = innerShape(expected[name]!);
      // An object or list is as sure as its contents say by name, when they say more than its form alone.
      const byNames = inner ? hundredths(STRUCTURE_BASE + STRUCTURE_WEIGHT * overlap(inner, valuesOf(only))) : 0;
      const by = byNames >= FORM_UNIQUE ? 'structure' : 'form';
      // An object the alignment may as well read flat (its twin in its place) is not proven by being the only one left.
      const proves = aligned.get(name)?.has('.') !== true;
      found.set(name, [
        {
          ...pairOf(name, only, by, proves ? Math.max(byNames, FORM_UNIQUE) : AMBIGUOUS, expected[name]!, valuesOf(only)),
          reason: proves
            ? `\`${only}\` is the only field left whose values read as its, once the others took theirs`
            : `\`${only}\` is the only object left of its shape, but its twin may be written flat in its place`,
        },
      ]);
      taken.add(only);
      changed = true;
    }
  }
  for (const name of names) {
    if (found.has(name)) continue;
    const inner = innerShape(expected[name]!);
    const options = optionsOf(name);
    if (options.length === 0) continue;
    let pairs: Pair[];
    const unique = options.length === 1 && names.filter((other) => optionsOf(other).includes(options[0]!)).length === 1;
    if (inner && unique) {
      const key = options[0]!;
      const byNames = hundredths(STRUCTURE_BASE + STRUCTURE_WEIGHT * overlap(inner, valuesOf(key)));
      pairs = [
        {
          ...pairOf(name, key, byNames >= FORM_UNIQUE ? 'structure' : 'form', Math.max(byNames, FORM_UNIQUE), expected[name]!, valuesOf(key)),
          reason: `\`${key}\` is the only one left whose contents read as its fields`,
        },
      ];
    } else if (inner) {
      const scored = options
        .map((key) => ({ key, overlap: overlap(inner, valuesOf(key)) }))
        .filter((o) => o.overlap > 0)
        .sort((a, b) => b.overlap - a.overlap);
      if (scored.length === 0) {
        // No name says which: the objects of its shape are its candidates, for the rules or a person to choose.
        found.set(
          name,
          options.slice(0, 3).map((key) => ({ ...pairOf(name, key, 'structure', AMBIGUOUS, expected[name]!, valuesOf(key)), reason: 'several objects left have its shape, and no name relates them' })),
        );
        taken.add(options[0]!);
        continue;
      }
      const close = scored.length > 1 && scored[0]!.overlap - scored[1]!.overlap < 0.2;
      pairs = scored.slice(0, 3).map(({ key, overlap: o }) => ({
        ...pairOf(name, key, 'structure', close ? AMBIGUOUS : hundredths(STRUCTURE_BASE + STRUCTURE_WEIGHT * o), expected[name]!, valuesOf(key)),
        reason: `no name relates them; \`${key}\` holds ${Math.round(o * 100)}% of its fields by name${close ? ', and another field nearly as many' : ''}`,
      }));
    } else {
      pairs = options.slice(0, LISTED).map((key) => ({
        ...pairOf(name, key, unique ? 'form' : 'type', unique ? FORM_UNIQUE : TYPE_GUESS, expected[name]!, valuesOf(key)),
        ...(options.length > LISTED ? { crowded: true as const } : {}),
        reason: unique ? `no name relates them; \`${key}\` is the only field left whose values read as its` : 'no name relates them; several fields left have values that read as its',
      }));
    }
    found.set(name, pairs);
    taken.add(pairs[0]!.key);
  }
  return found;
}

/** The keys a guess by type lists at most: enough for the rules to try each (a count among the counts beside it), few enough for a person to read. */
export const LISTED = 6;

/**
 * For an enumeration: whether some of the values spell as the contract's (the spelling rules), or, for an open one
 * (any text fits it), at least half of them: a few titles that begin with one of its words (`Task completed`) are
 * not its values. Undefined when it is not an enumeration.
 */
export function spellsAsOurs(expected: Expected, values: unknown[]): boolean | undefined {
  if (expected.kind !== 'enum') return undefined;
  const distinct = [...new Set(present(values).filter((v): v is string => typeof v === 'string'))];
  if (distinct.length === 0) return undefined;
  const ours = distinct.filter((v) => expected.values.includes(v) || spelledValue(v, expected.values, expected.open) !== undefined).length;
  return expected.open ? ours * 2 >= distinct.length : ours > 0;
}

/** Whether upstream objects (or lists of them, or lists keyed as objects) have, for each of the contract's fields, a field whose values read as its. */
function holdsForms(shape: Record<string, z.ZodType>, values: unknown[], list: boolean): boolean {
  const objects = present(values)
    .flatMap((v) => (Array.isArray(v) ? v : list && columnarOf(v) ? columnarOf(v)!.items : list && isKeyedList(v) ? Object.values(v) : [v]))
    .filter(isObject)
    .slice(0, MAX_SAMPLES);
  if (objects.length === 0) return false;
  const keys = [...new Set(objects.flatMap((o) => Object.keys(o)))];
  // A keyed list's items lack the field their key holds: one field may go without.
  let missing = 0;
  for (const schema of Object.values(shape)) {
    const expected = expectedOf(schema);
    // An object of scalars may be written flat in its items (a page's topic as its id and name beside its url).
    const flat = flatFields(schema);
    if (flat && holdsForms(flat, objects, false)) continue;
    if (
      !keys.some(
        (key) =>
          fitOf(
            expected,
            objects.map((o) => o[key]),
          ).readings.length > 0 && objects.some((o) => o[key] !== undefined),
      )
    )
      missing++;
  }
  return missing <= (list && !values.some(Array.isArray) ? 1 : 0);
}

/** The contract object a field holds, itself or as its array's items. */
function innerShape(expected: Expected): Record<string, z.ZodType> | undefined {
  if (expected.kind === 'object') return expected.shape;
  if (expected.kind === 'array') {
    const element = expectedOf(expected.element);
    return element.kind === 'object' ? element.shape : undefined;
  }
  return undefined;
}

/** Lists with no item (`[]` everywhere): nothing inside says what they hold, and nothing says they hold something else. */
/** Values that are only empty lists: `[]`, or `{}` where the contract has a list (a list written as an object, with no item). */
const emptyLists = (values: unknown[], list: boolean) =>
  present(values).length > 0 && present(values).every((v) => (Array.isArray(v) && v.length === 0) || (list && isObject(v) && Object.keys(v).length === 0));

/** The share of the contract object's fields that upstream objects hold under some name the names table relates. */
function overlap(shape: Record<string, z.ZodType>, values: unknown[]): number {
  const objects = present(values)
    .flatMap((v) => (Array.isArray(v) ? v : (columnarOf(v)?.items ?? [v])))
    .filter(isObject)
    .slice(0, MAX_SAMPLES);
  const keys = new Set(objects.flatMap((o) => Object.keys(o)));
  const names = Object.keys(shape);
  return names.filter((name) => [...keys].some((key) => compareNames(name, key))).length / names.length;
}
