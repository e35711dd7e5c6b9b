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
  string: 0.85,
  /** Many different values, all from 0 to 1 (`SHARE_EVIDENCE`). */
  percent: 0.85,
  'percent-text': 0.95,
  'basis-points': 0.5,
};
/** A share from 0 to 1 is told from a small percentage only by many values: this many different ones, none above 1. */
export const SHARE_EVIDENCE = 3;
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

/** Whether `values` (an upstream field's, across every item seen) fit the contract field `expected`. */
export function fitOf(expected: Expected & { nullable: boolean }, values: readonly unknown[]): Fit {
  const seen = present(values);
  if (seen.length === 0) return { readings: [{ confidence: 1 }] };
  switch (expected.kind) {
    case 'object':
    case 'union':
      return seen.every(isObject) ? { readings: [{ confidence: 1 }] } : { readings: [], reason: `its values are ${kindOf(seen[0])}, the contract's an object` };
    case 'array':
      return seen.every(Array.isArray) ? { readings: [{ confidence: 1 }] } : { readings: [], reason: `its values are ${kindOf(seen[0])}, the contract's an array` };
    case 'enum':
      // The values themselves are compared later (`values` of the map); here only that they are text.
      return seen.every((v) => typeof v === 'string') ? { readings: [{ confidence: 1 }] } : { readings: [], reason: `its values are ${kindOf(seen[0])}, the contract's text` };
    default:
      return leafFit(expected, seen);
  }
}

function leafFit(expected: Extract<Expected, { leaf: z.ZodType }>, seen: unknown[]): Fit {
  const fits = (convert?: Conversion) => seen.every((v) => expected.leaf.safeParse(convert ? convertValue(convert, v) : v).success);
  const percent = expected.kind === 'number' && expected.percent;
  if (fits()) return percent ? percentFit(seen as number[], { confidence: 1 }) : { readings: [{ confidence: 1 }] };
  const tried: Conversion[] = expected.kind === 'number' ? [expected.integer ? 'integer' : 'number'] : ['date', 'date-time', 'boolean', 'string'];
  const readings = tried.filter((convert) => fits(convert)).map((convert) => ({ convert, confidence: conversionConfidence(convert, seen) }));
  if (readings.length === 0) return { readings, reason: `its values (${kindOf(seen[0])}) do not read as the contract's, even converted` };
  readings.sort((a, b) => b.confidence - a.confidence);
  // Numbers written as text where the contract has a percentage may still be shares.
  return percent ? percentFit(seen.map(Number), readings[0]!) : { readings: readings.slice(0, 1) };
}

function conversionConfidence(convert: Conversion, seen: unknown[]): number {
  // A date-time at midnight UTC is plainly a date; another hour may be a local date shifted.
  if (convert === 'date') return seen.every((v) => typeof v === 'string' && Date.parse(v) % 86_400_000 === 0) ? 0.95 : 0.8;
  return CONVERSION_CONFIDENCE[convert];
}

/**
 * Values the contract reads as a percentage from 0 to 100, all of them from 0
 * to 1 with a fraction among them: shares, or a small percentage? Many
 * different values say shares; one or two cannot tell, and a person chooses.
 */
function percentFit(values: number[], plain: Reading): Fit {
  const fractions = values.some((v) => v > 0 && v < 1);
  if (!fractions || values.some((v) => v > 1)) return { readings: [plain] };
  if (new Set(values).size >= SHARE_EVIDENCE) return { readings: [{ convert: 'percent', confidence: CONVERSION_CONFIDENCE.percent }], reason: 'every value is from 0 to 1: shares, read as percentages' };
  return {
    readings: [
      { convert: 'percent', confidence: AMBIGUOUS },
      { ...plain, confidence: AMBIGUOUS },
    ],
    reason: `${values.length === 1 ? 'one value' : 'few values'} from 0 to 1 (${values.slice(0, 2).map((v) => Math.round(v * 10_000) / 10_000).join(', ')}): a share to read as a percentage, or a percentage below 1?`,
  };
}
