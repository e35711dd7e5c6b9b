/**
 * What a closed enumeration's value says by its words, the weakest evidence discovery reads: used only among the
 * contract values the evidence of every operation leaves a value (`values.ts`), never against it. The spec states
 * no meaning of `open`, `absent` or `no_answer` beyond their names, and a service with no answer text gives no
 * other evidence for them, so there the words are all there is.
 *
 * Each contract value has the word stems that say it (`omit` for `absent`: `omitted`, `Omission`); a value whose
 * first word negates (`not`, `no`, `non`, or `un` before a stem: `unseen`, `not_present`, `no_response`) says what
 * the negated stem's row names under `negated`. A value whose words say two contract values says none.
 *
 * ```ts
 * meaningByWords('TOP_PICK', STATES);     // 'recommended'
 * meaningByWords('unseen', STATES);       // 'absent': not seen
 * meaningByWords('Competition', SOURCE_CLASSES); // 'competitor'
 * ```
 */
import { wordsOf } from '../contract/enum-spelling';

interface Meaning {
  /** Stems a word of the value starts with. */
  stems: readonly string[];
  /** Under a negation, what these stems say instead (`not named` is absent). */
  negated?: string;
}

/** A won question's and a gained move's stems: one meaning in two enumerations. */
const RISE = ['won', 'win', 'gain', 'improv', 'up', 'rose', 'rise', 'better'];

/** Each closed enumeration's contract values, by value, with their stems. */
const MEANINGS: Readonly<Record<string, Meaning>> = {
  // answer states
  recommended: { stems: ['recommend', 'endors', 'suggest', 'prefer', 'favor', 'favour', 'pick', 'choice', 'chosen', 'best', 'advocat', 'champion', 'winner', 'top'] },
  mentioned: {
    stems: ['mention', 'name', 'cite', 'citing', 'list', 'includ', 'referenc', 'present', 'appear', 'shown', 'visib', 'seen', 'featur', 'noted', 'spotted'],
    negated: 'absent',
  },
  absent: { stems: ['absen', 'omit', 'omis', 'miss', 'exclud', 'invisib', 'hidden', 'overlook', 'ignored', 'rivals', 'others'] },
  open: { stems: ['open', 'unclaim', 'unowned', 'neutral', 'undecid', 'generic', 'unbrand', 'vacant', 'nobody', 'noone', 'brandless', 'contest', 'unassign'], negated: 'open' },
  no_answer: {
    stems: ['unanswer', 'answerless', 'blank', 'empty', 'null', 'void', 'silen', 'fail', 'error', 'timeout', 'refus', 'skip', 'unresponsive', 'dead'],
    negated: 'no_answer',
  },
  // source classes
  own: { stems: ['own', 'self', 'first', 'brand', 'house', 'mine'] },
  competitor: { stems: ['compet', 'rival', 'peer', 'challeng', 'opponent', 'contend'] },
  third_party: { stems: ['third', 'external', 'earned', 'independ', 'other', 'media', 'neutral'] },
  // outcomes and a move's direction
  won: { stems: RISE },
  gained: { stems: RISE },
  lost: { stems: ['los', 'drop', 'declin', 'down', 'fell', 'fall', 'worse'] },
  held: { stems: ['held', 'hold', 'same', 'unchang', 'steady', 'stable', 'flat', 'kept', 'even'] },
  // content actions
  write: { stems: ['writ', 'creat', 'draft', 'new', 'add', 'author', 'publish'] },
  improve: { stems: ['improv', 'updat', 'revis', 'refresh', 'optimi', 'enhanc', 'fix', 'rework', 'expand'] },
  leave: { stems: ['leave', 'keep', 'fine', 'none', 'ok', 'good', 'noop', 'ignore', 'nothing'] },
};

/** Stems that are no contract value's, which a negation turns into one: `no_response`, `not answered`. */
const NEGATED_ONLY: readonly { stems: readonly string[]; says: string }[] = [
  { stems: ['answer', 'respon', 'repl', 'result', 'output'], says: 'no_answer' },
  { stems: ['brand', 'claim', 'owner', 'winner'], says: 'open' },
];

const NEGATIONS = new Set(['not', 'no', 'non', 'without']);
const starts = (word: string, stems: readonly string[]) => stems.some((stem) => word.startsWith(stem));

/**
 * A value that negates: the words negated (`not present`: `present`; `unseen`: `seen`), and whether the value's own
 * words may still say something (`unclaimed` is open as it is, while `not present` is never `present`).
 */
function negation(words: readonly string[]): { negated: string[]; ownWords: boolean } | undefined {
  const [first, ...rest] = words;
  if (first === undefined) return undefined;
  if (NEGATIONS.has(first) && rest.length > 0) return { negated: rest, ownWords: false };
  for (const prefix of ['un', 'non']) if (first.startsWith(prefix) && first.length > prefix.length + 2) return { negated: [first.slice(prefix.length), ...rest], ownWords: true };
  return undefined;
}

/** The one contract value of `ours` a value's words say, or undefined for none or several. */
export function meaningByWords(value: string, ours: readonly string[]): string | undefined {
  const words = wordsOf(value);
  const negates = negation(words);
  const says = new Set<string>();
  if (!negates || negates.ownWords)
    for (const to of ours) {
      const meaning = MEANINGS[to];
      if (meaning && words.some((word) => starts(word, meaning.stems))) says.add(to);
    }
  if (says.size === 0 && negates) {
    const { negated } = negates;
    for (const to of ours) {
      const meaning = MEANINGS[to];
      if (meaning?.negated && ours.includes(meaning.negated) && negated.some((word) => starts(word, meaning.stems))) says.add(meaning.negated);
    }
    for (const { stems, says: to } of NEGATED_ONLY) if (ours.includes(to) && negated.some((word) => starts(word, stems))) says.add(to);
  }
  return says.size === 1 ? [...says][0] : undefined;
}
