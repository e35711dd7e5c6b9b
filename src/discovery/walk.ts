/**
 * What one walk of a body collects (`Walk`): each field's placement, the
 * questions for a person, the map proposed surely and the best guess; and
 * the pairs of a contract field and an upstream field that may stand for
 * it, weighed by how its values read. Shared by the passes of `propose.ts`.
 */
import { fieldKey } from '../contract/conform';
import type { OperationMap } from '../contract/schemas/upstream-map';
import type { Conversion } from '../contract/upstream-map';
import type { Known } from './joins';
import type { HouseWords } from './names';
import type { Placement, ToConfirm, ValueProposal } from './report';
import { type Expected, fitOf, type Reading } from './shapes';
import type { ValueHints } from './values';
import type { RuleContext } from '../contract/plausibility';

export type Json = Record<string, unknown>;

/** The service's own words (`vocabulary.ts`): upstream key to the one contract field name it stands for wherever it was placed surely. */
export type Vocabulary = ReadonlyMap<string, string>;

/** Values kept per path: enough to tell shares from percentages and to see an enumeration's values, bounded for long lists. */
export const MAX_SAMPLES = 200;

/** A name that matches but whose values do not read as the contract's: a candidate only. */
export const MISFIT_FACTOR = 0.5;

export const present = (values: readonly unknown[]) => values.filter((v) => v !== null && v !== undefined);

export const pathOf = (parent: string, name: string) => (parent ? `${parent}.${name}` : name);

/** Confidences are shown to a person: two decimals say all there is. */
export const hundredths = (x: number) => Math.round(x * 100) / 100;

export const emptyMap = (): OperationMap => ({ fields: {}, convert: {}, values: {} });

/** What one walk of a body collects. */
/** Keys a probe proved, by contract path, with the values the probe's answer held there (a day over 12 shows a date's order). */
export type Probed = ReadonlyMap<string, { key: string; seen: readonly unknown[] }>;

export class Walk {
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
  /** The upstream field each contract object or list was walked under: what lies below it is relative to it. */
  readonly walked = new Map<string, string>();
  /** Questions with more candidates than they list: what is left of them once others took theirs is not known. */
  readonly crowded = new Set<string>();

  constructor(
    readonly threshold: number,
    /** Values other operations hold for the resources the spec joins (`joins.ts`); empty on the first reading. */
    readonly known: Known = new Map(),
    /** Enumeration values the evidence of every operation settled (`values.ts`); none on the first reading. */
    readonly hints: ValueHints = new Map(),
    /** What the rules read beyond the body: today's date, for the fixed windows. */
    readonly context: RuleContext = {},
    /** The service's own words: a key placed surely elsewhere, by the one contract name it stands for (`vocabularyOf`). */
    readonly vocabulary: Vocabulary = new Map(),
    /** Keys a probe proved, by contract path (`probes.ts`). */
    readonly probed: Probed = new Map(),
    /** The service's words as the other answers taught them, not this one (an object written flat, read by its words). */
    readonly wordsElsewhere: Vocabulary = new Map(),
    /** The service's words for ours, one word each (`houseWordsOf`): what the names that break ties read them as. */
    readonly houseWords: HouseWords = new Map(),
    /** Keys the service writes unused beside objects placed whole (`extrasOf`): no contract field anywhere. */
    readonly extras: ReadonlySet<string> = new Set(),
  ) {}

  /** A field's upstream name and conversion: into the map when sure, into the guess always. */
  mapField(path: string, name: string, from: string, convert: Conversion | undefined, sure: boolean): void {
    for (const map of this.mapsFor(sure)) if (fieldKey(from) !== fieldKey(name)) map.fields[path] = from;
    if (convert) this.mapConvert(path, convert, sure);
  }

  mapConvert(path: string, convert: Conversion, sure: boolean): void {
    for (const map of this.mapsFor(sure)) map.convert[path] = convert;
  }

  /** A list written as an object: the contract field of its items the object's keys fill. */
  mapKeyed(path: string, field: string | { extra: string }, sure: boolean): void {
    for (const map of this.mapsFor(sure)) (map.keyed ??= {})[path] = field;
  }

  /** A list written as columns and rows: where its names and rows are. */
  mapColumns(path: string, columns: { names: string; rows: string; name?: string }, sure: boolean): void {
    const { names, rows, name } = columns;
    for (const map of this.mapsFor(sure)) (map.columns ??= {})[path] = { names, rows, ...(name !== undefined ? { name } : {}) };
  }

  mapValue(path: string, value: string, to: string, sure: boolean): void {
    for (const map of this.mapsFor(sure)) (map.values[path] ??= {})[value] = to;
  }

  private mapsFor(sure: boolean): OperationMap[] {
    return sure ? [this.sure, this.guess] : [this.guess];
  }
}

/** Where a keyed list's key sits in its items while they are walked: no service names a field so. */
export const KEY_FIELD = '\u0000key';
/** How a field read from its keyed list's key shows in the report. */
export const KEY_SHOWN = '(its key)';

/**
 * A list written as an object, as items with each key beside its item's fields (under `KEY_FIELD`), so the key is
 * placed like any field. Made once per list: the same objects each time, so what is learned of them is remembered.
 */
export function keyedItems(list: Json): Json[] {
  let items = keyedMemo.get(list);
  if (!items) keyedMemo.set(list, (items = Object.entries(list).map(([key, item]) => ({ ...(item as Json), [KEY_FIELD]: key }))));
  return items;
}
const keyedMemo = new WeakMap<Json, Json[]>();

/** A contract field and an upstream field that may stand for it. */
export interface Pair {
  name: string;
  key: string;
  by: Placement['by'];
  /** The ways to read its values, each with the pair's confidence; best first. */
  readings: Reading[];
  confidence: number;
  reason?: string;
  /** Its values do not read as the field's in any way (text for a list): a name alone, which evidence may overrule. */
  misfit?: true;
  /** One of more candidates than a question lists: the field's options are not all in sight. */
  crowded?: true;
}

/** A percentage or a change of one, as placed in an object: the unit its siblings share. */
export interface Unit {
  /** The object's path: the siblings share it. */
  parent: string;
  path: string;
  name: string;
  /** The upstream field it was read from. */
  key: string;
  change: boolean;
  convert: Conversion | undefined;
  sure: boolean;
  values: unknown[];
}

/** A pair weighed by how its values read: a name whose values do not read as the contract's is a candidate only. */
export function pairOf(name: string, key: string, by: Placement['by'], nameConfidence: number, expected: Expected & { nullable: boolean }, values: unknown[]): Pair {
  const fit = fitOf(expected, values, name);
  if (fit.readings.length === 0) {
    const confidence = nameConfidence * MISFIT_FACTOR;
    return { name, key, by, readings: [{ confidence }], confidence, misfit: true, ...(fit.reason ? { reason: fit.reason } : {}) };
  }
  const readings = fit.readings.map((r) => ({ ...r, confidence: Math.min(nameConfidence, r.confidence) }));
  return { name, key, by, readings, confidence: readings[0]!.confidence, ...(fit.reason ? { reason: fit.reason } : {}) };
}

/** A pair no surer than `max`, its readings too. */
export const capped = (pair: Pair, max: number): Pair => ({
  ...pair,
  confidence: Math.min(pair.confidence, max),
  readings: pair.readings.map((r) => ({ ...r, confidence: Math.min(r.confidence, max) })),
});
