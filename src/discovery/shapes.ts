/**
 * What a contract field expects, and whether an upstream field's values fit
 * it as they are or after one of the upstream map's conversions (numbers
 * written as text, a date-time where the contract has a date, a share from 0
 * to 1 where it has a percentage). The values are tested with the contract's
 * own schema and `convertValue`, so discovery proposes only conversions the
 * map then makes.
 */
import type * as z from 'zod';
import { isObject } from '../contract/conform';
import { schemaAtPath } from '../contract/paths';
import { defOf, innerSchema, numberRules } from '../contract/schema-walk';
import { type Conversion, convertValue } from '../contract/upstream-map';

/** What a contract field is, under its wrappers. */
export type Expected =
  | { kind: 'object'; shape: Record<string, z.ZodType> }
  | { kind: 'array'; element: z.ZodType }
  /** A union that is not an open value: objects in one of several shapes (a part of the overview the plan may leave out). */
  | { kind: 'union'; options: z.ZodType[] }
  /** `open`: the spec leaves the values open, and another implementation's own are carried as they are. */
  | { kind: 'enum'; values: string[]; open: boolean; leaf: z.ZodType }
  /** `percent`: from 0 to 100, which another implementation may write as a share from 0 to 1; `change`: a change of one, -100 to 100. */
  | { kind: 'number'; integer: boolean; percent: boolean; change: boolean; leaf: z.ZodType }
  | { kind: 'scalar'; leaf: z.ZodType };

/** Whether the contract path of a response is a percentage or a change of one: a unit a service chooses. False for no such path. */
export const takesUnit = (schema: z.ZodType, path: string): boolean => unitOf(schema, path) !== undefined;

/** A unit a service chooses: a percentage's, or a change's (each may be written its own way). */
export type UnitKind = 'percent' | 'change';

/** Which unit the contract path takes; undefined for none. */
export function unitOf(schema: z.ZodType, path: string): UnitKind | undefined {
  try {
    const expected = expectedOf(schemaAtPath(schema, path));
    if (expected.kind !== 'number') return undefined;
    return expected.change ? 'change' : expected.percent ? 'percent' : undefined;
  } catch {
    return undefined;
  }
}

/** The schema under its wrappers, and whether null is one of its values. */
export function expectedOf(schema: z.ZodType): Expected & { nullable: boolean } {
  let nullable = false;
  let s = schema;
  for (let inner = innerSchema(defOf(s)); inner; inner = innerSchema(defOf(s))) {
    if (defOf(s).type === 'nullable') nullable = true;
    s = inner;
  }
  const def = defOf(s);
  switch (def.type) {
    case 'object':
      return { kind: 'object', shape: def.shape ?? {}, nullable };
    case 'array':
      return { kind: 'array', element: def.element!, nullable };
    case 'enum':
      return { kind: 'enum', values: Object.values(def.entries ?? {}).map(String), open: false, leaf: s, nullable };
    case 'literal': {
      // `"not_in_plan"` is a one-value enumeration; `true` a boolean.
      const values = def.values ?? [];
      return values.every((v) => typeof v === 'string') ? { kind: 'enum', values: values as string[], open: false, leaf: s, nullable } : { kind: 'scalar', leaf: s, nullable };
    }
    case 'number': {
      const { min, max, integer } = numberRules(def);
      return { kind: 'number', integer, percent: min === 0 && max === 100, change: min === -100 && max === 100, leaf: s, nullable };
    }
    case 'union': {
      // An open value (enums.ts `openValue`): one of ours, or any other text.
      const options = def.options ?? [];
      const closed = options.find((o) => defOf(o).type === 'enum');
      if (closed && options.length === 2 && options.some((o) => defOf(o).type === 'string'))
        return { kind: 'enum', values: Object.values(defOf(closed).entries ?? {}).map(String), open: true, leaf: s, nullable };
      return { kind: 'union', options, nullable };
    }
    default:
      return { kind: 'scalar', leaf: s, nullable };
  }
}

/** One way the values may be read: as they are, or converted; how sure that is. */
export interface Reading {
  convert?: Conversion;
  confidence: number;
}

/** Whether values fit a contract field: the ways to read them, best first (none: they do not fit), and why when it is not plain. */
export interface Fit {
  readings: Reading[];
  reason?: string;
}

/** How sure each conversion is when every value converts to what the contract accepts. */
const CONVERSION_CONFIDENCE: Record<Conversion, number> = {
  number: 0.95,
  integer: 0.95,
  boolean: 0.9,
  'date-time': 0.9,
  date: 0.9,
  /** A date in the order its values allow, and no other: a day over 12 first, or second, or a year first. */
  'date-dmy': 0.9,
  'date-mdy': 0.9,
  'date-ymd': 0.9,
  string: 0.85,
  /** Many different values, all from 0 to 1 (`SHARE_EVIDENCE`). */
  percent: 0.85,
  'percent-text': 0.95,
  /** Whole numbers up to 10,000 where the contract has a percentage, some past 100. */
  'basis-points': 0.85,
};
/** A share from 0 to 1 is told from a small percentage only by many values: this many different ones, none above 1. */
export const SHARE_EVIDENCE = 3;
/** A list written as an object keyed by its items: as sure as its items' fields say it is (`keyed`, propose.ts). */
export const KEYED = 0.9;
/** A list written as columns and rows: where its column names and rows are (as the map's `columns` says), and its items. */
export interface Columns {
  names: string;
  rows: string;
  /** For column names written as objects: the field holding each one's name. */
  name?: string;
  items: Record<string, unknown>[];
}
const columnsMemo = new WeakMap<object, Columns | null>();

/**
 * An object holding one list of column names (text, or objects with one text field naming each) and one list of
 * rows, each as long as the names: a list written as columns and rows (`{"cols": ["id", "name"], "rows": [[1, "Acme"]]}`).
 * Undefined for anything else. The same items each time for the same object.
 */
export function columnarOf(value: unknown): Columns | undefined {
  if (!isObject(value)) return undefined;
  const memo = columnsMemo.get(value);
  if (memo !== undefined) return memo ?? undefined;
  let found: Columns | undefined;
  const lists = Object.entries(value).filter(([, v]) => Array.isArray(v) && v.length > 0) as [string, unknown[]][];
  const namings = lists.flatMap(([at, list]) => {
    if (list.every((n) => typeof n === 'string')) return new Set(list).size === list.length ? [{ at, keys: list as string[], name: undefined }] : [];
    if (!list.every(isObject)) return [];
    const textFields = Object.keys(list[0] as object).filter((f) => list.every((n) => typeof (n as Record<string, unknown>)[f] === 'string'));
    const unique = textFields.filter((f) => new Set(list.map((n) => (n as Record<string, string>)[f])).size === list.length);
    return unique.length === 1 ? [{ at, keys: list.map((n) => (n as Record<string, string>)[unique[0]!]!), name: unique[0] }] : [];
  });
  const tables = Object.entries(value).filter(([, v]) => Array.isArray(v) && v.every(Array.isArray)) as [string, unknown[][]][];
  if (namings.length === 1 && tables.length === 1) {
    const [{ at, keys, name }] = namings as [(typeof namings)[number]];
    const [rowsAt, rows] = tables[0]!;
    if (rows.every((row) => row.length === keys.length))
      found = { names: at, rows: rowsAt, ...(name !== undefined ? { name } : {}), items: rows.map((row) => Object.fromEntries(keys.map((k, i) => [k, row[i]]))) };
  }
  columnsMemo.set(value, found ?? null);
  return found;
}

/** An object whose every value is an object: a list keyed by one of its items' fields. */
export const isKeyedList = (value: unknown): value is Record<string, Record<string, unknown>> => isObject(value) && Object.values(value).every(isObject);

/** The most different values an open enumeration (engines, layers, categories) is read from. */
const OPEN_VALUES = 30;

/** Two readings a person must choose between. */
export const AMBIGUOUS = 0.5;

const present = (values: readonly unknown[]) => values.filter((v) => v !== null && v !== undefined);

/** What a value is, in words, for a reason a person reads. */
export function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (isObject(value)) return 'an object';
  if (typeof value === 'string') return Number.isFinite(Number(value)) && value.trim() !== '' ? 'numbers written as text' : 'text';
  return `${typeof value}s`;
}

/** Whether two contract fields are objects of the same fields (`period` and `previous_period`). */
export function sameFields(a: Expected | undefined, b: Expected | undefined): boolean {
  if (a?.kind !== 'object' || b?.kind !== 'object') return false;
  const [x, y] = [Object.keys(a.shape).sort(), Object.keys(b.shape).sort()];
  return x.length === y.length && x.every((k, i) => k === y[i]);
}

/** Whether `values` (an upstream field's, across every item seen) fit the contract field `expected`. */
export function fitOf(expected: Expected & { nullable: boolean }, values: readonly unknown[], name?: string): Fit {
  const seen = present(values);
  if (name !== undefined && expected.kind === 'scalar' && !textKindFits(name, seen)) return { readings: [], reason: `its values are ${KIND_WORDS[textKindOf(seen)]}, which \`${name}\` is not` };
  if (seen.length === 0) return { readings: [{ confidence: 1 }] };
  switch (expected.kind) {
    case 'object':
    case 'union':
      return seen.every(isObject) ? { readings: [{ confidence: 1 }] } : { readings: [], reason: `its values are ${kindOf(seen[0])}, the contract's an object` };
    case 'array':
      if (seen.every(Array.isArray)) return { readings: [{ confidence: 1 }] };
      // A list written as an object keyed by one of its items' fields (`{"Acme": {...}, "Bolt": {...}}`).
      if (seen.every(isKeyedList) && expectedOf(expected.element).kind === 'object') return { readings: [{ confidence: KEYED }], reason: 'a list written as an object keyed by its items' };
      if (seen.every((v) => columnarOf(v) !== undefined) && expectedOf(expected.element).kind === 'object') return { readings: [{ confidence: KEYED }], reason: 'a list written as columns and rows' };
      return { readings: [], reason: `its values are ${kindOf(seen[0])}, the contract's an array` };
    case 'enum':
      // The values themselves are compared later (`values` of the map); here only that they are text.
      // Words, never dates, times or numbers written as text; and few of them: an identifier has a value per item.
      if (!seen.every((v) => typeof v === 'string') || formOf(seen) !== 'text') return { readings: [], reason: `its values are ${kindOf(seen[0])}, the contract's words` };
      if (new Set(seen).size > (expected.open ? OPEN_VALUES : expected.values.length * 2))
        return { readings: [], reason: `its values are ${new Set(seen).size} different words, more than an enumeration of ${expected.values.length} holds` };
      return { readings: [{ confidence: 1 }] };
    default:
      return leafFit(expected, seen);
  }
}

function leafFit(expected: Extract<Expected, { leaf: z.ZodType }>, seen: unknown[]): Fit {
  const fits = (convert?: Conversion) => seen.every((v) => expected.leaf.safeParse(convert ? convertValue(convert, v) : v).success);
  const percent = expected.kind === 'number' && (expected.percent || expected.change);
  const form = formOf(seen);
  if (fits()) {
    if (percent) return percentFit(seen as number[], { confidence: 1 }, expected.change);
    // Plain text where the values are dates, times or numbers written as text is a reading, not a likely one.
    if (expected.kind === 'scalar' && textFormat(expected.leaf) === undefined && form !== 'text' && defOf(expected.leaf).type === 'string')
      return { readings: [{ confidence: UNLIKE_TEXT }], reason: `its values are ${FORM_WORDS[form]}, the contract's plain text` };
    return { readings: [{ confidence: 1 }] };
  }
  const tried: Conversion[] =
    expected.kind === 'number'
      ? [expected.integer ? 'integer' : 'number', ...(percent ? (['percent-text', 'basis-points'] as const) : [])]
      : // A day or a time only where the contract has one: an epoch converted is text too, but no title or note.
        (['date', 'date-time', ...DATE_ORDERS, 'boolean'] as const).filter((c) => (c === 'boolean' ? defOf(expected.leaf).type === 'boolean' : formatOf(expected) !== undefined));
  const readings = tried.filter((convert) => fits(convert) && formAllows(convert, form, seen)).map((convert) => ({ convert, confidence: conversionConfidence(convert, seen) }));
  if (readings.length === 0) return { readings, reason: `its values (${kindOf(seen[0])}) do not read as the contract's, even converted` };
  readings.sort((a, b) => b.confidence - a.confidence);
  // Day first or month first, where no day is over 12: the values cannot say, a person does.
  const orders = readings.filter((r) => DATE_ORDERS.includes(r.convert as (typeof DATE_ORDERS)[number]));
  if (orders.length > 1)
    return {
      readings: orders.map((r) => ({ ...r, confidence: AMBIGUOUS })),
      reason: `no day in its values is over 12 (${seen.slice(0, 2).join(', ')}): day first or month first?`,
    };
  // Numbers written as text where the contract has a percentage may still be shares.
  return percent && readings[0]!.convert === 'number' ? percentFit(seen.map(Number), readings[0]!, expected.change) : { readings: readings.slice(0, 1) };
}

function conversionConfidence(convert: Conversion, seen: unknown[]): number {
  // A date-time at midnight UTC is plainly a date; another hour may be a local date shifted.
  if (convert === 'date') return seen.every((v) => Date.parse(String(convertValue('date-time', v))) % 86_400_000 === 0) ? 0.95 : 0.8;
  return CONVERSION_CONFIDENCE[convert];
}

/** Text that is an address, a host name, or words: a code (`x3f9k`), one word (`Pricing`, `xgmuf`), or words with spaces between. */
type TextKind = 'url' | 'domain' | 'words';
type WordsKind = 'code' | 'word' | 'sentence';
const kindOfText = (v: string): TextKind => (/^https?:\/\//i.test(v) ? 'url' : /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(v) && /[a-z]/i.test(v) ? 'domain' : 'words');
const kindOfWords = (v: string): WordsKind => (/\S\s+\S/.test(v) ? 'sentence' : /\d/.test(v) && /[a-z]/i.test(v) ? 'code' : 'word');
const KIND_WORDS: Record<TextKind | WordsKind | 'mixed', string> = {
  url: 'addresses',
  domain: 'host names',
  words: 'words',
  code: 'codes',
  word: 'single words',
  sentence: 'sentences',
  mixed: 'of several kinds',
};
function textKindOf(seen: readonly unknown[]): TextKind | WordsKind | 'mixed' {
  const texts = seen.filter((v): v is string => typeof v === 'string');
  const kinds = new Set(texts.map(kindOfText));
  if (kinds.size !== 1) return 'mixed';
  const kind = [...kinds][0]!;
  if (kind !== 'words') return kind;
  const words = new Set(texts.map(kindOfWords));
  return words.size === 1 ? [...words][0]! : 'words';
}
/** The contract's fields that hold a person's sentences (a task's `why`, an engine's answer): never one word or a code. */
const SENTENCE_WORDS = new Set(['why', 'detail', 'note', 'prompt', 'answer', 'steps', 'gets', 'summary', 'headline', 'reason', 'description', 'excerpt']);
/** The contract's fields that hold words a person reads, one or more (a page's `title`, a question's `text`): never a code. */
const READ_WORDS = new Set(['title', 'text', 'facts']);
/**
 * The contract's own field names say what its text is: a `url` holds addresses, a `domain` host names, a sentence
 * field (`why`) words with spaces between, a title words, any other text field words or codes (a brand may be `G2`).
 * Values all of another kind do not stand for it (a domain is never a brand's name, a cache key never a task's why).
 */
export function textKindFits(name: string, seen: readonly unknown[]): boolean {
  const words = name.split('_');
  const have = textKindOf(seen);
  if (have === 'mixed' || seen.some((v) => typeof v !== 'string')) return true;
  if (words.includes('url')) return have === 'url';
  if (words.includes('domain')) return have === 'domain';
  if (have === 'url' || have === 'domain') return false;
  if (words.some((word) => SENTENCE_WORDS.has(word))) return have === 'sentence' || have === 'words';
  if (words.some((word) => READ_WORDS.has(word))) return have !== 'code';
  return true;
}

/** The orders a date may be written in, each a conversion of the map's. */
export const DATE_ORDERS = ['date-dmy', 'date-mdy', 'date-ymd'] as const;
/** A date with its three parts in some order and a separator other than ISO's (`23/11/2026`, `2026.11.23`, `11-23-2026`). */
const ORDERED_DATE = /^\d{1,4}[/.\-\s]\d{1,2}[/.\-\s]\d{1,4}(?:[T\s,]+\d{1,2}:\d\d.*)?$/;

/** How a field's values are written, taken together. */
export type Form = 'date' | 'ordered-date' | 'date-time' | 'epoch' | 'percent-text' | 'number' | 'numeric-text' | 'boolean' | 'text' | 'mixed';
const FORM_WORDS: Record<Form, string> = {
  date: 'dates',
  'ordered-date': 'dates in an order of their own (`23/11/2026`)',
  'date-time': 'date-times',
  epoch: 'epoch times',
  'percent-text': 'percentages written with %',
  number: 'numbers',
  'numeric-text': 'numbers written as text',
  boolean: 'booleans',
  text: 'text',
  mixed: 'of several kinds',
};
/** Epoch seconds or milliseconds from 2000 to 2100: a count or an amount is far from either range. */
const EPOCH_SECONDS = [946_684_800, 4_102_444_800] as const;
const isEpoch = (v: unknown) => {
  const n = typeof v === 'string' && /^\d{9,13}$/.test(v) ? Number(v) : v;
  // Seconds may carry a fraction (`1795792238.38`); milliseconds are whole.
  return typeof n === 'number' && ((n >= EPOCH_SECONDS[0] && n <= EPOCH_SECONDS[1]) || (Number.isInteger(n) && n >= EPOCH_SECONDS[0] * 1000 && n <= EPOCH_SECONDS[1] * 1000));
};
function formOfOne(v: unknown): Form {
  if (typeof v === 'boolean') return 'boolean';
  if (isEpoch(v)) return 'epoch';
  if (typeof v === 'number') return 'number';
  if (typeof v !== 'string') return 'mixed';
  if (/^\d{4}-\d\d-\d\d$/.test(v)) return 'date';
  if (/^\d{4}-\d\d-\d\d[T ]\d\d:\d\d/.test(v)) return 'date-time';
  if (ORDERED_DATE.test(v)) return 'ordered-date';
  if (/^\s*-?\d+(\.\d+)?\s*%\s*$/.test(v)) return 'percent-text';
  if (v.trim() !== '' && Number.isFinite(Number(v))) return 'numeric-text';
  return 'text';
}
/** The one form every value has, or `mixed`. */
export function formOf(seen: readonly unknown[]): Form {
  const forms = new Set(seen.map(formOfOne));
  return forms.size === 1 ? [...forms][0]! : forms.size === 2 && forms.has('number') && forms.has('epoch') ? 'number' : 'mixed';
}
const textFormat = (leaf: z.ZodType) =>
  defOf(leaf).format ??
  defOf(leaf)
    .checks?.map((c) => c._zod.def.format)
    .find(Boolean);
/** A plain-text field's reading of values that are not text. */
const UNLIKE_TEXT = 0.3;

/** Whether the values' form is one the conversion is for: a date from dates or epochs, never from a count. */
function formAllows(convert: Conversion, form: Form, seen: readonly unknown[]): boolean {
  switch (convert) {
    case 'date':
    case 'date-time':
      return form === 'date' || form === 'date-time' || form === 'epoch';
    case 'date-dmy':
    case 'date-mdy':
    case 'date-ymd':
      return form === 'ordered-date';
    case 'basis-points':
      // Whole numbers, some past 100, each a tenth of a point (the contract's one decimal) in hundredths: a count is rarely all tens.
      return seen.every((v) => typeof v === 'number' && Number.isInteger(v) && v % 10 === 0) && seen.some((v) => Math.abs(v as number) > 100);
    default:
      return true;
  }
}

/**
 * Values the contract reads as a percentage from 0 to 100, all of them from 0
 * to 1 with a fraction among them: shares, or a small percentage? Many
 * different values say shares; one or two cannot tell, and a person chooses.
 */
function percentFit(values: number[], plain: Reading, change = false): Fit {
  const fractions = values.some((v) => v !== 0 && Math.abs(v) < 1);
  if (!fractions || values.some((v) => Math.abs(v) > 1)) return { readings: [plain] };
  // A change within -1 to 1 is as likely points as a share: its unit is its siblings' (propose.ts `siblingUnits`).
  if (change) return { readings: [plain] };
  if (new Set(values).size >= SHARE_EVIDENCE)
    return { readings: [{ convert: 'percent', confidence: CONVERSION_CONFIDENCE.percent }], reason: 'every value is from 0 to 1: shares, read as percentages' };
  return {
    readings: [
      { convert: 'percent', confidence: AMBIGUOUS },
      { ...plain, confidence: AMBIGUOUS },
    ],
    reason: `${values.length === 1 ? 'one value' : 'few values'} from 0 to 1 (${values
      .slice(0, 2)
      .map((v) => Math.round(v * 10_000) / 10_000)
      .join(', ')}): a share to read as a percentage, or a percentage below 1?`,
  };
}

/** Whether a scalar is a date or a date-time in the contract: `date`, `datetime`, or undefined. */
export function formatOf(expected: Expected): 'date' | 'datetime' | undefined {
  if (expected.kind !== 'scalar') return undefined;
  const def = defOf(expected.leaf);
  const format = def.format ?? def.checks?.map((c) => c._zod.def.format).find(Boolean);
  return format === 'date' || format === 'datetime' ? format : undefined;
}

/** A field's form as fields that may stand for each other share it: its kind, and a date's or a time's format. */
export function formKeyOf(schema: z.ZodType): string {
  const expected = expectedOf(schema);
  return `${expected.kind} ${formatOf(expected) ?? ''}`;
}

/** Whether the contract path holds a number (a count, a share): what the values of two such fields often cannot tell apart. */
export function holdsNumber(schema: z.ZodType, path: string): boolean {
  try {
    return expectedOf(schemaAtPath(schema, path)).kind === 'number';
  } catch {
    return false;
  }
}

/** Whether the contract path holds free text, or a list of it: a string of no format (no date, address or id form), which only names tell apart. */
export function holdsText(schema: z.ZodType, path: string): boolean {
  try {
    let expected = expectedOf(schemaAtPath(schema, path));
    if (expected.kind === 'array') expected = expectedOf(expected.element);
    if (expected.kind !== 'scalar') return false;
    const def = defOf(expected.leaf);
    return def.type === 'string' && !def.format && !def.checks?.some((c) => c._zod.def.format);
  } catch {
    return false;
  }
}

/** A contract object whose fields are all scalars, none of them nullable: one a service may write flat in its parent (`MarketId`, `MarketCode`). */
export function flatFields(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const expected = expectedOf(schema);
  if (expected.kind !== 'object' || expected.nullable) return undefined;
  const fields = Object.entries(expected.shape);
  return fields.length > 0 && fields.every(([, f]) => ['number', 'scalar', 'enum'].includes(expectedOf(f).kind)) ? expected.shape : undefined;
}
