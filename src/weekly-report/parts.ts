/**
 * What the features read, part by part, and which parts each cannot do
 * without (DESIGN section 13: degrade, do not fail). The one table the
 * degraded renderings and the compatibility check (compat.ts) both read.
 *
 * A part is fields of one operation, named by contract paths. A feature
 * either needs a part (`required`: without it, it cannot run) or says what it
 * leaves out without it: "Your Read API does not provide the 12-week
 * history, so the weekly chart is left out." Every other part of an operation a
 * feature reads is optional to it and unsaid. Fields no part names stay as
 * required as the contract says (`period`, `market`: what a body is about).
 *
 * ```ts
 * const { data, notProvided } = await readParts(client, NEEDS.alerts, 'listTopics', params);
 * notProvidedLines(NEEDS.alerts, notProvided); // [{ part: 'rivals', line: 'Your Read API does not provide rivals per topic, so …' }]
 * ```
 */
import { type ApiClient, ApiClientError, type Lenient, type LenientOptions, type OperationId, type ResponseMeta, type ResponseOf } from '../client';
import type { CsvRows } from '../contract/operations';
import { atOrUnder, fieldOf, holdersOf } from '../contract/paths';
import { contractPaths } from '../contract/upstream-map';
import { type ZodSide, zodSide } from '../contract/zod-side';

export interface Part {
  operation: OperationId;
  /** Its fields, as contract paths. A list the service does not provide is read as empty. */
  fields: readonly string[];
  /** What it is, in plain words, as a sentence names it. */
  words: string;
  /** Other fields of the operation the part does without even where it is required (the brand's name needs no plan). */
  without?: readonly string[];
}

export const PARTS = {
  score: { operation: 'getVisibility', fields: ['score', 'change', 'answered_runs', 'naming_runs'], words: 'the visibility score' },
  won_lost: { operation: 'getAnswerHistory', fields: ['counts', 'questions'], words: 'the won and lost questions' },
  history: { operation: 'getVisibility', fields: ['history'], words: 'the 12-week history' },
  per_engine: { operation: 'getPromptMatrix', fields: ['engines', 'prompts'], words: 'per-engine answers' },
  moved: { operation: 'getAnswerHistory', fields: ['questions[].moved'], words: 'the engines that moved each question' },
  topics: { operation: 'listTopics', fields: ['topics'], words: 'topics' },
  rivals: { operation: 'listTopics', fields: ['topics[].rivals'], words: 'rivals per topic' },
  // The plan's (plan.ts): only what it reads of each body is required of it.
  coverage: {
    operation: 'getContentGaps',
    fields: ['questions'],
    words: 'content coverage',
    without: ['period', 'counts', 'questions[].text', 'questions[].topic', 'questions[].has_page', 'questions[].page_citations'],
  },
  tasks: { operation: 'listTasks', fields: ['tasks'], words: 'tasks', without: ['filter', 'open_counts', 'matching', 'tasks[].layer', 'tasks[].status', 'tasks[].created_at', 'tasks[].updated_at'] },
  cited_instead: {
    operation: 'listPages',
    fields: ['uncited'],
    words: 'what AI cites instead of the brand’s pages',
    without: [
      'period',
      'previous_period',
      'totals',
      'pages',
      'by_engine',
      'by_topic',
      'uncited[].title',
      'uncited[].topic.name',
      'uncited[].cited_instead[].url',
      'uncited[].cited_instead[].classification',
    ],
  },
  brand_name: { operation: 'listBrands', fields: ['brands'], words: 'the brand’s name', without: ['plan', 'generated_at', 'brands[].domain', 'brands[].category', 'brands[].markets'] },
} as const satisfies Record<string, Part>;
export type PartId = keyof typeof PARTS;
export const PART_IDS = Object.keys(PARTS) as PartId[];

/** A feature's needs: `required`, or what it leaves out without the part (the end of "…, so …"). */
export type Needs = Partial<Record<PartId, 'required' | string>>;

/** The weekly report's needs: the digest, the report page and `weekly_report` render it. */
const REPORT: Needs = {
  score: 'required',
  won_lost: 'required',
  history: 'so the weekly chart is left out',
  per_engine: 'so each engine’s questions naming the brand are left out',
  moved: 'so each won or lost question is listed without the engines that moved it',
  topics: 'so the topics that moved are left out',
  rivals: 'so the rival named most in each topic is left out',
  coverage: 'so the plan leaves out the brand’s page for each question and what to do with it',
  tasks: 'so the plan leaves out the task that would win each question back',
  cited_instead: 'so the plan leaves out the domains AI cites instead',
};

/** The report as a page and `weekly_report` read it: with the brand's name from `/brands` (a digest's subscription keeps it). */
const REPORT_READ: Needs = { ...REPORT, brand_name: 'required' };

/** Each feature's needs. CSV exports are per operation instead (`csvOptionalPaths`): each export needs its rows. */
export const NEEDS = {
  digest: REPORT,
  report_page: REPORT_READ,
  weekly_report: REPORT_READ,
  // What the events read: the score (and the days it covers) for `visibility_moved`, `/prompts` for lost and won questions, topics and their rivals for `rival_overtook`.
  alerts: {
    score: 'required',
    per_engine: 'so lost and won questions are not alerted',
    topics: 'so rivals overtaking the brand in a topic are not alerted',
    rivals: 'so rivals overtaking the brand in a topic are not alerted',
  },
  // Kept from the report's own read, so it needs what the report needs; only each engine's columns can stay empty.
  history: { score: 'required', won_lost: 'required', per_engine: 'so each engine’s columns of the kept history stay empty' },
} as const satisfies Record<string, Needs>;
export type Feature = keyof typeof NEEDS | 'csv_exports';

/**
 * What a body that answered holds where the map found nothing of a part: lists under names no field of the
 * contract or the map has (`unplacedLists`), and values the contract does not read, each named with its field
 * (an answer state `unclaimed` no rule maps). With either, the service may well provide the part: the map misses it.
 */
export interface MapMisses {
  lists: string[];
  values: string[];
}

/** The line a reader sees where a part is left out: said of the map when it misses what the answer holds (`misses`), else of the service. */
export function notProvidedLine(part: PartId, consequence: string, misses: MapMisses = { lists: [], values: [] }): string {
  const { words, operation } = PARTS[part];
  if (misses.values.length > 0) {
    return `The Read API’s answer to ${operation} holds ${words} with ${misses.values.length === 1 ? 'a value' : 'values'} the upstream map does not read (${misses.values.join('; ')}), ${consequence} until the map says which of ours ${misses.values.length === 1 ? 'it is' : 'they are'}.`;
  }
  if (misses.lists.length > 0) {
    const names = misses.lists
      .slice(0, 3)
      .map((name) => `\`${name}\``)
      .join(', ');
    return `The upstream map does not place ${words} in the Read API’s answer to ${operation}, which holds ${names} under ${misses.lists.length === 1 ? 'a name' : 'names'} the map does not name, ${consequence}.`;
  }
  return `Your Read API does not provide ${words}, ${consequence}.`;
}

/** The lines of `parts` a feature says, one per consequence (rivals and topics left out say one line), in the table's order. */
export function notProvidedLines(needs: Needs, parts: readonly PartId[], misses: Partial<Record<PartId, MapMisses>> = {}): { part: PartId; line: string }[] {
  const said = new Set<string>();
  return PART_IDS.flatMap((part) => {
    const need = needs[part];
    if (!parts.includes(part) || need === undefined || need === 'required' || said.has(need)) return [];
    said.add(need);
    return [{ part, line: notProvidedLine(part, need, misses[part]) }];
  });
}

/** One operation as a feature reads it: `data` null when the service does not have the operation at all. */
export interface PartsRead<Id extends OperationId> {
  data: ResponseOf<Id> | null;
  meta: ResponseMeta | null;
  /** The parts of this operation the service does not provide (required ones never: their absence is thrown). */
  notProvided: PartId[];
  /** Why: the fields absent from the body, or the answer that says the operation itself is missing. */
  absent: string[];
  missing?: ApiClientError;
  /** With parts not provided by a body that answered: what it holds that the map misses. */
  misses: MapMisses;
}

/** Of reads, the parts each left out where the answer held what the map misses, by part: what their lines name (`notProvidedLine`). */
export function missesByPart(reads: readonly PartsRead<OperationId>[]): Partial<Record<PartId, MapMisses>> {
  return Object.fromEntries(reads.flatMap((read) => (read.misses.lists.length + read.misses.values.length > 0 ? read.notProvided.map((part) => [part, read.misses]) : [])));
}

const partsOf = (id: OperationId) => PART_IDS.filter((part) => PARTS[part].operation === id);

/** An answer that says the service has no such operation, or a body it cannot read even with the map. */
export const operationMissing = (error: ApiClientError) => error.kind === 'parse' || (error.status === 404 && error.code !== 'brand_not_found');

/**
 * Reads operation `id` for a feature: the parts it does not require may be
 * absent (a lenient read, src/client), and are listed when no item has them.
 * A list absent anywhere is read as empty (a service may leave out the empty
 * ones), so the model never meets a hole. When the feature requires none of
 * the operation's parts, an operation the service does not have (a 404, a
 * body unreadable even with the map) is all of them not provided. Any other
 * failure is thrown.
 */
export async function readParts<Id extends OperationId>(client: ApiClient, needs: Needs, id: Id, params: Record<string, unknown>): Promise<PartsRead<Id>> {
  const parts = partsOf(id);
  const optional = parts.filter((part) => needs[part] !== 'required');
  try {
    const lenient = client.lenient[id] as unknown as (params: Record<string, unknown>, options: LenientOptions) => Promise<Lenient<ResponseOf<Id>>>;
    const fields = optional.flatMap((part) => PARTS[part].fields);
    const without = parts.filter((part) => needs[part] !== undefined).flatMap((part): readonly string[] => (PARTS[part] as Part).without ?? []);
    const read = await lenient(params, { optional: [...fields, ...without] });
    // A list left out is an empty list wherever it is missing (arrays on the way followed).
    const zs = await zodSide();
    for (const path of fields) if (contractPaths(zs, id).has(`${path}[]`)) for (const holder of holdersOf(read.data, path)) holder[fieldOf(path)] ??= [];
    const notProvided = optional.filter((part) => PARTS[part].fields.some((field) => read.absent.includes(field)));
    const unread = notProvided.flatMap((part) => read.unreadable.filter((u) => PARTS[part].fields.some((field) => atOrUnder(u.path, field))).map((u) => u.said));
    const lists = notProvided.length > 0 && unread.length === 0 ? await unplacedLists(client, zs, id, params) : [];
    return { data: read.data, meta: read.meta, notProvided, absent: read.absent, misses: { lists, values: [...new Set(unread)] } };
  } catch (error) {
    if (error instanceof ApiClientError && optional.length === parts.length && operationMissing(error))
      return { data: null, meta: null, notProvided: outermost(optional), absent: [], missing: error, misses: { lists: [], values: [] } };
    throw error;
  }
}

/** A name with case and separators taken out, as bodies are matched to the contract (`brand_id`, `BrandId`). */
const nameKey = (name: string) => name.replace(/[-_\s]/g, '').toLowerCase();

/**
 * The lists (arrays, at any depth) of the operation's answer as sent under a name no field of the contract has:
 * what a part the map did not find may be (per-engine answers under `Matrix`). The same read again, as sent: a
 * cache hit. Empty when it cannot be read.
 */
async function unplacedLists(client: ApiClient, zs: ZodSide, id: OperationId, params: Record<string, unknown>): Promise<string[]> {
  const known = new Set([...contractPaths(zs, id)].map((path) => nameKey(path.split('.').at(-1)!.replace('[]', ''))));
  const found = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.slice(0, 3).forEach(walk);
    if (typeof value !== 'object' || value === null) return;
    for (const [name, inner] of Object.entries(value)) {
      if (Array.isArray(inner) && inner.length > 0 && !known.has(nameKey(name))) found.add(name);
      walk(inner);
    }
  };
  try {
    const unchecked = client.unchecked[id] as unknown as (params: Record<string, unknown>) => Promise<{ data: unknown }>;
    walk((await unchecked(params)).data);
  } catch (error) {
    if (!(error instanceof ApiClientError)) throw error;
  }
  return [...found].sort();
}

/**
 * An operation's answer as a CSV table reads it (`csvOptionalPaths`): its
 * rows required, every other field optional; `absent` names the columns'
 * fields the service does not provide.
 */
export async function readTableBody(client: ApiClient, id: OperationId, csv: CsvRows, params: Record<string, string>): Promise<Lenient<unknown>> {
  const lenient = client.lenient[id] as unknown as (params: Record<string, string>, options: LenientOptions) => Promise<Lenient<unknown>>;
  return lenient(params, { optional: csvOptionalPaths(await zodSide(), id, csv), carry: true });
}

/** Of `parts`, those not inside another (without topics, their rivals are not said to be missing too). */
function outermost(parts: PartId[]): PartId[] {
  const inside = (field: string, outer: string) => field.startsWith(`${outer}[].`) || field.startsWith(`${outer}.`);
  return parts.filter((part) => !parts.some((other) => other !== part && PARTS[part].fields.every((field) => PARTS[other].fields.some((outer) => inside(field, outer)))));
}

/**
 * The contract paths a CSV export can do without: every field beside its
 * rows, of each row, and of each item a row is exploded into (`each`); a
 * missing one is an empty column. The rows themselves are required: without
 * them there is no table.
 */
export function csvOptionalPaths(zs: ZodSide, id: OperationId, csv: CsvRows): string[] {
  const chain = csv.rows.split('.').map((_, i, names) => names.slice(0, i + 1).join('.'));
  const holders = new Set(['', ...chain.slice(0, -1), `${csv.rows}[]`, ...(csv.each ? [`${csv.rows}[].${csv.each}[]`] : [])]);
  return [...contractPaths(zs, id)].filter((path) => !path.endsWith('[]') && !chain.includes(path) && holders.has(parentOf(path)));
}

/** `a.b[].c` → `a.b[]`; `a` → ``. */
const parentOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('.')));
