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
import { type HouseWords, plainWords } from './names';
import type { Pair, Vocabulary, Walk } from './walk';

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
