/** A contract object written flat in its parent (`MarketId`, `MarketCode` for `market`): found, and placed with `"."`. */
import { compareNames } from './names';
import { type Expected, expectedOf, AMBIGUOUS } from './shapes';
import { hundredths, type Pair, pairOf, type Walk } from './walk';

/** A contract object found written flat in its parent: its fields' pairs, and how sure that is. */
export interface FlatObject {
  pairs: Pair[];
  confidence: number;
}

/** Every field of the object found flat, each by name: nearly as sure as the names themselves. */
export const FLAT_ALL = 0.9;

/**
 * Contract objects (`market`) nothing in this object stands for, whose fields are here under the object's name and
 * theirs (`MarketId`, `MarketCode`): the map reads them with `"market": "."`. Half of the fields or more, or none.
 */
export function flatObjects(names: string[], keys: string[], expected: Record<string, Expected & { nullable: boolean }>, valuesOf: (key: string) => unknown[]): Map<string, FlatObject> {
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
export function placeFlat(walk: Walk, path: string, name: string, flat: FlatObject, expected: Expected): void {
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
