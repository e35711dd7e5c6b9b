/**
 * One operation's part of the upstream map, proposed from one upstream body:
 * the operation's response schema is walked beside the body (the body's
 * envelope first), and at each object every contract field is given the
 * upstream field that stands for it. Evidence first, names to break ties
 * (the table of evidence is in README.md):
 *
 * 1. the same name in any case convention (read with no map);
 * 2. a name whose values name another resource than the field's is vetoed,
 *    and values joined across operations place what names did not
 *    (`joins.ts`, once every operation is read);
 * 3. a plural, a synonym, an entity prefix or an abbreviation (`names.ts`);
 * 4. an object written flat in its parent (`flat.ts`);
 * 5. among the fields still unplaced: an object or list holding most of the
 *    contract's fields (`structure`), or the only value of the field's form
 *    left on both sides (`form`, 0.8); several are a question (`type`, 0.3);
 * 6. the spec's relations settle questions, confirm or overturn guesses, and
 *    decide a unit (`rules.ts`, `units.ts`).
 * 7. last, a tie of texts on the same keys, by the names that resemble the
 *    contract's clearly best (`resemblance.ts`).
 *
 * Each guess is weighed by how its values read (`shapes.ts`: as they are, or
 * converted), and two guesses as good as each other are a question, not a
 * choice. Enumeration values are mapped by the spelling rules, by evidence
 * pooled over every operation (`values.ts`), and only then by names.
 */
import type * as z from 'zod';
import { checkResponseBody } from '../contract/body';
import { envelopeOf, fieldKey, isObject, objectShape, unwrapEnvelope } from '../contract/conform';
import type { OperationId } from '../contract/operations';
import type { ZodSide } from '../contract/zod-side';
import type { RuleContext } from '../contract/plausibility';
import type { OperationMap } from '../contract/schemas/upstream-map';
import { domainOf, JOIN, joins, type Known } from './joins';
import { compareNames, entityOf, type HouseWords, singular, wordsOf } from './names';
import { enumKey, enumPaths, type ValueHints } from './values';
import { proposeValues } from './propose-values';
import type { Candidate, OperationRead } from './report';
import { AMBIGUOUS, columnarOf, type Expected, expectedOf, fitOf, holdsNumber, holdsText, isKeyedList, sameFields, unitOf } from './shapes';
import { settleByResemblance } from './resemblance';
import { type FigureEvidence, overturnByFigures, settleByFigures, settleByPrecision } from './figures';
import { besideEnvelope, findEnvelope } from './envelope';
import { flatByShape, flatObjects, foldFlatQuestions, placeFlat, unsureFlatKeys } from './flat';
import { confirmByRules, EVIDENCE, rulesKept, settleByEvidence, settleGroups } from './rules';
import { placeLeftOver } from './taken';
import { foldPairs } from './pairs';
import { settleByRepeats } from './repeats';
import { settleByOrder } from './order';
import { alignUnits } from './units';
import { capped, type Json, KEY_FIELD, KEY_SHOWN, keyedItems, MAX_SAMPLES, type Pair, pairOf, pathOf, present, type Probed, type Vocabulary, Walk } from './walk';
import { byVocabulary, settleBesideExtras, VOCABULARY } from './vocabulary';
import { byShape, IDENTITY, LISTED, spellsAsOurs } from './by-shape';
import { alignWithMargins, FORCED } from './align';
import { keepProven } from './proven';

export interface OperationProposal {
  /** What the answer says of the operation (`OperationRead` without the read's own status, params and cache). */
  report: Omit<OperationRead, 'status' | 'params' | 'cache'>;
  /** The entries at or above the threshold: the operation's part of the proposed map (empty parts kept, as the stored map has them). */
  map: OperationMap;
  /** The map with the best candidate of every question taken too: how discovery reads values for later requests (an id, a text). */
  guess: OperationMap;
}

/** What discovery knows beyond one body: the values other operations hold, the enumeration values settled, and today. */
export interface Evidence {
  known?: Known;
  hints?: ValueHints;
  context?: RuleContext;
  /** The figures other answers settled for this one's fields (`figures.ts`). */
  figures?: readonly FigureEvidence[];
  /** The decimals the service writes its percentages in points with, once enough are seen (`figures.ts`). */
  precision?: number | undefined;
  /** The service's words for our fields, where they were placed surely in any answer (`vocabularyOf`). */
  vocabulary?: Vocabulary;
  /** Keys a probe proved (`probes.ts`), by contract path: the key of its object that took the value asked. */
  probed?: Probed;
  /** The service's words as the other answers taught them (`vocabularyOf` without this answer's placements). */
  wordsElsewhere?: Vocabulary;
  /** The service's words for ours, one word each, from every answer's sure placements (`houseWordsOf`). */
  houseWords?: HouseWords;
  extras?: ReadonlySet<string>;
}

export function proposeOperation(
  zs: ZodSide,
  id: OperationId,
  body: Json,
  threshold: number,
  { known, hints, context, figures = [], precision, vocabulary, probed, wordsElsewhere, houseWords, extras }: Evidence = {},
): OperationProposal {
  const schema = zs.response(id);
  const shape = objectShape(schema) ?? {};
  const walk = new Walk(threshold, known, hints, context, vocabulary, probed, wordsElsewhere, houseWords, extras);
  const envelope = findEnvelope(shape, body);
  if (envelope?.in_map && envelope.confidence < threshold)
    walk.toConfirm.push({
      path: '',
      reason: `\`${envelope.at}\` holds a few of the contract's fields: is it the body?`,
      candidates: [{ from: envelope.at, confidence: envelope.confidence, by: 'structure' }],
    });
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
  settleByFigures(schema, body, walk, figures);
  overturnByFigures(schema, body, walk, figures);
  settleByPrecision(schema, body, walk, precision);
  settleByOrder(id, schema, body, walk);
  settleByRepeats(id, schema, body, walk);
  // What the figures settled may let a rule judge a field it could not while they were in question.
  settleByEvidence(id, schema, body, walk);
  settleGroups(id, schema, body, walk);
  alignUnits(walk, (path, convert, from) => rulesKept(id, schema, body, walk, path, convert, from));
  confirmByRules(id, schema, body, walk);
  // What the rules put in doubt may be settled together again.
  settleGroups(id, schema, body, walk);
  placeLeftOver(walk, (path) => unitOf(schema, path));
  // Names last: a tie of texts, or of numbers read in the service's own words; never a field a join reads (an id).
  const narrowed = settleByResemblance(
    walk,
    (path) => domainOf(path) === undefined && holdsText(schema, path),
    (path) => domainOf(path) === undefined && holdsNumber(schema, path),
  );
  // A field tied with the service's extras alone is settled; the keys taken may leave a question beside them one key.
  settleBesideExtras(walk);
  placeLeftOver(walk, (path) => unitOf(schema, path), narrowed);
  confirmByRules(id, schema, body, walk);
  foldFlatQuestions(walk);
  foldPairs(walk);
  if (envelope) confirmEnvelope(shape, envelope, walk);
  rewalkSettled(shape, inside, walk);
  // Values the evidence settled anywhere (another operation, another brand) are this operation's too: one vocabulary per service.
  for (const [path, ours] of enumPaths(schema))
    for (const [value, hint] of walk.hints.get(enumKey(ours)) ?? []) if (walk.sure.values[path]?.[value] === undefined) walk.mapValue(path, value, hint.to, true);
  keepProven(walk);
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
 * An envelope in question (`payload` beside `meta`, holding few of the contract's names as they are) is the body
 * when, read as it, most of the contract's top fields were placed surely, by names, joins, forms or evidence.
 */
function confirmEnvelope(shape: Record<string, z.ZodType>, envelope: NonNullable<OperationRead['envelope']>, walk: Walk): void {
  const item = walk.toConfirm.find((i) => i.path === '' && i.value === undefined);
  if (!item || walk.guess.envelope !== envelope.at) return;
  const names = Object.keys(shape);
  const placed = names.filter((name) => walk.fields[name] !== undefined);
  if (placed.length * 2 <= names.length) return;
  walk.toConfirm.splice(walk.toConfirm.indexOf(item), 1);
  walk.sure.envelope = envelope.at;
  envelope.confidence = EVIDENCE;
}

/**
 * A top-level object or list the rules settled on another upstream field than the one it was walked under (two
 * windows told apart by the dates): what was proposed below it is dropped and proposed again under the field chosen.
 */
function rewalkSettled(shape: Record<string, z.ZodType>, inside: Json, walk: Walk): void {
  for (const [path, walkedKey] of walk.walked) {
    if (path.includes('.') || path.includes('[')) continue;
    const key = walk.guess.fields[path] ?? path;
    if (key === walkedKey || key === '.' || !(key in inside)) continue;
    const below = (at: string) => at.startsWith(`${path}.`) || at.startsWith(`${path}[]`);
    for (const map of [walk.sure, walk.guess])
      for (const part of [map.fields, map.convert, map.values, map.keyed ?? {}, map.columns ?? {}]) for (const at of Object.keys(part)) if (below(at)) delete part[at];
    for (const at of Object.keys(walk.fields)) if (below(at)) delete walk.fields[at];
    for (const list of [walk.toConfirm, walk.unplaced, walk.unseen, walk.unused] as unknown[][]) {
      const kept = list.filter((item) => !below(typeof item === 'string' ? item : (item as { path: string }).path));
      list.splice(0, list.length, ...kept);
    }
    walk.walked.set(path, key);
    walkValue(shape[path]!, [inside[key]], path, walk);
  }
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
      const tables = seen.length > 0 && !seen.some(Array.isArray) ? seen.map(columnarOf) : [];
      const columns = tables.length > 0 && tables.every((t) => t !== undefined && t.names === tables[0]!.names && t.rows === tables[0]!.rows) ? tables[0] : undefined;
      const keyed = !columns && seen.length > 0 && !seen.some(Array.isArray) && seen.every(isKeyedList);
      // Each keyed item with its key beside its fields, so the key is placed like any field, by the same evidence.
      const items = (columns ? tables.flatMap((t) => t!.items) : keyed ? seen.flatMap((list) => keyedItems(list as Json)) : seen.filter(Array.isArray).flat()).slice(0, MAX_SAMPLES);
      // Columns and rows are plain once found: as sure as the list's own place.
      if (columns) walk.mapColumns(path, columns, walk.fields[path] !== undefined || path === '');
      const itemPath = `${path}[]`;
      if (items.length === 0) walk.unseen.push(itemPath);
      else if (isLeaf(expectedOf(expected.element))) walkItems(expected.element, items, itemPath, walk);
      else walkValue(expected.element, items, itemPath, walk);
      // An empty object holds no key to place: like an empty list, nothing to judge by (`unseen`).
      if (keyed && items.length > 0) {
        const item = expectedOf(expected.element);
        placeKey(path, itemPath, walk, item.kind === 'object' ? Object.keys(item.shape).filter((f) => IDENTITY.has(f)) : []);
      }
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

/** The item field the keys of a list written as an object fill: `keyed` in the map, as sure as that field's placement. */
function placeKey(path: string, itemPath: string, walk: Walk, identity: readonly string[]): void {
  const prefix = `${itemPath}.`;
  const field = Object.entries(walk.guess.fields).find(([at, from]) => at.startsWith(prefix) && !at.slice(prefix.length).includes('.') && from === KEY_FIELD)?.[0];
  walk.unused.splice(0, walk.unused.length, ...walk.unused.filter((at) => at !== `${itemPath}.${KEY_FIELD}`));
  if (!field) {
    // No field of the items is its keys', and the items name themselves (their name or id is inside them): the key
    // is a value the contract does not hold (a rival keyed by its domain), kept beside each item.
    const named = identity.filter((f) => walk.fields[`${prefix}${f}`] !== undefined);
    if (named.length > 0) {
      walk.mapKeyed(path, { extra: 'key' }, walk.fields[path] !== undefined);
      return;
    }
    walk.toConfirm.push({ path, reason: 'a list written as an object: which field of its items do its keys hold?', candidates: [] });
    return;
  }
  const name = field.slice(prefix.length);
  const placed = walk.fields[field];
  for (const map of [walk.sure, walk.guess]) delete map.fields[field];
  walk.mapKeyed(path, name, placed !== undefined);
  if (placed) walk.fields[field] = { ...placed, from: KEY_SHOWN };
  for (const item of walk.toConfirm) for (const candidate of item.candidates) if (candidate.from === KEY_FIELD) candidate.from = KEY_SHOWN;
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
  byName.push(...byVocabulary(Object.keys(shape), keys, byName, walk, (name, key) => pairOf(name, key, 'vocabulary', VOCABULARY, expected[name]!, valuesOf(key))));
  // A key a probe proved: the one that took what its request predicts, read with the values it took too.
  for (const name of Object.keys(shape)) {
    const proven = walk.probed.get(pathOf(path, name));
    if (proven !== undefined && keys.includes(proven.key))
      byName.push({
        ...pairOf(name, proven.key, 'evidence', EVIDENCE, expected[name]!, [...valuesOf(proven.key), ...proven.seen]),
        reason: 'a probe: the only field that took what its request predicts',
      });
  }
  // A name whose values name another resource than the field's (a topic's id under a question's name) is no candidate;
  // nor, for an enumeration, one whose values spell as none of ours where another's do (`MODE` beside `ENG` for engines).
  // For an open one (an engine), any field of the object whose values spell as ours says so: `mode` (a word of `model`)
  // is no engine beside a `provider` holding `chatgpt` and `gemini`.
  const spelledFor = (name: string) =>
    byName.some((p) => p.name === name && spellsAsOurs(expected[name]!, valuesOf(p.key))) ||
    (expected[name]!.kind === 'enum' && expected[name]!.open === true && keys.some((key) => spellsAsOurs(expected[name]!, valuesOf(key)) === true));
  const chosen = choose(
    byName.filter((pair) => joinOf(walk, pathOf(path, pair.name), valuesOf(pair.key)) !== false && (spellsAsOurs(expected[pair.name]!, valuesOf(pair.key)) !== false || !spelledFor(pair.name))),
  );
  // Values joined across operations: the one free field whose values are all that resource's.
  // A field the service's word placed is joined too: the join is the evidence that teaches the word in the next round.
  for (const [name, pair] of byJoin(
    Object.keys(shape).filter((name) => !chosen.has(name) || chosen.get(name)![0]!.confidence < walk.threshold || chosen.get(name)![0]!.by === 'vocabulary'),
    keys,
    path,
    expected,
    valuesOf,
    walk,
    chosen,
  )) {
    // A weaker name that read the same field gives it up.
    for (const [other, pairs] of chosen) if (other !== name && pairs[0]?.key === pair.key) chosen.delete(other);
    chosen.set(name, [pair]);
  }
  // The keys names took: each field's best, and those as good as it (a question between them); a weaker name's key
  // (`TrendPts`, a word of `history`'s, where `History` is) stays free for the evidence to place.
  // A name whose values do not read as the field's at all (`TrendPts`, text, for the history) holds neither: its field
  // is placed by its form if one fits, and its key is free for another.
  const misfit = (name: string) => chosen.get(name)?.every((p) => p.misfit) === true;
  const named = new Set([...chosen.values()].flatMap((pairs) => pairs.filter((p) => !p.misfit && p.confidence >= pairs[0]!.confidence)).map((p) => p.key));
  // An object written flat in this one (`MarketId`, `MarketCode` for `market`) before any guess by type takes its fields.
  const flat = flatObjects(
    Object.keys(shape).filter((name) => !chosen.has(name)),
    keys.filter((key) => !named.has(key)),
    expected,
    valuesOf,
    (object, field, key) => joinOf(walk, pathOf(pathOf(path, object), field), valuesOf(key)) === true,
    walk.houseWords,
  );
  const flatKeys = [...flat.values()].flatMap((f) => f.pairs.map((p) => p.key));
  let left = Object.keys(shape).filter((name) => (!chosen.has(name) || misfit(name)) && !flat.has(name));
  const free = keys.filter((key) => !named.has(key) && !flatKeys.includes(key));
  // The fields left and the keys left aligned all at once, by shape: an object or list goes only where that puts it.
  const leftShape = Object.fromEntries(left.map((name) => [name, shape[name]!]));
  const alignment = alignWithMargins(
    leftShape,
    samples.map((o) => Object.fromEntries(free.filter((key) => Object.hasOwn(o, key)).map((key) => [key, o[key]]))),
  );
  // An object the shape reads written flat here, that no name found so: a question (which of the fields of its form
  // are its is told by names or values, never by the form alone), unless each of its fields joins its resource
  // through its key alone (a market's id and code, those `/markets` lists): the values prove it.
  for (const [name, aligned] of alignment.flat) {
    const at = pathOf(path, name);
    const joins = (field: string, key: string) => (domainOf(pathOf(at, field)) === undefined ? undefined : joinOf(walk, pathOf(at, field), valuesOf(key)));
    const twin = Object.keys(shape).some((other) => other !== name && sameFields(expected[other], expected[name]));
    const found = flatByShape(aligned, (expected[name] as { shape: Record<string, z.ZodType> }).shape, free, { joins, words: twin ? new Map() : walk.wordsElsewhere }, valuesOf);
    flat.set(name, found);
    if (found.confidence >= walk.threshold) flatKeys.push(...found.pairs.map((p) => p.key));
  }
  // A question's keys stay free: a guess takes nothing from the others, so no field is the only one left of its form by it.
  left = left.filter((name) => !flat.has(name));
  // A pair another way nearly as good would take is no proof: its field is a question between the two.
  const aligned = new Map(
    [...alignment.pairs].map(([name, key]) => {
      const second = alignment.second.get(name);
      return [name, new Set((alignment.margins.get(name) ?? 0) >= FORCED || second === undefined ? [key] : [key, second])] as const;
    }),
  );
  for (const [name, pairs] of byShape(
    left,
    free.filter((key) => !flatKeys.includes(key)),
    expected,
    valuesOf,
    aligned,
  ))
    chosen.set(name, pairs);
  // Every key a field or a flat object's field took, sure or asked (the sure flat keys among them): none of them is unused.
  const keysOf = () => new Set([...[...chosen.values()].flat().map((p) => p.key), ...[...flat.values()].flatMap((f) => f.pairs.map((p) => p.key))]);

  const units = walk.units;
  const unsureKeys = unsureFlatKeys(flat, expected, walk.threshold);
  for (const name of Object.keys(shape)) {
    const fieldPath = pathOf(path, name);
    const flatObject = flat.get(name);
    if (flatObject) {
      placeFlat(walk, fieldPath, name, flatObject, expected[name]!, unsureKeys);
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
    else {
      if (readings.length > LISTED || pairs.some((p) => p.crowded)) walk.crowded.add(fieldPath);
      walk.toConfirm.push({
        path: fieldPath,
        reason: tie ? `two readings as likely as each other${best.reason ? `: ${best.reason}` : ''}` : (best.reason ?? `a guess by ${best.by}`),
        candidates: readings.slice(0, LISTED).map(({ pair, reading: r }): Candidate => ({ from: pair.key, ...(r.convert ? { convert: r.convert } : {}), confidence: r.confidence, by: pair.by })),
      });
    }
    const field = expected[name]!;
    if (field.kind === 'number' && (field.percent || field.change))
      units.push({ parent: path, path: fieldPath, name, key: best.key, change: field.change, convert: reading.convert, sure, values: valuesOf(best.key) });
    // What lies under a field to confirm is proposed as if it were confirmed: confirming it then needs one entry.
    walk.walked.set(fieldPath, best.key);
    walkValue(shape[name]!, valuesOf(best.key), fieldPath, walk);
  }
  const used = keysOf();
  for (const key of keys) if (!used.has(key)) walk.unused.push(pathOf(path, key));
}

/** Whether a field's values join the resource its contract path names (`joins.ts`); undefined when nothing tells. */
function joinOf(walk: Walk, path: string, values: unknown[]): boolean | undefined {
  const domain = domainOf(path);
  return domain ? joins(walk.known, domain, values) : undefined;
}

/** Of the fields no name placed surely, those whose values join their resource through exactly one free field. */
function byJoin(
  names: string[],
  keys: string[],
  path: string,
  expected: Record<string, Expected & { nullable: boolean }>,
  valuesOf: (key: string) => unknown[],
  walk: Walk,
  chosen: Map<string, Pair[]>,
): Map<string, Pair> {
  const found = new Map<string, Pair>();
  const taken = new Set([...chosen.entries()].filter(([name, pairs]) => !names.includes(name) && pairs[0]).map(([, pairs]) => pairs[0]!.key));
  for (const name of names) {
    const fieldPath = pathOf(path, name);
    if (!domainOf(fieldPath)) continue;
    const joined = keys.filter((key) => !taken.has(key) && joinOf(walk, fieldPath, valuesOf(key)) === true && fitOf(expected[name]!, valuesOf(key)).readings.length > 0);
    const [key, named] = joined.length === 1 ? [joined[0]!, ''] : namesBreakTie(name, joined, walk);
    if (key === undefined) continue;
    found.set(name, { ...pairOf(name, key, 'join', JOIN, expected[name]!, valuesOf(key)), reason: `its values are those other operations hold for ${domainWords(fieldPath)}${named}` });
    taken.add(key);
  }
  return found;
}

/**
 * Names break what evidence leaves: of several fields whose values all join (a brand id of 1 beside a count of 1),
 * the one the service calls the field elsewhere, or else the one sharing a word with the field's name
 * (`BRAND_REF` for `brand_id`, beside `REGION`). None or several, the join settles nothing.
 */
function namesBreakTie(name: string, joined: readonly string[], walk: Walk): [string | undefined, string] {
  const called = joined.filter((key) => walk.vocabulary.get(key) === name);
  if (called.length === 1) return [called[0], `, and the service calls \`${name}\` \`${called[0]}\` elsewhere`];
  const words = new Set(wordsOf(name).map(singular));
  const sharing = joined.filter((key) => wordsOf(key).some((word) => words.has(singular(word))));
  if (sharing.length === 1) return [sharing[0], `; of the ${joined.length} fields that hold them, only \`${sharing[0]}\` shares a word with \`${name}\``];
  return [undefined, ''];
}

const domainWords = (path: string) => `the ${domainOf(path)!.replace('_', ' ')}`;

/**
 * The pairs by names: best first, each contract field and each upstream field used once. Pairs as good as the best
 * that share its field or its key make it a question: all of them are kept as that field's candidates.
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
