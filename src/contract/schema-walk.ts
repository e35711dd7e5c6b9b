/**
 * Reading a response schema's structure: what the CSV tables and the
 * conforming of foreign bodies walk. zod 4 keeps a schema's definition at
 * `_zod.def`; this is the one place that knows it.
 */
import type { z } from 'zod';

export interface SchemaDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  getter?: () => z.ZodType;
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
