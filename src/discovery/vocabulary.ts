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
