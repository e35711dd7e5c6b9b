/**
 * How discovery compares names: a contract field with an upstream field
 * (`history` and `weeks`), and a value of a contract enumeration with an
 * upstream value (`won` and `gain`, `chatgpt` and `openai`). A respelling in
 * another case convention is the same name (conform.ts reads it with no
 * map); a plural, a singular or a synonym is a guess with a confidence.
 */
import { fieldKey } from '../contract/conform';
import { oursUnderVendor, VALUE_SYNONYMS, wordsOf } from '../contract/enum-spelling';

export { wordsOf };

/** How a name was matched, and how sure the match is (0 to 1). */
export interface NameMatch {
  by: 'name' | 'plural' | 'synonym' | 'entity' | 'abbreviation';
  confidence: number;
}

/** A contract value an upstream value may stand for. */
export interface ValueMatch {
  to: string;
  by: 'name' | 'synonym' | 'vendor' | 'similar';
  confidence: number;
}

/** The same name in another convention: read with no map. */
export const SAME_NAME = 1;
/** A plural for a singular, or a word of the synonyms table for another. */
export const NAME_GUESS = 0.8;
/** A value spelled otherwise (`WON`, `No-Answer`). */
export const VALUE_SPELLING = 0.95;
/** One of ours under a vendor's prefix or suffix (`openai-chatgpt`, `perplexity-sonar`): as sure as a synonym. */
export const VALUE_VENDOR = NAME_GUESS;
/** One value's name begins the other's (`recommend`, `recommended`): a hint, never enough alone. */
export const VALUE_PREFIX = 0.6;

/**
 * One small table of words that mean the same, names and values alike: each
 * row one meaning, its first entry the contract's. Rows for field names here;
 * those for values are the contract's spelling rules (enum-spelling.ts), which
 * the map applies to values no read has shown.
 */
const FIELD_SYNONYMS: readonly (readonly string[])[] = [
  // field names
  ['history', 'weeks', 'trend', 'series', 'timeline'],
  ['score', 'visibility', 'value'],
  ['generated_at', 'created_at', 'as_of', 'computed_at', 'calculated_at', 'timestamp'],
  ['week_start', 'from', 'start', 'start_date', 'starts_on'],
  ['week_end', 'to', 'end', 'end_date', 'ends_on'],
  ['answered_runs', 'answered', 'responses', 'answers'],
  ['naming_runs', 'mentions', 'named'],
  ['rivals', 'competitors'],
  ['change', 'delta', 'diff', 'difference'],
  ['share', 'percent', 'pct', 'percentage'],
  ['name', 'title', 'label'],
  ['text', 'question', 'prompt'],
  ['engine', 'model', 'platform', 'llm'],
  ['state', 'status'],
  ['url', 'link', 'href'],
  ['domain', 'host', 'hostname'],
];

export const SYNONYMS: readonly (readonly string[])[] = [...FIELD_SYNONYMS, ...VALUE_SYNONYMS];

/** A word's singular, by the common English endings; short words and `-us`, `-is`, `-ss` endings are left alone. */
export function singular(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ss|us|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** A name as its words in the singular: `Weeks` and `week` are one. */
const singularName = (name: string) => wordsOf(name).map(singular).join('_');

/** Each entry of the table (singular) to its row's first entry. */
const MEANING = new Map(SYNONYMS.flatMap((row) => row.map((entry) => [singularName(entry), singularName(row[0]!)] as const)));

/** What a name means: the whole name's row of the table, or else each word's (`competitor_pct` means `rival_share`). */
function meaningOf(name: string): string {
  const whole = singularName(name);
  return (
    MEANING.get(whole) ??
    whole
      .split('_')
      .map((word) => MEANING.get(word) ?? word)
      .join('_')
  );
}

/**
 * Whether two names are one: the same in another convention, a plural of the other, or synonyms; written after
 * the name of the entity that holds it (`BrandId` in a brand, `PromptText` in a prompt: `entity`, the holder's
 * name in the singular); or abbreviated word by word (`DeltaPts`, `ans_cnt`, `prev_per`).
 */
export function compareNames(contract: string, upstream: string, entity?: string): NameMatch | undefined {
  if (fieldKey(contract) === fieldKey(upstream)) return { by: 'name', confidence: SAME_NAME };
  if (singularName(contract) === singularName(upstream)) return { by: 'plural', confidence: NAME_GUESS };
  if (meaningOf(contract) === meaningOf(upstream)) return { by: 'synonym', confidence: NAME_GUESS };
  const rest = entity ? withoutEntity(upstream, entity) : undefined;
  if (rest) {
    const inner = compareNames(contract, rest);
    if (inner) return { by: 'entity', confidence: Math.min(inner.confidence, ENTITY_PREFIX) };
  }
  if (abbreviated(wordsOf(contract).map(singular), wordsOf(upstream).map(singular))) return { by: 'abbreviation', confidence: ABBREVIATION };
  return undefined;
}

/** A name after its entity's (`brand_id` in a brand is `id`; `PromptText` in a prompt is `Text`): what is left, or undefined. */
export function withoutEntity(upstream: string, entity: string): string | undefined {
  const words = wordsOf(upstream);
  const mine = wordsOf(entity).map(singular);
  if (words.length <= mine.length || !mine.every((w, i) => singular(words[i]!) === w)) return undefined;
  return words.slice(mine.length).join('_');
}

/** The name of the entity an object at `path` is (`prompts[]` → `prompt`, `topic.rivals[]` → `rival`), for `compareNames`. */
export const entityOf = (path: string): string | undefined => {
  const last = path.split('.').at(-1)?.replace(/\[\]$/, '');
  return last ? wordsOf(last).map(singular).at(-1) : undefined;
};

/** The entity prefix a field is found under: nearly as sure as the name itself. */
export const ENTITY_PREFIX = 0.9;
/** Every word abbreviated or the same: a guess that other evidence confirms. */
export const ABBREVIATION = 0.75;
/** Words a builder adds for the unit, which say nothing of the meaning (`DeltaPts`, `share_pct`). */
const UNIT_WORDS = new Set(['pt', 'pts', 'pct', 'val', 'value', 'bp', 'bps']);
/** Words that count, in any abbreviation: `runs`, `count`, `cnt`, `qty`, `num`, `n`. */
const COUNT_WORDS = new Set(['run', 'count', 'cnt', 'qty', 'num', 'n', 'total', 'tot']);

/** Each word of the table to every word of its row: where an abbreviation of a synonym is looked for (`ts` for `generated_at`). */
const ROW_WORDS = new Map<string, string[]>();
for (const row of SYNONYMS)
  for (const entry of row)
    ROW_WORDS.set(
      singularName(entry),
      row.flatMap((e) => singularName(e).split('_')),
    );

/** `short` abbreviates `word`: its start (`pos`, `impr`, `prev`), or its first letter and consonants in order (`cnt`, `qty`, `pct`, `ts`). */
function abbreviates(short: string, word: string): boolean {
  if (short.length < 2 || short.length >= word.length || short[0] !== word[0]) return false;
  if (word.startsWith(short)) return true;
  if (/[aeiou]/.test(short.slice(1))) return false;
  let i = 1;
  for (const ch of word.slice(1)) if (ch === short[i]) i++;
  return i === short.length;
}

/** One contract word and one upstream word: the same, a synonym, an abbreviation of either, or one stem of four letters or more. */
function wordMatch(mine: string, theirs: string): boolean {
  if (mine === theirs || (MEANING.get(mine) === MEANING.get(theirs) && MEANING.has(mine))) return true;
  if (COUNT_WORDS.has(mine) && COUNT_WORDS.has(theirs)) return true;
  if (abbreviates(theirs, mine) || (ROW_WORDS.get(mine) ?? []).some((w) => abbreviates(theirs, w) || w === theirs)) return true;
  let stem = 0;
  while (stem < Math.min(mine.length, theirs.length) && mine[stem] === theirs[stem]) stem++;
  // Two words one last letter apart are two words (`shard` and `share`), not one stem.
  return stem >= 4 && !(mine.length === stem + 1 && theirs.length === stem + 1);
}

/** Every contract word matched in order by an upstream word, and every upstream word used or a unit word. */
function abbreviated(mine: string[], theirs: string[]): boolean {
  let j = 0;
  for (const word of mine) {
    while (j < theirs.length && UNIT_WORDS.has(theirs[j]!) && !wordMatch(word, theirs[j]!)) j++;
    if (j >= theirs.length || !wordMatch(word, theirs[j]!)) return false;
    j++;
  }
  return theirs.slice(j).every((w) => UNIT_WORDS.has(w));
}

/**
 * The contract's values an upstream value may stand for, best first. `open`: the spec leaves the values open (an
 * engine), and one of ours may carry a vendor's prefix or suffix (`openai-chatgpt`), where no name says more.
 */
export function valueCandidates(contractValues: readonly string[], value: string, open = false): ValueMatch[] {
  const found: ValueMatch[] = [];
  for (const to of contractValues) {
    const a = fieldKey(to);
    const b = fieldKey(value);
    if (a === b) found.push({ to, by: 'name', confidence: VALUE_SPELLING });
    else if (meaningOf(to) === meaningOf(value)) found.push({ to, by: 'synonym', confidence: NAME_GUESS });
    else if (Math.min(a.length, b.length) >= 3 && (a.startsWith(b) || b.startsWith(a))) found.push({ to, by: 'similar', confidence: VALUE_PREFIX });
  }
  const vendor = open && !found.some((f) => f.by !== 'similar') ? oursUnderVendor(value, contractValues) : undefined;
  if (vendor) return [{ to: vendor, by: 'vendor', confidence: VALUE_VENDOR }, ...found.filter((f) => f.to !== vendor)];
  return found.sort((x, y) => y.confidence - x.confidence);
}

/** A name's words without accents, in the singular: `Catégorie` and `category` share a start, `Títulos` is `titulo`. */
export const plainWords = (name: string) => wordsOf(name.normalize('NFD').replace(/\p{Diacritic}/gu, '')).map(singular);

/** The service's words for ours, one word each (`vocabulary.ts`): `marca` is `brand` where every name holding one holds the other. */
export type HouseWords = ReadonlyMap<string, string>;

/** How far two words are one: the same, a synonym or either's start (1), a common start of three letters or more (½), else 0. */
function wordResemblance(mine: string, theirs: string): number {
  if (mine === theirs || (MEANING.has(mine) && MEANING.get(mine) === MEANING.get(theirs))) return 1;
  // A word of one or two letters (`id`, `n`) says something only when it is the same word.
  if (mine.length <= 2 || theirs.length <= 2) return 0;
  if (mine.startsWith(theirs) || theirs.startsWith(mine)) return 1;
  let start = 0;
  while (start < Math.min(mine.length, theirs.length) && mine[start] === theirs[start]) start++;
  return start >= 3 ? 0.5 : 0;
}

/**
 * How much two names resemble each other, 0 to 1, when no rule of `compareNames` relates them: the share of each
 * one's words found in the other, averaged both ways, so a word one name has and the other lacks counts against it
 * (`Titre` resembles `title` by half, `sort_key` resembles `key` by three quarters). A prior only:
 * discovery reads it to break ties the evidence left (`resemblance.ts`), never to place a field alone.
 */
export function resemblance(contract: string, upstream: string, houseWords: HouseWords = new Map()): number {
  const mine = plainWords(contract);
  // The service's own words read as ours where its other answers taught them (`marca` for `brand`).
  const theirs = asOpposites(plainWords(upstream).map((word) => houseWords.get(word) ?? word));
  if (mine.length === 0 || theirs.length === 0) return 0;
  const covered = (words: string[], others: string[]) => words.reduce((sum, w) => sum + Math.max(...others.map((o) => wordResemblance(w, o))), 0) / words.length;
  return (covered(mine, theirs) + covered(theirs, mine)) / 2;
}

/**
 * The words of `upstream`, of three letters or more, that resemble no word of `names`: what the name says beyond them
 * (`sort` in `sort_key`). A word the service's other answers taught is read as ours (`place` for `position`).
 */
export function strangeWords(upstream: string, names: readonly string[], houseWords: HouseWords = new Map()): string[] {
  const known = names.flatMap(plainWords);
  return plainWords(upstream).filter((word) => {
    const ours = houseWords.get(word);
    return word.length > 2 && !known.some((k) => wordResemblance(k, word) > 0 || (ours !== undefined && wordResemblance(k, ours) > 0));
  });
}

/**
 * The contract's one pair told apart by a word and its opposite alone (`gets_right`, `gets_wrong`: two lists of
 * text no value, rule or probe separates), so the names must: each word in the languages services are most often
 * written in, and a right word negated is a wrong one (`incorrecto`, `unrichtig`, `nicht_richtig`). A prior like
 * every name, read only by `resemblance`.
 */
const RIGHT = [
  'right',
  'correct',
  'true',
  'accurate',
  'good',
  'richtig',
  'korrekt',
  'zutreffend',
  'wahr',
  'gut',
  'correcto',
  'cierto',
  'verdadero',
  'acertado',
  'bien',
  'juste',
  'vrai',
  'exact',
  'exacte',
  'bon',
  'giusto',
  'corretto',
  'vero',
  'esatto',
  'buono',
  'certo',
  'correto',
  'verdadeiro',
  'bom',
  'juist',
  'goed',
  'waar',
  'ratt',
  'riktig',
  'oikein',
  'poprawny',
  'prawidlowy',
  'spravny',
  'dogru',
  'helyes',
];
const WRONG = [
  'wrong',
  'incorrect',
  'false',
  'inaccurate',
  'bad',
  'mistaken',
  'erroneous',
  'falsch',
  'fehlerhaft',
  'schlecht',
  'incorrecto',
  'falso',
  'erroneo',
  'equivocado',
  'mal',
  'faux',
  'errone',
  'mauvais',
  'sbagliato',
  'errato',
  'errado',
  'fout',
  'verkeerd',
  'slecht',
  'fel',
  'felaktig',
  'vaarin',
  'bledny',
  'chybny',
  'yanlis',
  'hibas',
];
/** Words and prefixes that negate the word after them. */
const NEGATIONS = new Set(['not', 'no', 'non', 'nicht', 'kein', 'pas', 'ne', 'nao', 'niet', 'nie', 'inte', 'ei']);
const NEGATING_PREFIXES = ['non', 'nie', 'un', 'in', 'im', 'ir', 'il', 'dis', 'mis', 'on', 'ne'];
const OPPOSITE = new Map<string, 'right' | 'wrong'>([...RIGHT.map((w) => [singular(w), 'right'] as const), ...WRONG.map((w) => [singular(w), 'wrong'] as const)]);

/** A word as `right` or `wrong` where it is one of them in any of those languages, or a right word under a negating prefix. */
function oppositeOf(word: string): 'right' | 'wrong' | undefined {
  const known = OPPOSITE.get(word);
  if (known) return known;
  const prefix = NEGATING_PREFIXES.find((p) => word.startsWith(p) && OPPOSITE.get(word.slice(p.length)) === 'right');
  return prefix ? 'wrong' : undefined;
}

/** A name's words with each right or wrong word read as ours, a negation and the right word after it as one wrong. */
function asOpposites(words: readonly string[]): string[] {
  const read: string[] = [];
  for (const word of words) {
    const opposite = oppositeOf(word);
    if (opposite === 'right' && read.length > 0 && NEGATIONS.has(read.at(-1)!)) read[read.length - 1] = 'wrong';
    else read.push(opposite ?? word);
  }
  return read;
}
