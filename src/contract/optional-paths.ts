/**
 * Reading a body whose optional parts may be absent (DESIGN section 13:
 * degrade, do not fail). A feature names the contract paths it can do
 * without (`history`, `topics[].rivals`); the operation's schema is rebuilt
 * with only those fields optional, and one absent or unreadable is left out
 * instead of failing the whole body. Every other field is as required as
 * before, so a body that breaks one still fails naming it.
 *
 * ```ts
 * const schema = withOptionalPaths(zs.response('listTopics'), ['topics[].rivals']);
 * const data = schema.parse(body);
 * absentPaths(data, ['topics[].rivals']); // ['topics[].rivals'] when no topic has its rivals
 * ```
 */
import type * as z from 'zod';
import { fieldOf, holdersOf } from './paths';
import { defOf, innerSchema } from './schema-walk';

/**
 * `schema` with the field at each path (the contract's: dotted, `[]` after an array) optional: absent, or
 * unreadable, it is left out. With `carry`, an unreadable text or number is kept as the service sent it (a CSV cell
 * shows the service's own `seesaw` where no rule reads it as won, lost or held): for readers that show values and
 * compute nothing from them.
 */
export function withOptionalPaths(schema: z.ZodType, paths: readonly string[], carry = false): z.ZodType {
  return paths.reduce((s, path) => optionalAt(s, path.split('.'), carry), schema);
}

/** What an unreadable optional field becomes: nothing, or, carried, the text or number sent. */
const leftOut = () => undefined;
const carried = (ctx: z.core.$ZodCatchCtx) => (typeof ctx.value === 'string' || typeof ctx.value === 'number' ? ctx.value : undefined);

/** The schema rebuilt along `steps`, the last one's field made optional; wrappers and checks (`nullable`, `.length(12)`) kept. */
function optionalAt(schema: z.ZodType, steps: string[], carry: boolean): z.ZodType {
  const def = defOf(schema);
  const inner = innerSchema(def);
  if (inner && def.innerType) return schema.clone({ ...def, innerType: optionalAt(inner, steps, carry) } as never);
  const [step, ...rest] = steps;
  if (step === undefined) throw new Error("optional path: it names an array's items, not a field");
  const array = step.endsWith('[]');
  const name = array ? step.slice(0, -2) : step;
  if (def.type !== 'object' || !def.shape?.[name]) throw new Error(`optional path: no field \`${name}\` here`);
  const field = def.shape[name];
  let replaced: z.ZodType;
  if (rest.length === 0 && !array) replaced = field.optional().catch(carry ? carried : leftOut);
  else if (array) replaced = arrayWith(field, rest, carry);
  else replaced = optionalAt(field, rest, carry);
  return (schema as z.ZodObject).extend({ [name]: replaced });
}

/** An array field whose items are rebuilt along `rest`. */
function arrayWith(field: z.ZodType, rest: string[], carry: boolean): z.ZodType {
  const def = defOf(field);
  const inner = innerSchema(def);
  if (inner && def.innerType) return field.clone({ ...def, innerType: arrayWith(inner, rest, carry) } as never);
  if (def.type !== 'array' || !def.element) throw new Error('optional path: `[]` after a field that is not an array');
  return field.clone({ ...def, element: optionalAt(def.element, rest, carry) } as never);
}

/**
 * Of `paths`, those `value` lacks wherever it could hold them: a field
 * absent in every item of its array (an empty array says nothing either
 * way, so its items' fields are not listed).
 */
export function absentPaths(value: unknown, paths: readonly string[]): string[] {
  return paths.filter((path) => {
    const holders = holdersOf(value, path);
    const last = fieldOf(path);
    return holders.length > 0 && holders.every((holder) => holder[last] === undefined);
  });
}
