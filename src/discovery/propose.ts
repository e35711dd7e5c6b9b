/**
 * One operation's part of the upstream map, proposed from one upstream body:
 * the operation's response schema is walked beside the body (the body's
 * envelope first), and at each object every contract field is given the
 * upstream field that stands for it, in this order:
 *
 * 1. the same name in any case convention (confidence 1, read with no map);
 * 2. a plural or a synonym (`names.ts`, 0.8);
 * 3. among the fields still unplaced: an object or an array of objects that
 *    holds most of the contract's fields (`structure`, 0.4 to 0.85: a list is
 *    often called `rows`, `items` or `results`, and its contents say more
 *    than its name), or a value of the same type (`type`, at most 0.5: never
 *    enough alone).
 *
 * Each guess is weighed by how its values read (`shapes.ts`: as they are, or
 * converted), and two guesses as good as each other are a question, not a
 * choice. Values of enumerations that differ from the contract's are mapped
 * by spelling and synonyms; open values (engines) are carried as they are
 * unless a well-known alias names one of ours.
 */
import type * as z from 'zod';
import { checkResponseBody } from '../contract/body';
import { conformBody, envelopeOf, fieldKey, isObject, objectShape, unwrapEnvelope } from '../contract/conform';
import { keepsPinningRules, RULES, violationsOf } from '../contract/plausibility';
import type { OperationId } from '../contract/operations';
import type { ZodSide } from '../contract/zod-side';
import type { OperationMap } from '../contract/schemas/upstream-map';
import { CONVERSIONS, type Conversion } from '../contract/upstream-map';
import { domainOf, joins, type Known } from './joins';
import { compareNames, entityOf, NAME_GUESS, valueCandidates } from './names';
import type { Candidate, OperationRead, Placement, ToConfirm, ValueProposal } from './report';
import { AMBIGUOUS, type Expected, expectedOf, fitOf, formOf, type Reading, SHARE_EVIDENCE } from './shapes';

type Json = Record<string, unknown>;

/** Values kept per path: enough to tell shares from percentages and to see an enumeration's values, bounded for long lists. */
const MAX_SAMPLES = 200;
/** An envelope holding more than half of the contract's top fields by name is plainly the body. */
const ENVELOPE_CLEAR = 0.9;
const ENVELOPE_UNSURE = 0.6;
/**
 * A value of the field's form, the only one left on both sides (the only date-time where one timestamp is left): placed,
 * since a service writes every field the contract holds; a second field of that form left makes it a question.
 */
const FORM_UNIQUE = 0.8;
const TYPE_GUESS = 0.3;
/** `structure`: this plus `STRUCTURE_WEIGHT` times the share of the contract's inner fields found by name. */
const STRUCTURE_BASE = 0.4;
const STRUCTURE_WEIGHT = 0.45;
/** A closed enumeration's value like none of the contract's: the one value left for it, or one of several. */
const ELIMINATION_ONE = 0.4;
const ELIMINATION_MANY = 0.2;
/** A name that matches but whose values do not read as the contract's: a candidate only. */
const MISFIT_FACTOR = 0.5;

const present = (values: readonly unknown[]) => values.filter((v) => v !== null && v !== undefined);
const pathOf = (parent: string, name: string) => (parent ? `${parent}.${name}` : name);
/** Confidences are shown to a person: two decimals say all there is. */
const hundredths = (x: number) => Math.round(x * 100) / 100;

export interface OperationProposal {
  /** What the answer says of the operation (`OperationRead` without the read's own status, params and cache). */
  report: Omit<OperationRead, 'status' | 'params' | 'cache'>;
  /** The entries at or above the threshold: the operation's part of the proposed map (empty parts kept, as the stored map has them). */
  map: OperationMap;
  /** The map with the best candidate of every question taken too: how discovery reads values for later requests (an id, a text). */
  guess: OperationMap;
}

const emptyMap = (): OperationMap => ({ fields: {}, convert: {}, values: {} });

/** What one walk of a body collects. */
class Walk {
  readonly fields: Record<string, Placement> = {};
  readonly values: Record<string, Record<string, ValueProposal>> = {};
  readonly toConfirm: ToConfirm[] = [];
  readonly unplaced: string[] = [];
  readonly unseen: string[] = [];
  readonly unused: string[] = [];
  readonly carried: Record<string, string[]> = {};
  readonly sure = emptyMap();
  readonly guess = emptyMap();
  /** The percentages and changes placed, by object: their unit is settled with their siblings' (`alignUnits`). */
  readonly units: Unit[] = [];

  constructor(
    readonly threshold: number,
    /** Values other operations hold for the resources the spec joins (`joins.ts`); empty on the first reading. */
    readonly known: Known = new Map(),
  ) {}

  /** A field's upstream name and conversion: into the map when sure, into the guess always. */
  mapField(path: string, name: string, from: string, convert: Conversion | undefined, sure: boolean): void {
    for (const map of this.mapsFor(sure)) if (fieldKey(from) !== fieldKey(name)) map.fields[path] = from;
    if (convert) this.mapConvert(path, convert, sure);
  }

  mapConvert(path: string, convert: Conversion, sure: boolean): void {
    for (const map of this.mapsFor(sure)) map.convert[path] = convert;
  }

  mapValue(path: string, value: string, to: string, sure: boolean): void {
    for (const map of this.mapsFor(sure)) (map.values[path] ??= {})[value] = to;
  }

  private mapsFor(sure: boolean): OperationMap[] {
    return sure ? [this.sure, this.guess] : [this.guess];
  }
}

/** The operation's part of the map, proposed from one upstream body (a JSON object). */
export function proposeOperation(zs: ZodSide, id: OperationId, body: Json, threshold: number, known?: Known): OperationProposal {
  const schema = zs.response(id);
  const shape = objectShape(schema) ?? {};
  const walk = new Walk(threshold, known);
  const envelope = findEnvelope(shape, body);
  if (envelope?.in_map && envelope.confidence < threshold)
    walk.toConfirm.push({ path: '', reason: `\`${envelope.at}\` holds a few of the contract's fields: is it the body?`, candidates: [{ from: envelope.at, confidence: envelope.confidence, by: 'structure' }] });
  const mapsEnvelope = envelope?.in_map === true;
  if (mapsEnvelope) {
    walk.guess.envelope = envelope.at;
    if (envelope.confidence >= threshold) walk.sure.envelope = envelope.at;
  }
  // What the envelope lacks is taken from beside it (`meta.generatedAt`), as conformBody does.
  const inside = unwrapEnvelope(shape, body, mapsEnvelope ? envelope.at : undefined) as Json;
  walkObject(shape, [inside], '', walk);
  const at = mapsEnvelope ? envelope.at : envelopeOf(shape, body);
  if (at !== undefined) besideEnvelope(shape, body, at.split('.')[0]!, walk);
  settleByEvidence(id, schema, body, walk);
  alignUnits(walk, (path, convert) => rulesKept(id, schema, body, walk, path, convert));
  confirmByRules(id, schema, body, walk);
  const check = checkResponseBody(zs, id, JSON.stringify(body), walk.sure);
  return {
    report: {
      envelope,
      fields: walk.fields,
      values: walk.values,
      to_confirm: walk.toConfirm,
      unplaced: walk.unplaced,
      unseen: walk.unseen,
      unused: walk.unused,
      carried: walk.carried,
      reads: check.ok ? { ok: true } : { ok: false, problem: check.message },
    },
    map: walk.sure,
    guess: walk.guess,
  };
}

/**
 * Top-level fields still unplaced, looked for beside the envelope (`{"data": {...}, "meta": {"asOf": ...}}`): in the
 * answer's other objects and its own fields. By name first; else the only value there that reads as the field's
 * form (a date-time or an epoch where the contract has a timestamp). The map names it by its path in the answer.
 */
function besideEnvelope(shape: Record<string, z.ZodType>, body: Json, envelope: string, walk: Walk): void {
  const places: [string, unknown][] = [];
  for (const [name, value] of Object.entries(body)) {
    if (name === envelope) continue;
    if (isObject(value)) for (const [inner, v] of Object.entries(value)) places.push([`${name}.${inner}`, v]);
    else places.push([name, value]);
  }
  for (const path of [...walk.unplaced]) {
    if (path.includes('.') || path.includes('[')) continue;
    const expected = expectedOf(shape[path]!);
    if (expected.kind === 'object' || expected.kind === 'array' || expected.kind === 'union') continue;
    const fitting = places.map(([from, v]) => ({ from, fit: fitOf(expected, [v]) })).filter((c) => c.fit.readings.length > 0 && c.fit.readings[0]!.confidence >= walk.threshold && formOf([pick(body, c.from)]) !== 'text');
    const named = fitting.filter((c) => compareNames(path, c.from.split('.').at(-1)!));
    const chosen = named.length === 1 ? { ...named[0]!, by: 'name' as const, confidence: NAME_GUESS } : fitting.length === 1 ? { ...fitting[0]!, by: 'form' as const, confidence: FORM_UNIQUE } : undefined;
    if (!chosen) continue;
    const convert = chosen.fit.readings[0]!.convert;
    walk.unplaced.splice(walk.unplaced.indexOf(path), 1);
    walk.mapField(path, path, chosen.from, convert, true);
    walk.fields[path] = { from: chosen.from, confidence: chosen.confidence, by: chosen.by, ...(convert ? { convert } : {}) };
  }
}

/** The value at a dotted path of the answer. */
const pick = (body: Json, path: string): unknown => path.split('.').reduce<unknown>((here, name) => (isObject(here) ? here[name] : undefined), body);

/** A candidate settled by the data: as sure as a name guess, and surer than any guess by type. */
const EVIDENCE = 0.9;

/**
 * Questions the data answers (src/contract/plausibility.ts): of a field's candidates, the one whose reading keeps a
 * rule that pins the field (the score that is naming over answered) while the others break it, or the only one,
 * is taken. Never the first of several that keep it: ties are broken by evidence, never by order.
 */
function settleByEvidence(id: OperationId, schema: z.ZodType, body: Json, walk: Walk): void {
  for (const item of [...walk.toConfirm]) {
    if (item.value !== undefined || item.path === '' || item.path.includes('[]')) continue;
    // A candidate that is only a reading (`convert`) reads the field the guess reads.
    const name = item.path.split('.').at(-1)!;
    const fromOf = (candidate: Candidate) => candidate.from ?? walk.guess.fields[item.path] ?? name;
    const keeping = item.candidates.filter((candidate) => {
      const map = { ...walk.guess, fields: { ...walk.guess.fields, [item.path]: fromOf(candidate) }, convert: { ...walk.guess.convert } };
      if (candidate.convert) map.convert[item.path] = candidate.convert;
      else delete map.convert[item.path];
      return keepsPinningRules(id, conformBody(schema, body, map), item.path);
    });
    if (keeping.length !== 1) continue;
    const chosen = keeping[0]!;
    walk.toConfirm.splice(walk.toConfirm.indexOf(item), 1);
    walk.mapField(item.path, name, fromOf(chosen), chosen.convert, true);
    if (!chosen.convert) delete walk.guess.convert[item.path];
    walk.fields[item.path] = { from: fromOf(chosen), confidence: EVIDENCE, by: 'evidence', ...(chosen.convert ? { convert: chosen.convert } : {}) };
  }
}

/**
 * What the rules that fix `path` say of it read so (its guess, converted or not): `true` when they hold and would
 * break were it far off (evidence), `false` when one breaks, undefined when none fixes it or none can tell.
 */
function rulesKept(id: OperationId, schema: z.ZodType, body: Json, walk: Walk, path: string, convert: Conversion | undefined): boolean | undefined {
  const rules = RULES.filter((rule) => rule.reads[id] && rule.pins?.includes(path));
  if (rules.length === 0) return undefined;
  const map = { ...walk.guess, convert: { ...walk.guess.convert } };
  if (convert) map.convert[path] = convert;
  else delete map.convert[path];
  const read = conformBody(schema, body, map);
  if (violationsOf(id, read).some((v) => rules.some((rule) => rule.id === v.rule) && v.fields.includes(path))) return false;
  return keepsPinningRules(id, read, path) ? true : undefined;
}

/** Ways of placing a field that the rules may confirm or overturn: every way but a name. */
const CONFIRMABLE: ReadonlySet<Placement['by']> = new Set(['form', 'type', 'structure', 'abbreviation', 'join']);

/**
 * A field placed by its form (or another guess) that a rule fixes: kept by the rule, it is placed by evidence; broken,
 * it leaves the map for a person, with the rule's words. A guess never stands against the spec's relations.
 */
function confirmByRules(id: OperationId, schema: z.ZodType, body: Json, walk: Walk): void {
  const read = conformBody(schema, body, walk.sure);
  const broken = violationsOf(id, read);
  for (const [path, placed] of Object.entries(walk.fields)) {
    if (!CONFIRMABLE.has(placed.by)) continue;
    const rules = RULES.filter((rule) => rule.reads[id] && rule.pins?.includes(path));
    if (rules.length === 0) continue;
    const against = broken.find((v) => rules.some((rule) => rule.id === v.rule) && v.fields.includes(path));
    if (against) {
      delete walk.fields[path];
      delete walk.sure.fields[path];
      delete walk.sure.convert[path];
      walk.toConfirm.push({ path, reason: `read from \`${placed.from}\` it breaks a rule: ${against.message}`, candidates: [{ from: placed.from, ...(placed.convert ? { convert: placed.convert } : {}), confidence: AMBIGUOUS, by: placed.by }] });
    } else if (keepsPinningRules(id, read, path)) walk.fields[path] = { ...placed, confidence: EVIDENCE, by: 'evidence' };
  }
}

/** The child object that is the body, when one holds more of the contract's top fields (by any name) than the top object does. */
function findEnvelope(shape: Record<string, z.ZodType>, body: Json): OperationRead['envelope'] {
  const names = Object.keys(shape);
  const held = (value: Json) => names.filter((name) => Object.keys(value).some((key) => compareNames(name, key))).length;
  let best: { at: string; count: number } | undefined;
  const top = held(body);
  for (const [at, child] of Object.entries(body)) if (isObject(child) && held(child) > (best?.count ?? top)) best = { at, count: held(child) };
  if (!best) return null;
  return { at: best.at, confidence: best.count * 2 > names.length ? ENVELOPE_CLEAR : ENVELOPE_UNSURE, in_map: envelopeOf(shape, body) !== best.at };
}

/** Walks the upstream values found for a contract path (every item's, across arrays) against the contract's schema there. */
function walkValue(schema: z.ZodType, values: readonly unknown[], path: string, walk: Walk): void {
  const expected = expectedOf(schema);
  const seen = present(values);
  switch (expected.kind) {
    case 'object': {
      const objects = seen.filter(isObject);
      if (objects.length === 0) walk.unseen.push(path);
      else walkObject(expected.shape, objects, path, walk);
      return;
    }
    case 'array': {
      const items = seen.filter(Array.isArray).flat().slice(0, MAX_SAMPLES);
      const itemPath = `${path}[]`;
      if (items.length === 0) walk.unseen.push(itemPath);
      else if (isLeaf(expectedOf(expected.element))) walkItems(expected.element, items, itemPath, walk);
      else walkValue(expected.element, items, itemPath, walk);
      return;
    }
    case 'union':
      return walkValue(chooseOption(expected.options, seen), seen, path, walk);
    case 'enum':
      return proposeValues(expected, seen, path, walk);
    default:
      // A leaf of an object: its conversion was decided with its field.
      return;
  }
}

const isLeaf = (expected: Expected) => expected.kind === 'number' || expected.kind === 'scalar' || expected.kind === 'enum';

/** An array's scalar items (`engines[]`, `steps[]`): their conversion, and their values if an enumeration. */
function walkItems(element: z.ZodType, items: unknown[], path: string, walk: Walk): void {
  const expected = expectedOf(element);
  if (expected.kind === 'enum') return proposeValues(expected, items, path, walk);
  const fit = fitOf(expected, items);
  const [best, second] = fit.readings;
  if (!best?.convert) return;
  if (best.confidence >= walk.threshold && second?.confidence !== best.confidence) walk.mapConvert(path, best.convert, true);
  else walk.toConfirm.push({ path, reason: fit.reason ?? 'the items read only converted', candidates: fit.readings.map((r) => ({ ...r, by: 'type' as const })) });
}

/** A contract field and an upstream field that may stand for it. */
interface Pair {
  name: string;
  key: string;
  by: Placement['by'];
  /** The ways to read its values, each with the pair's confidence; best first. */
  readings: Reading[];
  confidence: number;
  reason?: string;
}

function walkObject(shape: Record<string, z.ZodType>, objects: Json[], path: string, walk: Walk): void {
  const samples = objects.slice(0, MAX_SAMPLES);
  const keys = [...new Set(samples.flatMap((o) => Object.keys(o)))];
  const valuesOf = (key: string) => samples.map((o) => o[key]);
  const expected = Object.fromEntries(Object.entries(shape).map(([name, schema]) => [name, expectedOf(schema)]));

  const byName: Pair[] = [];
  for (const name of Object.keys(shape))
    for (const key of keys) {
      const match = compareNames(name, key, entityOf(path));
      if (match) byName.push(pairOf(name, key, match.by, match.confidence, expected[name]!, valuesOf(key)));
    }
  // A name whose values name another resource than the field's (a topic's id under a question's name) is no candidate.
  const chosen = choose(byName.filter((pair) => joinOf(walk, pathOf(path, pair.name), valuesOf(pair.key)) !== false));
  // Values joined across operations: the one free field whose values are all that resource's.
  for (const [name, pair] of byJoin(Object.keys(shape).filter((name) => !chosen.has(name) || chosen.get(name)![0]!.confidence < walk.threshold), keys, path, expected, valuesOf, walk, chosen)) {
    // A weaker name that read the same field gives it up.
    for (const [other, pairs] of chosen) if (other !== name && pairs[0]?.key === pair.key) chosen.delete(other);
    chosen.set(name, [pair]);
  }
  const named = new Set([...chosen.values()].flat().map((p) => p.key));
  // An object written flat in this one (`MarketId`, `MarketCode` for `market`) before any guess by type takes its fields.
  const flat = flatObjects(Object.keys(shape).filter((name) => !chosen.has(name)), keys.filter((key) => !named.has(key)), expected, valuesOf);
  const flatKeys = [...flat.values()].flatMap((f) => f.pairs.map((p) => p.key));
  const left = Object.keys(shape).filter((name) => !chosen.has(name) && !flat.has(name));
  for (const [name, pairs] of byShape(left, keys.filter((key) => !named.has(key) && !flatKeys.includes(key)), expected, valuesOf)) chosen.set(name, pairs);
  const keysOf = () => new Set([...[...chosen.values()].flat().map((p) => p.key), ...flatKeys]);

  const units = walk.units;
  for (const name of Object.keys(shape)) {
    const fieldPath = pathOf(path, name);
    const flatObject = flat.get(name);
    if (flatObject) {
      placeFlat(walk, fieldPath, name, flatObject, expected[name]!);
      continue;
    }
    const pairs = chosen.get(name);
    if (!pairs) {
      walk.unplaced.push(fieldPath);
      continue;
    }
    const best = pairs[0]!;
    const readings = pairs.flatMap((p) => p.readings.map((r) => ({ pair: p, reading: r })));
    const tie = readings.length > 1 && readings[1]!.reading.confidence === readings[0]!.reading.confidence;
    const sure = !tie && best.confidence >= walk.threshold;
    const reading = best.readings[0]!;
    walk.mapField(fieldPath, name, best.key, reading.convert, sure);
    if (sure) walk.fields[fieldPath] = { from: best.key, confidence: best.confidence, by: best.by, ...(reading.convert ? { convert: reading.convert } : {}) };
    else
      walk.toConfirm.push({
        path: fieldPath,
        reason: tie ? `two readings as likely as each other${best.reason ? `: ${best.reason}` : ''}` : (best.reason ?? `a guess by ${best.by}`),
        candidates: readings.slice(0, 3).map(({ pair, reading: r }): Candidate => ({ from: pair.key, ...(r.convert ? { convert: r.convert } : {}), confidence: r.confidence, by: pair.by })),
      });
    const field = expected[name]!;
    if (field.kind === 'number' && (field.percent || field.change)) units.push({ parent: path, path: fieldPath, name, change: field.change, convert: reading.convert, sure, values: valuesOf(best.key) });
    // What lies under a field to confirm is proposed as if it were confirmed: confirming it then needs one entry.
    walkValue(shape[name]!, valuesOf(best.key), fieldPath, walk);
  }
  const used = keysOf();
  for (const key of keys) if (!used.has(key)) walk.unused.push(pathOf(path, key));
}

/** A percentage or a change of one, as placed in an object: the unit its siblings share. */
interface Unit {
  /** The object's path: the siblings share it. */
  parent: string;
  path: string;
  name: string;
  change: boolean;
  convert: Conversion | undefined;
  sure: boolean;
  values: unknown[];
}

/** Conversions that say a unit: a share from 0 to 1, basis points, text with a % sign. */
const UNIT_CONVERSIONS: readonly Conversion[] = ['percent', 'basis-points', 'percent-text'];

/**
 * Fields of one object share a unit (a builder writes a topic's score and its change alike): once the rules have
 * settled what they can, a percentage or change read as points beside siblings read in one other unit is read in
 * that unit too, when its values convert (a change of 40 beside a score in basis points is 0.4 points; -0.063 beside
 * a share from 0 to 1 is -6.3). Where no sibling says a unit, the percentages together may: many different values
 * across them, all from 0 to 1, are shares. As sure as the siblings and the field are; a question otherwise.
 */
function alignUnits(walk: Walk, kept: (path: string, convert: Conversion | undefined) => boolean | undefined): void {
  const byParent = new Map<string, Unit[]>();
  for (const unit of walk.units) byParent.set(unit.parent, [...(byParent.get(unit.parent) ?? []), unit]);
  for (const units of byParent.values()) {
    const convertOf = (u: Unit) => walk.fields[u.path]?.convert ?? walk.guess.convert[u.path];
    const sayers = units.filter((u) => UNIT_CONVERSIONS.includes(convertOf(u)!));
    const said = [...new Set(sayers.map(convertOf))];
    const numbers = (u: Unit) => present(u.values).filter((v): v is number => typeof v === 'number');
    const placed = (u: Unit) => u.sure || walk.fields[u.path] !== undefined;
    let unit = said.length === 1 ? said[0]! : undefined;
    let sure = sayers.length > 0 && sayers.every(placed);
    if (said.length === 0) {
      const all = units.flatMap(numbers);
      if (all.length > 0 && all.every((v) => Math.abs(v) <= 1) && new Set(all.filter((v) => v !== 0)).size >= SHARE_EVIDENCE) [unit, sure] = ['percent', units.every(placed)];
    }
    if (!unit) continue;
    for (const u of units) {
      if (convertOf(u) !== undefined || numbers(u).length === 0 || numbers(u).length !== present(u.values).length) continue;
      const fits = numbers(u).every((v) => (unit === 'percent' ? Math.abs(v) <= 1 : unit === 'basis-points' ? Number.isInteger(v) && Math.abs(v) <= 10_000 : false));
      if (!fits) continue;
      // A rule that fixes the field decides between the siblings' unit and its own.
      const withUnit = kept(u.path, unit);
      if (withUnit === false) continue;
      const isSure = withUnit === true || (sure && placed(u));
      walk.mapConvert(u.path, unit, isSure);
      walk.toConfirm.splice(0, walk.toConfirm.length, ...walk.toConfirm.filter((item) => item.path !== u.path || item.value !== undefined));
      const field = walk.fields[u.path];
      if (isSure && field) field.convert = unit;
      else if (isSure) walk.fields[u.path] = { from: u.name, confidence: walk.threshold, by: 'name', convert: unit };
      else walk.toConfirm.push({ path: u.path, reason: `its siblings are read ${CONVERSIONS[unit]}: read it so too if it is (${numbers(u).slice(0, 3).join(', ')})`, candidates: [{ convert: unit, confidence: AMBIGUOUS, by: 'type' }, { confidence: AMBIGUOUS, by: 'type' }] });
    }
  }
}

/** A contract object found written flat in its parent: its fields' pairs, and how sure that is. */
interface FlatObject {
  pairs: Pair[];
  confidence: number;
}
/** Every field of the object found flat, each by name: nearly as sure as the names themselves. */
const FLAT_ALL = 0.9;

/**
 * Contract objects (`market`) nothing in this object stands for, whose fields are here under the object's name and
 * theirs (`MarketId`, `MarketCode`): the map reads them with `"market": "."`. Half of the fields or more, or none.
 */
function flatObjects(names: string[], keys: string[], expected: Record<string, Expected & { nullable: boolean }>, valuesOf: (key: string) => unknown[]): Map<string, FlatObject> {
  const found = new Map<string, FlatObject>();
  const taken = new Set<string>();
  for (const name of names) {
    const object = expected[name]!;
    if (object.kind !== 'object') continue;
    const pairs: Pair[] = [];
    for (const [inner, schema] of Object.entries(object.shape)) {
      for (const key of keys) {
        const match = taken.has(key) ? undefined : compareNames(`${name}_${inner}`, key);
        if (!match) continue;
        const pair = pairOf(inner, key, match.by, match.confidence, expectedOf(schema), valuesOf(key));
        if (pair.reason && pair.confidence < match.confidence) continue;
        pairs.push(pair);
        break;
      }
    }
    const share = pairs.length / Object.keys(object.shape).length;
    if (pairs.length === 0 || share < 0.5) continue;
    for (const p of pairs) taken.add(p.key);
    found.set(name, { pairs, confidence: hundredths(share === 1 ? Math.min(FLAT_ALL, ...pairs.map((p) => p.confidence)) : AMBIGUOUS) });
  }
  return found;
}

/** A flat object into the walk: `"."` for it, its fields by their flat names; a question when not every field was found. */
function placeFlat(walk: Walk, path: string, name: string, flat: FlatObject, expected: Expected): void {
  const sure = flat.confidence >= walk.threshold;
  walk.mapField(path, name, '.', undefined, sure);
  if (sure) walk.fields[path] = { from: '.', confidence: flat.confidence, by: 'flat' };
  else walk.toConfirm.push({ path, reason: `its fields are written flat beside it (${flat.pairs.map((p) => `\`${p.key}\``).join(', ')}), but not all of them`, candidates: [{ from: '.', confidence: flat.confidence, by: 'flat' }] });
  for (const pair of flat.pairs) {
    const reading = pair.readings[0]!;
    walk.mapField(`${path}.${pair.name}`, pair.name, pair.key, reading.convert, sure);
    if (sure) walk.fields[`${path}.${pair.name}`] = { from: pair.key, confidence: flat.confidence, by: 'flat', ...(reading.convert ? { convert: reading.convert } : {}) };
  }
  const inner = expected.kind === 'object' ? Object.keys(expected.shape) : [];
  for (const field of inner) if (!flat.pairs.some((p) => p.name === field)) walk.unplaced.push(`${path}.${field}`);
}

/** Whether a field's values join the resource its contract path names (`joins.ts`); undefined when nothing tells. */
function joinOf(walk: Walk, path: string, values: unknown[]): boolean | undefined {
  const domain = domainOf(path);
  return domain ? joins(walk.known, domain, values) : undefined;
}

/** A field placed by the values it shares with another operation: as sure as a name, and read before any guess by type. */
const JOIN = 0.9;

/** Of the fields no name placed surely, those whose values join their resource through exactly one free field. */
function byJoin(names: string[], keys: string[], path: string, expected: Record<string, Expected & { nullable: boolean }>, valuesOf: (key: string) => unknown[], walk: Walk, chosen: Map<string, Pair[]>): Map<string, Pair> {
  const found = new Map<string, Pair>();
  const taken = new Set([...chosen.entries()].filter(([name, pairs]) => !names.includes(name) && pairs[0]).map(([, pairs]) => pairs[0]!.key));
  for (const name of names) {
    const fieldPath = pathOf(path, name);
    if (!domainOf(fieldPath)) continue;
    const joined = keys.filter((key) => !taken.has(key) && joinOf(walk, fieldPath, valuesOf(key)) === true && fitOf(expected[name]!, valuesOf(key)).readings.length > 0);
    if (joined.length !== 1) continue;
    const key = joined[0]!;
    found.set(name, { ...pairOf(name, key, 'join', JOIN, expected[name]!, valuesOf(key)), reason: `its values are those other operations hold for ${domainWords(fieldPath)}` });
    taken.add(key);
  }
  return found;
}

const domainWords = (path: string) => `the ${domainOf(path)!.replace('_', ' ')}`;

/** A pair weighed by how its values read: a name whose values do not read as the contract's is a candidate only. */
function pairOf(name: string, key: string, by: Placement['by'], nameConfidence: number, expected: Expected & { nullable: boolean }, values: unknown[]): Pair {
  const fit = fitOf(expected, values);
  if (fit.readings.length === 0) {
    const confidence = nameConfidence * MISFIT_FACTOR;
    return { name, key, by, readings: [{ confidence }], confidence, ...(fit.reason ? { reason: fit.reason } : {}) };
  }
  const readings = fit.readings.map((r) => ({ ...r, confidence: Math.min(nameConfidence, r.confidence) }));
  return { name, key, by, readings, confidence: readings[0]!.confidence, ...(fit.reason ? { reason: fit.reason } : {}) };
}

/**
 * The pairs by names: best first, each contract field and each upstream
 * field used once. Pairs as good as the best that share its field or its key
 * make it a question: all of them are kept as that field's candidates.
 */
function choose(pairs: Pair[]): Map<string, Pair[]> {
  const chosen = new Map<string, Pair[]>();
  const usedKeys = new Set<string>();
  const sorted = [...pairs].sort((a, b) => b.confidence - a.confidence);
  for (const pair of sorted) {
    if (chosen.has(pair.name) || usedKeys.has(pair.key)) continue;
    const open = (p: Pair) => !chosen.has(p.name) && !usedKeys.has(p.key);
    const rivals = sorted.filter((p) => p !== pair && open(p) && p.confidence === pair.confidence && (p.name === pair.name || p.key === pair.key));
    const question = (p: Pair) => (rivals.length > 0 ? capped(p, AMBIGUOUS) : p);
    const lower = sorted.filter((p) => p.name === pair.name && p.confidence < pair.confidence && open(p));
    chosen.set(pair.name, [pair, ...rivals.filter((p) => p.name === pair.name), ...lower].map(question));
    for (const p of [pair, ...rivals]) usedKeys.add(p.key);
    // A key two fields may read: the other field is a question too, with that key as its candidate.
    for (const p of rivals) if (p.name !== pair.name && !chosen.has(p.name)) chosen.set(p.name, [question(p)]);
  }
  return chosen;
}

/** A pair no surer than `max`, its readings too. */
const capped = (pair: Pair, max: number): Pair => ({ ...pair, confidence: Math.min(pair.confidence, max), readings: pair.readings.map((r) => ({ ...r, confidence: Math.min(r.confidence, max) })) });

/** Fields no name placed, by what their values are: an object's contents, or only its type. */
function byShape(names: string[], keys: string[], expected: Record<string, Expected & { nullable: boolean }>, valuesOf: (key: string) => unknown[]): Map<string, Pair[]> {
  const found = new Map<string, Pair[]>();
  const taken = new Set<string>();
  const fits = (name: string, key: string) => present(valuesOf(key)).length > 0 && fitOf(expected[name]!, valuesOf(key)).readings.length > 0;
  for (const name of names) {
    const inner = innerShape(expected[name]!);
    const options = keys.filter((key) => !taken.has(key) && fits(name, key));
    if (options.length === 0) continue;
    let pairs: Pair[];
    if (inner) {
      const scored = options.map((key) => ({ key, overlap: overlap(inner, valuesOf(key)) })).filter((o) => o.overlap > 0).sort((a, b) => b.overlap - a.overlap);
      if (scored.length === 0) continue;
      const close = scored.length > 1 && scored[0]!.overlap - scored[1]!.overlap < 0.2;
      pairs = scored.slice(0, 3).map(({ key, overlap: o }) => ({
        ...pairOf(name, key, 'structure', close ? AMBIGUOUS : hundredths(STRUCTURE_BASE + STRUCTURE_WEIGHT * o), expected[name]!, valuesOf(key)),
        reason: `no name relates them; \`${key}\` holds ${Math.round(o * 100)}% of its fields by name${close ? ', and another field nearly as many' : ''}`,
      }));
    } else {
      const unique = options.length === 1 && names.filter((other) => fits(other, options[0]!)).length === 1;
      pairs = options.slice(0, 3).map((key) => ({
        ...pairOf(name, key, unique ? 'form' : 'type', unique ? FORM_UNIQUE : TYPE_GUESS, expected[name]!, valuesOf(key)),
        reason: unique ? `no name relates them; \`${key}\` is the only field left whose values read as its` : 'no name relates them; several fields left have values that read as its',
      }));
    }
    found.set(name, pairs);
    taken.add(pairs[0]!.key);
  }
  return found;
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

/** The share of the contract object's fields that upstream objects hold under some name the names table relates. */
function overlap(shape: Record<string, z.ZodType>, values: unknown[]): number {
  const objects = present(values).flatMap((v) => (Array.isArray(v) ? v : [v])).filter(isObject).slice(0, MAX_SAMPLES);
  const keys = new Set(objects.flatMap((o) => Object.keys(o)));
  const names = Object.keys(shape);
  return names.filter((name) => [...keys].some((key) => compareNames(name, key))).length / names.length;
}

/** The option of a union the values fit best: by what parses, then by the fields they hold. */
function chooseOption(options: z.ZodType[], values: unknown[]): z.ZodType {
  let best = options[0]!;
  let bestScore = -1;
  for (const option of options) {
    const expected = expectedOf(option);
    const names = expected.kind === 'object' ? Object.keys(expected.shape) : [];
    const score = values.reduce<number>(
      (sum, value) => sum + (option.safeParse(value).success ? 1000 : 0) + (isObject(value) ? names.filter((name) => Object.keys(value).some((key) => fieldKey(key) === fieldKey(name))).length : 0),
      0,
    );
    if (score > bestScore) [best, bestScore] = [option, score];
  }
  return best;
}

/** An enumeration's upstream values that are not the contract's: mapped when sure, carried when open, asked otherwise. */
function proposeValues(expected: Extract<Expected, { kind: 'enum' }>, values: readonly unknown[], path: string, walk: Walk): void {
  const distinct = [...new Set(values.filter((v): v is string => typeof v === 'string'))];
  const foreign = distinct.filter((v) => !expected.values.includes(v));
  const claimed = new Set(distinct.filter((v) => expected.values.includes(v)));
  const asked: { value: string; candidates: Candidate[] }[] = [];
  for (const value of foreign) {
    const candidates: Candidate[] = valueCandidates(expected.values, value, expected.open);
    const [best, second] = candidates;
    if (best && best.confidence >= walk.threshold && second?.confidence !== best.confidence) {
      walk.mapValue(path, value, best.to!, true);
      (walk.values[path] ??= {})[value] = { to: best.to!, confidence: best.confidence, by: best.by as ValueProposal['by'] };
      claimed.add(best.to!);
    } else if (expected.open && !best) (walk.carried[path] ??= []).push(value);
    else asked.push({ value, candidates });
  }
  // Nothing alike in a closed enumeration: the contract's values no other upstream value stands for are what it may be.
  const unclaimed = expected.values.filter((v) => !claimed.has(v));
  for (const { value, candidates } of asked) {
    const offered = candidates.length > 0 ? candidates : unclaimed.map((to): Candidate => ({ to, confidence: unclaimed.length === 1 && asked.length === 1 ? ELIMINATION_ONE : ELIMINATION_MANY, by: 'elimination' }));
    if (offered[0]) walk.mapValue(path, value, offered[0].to!, false);
    walk.toConfirm.push({
      path,
      value,
      reason: candidates[0] ? `\`${value}\` is only like the contract's \`${candidates[0].to}\`` : `the contract has no value like \`${value}\` (${expected.values.join(', ')})`,
      candidates: offered.slice(0, 3),
    });
  }
}
