/**
 * Fields the evidence cannot tell apart, asked as one: a transcript's prompt
 * and its answer are both text, a thread's title and its forum too, and once
 * names, forms, joins and the rules have spoken, what is left is which key is
 * which. The questions of one upstream object whose candidates are the same
 * keys, as many as there are questions, are folded into one entry (`with`
 * names the others): one choice for a person, named as such.
 */
import type { Candidate, ToConfirm } from './report';
import { holderOf } from './taken';
import type { Walk } from './walk';

/** Questions folded into one at most: past three, the ways to choose are too many to read as one question. */
const MAX_FOLDED = 3;

/** Folds each set of questions that share exactly as many keys as they are (see the module comment). */
export function foldPairs(walk: Walk): void {
  const open = walk.toConfirm.filter(
    (item) => item.value === undefined && item.path !== '' && item.with === undefined && item.candidates.length > 0 && item.candidates.every((c) => c.from !== undefined && c.from !== '.'),
  );
  const byHolder = Map.groupBy(open, (item) => holderOf(walk, item.path));
  for (const questions of byHolder.values()) {
    for (const group of linked(questions)) {
      const keys = new Set(group.flatMap((item) => item.candidates.map((c) => c.from!)));
      if (group.length < 2 || group.length > MAX_FOLDED || keys.size !== group.length) continue;
      const [first, ...others] = group as [ToConfirm, ...ToConfirm[]];
      const candidates = new Map<string, Candidate>();
      for (const c of group.flatMap((item) => item.candidates).sort((a, b) => b.confidence - a.confidence)) if (!candidates.has(c.from!)) candidates.set(c.from!, c);
      const quoted = (names: string[]) =>
        names
          .map((n) => `\`${n}\``)
          .join(', ')
          .replace(/, (?=[^,]*$)/, ' and ');
      const folded: ToConfirm = {
        path: first.path,
        with: others.map((item) => item.path),
        reason: `${quoted(group.map((item) => item.path))} are ${quoted([...candidates.keys()])}, one each, and nothing in the answers tells which is which: choose the one of \`${first.path}\`.`,
        candidates: [...candidates.values()],
      };
      for (const item of group) walk.toConfirm.splice(walk.toConfirm.indexOf(item), 1);
      walk.toConfirm.push(folded);
    }
  }
}

/** The questions linked by a key they share, each set once, in the order they were asked. */
export function linked(questions: readonly ToConfirm[]): ToConfirm[][] {
  const sets: ToConfirm[][] = [];
  const seen = new Set<ToConfirm>();
  for (const start of questions) {
    if (seen.has(start)) continue;
    const set: ToConfirm[] = [];
    const queue = [start];
    seen.add(start);
    while (queue.length > 0) {
      const item = queue.shift()!;
      set.push(item);
      const keys = new Set(item.candidates.map((c) => c.from));
      for (const other of questions)
        if (!seen.has(other) && other.candidates.some((c) => keys.has(c.from))) {
          seen.add(other);
          queue.push(other);
        }
    }
    sets.push(set.sort((a, b) => questions.indexOf(a) - questions.indexOf(b)));
  }
  return sets;
}
