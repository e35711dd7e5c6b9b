/**
 * The service's own words (`vocabulary` in README.md's table): one service
 * names one thing one way, so a key that evidence placed for a contract field
 * in one answer (`cites`, the citations that add up to a page's) is that
 * field's candidate wherever else the field stands and no name places it
 * surely (the citations of a page cited instead). Learned from what the
 * values settled (`join`, `evidence`) and from a placement by form (the only
 * value of its form on both sides): that one answer holds it is what another
 * answer, where the form is shared, lacks. A name reads the same anywhere,
 * and would only repeat itself.
 */
import { fieldKey } from '../contract/conform';
import { atOrUnder, fieldOf, parentOf } from '../contract/paths';
import { type HouseWords, plainWords } from './names';
import type { DiscoveryReport } from './report';
import { holderOf } from './taken';
import { KEY_FIELD, KEY_SHOWN, type Pair, type Vocabulary, type Walk } from './walk';

/** The service's own word for the field, placed surely elsewhere: surer than a synonym of ours, less than the name. */
export const VOCABULARY = 0.85;

/** What teaches the service's words: evidence of what the values are, or the only value of its form. */
const TAUGHT_BY: ReadonlySet<string> = new Set(['evidence', 'join', 'form']);

/** The words of the placements (`[contract path, upstream key, by]`); a key placed for two contract names says nothing. */
export function vocabularyOf(placements: Iterable<readonly [path: string, from: string, by: string]>): Vocabulary {
  const names = new Map<string, Set<string>>();
  for (const [path, from, by] of placements) {
    if (!TAUGHT_BY.has(by)) continue;
    const name = path.slice(path.lastIndexOf('.') + 1).replace(/\[\]$/, '');
    if (fieldKey(from) === fieldKey(name)) continue;
    (names.get(from) ?? names.set(from, new Set()).get(from)!).add(name);
  }
  return new Map([...names].filter(([, set]) => set.size === 1).map(([from, set]) => [from, [...set][0]!] as const));
}

/** For each field no name places surely, the keys of the object the service calls by its name elsewhere. */
export function byVocabulary(names: readonly string[], keys: readonly string[], byName: readonly Pair[], walk: Walk, pair: (name: string, key: string) => Pair): Pair[] {
  const found: Pair[] = [];
  for (const name of names) {
    if (byName.some((p) => p.name === name && p.confidence >= walk.threshold)) continue;
    for (const key of keys)
      if (walk.vocabulary.get(key) === name && !byName.some((p) => p.key === key && p.confidence >= walk.threshold))
        found.push({ ...pair(name, key), reason: `the service calls \`${name}\` \`${key}\` in its other answers` });
  }
  return found;
}

/**
 * The service's words for ours, one word at a time, from the names placed surely anywhere (`[contract path, upstream
 * key]`): a word of its names (`marca`) is our word (`brand`) when the names holding either hold both, in two names
 * or more (`marca_id`, `marcas`, `marca_solo`), or when a name of one word each is placed for the other (`adversario`
 * for `rival`). A word that is already ours, or that goes with several of ours as well, teaches nothing. Read by the
 * names that break ties (`resemblance.ts`): `marca_adelante` is then the brand's and `adversario_adelante` the rival's.
 */
export function houseWordsOf(placements: Iterable<readonly [path: string, from: string, ...unknown[]]>): HouseWords {
  const pairs = new Map<string, [ours: string[], theirs: string[]]>();
  for (const [path, from] of placements) {
    const name = path.slice(path.lastIndexOf('.') + 1).replace(/\[\]$/, '');
    const [ours, theirs] = [plainWords(name), plainWords(from)];
    if (ours.length > 0 && theirs.length > 0) pairs.set(`${name} ${from}`, [ours, theirs]);
  }
  const count = new Map<string, number>();
  const add = (key: string) => count.set(key, (count.get(key) ?? 0) + 1);
  for (const [ours, theirs] of pairs.values()) {
    for (const w of new Set(ours)) add(`o ${w}`);
    for (const h of new Set(theirs)) {
      add(`t ${h}`);
      for (const w of new Set(ours)) add(`${w} ${h}`);
    }
  }
  const oneWord = new Set([...pairs.values()].filter(([ours, theirs]) => ours.length === 1 && theirs.length === 1).map(([[w], [h]]) => `${w} ${h}`));
  const ourWords = new Set([...pairs.values()].flatMap(([ours]) => ours));
  const words = new Map<string, string>();
  for (const h of new Set([...pairs.values()].flatMap(([, theirs]) => theirs))) {
    if (h.length < 3 || ourWords.has(h)) continue;
    const fits = [...ourWords].filter((w) => {
      const both = count.get(`${w} ${h}`) ?? 0;
      const either = (count.get(`o ${w}`) ?? 0) + (count.get(`t ${h}`) ?? 0) - both;
      return (both >= 2 && both / either >= HOUSE_WORD_SHARE) || oneWord.has(`${w} ${h}`);
    });
    if (fits.length === 1) words.set(h, fits[0]!);
  }
  return words;
}
/** The share of the names holding either word that hold both, for one to be the other. */
const HOUSE_WORD_SHARE = 0.6;

/** How sure a placement by elimination is: the one candidate left once the others are the service's extras. */
export const ELIMINATION = 0.8;

/**
 * The service's extras (`trace_id`, `sort_key`): keys it writes unused in an object every contract field of which
 * was placed (no question and nothing unplaced under it, no envelope in question), in two such objects or more, and
 * placed nowhere. One service names one thing one way, so such a key is no contract field in another answer either.
 * As `fieldKey`s.
 */
export function extrasOf(entries: Iterable<DiscoveryReport['operations'][string]>): ReadonlySet<string> {
  const unused = new Map<string, Set<string>>();
  const placed = new Set<string>();
  let index = 0;
  for (const entry of entries) {
    index++;
    if (entry.status !== 200 || !('unused' in entry)) continue;
    for (const placement of Object.values(entry.fields)) for (const part of placement.from.split('.')) placed.add(fieldKey(part));
    const open = [...entry.to_confirm.filter((item) => item.value === undefined).map((item) => item.path), ...entry.unplaced];
    if (open.includes('')) continue;
    // A keyed list's items may write their key again beside it: the repeat is the field, not an extra.
    const keyedItems = Object.entries(entry.fields)
      .filter(([, placement]) => placement.from === KEY_SHOWN)
      .map(([path]) => parentOf(path));
    for (const at of entry.unused) {
      const parent = parentOf(at);
      const whole = !open.some((path) => parent === '' || atOrUnder(path, parent) || atOrUnder(parent, path));
      const key = fieldKey(fieldOf(at));
      if (whole && !keyedItems.includes(parent)) (unused.get(key) ?? unused.set(key, new Set()).get(key)!).add(`${index} ${parent}`);
    }
  }
  // Seen so in two objects at least: one object's leftover may be a field written twice (a keyed list's key kept).
  return new Set([...unused].filter(([key, places]) => places.size >= 2 && !placed.has(key)).map(([key]) => key));
}

/**
 * A question whose candidates are, all but one, the service's extras (`extrasOf`) takes the one left, where no other
 * question of its object could take it and it lists every candidate it has.
 */
export function settleBesideExtras(walk: Walk): void {
  if (walk.extras.size === 0) return;
  const open = walk.toConfirm.filter((item) => item.value === undefined && item.path !== '' && item.with === undefined && !walk.crowded.has(item.path));
  for (const item of open) {
    // Keys of the object only: not the object itself (`.`), a path below it, or a keyed list's key (`(its key)`).
    if (item.candidates.length < 2 || !item.candidates.every((c) => c.from !== undefined && c.from !== KEY_FIELD && /^[^.()]+$/.test(c.from))) continue;
    const left = item.candidates.filter((c) => !walk.extras.has(fieldKey(c.from!)));
    if (left.length !== 1) continue;
    const [candidate] = left as [(typeof left)[number]];
    const holder = holderOf(walk, item.path);
    const shared = walk.toConfirm.some((other) => other !== item && other.value === undefined && holderOf(walk, other.path) === holder && other.candidates.some((c) => c.from === candidate.from));
    if (shared) continue;
    walk.toConfirm.splice(walk.toConfirm.indexOf(item), 1);
    walk.mapField(item.path, fieldOf(item.path), candidate.from!, candidate.convert, true);
    walk.fields[item.path] = { from: candidate.from!, confidence: ELIMINATION, by: 'elimination', ...(candidate.convert ? { convert: candidate.convert } : {}) };
  }
}
