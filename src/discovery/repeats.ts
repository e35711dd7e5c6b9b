/**
 * Which texts a list's items share, as evidence: the perception prompts are
 * put to each engine, week after week, so a transcript's prompt is written
 * again for another transcript, while each engine's answer is its own; a
 * thread is posted in one of a few forums, under a title of its own. Both
 * are text, and a token-named service leaves nothing else to tell them
 * apart. Of a shared field's candidates, the one whose values repeat (two
 * values at least, one of them twice) is taken where the others' do not;
 * the item's own text is then the key left (`placeLeftOver`). That a text
 * never repeats proves nothing: an extra field of the service's (a code, a
 * trace) never does either.
 */
import type * as z from 'zod';
import type { OperationId } from '../contract/operations';
import { valuesAtPath } from '../contract/paths';
import { settleQuestions } from './rules';
import type { Json, Walk } from './walk';

/** The texts the items of a list share (`shared`) beside those each holds its own (`own`: asked among the same keys), by operation and contract path. */
const REPEATS: readonly { operation: OperationId; list: string; shared: string[]; own: string[] }[] = [
  { operation: 'getPerceptionTranscript', list: 'transcripts', shared: ['prompt'], own: ['answer'] },
  { operation: 'getForumSignals', list: 'topics[].threads', shared: ['forum'], own: ['title'] },
];

/** A shared text is evidence only where the answer holds at least this many items to repeat among. */
const MIN_ITEMS = 3;

export function settleByRepeats(id: OperationId, schema: z.ZodType, body: Json, walk: Walk): void {
  const lists = REPEATS.filter((entry) => entry.operation === id);
  if (lists.length === 0) return;
  // The shared field a question asks of (`transcripts[].prompt`), as its list and its name in the items.
  const sharedOf = (path: string) => {
    const entry = lists.find(({ list, shared }) => path.startsWith(`${list}[].`) && shared.includes(path.slice(list.length + 3)));
    return entry && { list: entry.list, field: path.slice(entry.list.length + 3) };
  };
  // A question may list only the key its guess took (`crowded`): the fields of one relation are asked among the keys any of them lists.
  for (const { list, shared, own } of lists) {
    const paths = new Set([...shared, ...own].map((field) => `${list}[].${field}`));
    const questions = walk.toConfirm.filter((item) => item.value === undefined && paths.has(item.path));
    for (const item of questions)
      for (const other of questions.flatMap((q) => q.candidates)) if (other.from !== undefined && !item.candidates.some((c) => c.from === other.from)) item.candidates.push({ ...other });
  }
  settleQuestions(
    schema,
    body,
    walk,
    (item, read) => {
      const { list, field } = sharedOf(item.path)!;
      const texts = valuesAtPath(read, list)
        .filter(Array.isArray)
        .map((items) => items.map((each) => (each !== null && typeof each === 'object' ? (each as Record<string, unknown>)[field] : undefined)));
      if (texts.some((values) => values.some((v) => typeof v !== 'string'))) return false;
      const all = texts.flat();
      const distinct = new Set(all).size;
      return all.length >= MIN_ITEMS && distinct >= 2 && distinct < all.length;
    },
    // One candidate is asked for its own reason: the evidence here only tells candidates apart.
    (item) => item.candidates.length >= 2 && sharedOf(item.path) !== undefined,
  );
}
