/** The unit a percentage or a change is written in, settled with its siblings' (`alignUnits`). */
import { CONVERSIONS, type Conversion } from '../contract/upstream-map';
import { AMBIGUOUS, SHARE_EVIDENCE } from './shapes';
import { present, type Unit, type Walk } from './walk';

/** Conversions that say a unit: a share from 0 to 1, basis points, text with a % sign. */
export const UNIT_CONVERSIONS: readonly Conversion[] = ['percent', 'basis-points', 'percent-text'];

/**
 * Fields of one object share a unit (a builder writes a topic's score and its change alike): once the rules have
 * settled what they can, a percentage or change read as points beside siblings read in one other unit is read in
 * that unit too, when its values convert (a change of 40 beside a score in basis points is 0.4 points; -0.063 beside
 * a share from 0 to 1 is -6.3). Where no sibling says a unit, the percentages together may: many different values
 * across them, all from 0 to 1, are shares. As sure as the siblings and the field are; a question otherwise.
 */
export function alignUnits(walk: Walk, kept: (path: string, convert: Conversion | undefined, from?: string) => boolean | undefined): void {
  const byParent = new Map<string, Unit[]>();
  for (const unit of walk.units) byParent.set(unit.parent, [...(byParent.get(unit.parent) ?? []), unit]);
  for (const units of byParent.values()) {
    const convertOf = (u: Unit) => walk.fields[u.path]?.convert ?? walk.guess.convert[u.path];
    const placed = (u: Unit) => u.sure || walk.fields[u.path] !== undefined;
    const sayers = units.filter((u) => UNIT_CONVERSIONS.includes(convertOf(u)!));
    const said = [...new Set(sayers.map(convertOf))];
    const numbers = (u: Unit) => present(u.values).filter((v): v is number => typeof v === 'number');
    let unit = said.length === 1 ? said[0]! : undefined;
    let sure = sayers.length > 0 && sayers.every(placed);
    // What the placed siblings say alone, a question's guess aside: it settles a question between fields (below).
    const placedSaid = [...new Set(sayers.filter(placed).map(convertOf))];
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
      // A question between fields is settled by the unit only when no other candidate keeps the rule in it too.
      const others = (walk.toConfirm.find((item) => item.path === u.path && item.value === undefined)?.candidates ?? []).flatMap((c) => (c.from !== undefined && c.from !== u.key ? [c.from] : []));
      const rivalKeeps = !placed(u) && others.some((from) => kept(u.path, unit, from) === true);
      const isSure = !rivalKeeps && (withUnit === true || (sure && placed(u)));
      walk.mapConvert(u.path, unit, isSure);
      walk.toConfirm.splice(0, walk.toConfirm.length, ...walk.toConfirm.filter((item) => item.path !== u.path || item.value !== undefined));
      const field = walk.fields[u.path];
      if (isSure && field) field.convert = unit;
      else if (isSure) {
        // A question of its upstream field too, settled with its unit: the field is the one it was read from.
        walk.mapField(u.path, u.name, u.key, unit, true);
        walk.fields[u.path] = { from: u.key, confidence: walk.threshold, by: 'form', convert: unit };
      } else
        walk.toConfirm.push({
          path: u.path,
          reason: `its siblings are read ${CONVERSIONS[unit]}: read it so too if it is (${numbers(u).slice(0, 3).join(', ')})`,
          candidates: [
            { convert: unit, confidence: AMBIGUOUS, by: 'type' },
            { confidence: AMBIGUOUS, by: 'type' },
          ],
        });
    }
    if (placedSaid.length === 1 && placedSaid[0] === unit) placeInUnit(walk, units[0]!.parent, unit);
  }
}

/** A question of the object between fields, of which one alone reads in the unit its placed siblings say: that one. */
function placeInUnit(walk: Walk, parent: string, unit: Conversion): void {
  const parentOf = (path: string) => (path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : '');
  for (const item of [...walk.toConfirm]) {
    if (item.value !== undefined || parentOf(item.path) !== parent) continue;
    const inUnit = item.candidates.filter((c) => c.from !== undefined && c.convert === unit);
    if (inUnit.length !== 1) continue;
    const from = inUnit[0]!.from!;
    walk.toConfirm.splice(walk.toConfirm.indexOf(item), 1);
    walk.mapField(item.path, item.path.split('.').at(-1)!, from, unit, true);
    walk.fields[item.path] = { from, confidence: walk.threshold, by: 'form', convert: unit };
  }
}
