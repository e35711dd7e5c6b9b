/**
 * Rules that map an enumeration's value spelled another way onto the
 * contract's, for values no read has shown yet as much as for those seen:
 * the same words in another case or with other separators (`NO-ANSWER`,
 * `NoAnswer`), a word of the value synonyms below (`gained` for `won`), and,
 * for values the spec leaves open (engines), one of ours under a vendor's
 * prefix or suffix (`openai-chatgpt`, `OPENAI_CHATGPT`, `perplexitySonar`).
 * A value no rule maps is left as it is: a closed enumeration then refuses it
 * naming the field, an open one carries it under its own name.
 *
 * ```ts
 * spelledValue('Gained', OUTCOMES);             // 'won'
 * spelledValue('openai-chatgpt', ENGINES, true); // 'chatgpt'
 * spelledValue('xai-grok', ENGINES, true);       // undefined: carried as it is
 * ```
 */

/** Each row one meaning, its first entry the contract's value. */
export const VALUE_SYNONYMS: readonly (readonly string[])[] = [
  // closed enumerations
  ['won', 'gain', 'gained', 'win', 'up', 'improved'],
  ['lost', 'loss', 'lose', 'down', 'declined', 'dropped'],
  ['held', 'same', 'hold', 'unchanged', 'steady', 'stable', 'flat'],
  ['own', 'owned', 'first_party', 'self'],
  ['third_party', 'external', 'other', 'earned'],
  ['write', 'create', 'new_page'],
  ['improve', 'update', 'optimize', 'optimise', 'refresh'],
  ['leave', 'keep', 'ok', 'good'],
  ['absent', 'not_mentioned', 'not_named', 'missing'],
  ['no_answer', 'no_response', 'empty', 'failed'],
  // well-known aliases of open values (engines)
  ['chatgpt', 'openai', 'gpt', 'chat_gpt'],
  ['google_ai_overviews', 'google_aio', 'aio', 'ai_overviews', 'google_ai_overview', 'sge'],
  ['copilot', 'bing', 'bing_copilot', 'microsoft_copilot', 'bing_chat'],
  ['claude', 'anthropic'],
  ['gemini', 'bard', 'google_gemini'],
  ['perplexity', 'pplx', 'perplexity_ai'],
];

/** The words of a name or value in any convention: `weekStart`, `NO-ANSWER`, `ChatGPT` → `week start`, `no answer`, `chat gpt`. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
}

/** A value's letters and digits alone, lower case: `No-Answer`, `NO_ANSWER`, `noAnswer` are one. */
const squeezed = (value: string) => value.replace(/[^A-Za-z0-9]/g, '').toLowerCase();

const SYNONYM_OF = new Map(VALUE_SYNONYMS.flatMap((row) => row.map((entry) => [squeezed(entry), row[0]!] as const)));

/** The most words a vendor writes around one of our values. */
const MAX_AFFIX_WORDS = 2;

/**
 * One of ours inside a vendor's value: our value's words at its start or its end, the rest the vendor's
 * (`openai-chatgpt`, `anthropic-claude`, `perplexity-sonar`, `GoogleGemini`), or ours respelled
 * (`google-ai-overviews`). Undefined for one of ours itself, for none, for ours inside another word (`chatgpt4`),
 * and for two (a value that could be either is not guessed).
 */
export function oursUnderVendor(value: string, ours: readonly string[]): string | undefined {
  if (ours.includes(value)) return undefined;
  const words = wordsOf(value);
  const joined = words.join('');
  const found = ours.filter((candidate) => {
    const mine = candidate.split('_').join('');
    // A vendor's affix is a word or two (`open-ai-chatgpt`), not a sentence that begins with ours (`Visibility in Small teams moved`).
    return words.length - candidate.split('_').length <= MAX_AFFIX_WORDS && (joined.startsWith(mine) || joined.endsWith(mine)) && wordEdge(words, mine);
  });
  return found.length === 1 ? found[0] : undefined;
}

/** Whether `mine` covers whole words at the start or the end of `words` (`chatgpt` in `openai chat gpt`, not `gpt` in `chatgpt`). */
function wordEdge(words: string[], mine: string): boolean {
  for (let i = 0; i <= words.length; i++) {
    if (words.slice(0, i).join('') === mine) return true;
    if (words.slice(i).join('') === mine) return true;
  }
  return false;
}

/** The contract's value an upstream value stands for by these rules, or undefined (ours as it is, or no rule maps it). */
export function spelledValue(value: string, ours: readonly string[], open = false): string | undefined {
  if (ours.includes(value)) return undefined;
  const key = squeezed(value);
  const same = ours.find((v) => squeezed(v) === key);
  if (same) return same;
  const synonym = SYNONYM_OF.get(key);
  if (synonym && ours.includes(synonym)) return synonym;
  return open ? oursUnderVendor(value, ours) : undefined;
}
