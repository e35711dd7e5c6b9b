/**
 * Values joined across operations: the spec's resources are named by the same
 * values wherever they show. The ids `/brands` lists are the `brand_id` each
 * operation echoes; a topic's id of `/topics` is one `/topics/{id}` answers
 * for and content gaps name; a question's text of `/answers` is what
 * `/prompts` lists and `/answers/runs` accepts; a rival's name of the topics
 * is one `/competitors/{name}` answers for; a market's code and id are those
 * of `/markets`, and its name too; a brand's name of `/brands` is the brand's own row of the
 * overview's competition, and what the answers naming the brand write (`brandNamesByAnswers`). Whatever the service calls its fields, a field whose values
 * are all among the values another operation holds for one of these is that
 * field, and the values a request was answered for (a probe) are such values
 * too.
 *
 * ```ts
 * const known = knownValues(bodies, requests);  // from the bodies read, on the contract's names as placed so far
 * domainOf('listTopics', 'topics[].id');        // 'topic'
 * known.get('topic');                           // Set { 1101, 1102, ... }
 * ```
 */
import { valuesAt } from '../contract/params-from';
import { operations, type AnyOperation, type OperationId } from '../contract/operations';
import { singular, wordsOf } from './names';

/** A field placed by the values it shares with another operation: as sure as a name, and read before any guess by type. */
export const JOIN = 0.9;

/** What a value names: the resources the spec joins across operations. */
export type Domain = 'brand' | 'brand_name' | 'market_id' | 'market_code' | 'market_name' | 'topic' | 'topic_name' | 'question' | 'question_text' | 'task' | 'rival';

/** The entity an id names, by the word before it or the object holding it (`topic_id`, `topics[].id`, `topic.id`). */
const ID_OF: Record<string, Domain> = { brand: 'brand', market: 'market_id', topic: 'topic', question: 'question', prompt: 'question', task: 'task' };

/** What a contract path's values name, if they name a resource the spec joins; undefined for any other field. */
export function domainOf(path: string): Domain | undefined {
  const parts = path.replaceAll('[]', '').split('.');
  const leaf = parts.at(-1)!;
  const holder = parts.length > 1 ? singular(wordsOf(parts.at(-2)!).at(-1)!) : undefined;
  const leafWords = wordsOf(leaf).map(singular);
  if (leafWords.length === 2 && leafWords[1] === 'id') return ID_OF[leafWords[0]!];
  if (leaf === 'id') return holder ? ID_OF[holder] : undefined;
  if (leaf === 'code' && holder === 'market') return 'market_code';
  if (leaf === 'name' && holder === 'market') return 'market_name';
  if (leaf === 'text' && (holder === 'question' || holder === 'prompt')) return 'question_text';
  if (leaf === 'name' && holder === 'topic') return 'topic_name';
  if (leaf === 'name' && (holder === 'rival' || holder === 'competitor')) return 'rival';
  if (leaf === 'name' && holder === 'brand') return 'brand_name';
  if (leaf === 'rival' || leaf === 'top_rival') return 'rival';
  return undefined;
}

/** The values a request of `id` was answered for, by the domain of each parameter (`getTopic`'s `id`: a topic). */
function requestDomains(id: OperationId): Record<string, Domain> {
  const op = operations[id] as unknown as AnyOperation;
  const found: Record<string, Domain> = { brand_id: 'brand' };
  for (const [param, source] of Object.entries(op.paramsFrom ?? {})) {
    const domain = domainOf(source.path);
    if (domain) found[param] = domain;
  }
  return found;
}

/** Every domain's values: from the bodies (on the contract's names) at each path of that domain, and from the requests answered 200. */
export type Known = ReadonlyMap<Domain, ReadonlySet<string | number>>;

export function knownValues(bodies: ReadonlyMap<OperationId, unknown>, paths: (id: OperationId) => Iterable<string>, requests: ReadonlyMap<OperationId, Record<string, string | number>>): Known {
  const known = new Map<Domain, Set<string | number>>();
  const add = (domain: Domain, value: unknown) => {
    if (typeof value === 'string' || typeof value === 'number') (known.get(domain) ?? known.set(domain, new Set()).get(domain)!).add(value);
  };
  for (const [id, body] of bodies)
    for (const path of paths(id)) {
      const domain = domainOf(path);
      if (domain) for (const value of valuesAt(body, path)) add(domain, value);
    }
  for (const [id, params] of requests) {
    const domains = requestDomains(id);
    for (const [param, value] of Object.entries(params)) if (domains[param]) add(domains[param]!, value);
  }
  return known;
}

/**
 * The values a request of `id` needs that the contract's table takes from an answer which lacks them (`paramsFrom`),
 * taken instead from any answer read that holds a value of the same resource (a question's text from `/prompts` where
 * `/answers` lists none): the spec joins them, so each is one the request accepts. Undefined when one has none.
 */
export function paramsFromKnown(id: OperationId, known: Known): Record<string, string | number> | undefined {
  const op = operations[id] as unknown as AnyOperation;
  const domains = requestDomains(id);
  const params: Record<string, string | number> = {};
  for (const param of Object.keys(op.paramsFrom ?? {})) {
    const value = [...(known.get(domains[param]!) ?? [])][0];
    if (value === undefined) return undefined;
    params[param] = value;
  }
  return params;
}

/** Values as a join compares them: a number and its digits are one (`"1101"` and `1101`). */
const joinKey = (value: unknown) => (typeof value === 'number' || typeof value === 'string' ? String(value).trim() : undefined);

/**
 * Whether a field's values join the domain: every value among the known ones (at least one value, and the domain
 * known from elsewhere). `false` when none is: its values name something else.
 */
export function joins(known: Known, domain: Domain, values: readonly unknown[]): boolean | undefined {
  const set = known.get(domain);
  const seen = values.map(joinKey).filter((v): v is string => v !== undefined && v !== '');
  if (!set || set.size === 0 || seen.length === 0) return undefined;
  const keys = new Set([...set].map((v) => String(v)));
  const inside = seen.filter((v) => keys.has(v)).length;
  return inside === seen.length ? true : inside === 0 ? false : undefined;
}

/** An answer's text at least this long is read for names: shorter ones say too little to tell a name apart. */
const MIN_TEXT = 40;

/**
 * The brand's name, by the spec's answer runs (`/answers/runs`: the exact text, and whether it named the brand): of
 * the words `brands` holds anywhere (its values and its keys, a list keyed by name included), those every answer
 * naming the brand writes and no other answer does. None where the runs tell nothing (no run either way).
 */
export function brandNamesByAnswers(brands: unknown, runs: unknown): Set<string> {
  const texts = (named: boolean) =>
    valuesAt(runs, 'runs[]').flatMap((run) => {
      const r = run as { brand_named?: unknown; text?: unknown };
      return r?.brand_named === named && typeof r.text === 'string' && r.text.length >= MIN_TEXT ? [r.text] : [];
    });
  const [naming, other] = [texts(true), texts(false)];
  if (naming.length === 0 || other.length === 0) return new Set();
  const found = new Set<string>();
  for (const word of wordsHeld(brands)) if (naming.every((text) => text.includes(word)) && !other.some((text) => text.includes(word))) found.add(word);
  return found;
}

/** Every string of a body of at least 3 characters that is no address, as a value or as a key. */
function wordsHeld(value: unknown, into: Set<string> = new Set(), depth = 0): Set<string> {
  if (depth > 6) return into;
  const take = (text: string) => {
    if (text.length >= 3 && !/^[a-z]+:\/\//i.test(text)) into.add(text);
  };
  if (typeof value === 'string') take(value);
  else if (Array.isArray(value)) for (const item of value) wordsHeld(item, into, depth + 1);
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) {
      take(key);
      wordsHeld(item, into, depth + 1);
    }
  return into;
}
