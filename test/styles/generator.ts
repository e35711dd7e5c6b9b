/**
 * House styles (issue 43, item 4): a seeded, property-based generator of
 * services that keep every rule of the spec while naming and writing their
 * fields their own way. A style is drawn with fast-check (`houseStyle()`);
 * `applyStyle(style, id, originBody)` writes one of our origin's bodies as the
 * styled service would, `invertStyle` reads it back (the proof that nothing is
 * lost), `styleOmits` says which operations the service lacks (it answers 404
 * `not_found` for them).
 *
 * A style draws its builder-wide habits with fast-check (case convention,
 * envelope, enum and engine spellings, how often it renames, abbreviates,
 * flattens, keys lists, adds fields) and, from its `seed`, a decision per
 * contract path of each operation: its name (the same every time the path is
 * written: a service is internally consistent), its unit or date form where
 * the path holds a percentage, a change, a date or a timestamp, whether an
 * object is written flat in its parent, whether a list is keyed by its items'
 * key. Every decision is a function of (seed, operation, path), so a style is
 * reproduced from its seed alone (`styleOf(seed)`).
 *
 * What it leaves out is in docs/tests.md ("House styles").
 */
import fc from 'fast-check';
import type * as z from 'zod';
import { CONTENT_ACTIONS, ENGINES, OUTCOMES, SOURCE_CLASSES, STATES } from '../../src/contract/enums';
import { OPERATION_IDS, type OperationId } from '../../src/contract/operations';
import { defOf, innerSchema, numberRules } from '../../src/contract/schema-walk';
import { zodSide } from '../../src/contract/zod-side';
import { type Language, LANGUAGES } from './languages';

const zs = await zodSide();

type Json = unknown;
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------- the contract's shapes

export type EnumKind = 'state' | 'outcome' | 'action' | 'class' | 'direction';
type Leaf = 'percent' | 'delta' | 'date' | 'timestamp' | 'engine' | EnumKind | 'other';
type Node = { kind: 'object'; fields: Record<string, Node>; scalarOnly: boolean } | { kind: 'array'; element: Node } | { kind: 'leaf'; leaf: Leaf };
interface Wrapped {
  node: Node;
  nullable: boolean;
}

const CLOSED: Record<EnumKind, readonly string[]> = {
  state: STATES,
  outcome: OUTCOMES,
  action: CONTENT_ACTIONS,
  class: SOURCE_CLASSES,
  direction: ['gained', 'lost'],
};
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v) => b.includes(v));

function shapeOf(schema: z.ZodType): Wrapped {
  let nullable = false;
  let s = schema;
  for (;;) {
    const def = defOf(s);
    if (def.type === 'nullable' || def.type === 'optional') nullable = true;
    const inner = innerSchema(def);
    if (!inner) break;
    s = inner;
  }
  const def = defOf(s);
  if (def.type === 'object') {
    const fields: Record<string, Node> = {};
    let scalarOnly = true;
    for (const [name, field] of Object.entries(def.shape ?? {})) {
      const w = shapeOf(field);
      fields[name] = w.node;
      if (w.node.kind !== 'leaf' || w.nullable) scalarOnly = false;
    }
    return { node: { kind: 'object', fields, scalarOnly }, nullable };
  }
  if (def.type === 'array' && def.element) return { node: { kind: 'array', element: shapeOf(def.element).node }, nullable };
  if (def.type === 'union') {
    const options = (def.options ?? []).map((o) => shapeOf(o));
    const enumOption = options.find((o) => o.node.kind === 'leaf' && o.node.leaf === 'engine');
    if (enumOption) return { node: enumOption.node, nullable };
    const objects = options.filter((o) => o.node.kind === 'object');
    if (objects.length === options.length && objects.length > 0) {
      // A discriminated union (the overview's parts a plan may not include): the union of its options' fields.
      const fields: Record<string, Node> = {};
      for (const o of objects) Object.assign(fields, (o.node as { fields: Record<string, Node> }).fields);
      return { node: { kind: 'object', fields, scalarOnly: false }, nullable };
    }
    return { node: { kind: 'leaf', leaf: 'other' }, nullable };
  }
  if (def.type === 'enum') {
    const values = Object.values(def.entries ?? {}).map(String);
    if (sameSet(values, ENGINES)) return { node: { kind: 'leaf', leaf: 'engine' }, nullable };
    for (const [kind, closed] of Object.entries(CLOSED)) if (sameSet(values, closed)) return { node: { kind: 'leaf', leaf: kind as EnumKind }, nullable };
    return { node: { kind: 'leaf', leaf: 'other' }, nullable };
  }
  if (def.type === 'number') {
    const { min, max } = numberRules(def);
    if (min === 0 && max === 100) return { node: { kind: 'leaf', leaf: 'percent' }, nullable };
    if (min === -100 && max === 100) return { node: { kind: 'leaf', leaf: 'delta' }, nullable };
  }
  if (def.type === 'string') {
    const format = def.format ?? def.checks?.map((c) => c._zod.def.format).find(Boolean);
    if (format === 'date') return { node: { kind: 'leaf', leaf: 'date' }, nullable };
    if (format === 'datetime') return { node: { kind: 'leaf', leaf: 'timestamp' }, nullable };
  }
  return { node: { kind: 'leaf', leaf: 'other' }, nullable };
}

const SHAPES = new Map<OperationId, Node>(OPERATION_IDS.map((id) => [id, shapeOf(zs.response(id)).node]));
const NULLABLE = new Map<string, boolean>();
for (const id of OPERATION_IDS) collectNullable(id, zs.response(id), '');
function collectNullable(id: OperationId, schema: z.ZodType, path: string): void {
  const w = shapeOf(schema);
  NULLABLE.set(`${id} ${path}`, w.nullable);
  let s = schema;
  for (let inner = innerSchema(defOf(s)); inner; inner = innerSchema(defOf(s))) s = inner;
  const def = defOf(s);
  if (def.type === 'object') for (const [name, f] of Object.entries(def.shape ?? {})) collectNullable(id, f, path ? `${path}.${name}` : name);
  if (def.type === 'array' && def.element) collectNullable(id, def.element, `${path}[]`);
}

/** The contract's shape of an operation's body, as the generator reads it: each leaf's kind (percent, delta, date, timestamp, engine, closed enumeration). */
export const shapeOfOperation = (id: OperationId): Node => SHAPES.get(id)!;

// ---------------------------------------------------------------- the generator's own words

/**
 * The generator's synonyms for contract field names, in snake_case: what a
 * builder may call the field instead. Chosen without looking at discovery's
 * table (src/discovery/names.ts); the test checks that at least half of the
 * pairs are unknown to it.
 */
export const NAME_SYNONYMS: Record<string, readonly string[]> = {
  score: ['visibility_index', 'rating', 'index_value', 'presence'],
  change: ['movement', 'trend_pts', 'shift', 'wow'],
  history: ['weekly_trend', 'timeseries', 'past_weeks', 'by_week'],
  answered_runs: ['responses_total', 'total_answers', 'sample_size', 'observations'],
  naming_runs: ['hits', 'brand_hits', 'positive_runs', 'mentioning_answers'],
  week_start: ['begins', 'week_of', 'from_date', 'start_day'],
  week_end: ['ends', 'through', 'to_date', 'end_day'],
  rivals: ['peers', 'alternatives', 'others_named', 'contenders'],
  share: ['portion', 'ratio', 'slice', 'percent_of_answers'],
  rate: ['frequency', 'likelihood', 'proportion'],
  state: ['verdict', 'mode', 'disposition'],
  engine: ['assistant_id', 'provider', 'source_model'],
  engines: ['providers', 'assistants', 'surfaces'],
  text: ['wording', 'body', 'phrase', 'content'],
  name: ['display_name', 'caption', 'handle'],
  prompts: ['rows', 'matrix', 'items', 'question_grid'],
  questions: ['queries', 'entries', 'question_list'],
  topics: ['themes', 'clusters', 'categories'],
  counts: ['tally', 'summary_counts', 'totals_by_outcome'],
  won: ['gained', 'wins', 'up'],
  lost: ['dropped', 'losses', 'down'],
  held: ['unchanged', 'steady', 'flat_count'],
  outcome: ['result', 'verdict', 'movement_kind'],
  moved: ['engine_moves', 'changes_by_engine', 'shifts'],
  position: ['rank_avg', 'placement', 'slot'],
  runs: ['samples', 'attempts', 'executions'],
  period: ['window', 'range', 'span'],
  previous_period: ['prior_window', 'comparison_range', 'baseline'],
  generated_at: ['as_of', 'computed', 'snapshot_time', 'built'],
  rank: ['standing', 'place', 'ordinal'],
  questions_count: ['query_count'],
  engines_naming_now: ['engines_now', 'current_engines', 'naming_engines_latest'],
  engines_naming_before: ['engines_prior', 'previous_engines', 'naming_engines_earlier'],
  top_rival: ['leading_competitor', 'main_rival', 'strongest_peer'],
  before: ['was', 'previously', 'old_state'],
  now: ['is', 'currently', 'new_state'],
  direction: ['sense', 'way', 'heading'],
  citations: ['references', 'cites', 'sourced_by'],
  domain: ['site', 'host_name', 'website'],
  classification: ['kind', 'owner_type', 'class'],
  brand_id: ['account_brand', 'brand_ref', 'brand_key'],
  market: ['locale', 'region', 'geo'],
  code: ['slug', 'iso', 'tag'],
  plan: ['subscription', 'tier', 'package'],
};

/** Abbreviations of whole names (snake_case), then of single words. */
const ABBREVIATIONS: Record<string, string> = {
  change: 'delta_pts',
  share: 'pct',
  generated_at: 'ts',
  answered_runs: 'ans_cnt',
  naming_runs: 'named_cnt',
  questions: 'qs',
  position: 'pos',
  citations: 'cites',
  impressions: 'impr',
  previous_period: 'prev_per',
  engines_naming_now: 'eng_now',
  engines_naming_before: 'eng_prev',
  score: 'scr',
  rate: 'pct',
  runs: 'qty',
  count: 'cnt',
};
const WORD_ABBREVIATIONS: Record<string, string> = {
  previous: 'prev',
  count: 'cnt',
  counts: 'cnts',
  citations: 'cites',
  engines: 'engs',
  engine: 'eng',
  market: 'mkt',
  history: 'hist',
  visibility: 'vis',
  percentage: 'pct',
  share: 'pct',
  quantity: 'qty',
  runs: 'qty',
  number: 'num',
  position: 'pos',
  question: 'q',
  questions: 'qs',
  competitor: 'comp',
  description: 'desc',
  classification: 'cls',
  period: 'per',
  impressions: 'impr',
  total: 'tot',
  threads: 'thr',
};

/** Engines our contract names, with their vendors and a model word (`openai-chatgpt`, `perplexity_sonar`). */
const VENDORS: Record<string, { vendor: string; model: string }> = {
  chatgpt: { vendor: 'openai', model: 'web' },
  perplexity: { vendor: 'perplexity', model: 'sonar' },
  gemini: { vendor: 'google', model: 'pro' },
  claude: { vendor: 'anthropic', model: 'sonnet' },
  copilot: { vendor: 'microsoft', model: 'chat' },
  google_ai_overviews: { vendor: 'google', model: 'serp' },
  grok: { vendor: 'xai', model: 'beta' },
  le_chat: { vendor: 'mistral', model: 'large' },
  meta_ai: { vendor: 'meta', model: 'llama' },
  deepseek: { vendor: 'deepseek', model: 'chat' },
};
/** Engines of its own that the service lists and that answered nothing. */
export const EXTRA_ENGINES = ['grok', 'le_chat', 'meta_ai', 'deepseek'] as const;

/** The generator's synonyms of closed enumerations' values. */
export const VALUE_SYNONYMS: Record<EnumKind, Record<string, readonly string[]>> = {
  state: {
    recommended: ['endorsed', 'top_pick', 'suggested'],
    mentioned: ['named', 'cited', 'listed'],
    absent: ['not_present', 'omitted', 'unseen'],
    open: ['unclaimed', 'neutral', 'undecided'],
    no_answer: ['no_response', 'blank', 'unanswered'],
  },
  outcome: { won: ['gained', 'improved', 'up'], lost: ['dropped', 'declined', 'down'], held: ['unchanged', 'steady', 'same'] },
  action: { write: ['create', 'draft', 'new'], improve: ['update', 'revise', 'refresh'], leave: ['keep', 'fine', 'none'] },
  class: { own: ['owned', 'first_party', 'brand'], competitor: ['rival', 'competition', 'peer'], third_party: ['external', 'earned', 'independent'] },
  direction: { gained: ['up', 'improved', 'rose'], lost: ['down', 'worsened', 'fell'] },
};

const EXTRA_FIELDS = ['trace_id', 'internal_ref', 'cache_key', 'region', 'shard', 'revision', 'is_beta', 'sort_key', 'ui_hint', 'score_version', 'sample_weight', 'flags'];
const MOVED_TIMESTAMP = ['as_of', 'generated', 'timestamp', 'updated_at', 'served_at', 'computed_at'];
const META_FIELDS = ['request_id', 'api_version', 'took_ms', 'server'];

// ---------------------------------------------------------------- the style

export const CASE_NAMES = ['camel', 'pascal', 'snake', 'kebab', 'upper'] as const;
export type CaseName = (typeof CASE_NAMES)[number];
export type Unit = 'points' | 'fraction' | 'string' | 'bps';
export type DayForm = 'date' | 'midnight' | 'epoch_s' | 'epoch_ms';
export type TimeForm = 'iso' | 'epoch_s' | 'epoch_ms';
export type Spelling = 'as_is' | 'upper' | 'upper_kebab' | 'pascal' | 'camel' | 'kebab';
export type EngineForm = 'as_is' | 'prefix' | 'suffix' | 'upper_prefix' | 'upper';
export const OPTIONAL_OPERATIONS = OPERATION_IDS.filter((id) => !['listBrands', 'getVisibility', 'getAnswerHistory'].includes(id));
/** Operations whose requests take a value from another's answer: the service lacks them when it lacks that one. */
const DEPENDS: Partial<Record<OperationId, OperationId>> = { getTopic: 'listTopics', getCompetitor: 'listTopics', getTask: 'listTasks', getAnswerRuns: 'listAnswers' };

export interface HouseStyle {
  /** Drives every per-path decision. */
  seed: number;
  /** Every field name a random token (`f_k2x9`), the same for a field in every answer. */
  tokenNamed: boolean;
  /** A named style's language (undefined: English), and the share of its fields named by an opaque code of two to five letters. */
  language: Language | undefined;
  codes: number;
  /** The builder's case convention; `caseDeviation` of its operations use another one. */
  caseName: CaseName;
  caseDeviation: number;
  envelope: { kind: 'none' } | { kind: 'wrap'; data: 'data' | 'result' | 'payload'; status: boolean; movedTimestamp: boolean };
  /** Shares of the contract's fields that are renamed each way (the rest keep their name in the style's case). */
  rename: { prefix: number; abbreviate: number; synonym: number };
  /** Share of eligible objects written flat in their parent, of eligible lists keyed by their items' key, of objects given extra fields. */
  flat: number;
  keyed: number;
  extra: number;
  /** The builder's unit for percentages and changes, and the share of objects that use another one. */
  unit: Unit;
  unitDeviation: number;
  dayForm: DayForm;
  timeForm: TimeForm;
  dateDeviation: number;
  /** Per closed enumeration: its spelling, and which of its values are replaced by a synonym (index into VALUE_SYNONYMS, -1 none). */
  enums: Record<EnumKind, { spelling: Spelling; synonyms: Record<string, number> }>;
  engines: { form: EngineForm; separator: '-' | '_' };
  /** Engines of its own that answered nothing, listed beside ours. */
  extraEngines: string[];
  omitted: OperationId[];
  /** Whether its long lists come a page of `size` at a time, and how it points to the next page (`pagedAnswer`). */
  pages: PageStyle;
}

/**
 * How a service pages its long lists: a token under a field of its own, asked back in `param`; or a link to the next
 * page (a path with its query), whose `param` is the page's number.
 */
export type PageStyle = { kind: 'none' } | { kind: 'cursor' | 'link'; size: 5 | 10; param: string };
/** The page parameters real services use; a style draws one. */
const PAGE_PARAMS = ['cursor', 'page_token', 'pageToken', 'after', 'continuation', 'page'] as const;

/** One of `options`, the first (the contract's own form) as likely as all the others together: each habit drawn on its own. */
const mostly = <T>(first: T, ...others: T[]): fc.Arbitrary<T> => fc.oneof({ weight: others.length, arbitrary: fc.constant(first) }, { weight: others.length, arbitrary: fc.constantFrom(...others) });
const unitArb = mostly<Unit>('points', 'fraction', 'string', 'bps');
const enumArb = (kind: EnumKind) =>
  fc.record({
    spelling: mostly<Spelling>('as_is', 'upper', 'upper_kebab', 'pascal', 'camel', 'kebab'),
    synonyms: fc.record(
      Object.fromEntries(CLOSED[kind].map((v) => [v, fc.oneof({ weight: 2, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 }) })])),
    ) as fc.Arbitrary<Record<string, number>>,
  });

/** A house style, drawn by fast-check; one in five names every field with a random token. */
export function houseStyle(): fc.Arbitrary<HouseStyle> {
  return fc.record({
    seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    tokenNamed: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    caseName: fc.constantFrom(...CASE_NAMES),
    caseDeviation: fc.constantFrom(0, 0, 0.1, 0.25),
    envelope: fc.oneof(
      { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
      {
        weight: 3,
        arbitrary: fc.record({ kind: fc.constant('wrap' as const), data: fc.constantFrom('data' as const, 'result' as const, 'payload' as const), status: fc.boolean(), movedTimestamp: fc.boolean() }),
      },
    ),
    rename: fc.record({ prefix: fc.constantFrom(0, 0.1, 0.3), abbreviate: fc.constantFrom(0, 0.1, 0.3), synonym: fc.constantFrom(0, 0.15, 0.3) }),
    flat: fc.constantFrom(0, 0.3, 0.7),
    keyed: fc.constantFrom(0, 0.3, 0.7),
    extra: fc.constantFrom(0, 0.2, 0.5),
    unit: unitArb,
    unitDeviation: fc.constantFrom(0, 0.2, 0.5),
    dayForm: mostly<DayForm>('date', 'midnight', 'epoch_s', 'epoch_ms'),
    timeForm: mostly<TimeForm>('iso', 'epoch_s', 'epoch_ms'),
    dateDeviation: fc.constantFrom(0, 0.2),
    enums: fc.record({ state: enumArb('state'), outcome: enumArb('outcome'), action: enumArb('action'), class: enumArb('class'), direction: enumArb('direction') }),
    engines: fc.record({ form: mostly<EngineForm>('as_is', 'prefix', 'suffix', 'upper_prefix', 'upper'), separator: fc.constantFrom('-' as const, '_' as const) }),
    extraEngines: fc.subarray([...EXTRA_ENGINES], { maxLength: 2 }),
    omitted: fc.subarray(OPTIONAL_OPERATIONS, { maxLength: 4 }).map((ids) => {
      const all = new Set(ids);
      for (const [id, from] of Object.entries(DEPENDS)) if (all.has(from!)) all.add(id as OperationId);
      return OPERATION_IDS.filter((id) => all.has(id));
    }),
    // Drawn last, so the habits above are those the same seed drew before: two in five named styles in another
    // language, and a share of a style's fields named by opaque codes.
    language: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: fc.constantFrom(...(Object.keys(LANGUAGES) as Language[])) }),
    codes: fc.constantFrom(0, 0, 0.15, 0.33),
    // Drawn after those, for the same reason: two in five styles page their long lists.
    pages: fc.oneof(
      { weight: 3, arbitrary: fc.constant<PageStyle>({ kind: 'none' }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('cursor' as const, 'link' as const), size: fc.constantFrom(5 as const, 10 as const), param: fc.constantFrom(...PAGE_PARAMS) }) },
    ),
  });
}

/** The style fast-check draws for `seed`, its per-path decisions drawn from `seed` too: what the tests and `npm run test:styles` name a style by. */
export const styleOf = (seed: number): HouseStyle => ({ ...fc.sample(houseStyle(), { seed, numRuns: 1 })[0]!, seed });

/**
 * The style of `seed` as issue 43 drew it: English names (or tokens), none by codes. Its names are stable per field
 * as every style's are; the open class (`styleOf`) adds other languages and codes.
 */
export const classicStyleOf = (seed: number): HouseStyle => ({ ...styleOf(seed), language: undefined, codes: 0 });

export const styleOmits = (style: HouseStyle, id: OperationId): boolean => style.omitted.includes(id);

/** A service that writes the contract as it is: the generator with every habit off (a test then turns one on). */
export const contractStyle = (): HouseStyle => ({
  ...styleOf(1),
  tokenNamed: false,
  language: undefined,
  codes: 0,
  caseName: 'snake',
  caseDeviation: 0,
  envelope: { kind: 'none' },
  rename: { prefix: 0, abbreviate: 0, synonym: 0 },
  flat: 0,
  keyed: 0,
  extra: 0,
  unit: 'points',
  unitDeviation: 0,
  dayForm: 'date',
  timeForm: 'iso',
  dateDeviation: 0,
  enums: Object.fromEntries((['state', 'outcome', 'action', 'class', 'direction'] as const).map((k) => [k, { spelling: 'as_is', synonyms: {} }])) as HouseStyle['enums'],
  engines: { form: 'as_is', separator: '-' },
  extraEngines: [],
  omitted: [],
  pages: { kind: 'none' },
});

/** One line for a person: what the style does. */
export function describeStyle(style: HouseStyle): string {
  const parts: string[] = [style.tokenNamed ? 'token names' : style.caseName];
  if (style.caseDeviation > 0) parts[0] += `(+${Math.round(style.caseDeviation * 100)}% other)`;
  if (!style.tokenNamed && style.language) parts[0] += ` in ${style.language}`;
  if (!style.tokenNamed && style.codes > 0) parts[0] += ` +${Math.round(style.codes * 100)}% codes`;
  const { envelope } = style;
  parts.push(envelope.kind === 'none' ? 'bare' : `{${envelope.status ? 'status,' : ''}${envelope.data},meta${envelope.movedTimestamp ? '+asOf' : ''}}`);
  if (!style.tokenNamed) {
    const r = style.rename;
    const renames = [r.prefix && `prefix ${r.prefix}`, r.abbreviate && `abbr ${r.abbreviate}`, r.synonym && `syn ${r.synonym}`].filter(Boolean);
    if (renames.length) parts.push(renames.join('/'));
  }
  parts.push(`% ${style.unit}${style.unitDeviation ? `~${style.unitDeviation}` : ''}`);
  parts.push(`dates ${style.dayForm}/${style.timeForm}${style.dateDeviation ? `~${style.dateDeviation}` : ''}`);
  const enums = Object.entries(style.enums)
    .filter(([, e]) => e.spelling !== 'as_is' || Object.values(e.synonyms).some((i) => i >= 0))
    .map(([k, e]) => `${k}:${e.spelling}${Object.values(e.synonyms).some((i) => i >= 0) ? '+syn' : ''}`);
  if (enums.length) parts.push(`enums ${enums.join(',')}`);
  if (style.engines.form !== 'as_is') parts.push(`engines ${style.engines.form}${style.engines.separator}`);
  if (style.flat) parts.push(`flat ${style.flat}`);
  if (style.keyed) parts.push(`keyed ${style.keyed}`);
  if (style.extra) parts.push(`extra ${style.extra}`);
  if (style.extraEngines.length) parts.push(`+${style.extraEngines.join('+')}`);
  if (style.omitted.length) parts.push(`no ${style.omitted.join(',')}`);
  if (style.pages.kind !== 'none') parts.push(`pages of ${style.pages.size} by ${style.pages.kind} ${style.pages.param}`);
  return parts.join(' · ');
}

// ---------------------------------------------------------------- deterministic draws per path

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}
/** A number in [0, 1) fixed by the style and `key`. */
const draw = (style: HouseStyle, key: string) => {
  let t = (hash(`${style.seed}|${key}`) + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const choose = <T>(style: HouseStyle, key: string, options: readonly T[]): T => options[Math.floor(draw(style, key) * options.length)]!;

// ---------------------------------------------------------------- spelling

const capital = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
export const CASES: Record<CaseName, (words: string[]) => string> = {
  camel: (w) => w.map((x, i) => (i === 0 ? x : capital(x))).join(''),
  pascal: (w) => w.map(capital).join(''),
  snake: (w) => w.join('_'),
  kebab: (w) => w.join('-'),
  upper: (w) => w.join('_').toUpperCase(),
};
const words = (snake: string) => snake.split('_').filter(Boolean);
const keyOf = (name: string) => name.replace(/[-_\s]/g, '').toLowerCase();
const singularWord = (w: string) => (w.endsWith('ies') ? `${w.slice(0, -3)}y` : w.endsWith('ses') ? w.slice(0, -2) : w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w);

const caseOf = (style: HouseStyle, id: OperationId): CaseName => (draw(style, `case ${id}`) < style.caseDeviation ? choose(style, `case other ${id}`, CASE_NAMES) : style.caseName);

function spellValue(spelling: Spelling, value: string): string {
  const w = words(value);
  switch (spelling) {
    case 'as_is':
      return value;
    case 'upper':
      return CASES.upper(w);
    case 'upper_kebab':
      return w.join('-').toUpperCase();
    case 'pascal':
      return CASES.pascal(w);
    case 'camel':
      return CASES.camel(w);
    case 'kebab':
      return CASES.kebab(w);
  }
}

/** The style's spelling of a closed enumeration's value. */
export function enumValue(style: HouseStyle, kind: EnumKind, value: string): string {
  const e = style.enums[kind];
  const i = e.synonyms[value] ?? -1;
  const synonym = i >= 0 ? VALUE_SYNONYMS[kind][value]?.[i] : undefined;
  return spellValue(e.spelling, synonym ?? value);
}

/** The style's spelling of an engine. */
export function engineValue(style: HouseStyle, engine: string): string {
  const { form, separator } = style.engines;
  const v = VENDORS[engine];
  const join = (parts: string[]) => parts.flatMap(words).join(separator);
  if (!v || form === 'as_is') return engine;
  switch (form) {
    case 'prefix':
      return join(engine.startsWith(v.vendor) ? [engine, v.model] : [v.vendor, engine]);
    case 'suffix':
      return join([engine, v.model]);
    case 'upper_prefix':
      return join(engine.startsWith(v.vendor) ? [engine, v.model] : [v.vendor, engine]).toUpperCase();
    case 'upper':
      return engine.toUpperCase().replaceAll('_', separator);
  }
}

// ---------------------------------------------------------------- the plan of one object

/** How one contract field of an object is written. */
type FieldPlan =
  | { how: 'field'; name: string }
  | { how: 'flat'; names: Record<string, string> }
  /** A list keyed by its items' `key` (a string, or an integer id when the list is sorted by it). */
  | { how: 'keyed'; name: string; key: string; numeric: boolean };
interface ObjectPlan {
  fields: Record<string, FieldPlan>;
  extras: string[];
  /** Unit of the object's percentages and changes. */
  unit: Unit;
}

const KEY_FIELDS = ['name', 'domain', 'rival', 'bot', 'assistant', 'key', 'url'];

function entityOf(path: string): string | undefined {
  const last = path.split('.').at(-1)?.replace('[]', '');
  if (!last) return undefined;
  return words(last).map(singularWord).at(-1);
}

/**
 * The snake_case name a named style gives a field, before its case: one name per field in every answer (the draws are
 * the field's, not the path's), as a real service names its fields; an entity prefix is its holder's (`topic_name`).
 * A style in another language says its words in it, and has neither English synonyms nor abbreviations.
 */
function namedField(style: HouseStyle, name: string, parent: string): string {
  const r = draw(style, `name ${name}`);
  const { prefix, abbreviate, synonym } = style.rename;
  if (style.language !== undefined) {
    const entity = entityOf(parent);
    return r < prefix && entity && !words(name).includes(entity) ? `${entity}_${name}` : name;
  }
  if (r < synonym) {
    const options = NAME_SYNONYMS[name];
    if (options) return choose(style, `synonym ${name}`, options);
  } else if (r < synonym + abbreviate) {
    if (ABBREVIATIONS[name]) return ABBREVIATIONS[name];
    const w = words(name);
    if (w.some((x) => WORD_ABBREVIATIONS[x])) return w.map((x) => WORD_ABBREVIATIONS[x] ?? x).join('_');
  } else if (r < synonym + abbreviate + prefix) {
    const entity = entityOf(parent);
    if (entity && !words(name).includes(entity)) return `${entity}_${name}`;
  }
  return name;
}

/** A field's words as the style writes them: an opaque code of its own for a share of its fields, else in the style's language. */
function upstreamWords(style: HouseStyle, name: string, parent: string): string[] {
  if (draw(style, `code ${name}`) < style.codes) return [codeOf(style, name)];
  return translated(style, words(namedField(style, name, parent)));
}
/** Words in the style's language (a word its table lacks, a number, stays as it is). */
const translated = (style: HouseStyle, english: string[]): string[] => (style.language === undefined ? english : english.map((w) => (LANGUAGES[style.language!] as Record<string, string>)[w] ?? w));
/** A vendor's code for a field, two to five letters, the same every time: `qv`, `tmrk`. */
function codeOf(style: HouseStyle, name: string): string {
  const letters = 'bcdfghjklmnpqrstvwxz';
  const n = hash(`${style.seed}|code|${name}`);
  const length = 2 + (n % 4);
  let code = '';
  for (let i = 0, h = n; i < length; i++, h = Math.floor(h / letters.length) + i * 7919) code += letters[h % letters.length];
  return code;
}

function token(style: HouseStyle, key: string, attempt: number): string {
  const n = hash(`${style.seed}|token|${key}|${attempt}`);
  return `f_${n.toString(36).padStart(4, '0').slice(-4)}`;
}

const plans = new WeakMap<HouseStyle, Map<string, ObjectPlan>>();

/** The plan of the object at `path` of operation `id`: each field's name, flat or keyed form, the extras and the unit. */
function planOf(style: HouseStyle, id: OperationId, path: string, node: Extract<Node, { kind: 'object' }>): ObjectPlan {
  let byPath = plans.get(style);
  if (!byPath) plans.set(style, (byPath = new Map()));
  const cacheKey = `${id} ${path}`;
  const cached = byPath.get(cacheKey);
  if (cached) return cached;
  const spell = CASES[caseOf(style, id)];
  // Names taken in this object (by case-insensitive key), and the contract's own names of its fields: no upstream
  // field may read as another contract field of the object under any case convention.
  const contractKeys = new Set(Object.keys(node.fields).map(keyOf));
  const taken = new Set<string>();
  /** A name free in this object: the candidate, else the contract's own name, else the candidate numbered; a token for a token-named style. */
  const fresh = (candidate: string[], own: string[], key: string): string => {
    const tries = style.tokenNamed ? [] : [candidate, own];
    for (let attempt = 0; ; attempt++) {
      const name = style.tokenNamed ? token(style, key, attempt) : spell(tries[attempt] ?? [...candidate, String(attempt)]);
      const k = keyOf(name);
      if (!taken.has(k) && (k === keyOf(own.join('_')) || !contractKeys.has(k))) {
        taken.add(k);
        return name;
      }
    }
  };
  const fields: Record<string, FieldPlan> = {};
  for (const [name, child] of Object.entries(node.fields)) {
    const childPath = path ? `${path}.${name}` : name;
    const nullable = NULLABLE.get(`${id} ${childPath}`) ?? false;
    if (child.kind === 'object' && child.scalarOnly && !nullable && draw(style, `flat ${id} ${childPath}`) < style.flat) {
      const names: Record<string, string> = {};
      for (const inner of Object.keys(child.fields)) {
        const innerWords = style.tokenNamed ? [] : upstreamWords(style, inner, childPath);
        const object = translated(style, words(name));
        names[inner] = fresh([...object, ...innerWords], [...object, ...translated(style, words(inner))], `flat ${name}.${inner}`);
      }
      fields[name] = { how: 'flat', names };
      continue;
    }
    const upstream = style.tokenNamed ? [] : upstreamWords(style, name, path);
    const fieldName = fresh(upstream, translated(style, words(name)), `name ${name}`);
    if (child.kind === 'array' && child.element.kind === 'object' && draw(style, `keyed ${id} ${childPath}`) < style.keyed) {
      const item = child.element;
      const key = KEY_FIELDS.find((k) => item.fields[k]?.kind === 'leaf' && !NULLABLE.get(`${id} ${childPath}[].${k}`)) ?? (item.fields.id ? 'id' : undefined);
      if (key) {
        fields[name] = { how: 'keyed', name: fieldName, key, numeric: key === 'id' };
        continue;
      }
    }
    fields[name] = { how: 'field', name: fieldName };
  }
  const extras: string[] = [];
  if (draw(style, `extra ${id} ${path}`) < style.extra) {
    const count = 1 + Math.floor(draw(style, `extra count ${id} ${path}`) * 2);
    for (let i = 0; i < count; i++) extras.push(fresh(words(choose(style, `extra name ${id} ${path} ${i}`, EXTRA_FIELDS)), ['x', 'extra', String(i)], `${id} ${path} extra ${i}`));
  }
  const unit = draw(style, `unit ${id} ${path}`) < style.unitDeviation ? choose(style, `unit other ${id} ${path}`, ['points', 'fraction', 'string', 'bps'] as const) : style.unit;
  const plan = { fields, extras, unit };
  byPath.set(cacheKey, plan);
  return plan;
}

// ---------------------------------------------------------------- values

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

function encodeUnit(unit: Unit, v: number): number | string {
  switch (unit) {
    case 'points':
      return v;
    case 'fraction':
      return round(v / 100, 4);
    case 'string':
      return `${v}%`;
    case 'bps':
      return Math.round(v * 100);
  }
}
function decodeUnit(unit: Unit, v: unknown): number {
  switch (unit) {
    case 'points':
      return v as number;
    case 'fraction':
      return round((v as number) * 100, 2);
    case 'string':
      return Number(String(v).replace(/%$/, ''));
    case 'bps':
      return (v as number) / 100;
  }
}

const dayFormOf = (style: HouseStyle, id: OperationId, path: string): DayForm =>
  draw(style, `day ${id} ${path}`) < style.dateDeviation ? choose(style, `day other ${id} ${path}`, ['date', 'midnight', 'epoch_s', 'epoch_ms'] as const) : style.dayForm;
const timeFormOf = (style: HouseStyle, id: OperationId, path: string): TimeForm =>
  draw(style, `time ${id} ${path}`) < style.dateDeviation ? choose(style, `time other ${id} ${path}`, ['iso', 'epoch_s', 'epoch_ms'] as const) : style.timeForm;

function encodeDay(form: DayForm, day: string): string | number {
  const ms = Date.parse(`${day}T00:00:00Z`);
  switch (form) {
    case 'date':
      return day;
    case 'midnight':
      return `${day}T00:00:00Z`;
    case 'epoch_s':
      return ms / 1000;
    case 'epoch_ms':
      return ms;
  }
}
const decodeDay = (form: DayForm, v: unknown): string =>
  form === 'date' ? (v as string) : new Date(form === 'midnight' ? Date.parse(v as string) : form === 'epoch_s' ? (v as number) * 1000 : (v as number)).toISOString().slice(0, 10);

function encodeTime(form: TimeForm, iso: string): string | number {
  const ms = Date.parse(iso);
  // Epoch seconds keep the milliseconds as decimals (1764254989.441): nothing is lost.
  return form === 'iso' ? iso : form === 'epoch_s' ? ms / 1000 : ms;
}
const decodeTime = (form: TimeForm, v: unknown): string => (form === 'iso' ? (v as string) : new Date(form === 'epoch_s' ? Math.round((v as number) * 1000) : (v as number)).toISOString());

interface Ctx {
  style: HouseStyle;
  id: OperationId;
  /** A running count, so extra fields' values differ from item to item, the same for the same body every time. */
  counter: { n: number };
}

function encodeLeaf(ctx: Ctx, leaf: Leaf, path: string, unit: Unit, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const { style, id } = ctx;
  switch (leaf) {
    case 'percent':
    case 'delta':
      return typeof value === 'number' ? encodeUnit(unit, value) : value;
    case 'date':
      return encodeDay(dayFormOf(style, id, path), value as string);
    case 'timestamp':
      return encodeTime(timeFormOf(style, id, path), value as string);
    case 'engine':
      return engineValue(style, value as string);
    case 'other':
      return value;
    default:
      return enumValue(style, leaf, value as string);
  }
}

function decodeLeaf(ctx: Ctx, leaf: Leaf, path: string, unit: Unit, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const { style, id } = ctx;
  switch (leaf) {
    case 'percent':
    case 'delta':
      return decodeUnit(unit, value);
    case 'date':
      return decodeDay(dayFormOf(style, id, path), value);
    case 'timestamp':
      return decodeTime(timeFormOf(style, id, path), value);
    case 'engine': {
      const known = [...ENGINES, ...EXTRA_ENGINES].find((e) => engineValue(style, e) === value);
      return known ?? value;
    }
    case 'other':
      return value;
    default: {
      const known = CLOSED[leaf].find((v) => enumValue(style, leaf, v) === value);
      return known ?? value;
    }
  }
}

function extraValue(ctx: Ctx, path: string, i: number): unknown {
  const r = draw(ctx.style, `extra value ${ctx.id} ${path} ${i} ${ctx.counter.n++}`);
  const kind = Math.floor(draw(ctx.style, `extra kind ${ctx.id} ${path} ${i}`) * 4);
  if (kind === 0) return Math.round(r * 1000);
  if (kind === 1) return r < 0.5;
  if (kind === 2) return `x${Math.floor(r * 1e6).toString(36)}`;
  return round(r * 100, 1);
}

// ---------------------------------------------------------------- the walk

function encode(ctx: Ctx, node: Node, path: string, value: Json, unit: Unit): Json {
  if (value === null || value === undefined) return value;
  if (node.kind === 'leaf') return encodeLeaf(ctx, node.leaf, path, unit, value);
  if (node.kind === 'array') return Array.isArray(value) ? value.map((item) => encode(ctx, node.element, `${path}[]`, item, unit)) : value;
  if (!isObj(value)) return value;
  const plan = planOf(ctx.style, ctx.id, path, node);
  const out: Obj = {};
  for (const [name, raw] of Object.entries(value)) {
    const child = node.fields[name];
    const fieldPlan = plan.fields[name];
    const childPath = path ? `${path}.${name}` : name;
    if (!child || !fieldPlan) {
      out[name] = raw;
      continue;
    }
    if (fieldPlan.how === 'flat' && isObj(raw) && child.kind === 'object') {
      const inner = planOf(ctx.style, ctx.id, childPath, child);
      for (const [innerName, innerValue] of Object.entries(raw)) {
        const leaf = child.fields[innerName];
        out[fieldPlan.names[innerName] ?? innerName] = leaf ? encode(ctx, leaf, `${childPath}.${innerName}`, innerValue, inner.unit) : innerValue;
      }
      continue;
    }
    if (fieldPlan.how === 'keyed' && Array.isArray(raw) && child.kind === 'array') {
      const keys = raw.map((item) => (isObj(item) ? item[fieldPlan.key] : undefined));
      const unique = new Set(keys.map(String)).size === keys.length && keys.every((k) => (fieldPlan.numeric ? Number.isInteger(k) : typeof k === 'string' && k !== '' && !/^\d+$/.test(k)));
      const sorted = !fieldPlan.numeric || keys.every((k, i) => i === 0 || (k as number) > (keys[i - 1] as number));
      if (unique && sorted) {
        out[fieldPlan.name] = Object.fromEntries(
          raw.map((item) => {
            const { [fieldPlan.key]: key, ...rest } = item as Obj;
            return [String(key), encode(ctx, child.element, `${childPath}[]`, rest, unit)];
          }),
        );
        continue;
      }
    }
    const childUnit = child.kind === 'leaf' ? plan.unit : unit;
    out[fieldPlan.how === 'field' || fieldPlan.how === 'keyed' ? fieldPlan.name : name] = encode(ctx, child, childPath, raw, childUnit);
  }
  plan.extras.forEach((extra, i) => (out[extra] = extraValue(ctx, path, i)));
  return out;
}

function decode(ctx: Ctx, node: Node, path: string, value: Json, unit: Unit): Json {
  if (value === null || value === undefined) return value;
  if (node.kind === 'leaf') return decodeLeaf(ctx, node.leaf, path, unit, value);
  if (node.kind === 'array') return Array.isArray(value) ? value.map((item) => decode(ctx, node.element, `${path}[]`, item, unit)) : value;
  if (!isObj(value)) return value;
  const plan = planOf(ctx.style, ctx.id, path, node);
  const out: Obj = {};
  for (const [name, child] of Object.entries(node.fields)) {
    const fieldPlan = plan.fields[name]!;
    const childPath = path ? `${path}.${name}` : name;
    if (fieldPlan.how === 'flat') {
      if (child.kind !== 'object') continue;
      const inner = planOf(ctx.style, ctx.id, childPath, child);
      if (!Object.values(fieldPlan.names).some((n) => Object.hasOwn(value, n))) continue;
      out[name] = Object.fromEntries(
        Object.entries(fieldPlan.names)
          .filter(([, n]) => Object.hasOwn(value, n))
          .map(([innerName, n]) => [innerName, decode(ctx, child.fields[innerName]!, `${childPath}.${innerName}`, value[n], inner.unit)]),
      );
      continue;
    }
    if (!Object.hasOwn(value, fieldPlan.name)) continue;
    const raw = value[fieldPlan.name];
    if (fieldPlan.how === 'keyed' && isObj(raw) && child.kind === 'array') {
      out[name] = Object.entries(raw).map(([key, item]) => ({ [fieldPlan.key]: fieldPlan.numeric ? Number(key) : key, ...(decode(ctx, child.element, `${childPath}[]`, item, unit) as Obj) }));
      continue;
    }
    out[name] = decode(ctx, child, childPath, raw, child.kind === 'leaf' ? plan.unit : unit);
  }
  return out;
}

// ---------------------------------------------------------------- the body

const names = (style: HouseStyle, id: OperationId) => {
  const spell = CASES[caseOf(style, id)];
  const t = (key: string, word: string) => (style.tokenNamed ? token(style, `envelope ${key}`, 0) : spell(words(word)));
  return {
    status: t('status', 'status'),
    data: t('data', style.envelope.kind === 'wrap' ? style.envelope.data : 'data'),
    meta: t('meta', 'meta'),
    asOf: t('as_of', choose(style, 'moved timestamp', MOVED_TIMESTAMP)),
    metaFields: META_FIELDS.map((f) => t(`meta ${f}`, f)),
  };
};

/** Engines of the service's own that answered nothing, added to the views that list every engine. */
function withExtraEngines(style: HouseStyle, id: OperationId, body: Obj): Obj {
  if (style.extraEngines.length === 0) return body;
  if (id === 'getPromptMatrix') {
    const m = body as { engines: string[]; prompts: { engines: Obj[] }[] };
    return {
      ...body,
      engines: [...m.engines, ...style.extraEngines],
      prompts: m.prompts.map((p) => ({ ...p, engines: [...p.engines, ...style.extraEngines.map((engine) => ({ engine, state: null, rate: null, position: null, runs: 0 }))] })),
    };
  }
  if (id === 'getTopic') {
    const t = body as { questions: { engines: Obj[] }[] };
    return { ...body, questions: t.questions.map((q) => ({ ...q, engines: [...q.engines, ...style.extraEngines.map((engine) => ({ engine, latest: null }))] })) };
  }
  return body;
}
function withoutExtraEngines(style: HouseStyle, id: OperationId, body: Obj): Obj {
  if (style.extraEngines.length === 0) return body;
  const ours = (e: unknown) => !style.extraEngines.includes(e as string);
  if (id === 'getPromptMatrix') {
    const m = body as { engines: string[]; prompts: { engines: Obj[] }[] };
    return { ...body, engines: m.engines.filter(ours), prompts: m.prompts.map((p) => ({ ...p, engines: p.engines.filter((c) => ours(c.engine)) })) };
  }
  if (id === 'getTopic') {
    const t = body as { questions: { engines: Obj[] }[] };
    return { ...body, questions: t.questions.map((q) => ({ ...q, engines: q.engines.filter((c) => ours(c.engine)) })) };
  }
  return body;
}

/** Our origin's body of `id` as the styled service writes it. */
export function applyStyle(style: HouseStyle, id: OperationId, originBody: unknown): unknown {
  if (!isObj(originBody)) return originBody;
  const ctx: Ctx = { style, id, counter: { n: 0 } };
  const node = SHAPES.get(id)!;
  const body = encode(ctx, node, '', withExtraEngines(style, id, originBody), style.unit) as Obj;
  const { envelope } = style;
  if (envelope.kind === 'none') return body;
  const n = names(style, id);
  const meta: Obj = {};
  n.metaFields.forEach((f, i) => (meta[f] = i === 0 ? `req_${hash(`${style.seed}${id}`).toString(36)}` : i === 1 ? 'v1' : i === 2 ? 12 : 'edge-1'));
  let data = body;
  if (envelope.movedTimestamp) {
    const plan = planOf(style, id, '', node as Extract<Node, { kind: 'object' }>);
    const at = plan.fields.generated_at;
    if (at?.how === 'field' && Object.hasOwn(body, at.name)) {
      const { [at.name]: stamp, ...rest } = body;
      data = rest;
      meta[n.asOf] = stamp;
    }
  }
  return { ...(envelope.status ? { [n.status]: 'ok' } : {}), [n.data]: data, [n.meta]: meta };
}

/** The origin's body back from a styled one: the proof that `applyStyle` loses nothing. */
export function invertStyle(style: HouseStyle, id: OperationId, styled: unknown): unknown {
  if (!isObj(styled)) return styled;
  const node = SHAPES.get(id)!;
  let body = styled;
  if (style.envelope.kind === 'wrap') {
    const n = names(style, id);
    body = styled[n.data] as Obj;
    if (style.envelope.movedTimestamp) {
      const plan = planOf(style, id, '', node as Extract<Node, { kind: 'object' }>);
      const at = plan.fields.generated_at;
      const meta = styled[n.meta] as Obj;
      if (at?.how === 'field' && Object.hasOwn(meta, n.asOf)) body = { ...body, [at.name]: meta[n.asOf] };
    }
  }
  const ctx: Ctx = { style, id, counter: { n: 0 } };
  return withoutExtraEngines(style, id, decode(ctx, node, '', body, style.unit) as Obj);
}

// ---------------------------------------------------------------- pages

/** The lists a paging style answers a page at a time, where they are longer than a page: each list operation's own list. */
export const PAGED_LISTS: Partial<Record<OperationId, string>> = {
  listAnswers: 'questions',
  listTopics: 'topics',
  getPromptMatrix: 'prompts',
  getAnswerRuns: 'runs',
  getAnswerHistory: 'questions',
  getContentGaps: 'questions',
  listSources: 'sources',
  listPages: 'pages',
  listActivity: 'entries',
  listTasks: 'tasks',
  getSearchPerformance: 'rows',
};

/** Where the pointer to the next page stands in the whole answer: in the envelope's meta, or beside the fields. */
function pointerPath(style: HouseStyle, id: OperationId): string {
  const word = style.pages.kind === 'cursor' ? 'next_cursor' : 'next';
  const name = style.tokenNamed ? token(style, `pages ${word}`, 0) : CASES[caseOf(style, id)](words(word));
  return style.envelope.kind === 'wrap' ? `${names(style, id).meta}.${name}` : name;
}

/** A cursor as services write them: an opaque text (base64 of the offset, here), longer than any word. */
const cursorOf = (offset: number) => btoa(JSON.stringify({ offset, v: 1 })).replace(/=+$/, '');
const offsetOfCursor = (cursor: string): number | undefined => {
  try {
    const { offset } = JSON.parse(atob(cursor)) as { offset?: unknown };
    return typeof offset === 'number' && Number.isInteger(offset) && offset >= 0 ? offset : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The page a request asks of a paging style's list, and the request without its page parameter (what the origin is
 * asked); undefined where the style does not page that operation, `bad` for a page parameter it never gave.
 */
export function pageAsked(style: HouseStyle, id: OperationId, url: URL): { offset: number; unpaged: URL } | 'bad' | undefined {
  const pages = style.pages;
  if (pages.kind === 'none' || PAGED_LISTS[id] === undefined) return undefined;
  const unpaged = new URL(url);
  const value = unpaged.searchParams.get(pages.param);
  unpaged.searchParams.delete(pages.param);
  if (value === null) return { offset: 0, unpaged };
  const offset = pages.kind === 'cursor' ? offsetOfCursor(value) : /^[1-9]\d{0,4}$/.test(value) ? (Number(value) - 1) * pages.size : undefined;
  return offset === undefined ? 'bad' : { offset, unpaged };
}

/** One page of the origin's body as a paging style answers it: its list cut to the page, the pointer beside (null on the last). */
export function pagedAnswer(style: HouseStyle, id: OperationId, originBody: unknown, offset: number, url: URL): unknown {
  const pages = style.pages;
  const list = PAGED_LISTS[id];
  if (pages.kind === 'none' || list === undefined || !isObj(originBody) || !Array.isArray(originBody[list])) return applyStyle(style, id, originBody);
  const items = originBody[list] as unknown[];
  const styled = applyStyle(style, id, { ...originBody, [list]: items.slice(offset, offset + pages.size) }) as Obj;
  const after = offset + pages.size;
  let pointer: string | null = null;
  if (after < items.length) {
    const next = new URL(url);
    next.searchParams.set(pages.param, String(after / pages.size + 1));
    pointer = pages.kind === 'cursor' ? cursorOf(after) : `${next.pathname}${next.search}`;
  }
  const path = pointerPath(style, id).split('.');
  const holder = path.length === 2 ? (styled[path[0]!] as Obj) : styled;
  holder[path.at(-1)!] = pointer;
  return styled;
}

/** The map's `pages` for a paging style's operation: what discovery must store where the list is longer than a page. */
export function truePagesOf(style: HouseStyle, id: OperationId): { list: string; next: string; params: string[] } | undefined {
  const list = PAGED_LISTS[id];
  if (style.pages.kind === 'none' || list === undefined) return undefined;
  return { list, next: pointerPath(style, id), params: [style.pages.param] };
}

// ---------------------------------------------------------------- the true map

/** The map's conversion that reads a leaf the way the style writes it right; undefined where the value is the contract's as it is. */
export type TrueConversion = 'percent' | 'percent-text' | 'basis-points' | 'date' | 'date-time' | undefined;

/**
 * What the style does to one operation's body, in the upstream map's terms: the map a person who knew the style would
 * write. `fields` holds every contract path's upstream name, relative to the upstream object of its parent (`"."` for
 * an object written flat), as the map's `fields` say it, renamed or not; `keyed` the lists that may be written as
 * objects and the item field their keys hold (a list is written so only where its keys allow: unique, and sorted ids);
 * `leaves` each leaf's kind and the conversion that reads it right. The measure of issue 57 item 4: every placement
 * discovery stores must agree with it.
 */
export interface TrueMap {
  envelope?: string;
  fields: Record<string, string>;
  keyed: Record<string, string>;
  leaves: Record<string, { leaf: Leaf; convert: TrueConversion }>;
}

const UNIT_CONVERSION: Record<Unit, TrueConversion> = { points: undefined, fraction: 'percent', string: 'percent-text', bps: 'basis-points' };

export function trueMapOf(style: HouseStyle, id: OperationId): TrueMap {
  const truth: TrueMap = { fields: {}, keyed: {}, leaves: {} };
  const leafAt = (path: string, leaf: Leaf, unit: Unit) => {
    const convert =
      leaf === 'percent' || leaf === 'delta'
        ? UNIT_CONVERSION[unit]
        : leaf === 'date'
          ? dayFormOf(style, id, path) === 'date'
            ? undefined
            : 'date'
          : leaf === 'timestamp'
            ? timeFormOf(style, id, path) === 'iso'
              ? undefined
              : 'date-time'
            : undefined;
    truth.leaves[path] = { leaf, convert };
  };
  // As `encode` walks: a leaf takes its object's unit, a list its parent's, an object its own.
  const visit = (node: Node, path: string, unit: Unit) => {
    if (node.kind === 'leaf') return leafAt(path, node.leaf, unit);
    if (node.kind === 'array') return visit(node.element, `${path}[]`, unit);
    const plan = planOf(style, id, path, node);
    for (const [name, child] of Object.entries(node.fields)) {
      const childPath = path ? `${path}.${name}` : name;
      const fieldPlan = plan.fields[name]!;
      if (fieldPlan.how === 'flat' && child.kind === 'object') {
        truth.fields[childPath] = '.';
        const inner = planOf(style, id, childPath, child);
        for (const [innerName, leaf] of Object.entries(child.fields)) {
          truth.fields[`${childPath}.${innerName}`] = fieldPlan.names[innerName] ?? innerName;
          visit(leaf, `${childPath}.${innerName}`, inner.unit);
        }
        continue;
      }
      truth.fields[childPath] = fieldPlan.how === 'flat' ? name : fieldPlan.name;
      if (fieldPlan.how === 'keyed') truth.keyed[childPath] = fieldPlan.key;
      visit(child, childPath, child.kind === 'leaf' ? plan.unit : unit);
    }
  };
  visit(SHAPES.get(id)!, '', style.unit);
  if (style.envelope.kind === 'wrap') {
    const n = names(style, id);
    truth.envelope = n.data;
    if (style.envelope.movedTimestamp && truth.fields.generated_at !== undefined) truth.fields.generated_at = `${n.meta}.${n.asOf}`;
  }
  return truth;
}

/** The contract's value the style writes as `upstream` at a leaf of kind `leaf`: what a value map must say. Undefined for none. */
export function trueValueOf(style: HouseStyle, leaf: Leaf, upstream: string): string | undefined {
  if (leaf === 'engine') return [...ENGINES, ...EXTRA_ENGINES].find((e) => engineValue(style, e) === upstream);
  if (leaf in CLOSED) return CLOSED[leaf as EnumKind].find((v) => enumValue(style, leaf as EnumKind, v) === upstream);
  return upstream;
}

/** The true map as the upstream map's document for one operation: what a person who knew the style would `PUT`. */
export function trueOperationMap(
  style: HouseStyle,
  id: OperationId,
): {
  envelope?: string;
  fields: Record<string, string>;
  convert: Record<string, string>;
  values: Record<string, Record<string, string>>;
  keyed: Record<string, string>;
  pages?: { list: string; next: string; params: string[] };
} {
  const truth = trueMapOf(style, id);
  const pages = truePagesOf(style, id);
  const convert: Record<string, string> = {};
  const values: Record<string, Record<string, string>> = {};
  for (const [path, { leaf, convert: c }] of Object.entries(truth.leaves)) {
    if (c) convert[path] = c;
    const ours = leaf === 'engine' ? [...ENGINES, ...EXTRA_ENGINES] : leaf in CLOSED ? CLOSED[leaf as EnumKind] : [];
    const spelled = (v: string) => (leaf === 'engine' ? engineValue(style, v) : enumValue(style, leaf as EnumKind, v));
    for (const v of ours) if (spelled(v) !== v) (values[path] ??= {})[spelled(v)] = v;
  }
  return { ...(truth.envelope ? { envelope: truth.envelope } : {}), fields: truth.fields, convert, values, keyed: truth.keyed, ...(pages ? { pages } : {}) };
}
