/**
 * An enumeration's values read from the evidence, not from their names: a
 * service that calls a won question `up` or an absent answer `unseen` says
 * so by what sits beside the value, and it says so the same way in every
 * operation. Once every operation is read, each value no spelling rule maps
 * is given the contract values it can be, item by item:
 *
 * | value | evidence beside it |
 * |---|---|
 * | an outcome (won, lost, held) | the engines naming the brand now against before: more, fewer, as many |
 * | a move's direction (gained, lost) | its states before and now: naming the brand now and not before, or the reverse |
 * | a move's states before and now | its direction, the other way round |
 * | an answer state | the brand named or not (`brand_named`, a position where named), recommended where a sentence naming it recommends, a rival named for absent, no text for no answer |
 * | a content action | no page is a page to write; a page is one to improve or leave |
 * | any, in a list beside counts by value | the count of items with the value is the count under the contract value's name |
 *
 * Pooled over every operation, a value the evidence leaves one contract value
 * for, and no other value claims, is mapped (`evidence`); one no evidence
 * speaks for is mapped only when it is the one value left and one contract
 * value is unclaimed (`elimination`). Between the two, a value whose words
 * say one of those the evidence leaves it, and no other value's words say
 * that one, is mapped by its words (`synonym`, `value-words.ts`). Never two
 * values onto one.
 */
import type * as z from 'zod';
import { spelledValue } from '../contract/enum-spelling';
import { NAMING_STATES } from '../contract/enums';
import { valuesAtPath } from '../contract/paths';
import type { OperationId } from '../contract/operations';
import { isObject } from '../contract/conform';
import { type Expected, expectedOf } from './shapes';
import { meaningByWords } from './value-words';

/** One enumeration, by its contract values (`open,absent,…`): the same wherever it shows. */
export const enumKey = (values: readonly string[]) => [...values].sort().join(',');

export interface ValueHint {
  to: string;
  by: 'evidence' | 'synonym' | 'elimination';
  confidence: number;
  reason: string;
}
/** Per enumeration, the upstream values settled by evidence. */
export type ValueHints = ReadonlyMap<string, ReadonlyMap<string, ValueHint>>;

const EVIDENCE = 0.9;
const ELIMINATION = 0.8;
/** A value's words, among the values the evidence leaves it: the weakest evidence, above the map's threshold. */
const WORDS = 0.8;

type Item = Record<string, unknown>;
/** What the items of a list say of one enumeration field of theirs: the contract values each item's may be. */
interface Evidence {
  operation: OperationId;
  list: string;
  field: string;
  says: string;
  of: (item: Item, names: Names) => readonly string[] | undefined;
}

/** The names an answer's text is read for: the brand's, and its rivals'. */
export interface Names {
  brands: ReadonlySet<string>;
  rivals: ReadonlySet<string>;
}

/** Words that recommend, in the languages of the markets: an answer recommends the brand in a sentence that names it with one. */
const RECOMMENDS = /recommend|empfehl|recomend|recommand|raccomand|aanbevel|polec/i;

/** An answer naming the brand: recommended where a sentence names it with a word that recommends, else mentioned. */
function named(text: unknown, { brands }: Names): readonly string[] {
  if (typeof text !== 'string' || brands.size === 0) return NAMED;
  const sentences = text.split(/[.!?\n]+/).filter((sentence) => [...brands].some((brand) => sentence.includes(brand)));
  if (sentences.length === 0) return NAMED;
  return sentences.some((sentence) => RECOMMENDS.test(sentence)) ? ['recommended'] : ['mentioned'];
}

/** An answer not naming the brand: no text is no answer, a rival named in it is absent, neither is open. */
function unnamed(text: unknown, { rivals }: Names): readonly string[] {
  if (text === '') return ['no_answer'];
  if (typeof text !== 'string' || rivals.size === 0) return ['absent', 'open'];
  return [...rivals].some((rival) => text.includes(rival)) ? ['absent'] : ['open'];
}

const naming = (state: unknown) => typeof state === 'string' && (NAMING_STATES as readonly string[]).includes(state);
const known = (state: unknown) => typeof state === 'string' && ['recommended', 'mentioned', 'absent', 'open', 'no_answer'].includes(state);
const NAMED = ['recommended', 'mentioned'];
const UNNAMED = ['absent', 'open', 'no_answer'];

const EVIDENCE_TABLE: readonly Evidence[] = [
  {
    operation: 'getAnswerHistory',
    list: 'questions[]',
    field: 'outcome',
    says: 'the engines naming the brand now against before',
    of: (q) =>
      typeof q.engines_naming_now === 'number' && typeof q.engines_naming_before === 'number'
        ? [q.engines_naming_now > q.engines_naming_before ? 'won' : q.engines_naming_now < q.engines_naming_before ? 'lost' : 'held']
        : undefined,
  },
  {
    operation: 'getAnswerHistory',
    list: 'questions[].moved[]',
    field: 'direction',
    says: 'its states before and now',
    of: (m) => (known(m.now) && (known(m.before) || m.before === null) && naming(m.now) !== naming(m.before) ? [naming(m.now) ? 'gained' : 'lost'] : undefined),
  },
  // A move gained names the brand now and not before; one lost, the reverse.
  {
    operation: 'getAnswerHistory',
    list: 'questions[].moved[]',
    field: 'now',
    says: "the move's direction",
    of: (m) => (m.direction === 'gained' ? NAMED : m.direction === 'lost' ? UNNAMED : undefined),
  },
  {
    operation: 'getAnswerHistory',
    list: 'questions[].moved[]',
    field: 'before',
    says: "the move's direction",
    of: (m) => (m.direction === 'gained' ? UNNAMED : m.direction === 'lost' ? NAMED : undefined),
  },
  {
    operation: 'getAnswerRuns',
    list: 'runs[]',
    field: 'state',
    says: 'whether the answer named the brand, recommending it, and the rivals its text names',
    of: (r, names) => (typeof r.brand_named !== 'boolean' ? undefined : r.brand_named ? named(r.text, names) : unnamed(r.text, names)),
  },
  // A dominant state over a week: no position means the brand was never named; a position says nothing of the dominant state.
  {
    operation: 'getPromptMatrix',
    list: 'prompts[].engines[]',
    field: 'state',
    says: 'no position where the brand was named',
    of: (c) => (c.state !== null && c.state !== undefined && c.position === null ? UNNAMED : undefined),
  },
  {
    operation: 'getTopic',
    list: 'questions[].engines[].latest',
    field: 'state',
    says: 'a position where the brand was named, recommending it, and the rivals its text names',
    of: (l, names) => (l.position === null ? unnamed(l.text, names) : typeof l.position === 'number' ? named(l.text, names) : undefined),
  },
  {
    operation: 'getContentGaps',
    list: 'questions[]',
    field: 'action',
    says: 'whether the brand has a page',
    of: (q) => (q.has_page === false ? ['write'] : q.has_page === true ? ['improve', 'leave'] : undefined),
  },
];

/** Lists beside counts by value (`counts.won` is the questions whose outcome is won). */
const TALLIES: readonly { operation: OperationId; list: string; field: string; counts: string }[] = [
  { operation: 'getAnswerHistory', list: 'questions[]', field: 'outcome', counts: 'counts' },
  { operation: 'getContentGaps', list: 'questions[]', field: 'action', counts: 'counts' },
];

/** Every closed enumeration of a schema, by path: its contract values. */
export function enumPaths(schema: z.ZodType, path = '', into = new Map<string, string[]>()): Map<string, string[]> {
  const expected: Expected = expectedOf(schema);
  if (expected.kind === 'object') for (const [name, field] of Object.entries(expected.shape)) enumPaths(field, path ? `${path}.${name}` : name, into);
  else if (expected.kind === 'array') enumPaths(expected.element, `${path}[]`, into);
  else if (expected.kind === 'union') for (const option of expected.options) enumPaths(option, path, into);
  else if (expected.kind === 'enum' && !expected.open && expected.values.length > 1) into.set(path, expected.values);
  return into;
}

/**
 * The values of every closed enumeration no spelling rule maps, settled by the evidence of every operation's body
 * (on the contract's names as placed so far; a value no rule maps is still the service's own there).
 */
export function settleValues(bodies: Iterable<readonly [OperationId, unknown]>, schemas: (id: OperationId) => z.ZodType, names: Names = { brands: new Set(), rivals: new Set() }): ValueHints {
  const read = [...bodies];
  /** Per enumeration: its contract values, the foreign values seen, and per foreign value what the evidence leaves. */
  const pools = new Map<string, { ours: readonly string[]; foreign: Set<string>; claimed: Set<string>; may: Map<string, Set<string>>; why: Map<string, string> }>();
  const poolOf = (ours: readonly string[]) => {
    const key = enumKey(ours);
    if (!pools.has(key)) pools.set(key, { ours, foreign: new Set(), claimed: new Set(), may: new Map(), why: new Map() });
    return pools.get(key)!;
  };
  for (const [id, body] of read)
    for (const [path, ours] of enumPaths(schemas(id))) {
      const pool = poolOf(ours);
      for (const value of valuesAtPath(body, path)) {
        if (typeof value !== 'string') continue;
        const mine = ours.includes(value) ? value : spelledValue(value, ours);
        if (mine) pool.claimed.add(mine);
        else pool.foreign.add(value);
      }
    }
  const narrow = (ours: readonly string[], value: string, to: readonly string[], why: string) => {
    const pool = poolOf(ours);
    if (!pool.foreign.has(value)) return;
    const may = pool.may.get(value) ?? new Set(ours);
    pool.may.set(value, new Set([...may].filter((v) => to.includes(v))));
    pool.why.set(value, why);
  };
  for (const evidence of EVIDENCE_TABLE) {
    const ours = enumPaths(schemas(evidence.operation)).get(`${evidence.list}.${evidence.field}`);
    if (!ours) continue;
    for (const item of read
      .filter(([id]) => id === evidence.operation)
      .flatMap(([, body]) => valuesAtPath(body, evidence.list))
      .filter(isObject)) {
      const value = item[evidence.field];
      const to = evidence.of(item, names);
      if (typeof value === 'string' && to) narrow(ours, value, to, evidence.says);
    }
  }
  for (const tally of TALLIES)
    for (const [id, body] of read) {
      if (id !== tally.operation) continue;
      tallyValues(tally, body, enumPaths(schemas(id)).get(`${tally.list}.${tally.field}`), narrow);
    }
  return resolve(pools);
}

/** Counts by value against the list beside them: the count of items with a value is the count under its contract value's name. */
function tallyValues(
  tally: (typeof TALLIES)[number],
  body: unknown,
  ours: readonly string[] | undefined,
  narrow: (ours: readonly string[], value: string, to: readonly string[], why: string) => void,
): void {
  const counts = valuesAtPath(body, tally.counts)[0];
  // Counts not yet placed under our names say nothing.
  if (!ours || !isObject(counts) || !ours.every((v) => typeof counts[v] === 'number')) return;
  const tallied = new Map<string, number>();
  for (const item of valuesAtPath(body, tally.list).filter(isObject))
    if (typeof item[tally.field] === 'string') tallied.set(item[tally.field] as string, (tallied.get(item[tally.field] as string) ?? 0) + 1);
  for (const [value, count] of tallied)
    narrow(
      ours,
      value,
      ours.filter((v) => counts[v] === count),
      `the count under each value's name (\`${tally.counts}\`)`,
    );
}

function resolve(pools: Map<string, { ours: readonly string[]; foreign: Set<string>; claimed: Set<string>; may: Map<string, Set<string>>; why: Map<string, string> }>): ValueHints {
  const hints = new Map<string, Map<string, ValueHint>>();
  for (const [key, pool] of pools) {
    const settled = new Map<string, ValueHint>();
    const claimed = new Set(pool.claimed);
    // Settle what the evidence pins, then what that frees: a value left one contract value once others took theirs.
    // Only then the words (`value-words.ts`), among the values the evidence leaves, and what they free in turn.
    for (let words = true; words; ) {
      for (let changed = true; changed; ) {
        changed = false;
        for (const value of pool.foreign) {
          if (settled.has(value)) continue;
          const left = [...(pool.may.get(value) ?? [])].filter((v) => !claimed.has(v));
          if (pool.may.has(value) && left.length === 1) {
            settled.set(value, { to: left[0]!, by: 'evidence', confidence: EVIDENCE, reason: `${pool.why.get(value)} say it is \`${left[0]}\`` });
            claimed.add(left[0]!);
            changed = true;
          }
        }
      }
      words = false;
      const unsettled = [...pool.foreign].filter((v) => !settled.has(v));
      const said = new Map(unsettled.map((value) => [value, meaningByWords(value, pool.ours)] as const));
      for (const value of unsettled) {
        const to = said.get(value);
        const left = [...(pool.may.get(value) ?? pool.ours)].filter((v) => !claimed.has(v));
        // Two values whose words say one of ours say nothing: never two values onto one.
        if (!to || !left.includes(to) || unsettled.some((other) => other !== value && said.get(other) === to)) continue;
        const evidence = pool.may.has(value) ? `, one of those ${pool.why.get(value)} leave (${left.join(', ')})` : '';
        settled.set(value, { to, by: 'synonym', confidence: WORDS, reason: `its words say \`${to}\`${evidence}` });
        claimed.add(to);
        words = true;
      }
    }
    const open = [...pool.foreign].filter((v) => !settled.has(v));
    const unclaimed = pool.ours.filter((v) => !claimed.has(v));
    if (open.length === 1 && unclaimed.length === 1 && (!pool.may.has(open[0]!) || pool.may.get(open[0]!)!.has(unclaimed[0]!)))
      settled.set(open[0]!, {
        to: unclaimed[0]!,
        by: 'elimination',
        confidence: ELIMINATION,
        reason: `every other value, in every operation, is another of ours: \`${unclaimed[0]}\` is the one left`,
      });
    if (settled.size > 0) hints.set(key, settled);
  }
  return hints;
}
