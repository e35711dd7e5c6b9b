/**
 * Names break the ties the evidence left. Once forms, joins, figures and the
 * rules have spoken, a few fields of one upstream object may still share the
 * same few keys: a thread's title and its forum, both text; a page's facts
 * compared and its cited pages, both lists of words. Of every way to give
 * those questions their keys, the one whose names most resemble the
 * contract's (`resemblance` in `names.ts`: `Titre` for `title`) settles a
 * question when no way that gives it another key, or none, comes within
 * `MARGIN`.
 *
 * Only text and lists of text: a field whose values name a resource the spec
 * joins (an id, a code) is settled by the join or asked, because a wrong id
 * would be read as known values by every later round.
 */
import { fieldOf } from '../contract/paths';
import type { Candidate, ToConfirm } from './report';
import { type HouseWords, plainWords, resemblance, strangeWords } from './names';
import { linked } from './pairs';
import { holderOf } from './taken';
import type { Walk } from './walk';

/** How sure a placement by resemblance is: into the map, where the rules that run after it may still overturn it. */
export const RESEMBLANCE = 0.75;
/** How much better the names must fit one way than any other for it to settle a question: a whole word's worth, or two halves. */
export const MARGIN = 0.25;
/** The largest tie settled: past this, the ways to choose are too many to weigh, and a person reads them better. */
const MAX_QUESTIONS = 4;
const MAX_KEYS = 6;

/** One way to give questions their keys: a key (or none) for each, no key twice, and how well the names fit. */
interface Way {
  keys: (string | undefined)[];
  score: number;
}

/**
 * Settles by names each question of a tie that one way of choosing fits clearly best (see the module comment), and
 * returns the questions of each tie left open beside one settled: the keys it took narrowed them.
 */
export function settleByResemblance(walk: Walk, textual: (path: string) => boolean, numeric: (path: string) => boolean = () => false): Set<ToConfirm> {
  const narrowed = new Set<ToConfirm>();
  const open = walk.toConfirm.filter(
    (item) =>
      item.value === undefined &&
      item.path !== '' &&
      item.with === undefined &&
      item.candidates.length > 0 &&
      item.candidates.every((c) => c.from !== undefined && c.from !== '.') &&
      (textual(item.path) || (numeric(item.path) && item.candidates.some((c) => inHouseWords(c.from!, walk.houseWords)))),
  );
  for (const questions of Map.groupBy(open, (item) => holderOf(walk, item.path)).values())
    for (const group of linked(questions)) {
      // A lone question with a lone candidate was asked for its own reason (a misfit, a rule), not for a tie.
      if (group.every((item) => item.candidates.length < 2)) continue;
      const keys = new Set(group.flatMap((item) => item.candidates.map((c) => c.from!)));
      if (group.length > MAX_QUESTIONS || keys.size > MAX_KEYS) continue;
      const oneEach = keys.size === group.length && !group.some((item) => walk.crowded.has(item.path));
      // Beside keys no field takes, a name saying more than the field and its object (`sort_key` for `key`) may be another thing.
      const holder = holderOf(walk, group[0]!.path);
      const named = [walk.walked.get(holder.replace(/\[\]$/, '')) ?? '', fieldOf(holder)];
      const plain = (item: ToConfirm, key: string) => oneEach || strangeWords(key, [fieldOf(item.path), ...named], walk.houseWords).length === 0;
      const found = settled(group, oneEach, plain, walk.houseWords);
      for (const [item, candidate] of found) {
        walk.toConfirm.splice(walk.toConfirm.indexOf(item), 1);
        walk.mapField(item.path, fieldOf(item.path), candidate.from!, candidate.convert, true);
        walk.fields[item.path] = { from: candidate.from!, confidence: RESEMBLANCE, by: 'resemblance', ...(candidate.convert ? { convert: candidate.convert } : {}) };
      }
      if (found.length > 0) for (const item of group) if (walk.toConfirm.includes(item)) narrowed.add(item);
    }
  return narrowed;
}

/**
 * The questions of `group` the names settle, each with its candidate. `oneEach`: the keys are as many as the
 * questions and all in sight, so the best way gives each question one; else a question may take none of its
 * candidates. Either way a question is settled only by a key whose name resembles it, by `MARGIN` over every way it
 * takes another key or none, the others one or none: a key left to it because the others took theirs is
 * `placeLeftOver`'s to place, by form. `plain`: whether a question may be settled with a key at all.
 */
export function settled(group: readonly ToConfirm[], oneEach: boolean, plain: (item: ToConfirm, key: string) => boolean = () => true, houseWords?: HouseWords): [ToConfirm, Candidate][] {
  const fit = group.map((item) => new Map(item.candidates.map((c) => [c.from!, resemblance(fieldOf(item.path), c.from!, houseWords)] as const)));
  const best = waysOf(group, fit, oneEach).reduce<Way | undefined>((top, way) => (top === undefined || way.score > top.score ? way : top), undefined);
  if (best === undefined) return [];
  const rivals = waysOf(group, fit, false);
  const found: [ToConfirm, Candidate][] = [];
  group.forEach((item, i) => {
    const key = best.keys[i];
    if (key === undefined || fit[i]!.get(key)! <= 0 || !plain(item, key)) return;
    const rival = Math.max(...rivals.filter((way) => way.keys[i] !== key).map((way) => way.score));
    if (best.score - rival < MARGIN) return;
    found.push([item, item.candidates.find((c) => c.from === key)!]);
  });
  return found;
}

/** Every way to give the questions their keys, no key twice; each question takes one when `oneEach`. */
function waysOf(group: readonly ToConfirm[], fit: readonly ReadonlyMap<string, number>[], oneEach: boolean): Way[] {
  const ways: Way[] = [];
  const walk = (i: number, keys: (string | undefined)[], score: number) => {
    if (i === group.length) {
      ways.push({ keys: [...keys], score });
      return;
    }
    for (const [key, value] of fit[i]!)
      if (!keys.includes(key)) {
        keys.push(key);
        walk(i + 1, keys, score + value);
        keys.pop();
      }
    if (!oneEach) {
      keys.push(undefined);
      walk(i + 1, keys, score);
      keys.pop();
    }
  };
  walk(0, [], 0);
  return ways;
}

/** Whether a key holds a word the service's other answers taught (`marca`): numbers are told apart by names only in those words. */
const inHouseWords = (key: string, houseWords: HouseWords) => plainWords(key).some((word) => houseWords.has(word));
