/**
 * Reading a response schema's structure: what the CSV tables, the conforming
 * of foreign bodies and the discovery of the upstream map walk. zod 4 keeps a
 * schema's definition at `_zod.def`; this is the one place that knows it.
 */
import type * as z from 'zod';

export interface SchemaDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  getter?: () => z.ZodType;
  /** An enum's values, by name. */
  entries?: Record<string, string | number>;
  /** A literal's values. */
  values?: readonly unknown[];
  /** A string's format: `date`, `datetime`, ... */
  format?: string;
  checks?: readonly { _zod: { def: { check: string; value?: unknown; inclusive?: boolean; format?: string } } }[];
}

export const defOf = (schema: z.ZodType): SchemaDef => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

/** The schema a wrapper (nullable, optional, default, a pipe's input, lazy) stands for; undefined for anything else. */
export function innerSchema(def: SchemaDef): z.ZodType | undefined {
  if (WRAPPERS.has(def.type)) return def.innerType;
  if (def.type === 'pipe') return def.in;
  if (def.type === 'lazy') return def.getter?.();
  return undefined;
}

/** The schema under every wrapper. */
export function unwrapSchema(schema: z.ZodType): z.ZodType {
  for (let s = schema; ; ) {
    const inner = innerSchema(defOf(s));
    if (!inner) return s;
    s = inner;
  }
}

/** What a number schema checks: its bounds, and whether it must be whole. */
export function numberRules(def: SchemaDef): { min?: number; max?: number; integer: boolean } {
  const rules: { min?: number; max?: number; integer: boolean } = { integer: false };
  for (const { _zod } of def.checks ?? []) {
    const check = _zod.def;
    if (check.check === 'greater_than' && typeof check.value === 'number') rules.min = check.value;
    if (check.check === 'less_than' && typeof check.value === 'number') rules.max = check.value;
    if (check.check === 'number_format' && (check.format === 'safeint' || check.format === 'int32')) rules.integer = true;
  }
  return rules;
}
