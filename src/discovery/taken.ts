/**
 * What the evidence took is no other field's: once the rules, the figures or the order have placed a key, it leaves
 * the questions of the fields beside it (a period's days, written flat, no longer offered as the answer's time). A
 * question left with one candidate, itself offered to no other question there, is then the only value of its form
 * left on both sides, and placed by its form as `byShape` places one.
 */
import { FORM_UNIQUE } from './by-shape';
import type { ToConfirm } from './report';
import type { UnitKind } from './shapes';
import type { Walk } from './walk';

/** The contract path whose upstream object holds `path`'s key: its parent's, or, for an object written flat (`"."`), its parent's holder. */
export function holderOf(walk: Walk, path: string): string {
  const parent = path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : '';
  return parent !== '' && walk.fields[parent]?.from === '.' ? holderOf(walk, parent) : parent;
}

/**
 * The keys placed leave the questions beside them; a question left with one key no other asks for takes it. `narrowed`:
 * questions already narrowed by keys placed since they were asked (a tie the names broke), as if pruned here.
 */
export function placeLeftOver(walk: Walk, unitOf: (path: string) => UnitKind | undefined, narrowed: ReadonlySet<ToConfirm> = new Set()): void {
  const taken = new Map<string, Set<string>>();
  for (const [path, placed] of Object.entries(walk.fields)) {
    if (placed.from === '.') continue;
    const holder = holderOf(walk, path);
    (taken.get(holder) ?? taken.set(holder, new Set()).get(holder)!).add(placed.from);
  }
  const open = walk.toConfirm.filter((item) => item.value === undefined && item.path !== '' && item.candidates.length > 0 && item.candidates.every((c) => c.from !== undefined && c.from !== '.'));
  const pruned = new Set<ToConfirm>(open.filter((item) => narrowed.has(item)));
  for (const item of open) {
    const gone = taken.get(holderOf(walk, item.path));
    const left = gone ? item.candidates.filter((c) => !gone.has(c.from!)) : item.candidates;
    // A question listing only some of its options keeps them all if those went: others it does not list may be its.
    if (left.length === 0 && walk.crowded.has(item.path)) continue;
    if (left.length < item.candidates.length) pruned.add(item);
    item.candidates = left;
  }
  // Only a question the taken keys narrowed: one that had a single candidate all along is asked for its own reason.
  // A percentage (or a change) takes the unit of one placed surely beside it, of its kind: a guess by type offers none.
  for (const item of pruned) {
    if (item.candidates.length !== 1 || item.candidates[0]!.by !== 'type' || walk.crowded.has(item.path)) continue;
    const [only] = item.candidates as [(typeof item.candidates)[number]];
    if (unitOf(item.path) !== undefined && siblingUnit(walk, item.path, unitOf) !== (only.convert ?? 'points')) continue;
    const holder = holderOf(walk, item.path);
    const elsewhere = walk.toConfirm.some((other) => other !== item && other.value === undefined && holderOf(walk, other.path) === holder && other.candidates.some((c) => c.from === only.from));
    if (elsewhere) continue;
    walk.toConfirm.splice(walk.toConfirm.indexOf(item), 1);
    walk.mapField(item.path, item.path.split('.').at(-1)!, only.from!, only.convert, true);
    walk.fields[item.path] = { from: only.from!, confidence: FORM_UNIQUE, by: 'form', ...(only.convert ? { convert: only.convert } : {}) };
  }
  // A question every candidate of which was taken: nothing left to offer.
  for (const item of pruned)
    if (item.candidates.length === 0 && walk.toConfirm.includes(item)) {
      walk.toConfirm.splice(walk.toConfirm.indexOf(item), 1);
      walk.unplaced.push(item.path);
    }
}

/**
 * The unit of a percentage (or a change) placed surely beside `path`, in the same upstream object: `points` as it
 * is, else its conversion; undefined when none is, or two disagree. A service writes a unit the same way within an object.
 */
function siblingUnit(walk: Walk, path: string, unitOf: (path: string) => UnitKind | undefined): string | undefined {
  const holder = holderOf(walk, path);
  const units = new Set(
    Object.entries(walk.fields)
      .filter(([other, placed]) => other !== path && placed.confidence >= walk.threshold && holderOf(walk, other) === holder && unitOf(other) === unitOf(path))
      .map(([, placed]) => placed.convert ?? 'points'),
  );
  return units.size === 1 ? [...units][0] : undefined;
}
