/**
 * Contract paths, and the one walker of them. A contract path names a field
 * of an operation's body on the contract's names: dotted (`competition.daily`),
 * with `[]` after an array whose items it goes into (`topics[].rivals`). The
 * CSV tables (`csv.rows`), the MCP tools' pages, the optional parts of a
 * lenient read, the weekly report's parts and the discovery of the upstream
 * map all name fields this way, and all read them here: in a body
 * (`valuesAtPath`, `valueAtPath`) or in a response schema (`schemaAtPath`).
 *
 * ```ts
 * valuesAtPath(body, 'topics[].rivals'); // every topic's rivals, `undefined` where a topic has none
 * valueAtPath(body, 'competition.daily'); // the array, or undefined
 * schemaAtPath(zs.response('listTopics'), 'topics[]'); // the schema of one topic
 * ```
 */
import type * as z from 'zod';
import { isObject } from './conform';
import { defOf, unwrapSchema } from './schema-walk';

type Json = Record<string, unknown>;

const stepsOf = (path: string | readonly string[]): readonly string[] => (typeof path === 'string' ? path.split('.') : path);

/** What stands at a contract path in `value`, arrays (`topics[]`) followed into their items; `undefined` where a field is absent. */
export function valuesAtPath(value: unknown, path: string | readonly string[]): unknown[] {
  let here: unknown[] = [value];
  for (const step of stepsOf(path)) {
    const name = step.replace(/\[\]$/, '');
    here = here.flatMap((v) => {
      const next = isObject(v) ? v[name] : undefined;
      return step.endsWith('[]') ? (Array.isArray(next) ? next : []) : [next];
    });
  }
  return here;
}

/** Where a path's last list ends (`topics[].rivals[]` of `topics[].rivals[].share`), or undefined for a path outside lists. */
export const listOf = (path: string): string | undefined => (path.includes('[]') ? path.slice(0, path.lastIndexOf('[]') + 2) : undefined);

/** What stands at a contract path without `[]` (`competition.daily`); undefined where a field on the way is absent or not an object. */
export const valueAtPath = (value: unknown, path: string): unknown => valuesAtPath(value, path)[0];

/** The objects that hold the last field of a contract path (`topics[].rivals`: every topic), where it is read or written. */
export const holdersOf = (value: unknown, path: string): Json[] => valuesAtPath(value, path.split('.').slice(0, -1)).filter(isObject);

/** Whether contract path `path` is `outer` or lies inside it (`topics[].rivals` inside `topics`; `topics_won` is not). */
export const atOrUnder = (path: string, outer: string): boolean => path === outer || path.startsWith(`${outer}.`) || path.startsWith(`${outer}[]`);

/** The object or list item a contract path's last field is in (`topics[].rivals` for `topics[].rivals.name`; `` at the top). */
export const parentOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('.')));

/** The last field of a contract path, without its `[]`. */
export const fieldOf = (path: string): string => path.split('.').at(-1)!.replace(/\[\]$/, '');

/**
 * The schema at a contract path of a response schema, through wrappers
 * (nullable, optional, ...) and into the option of a union that has the
 * field: `topics[]` is one topic's, `competition.daily` the array's. Throws naming the path when it is no field of the schema.
 */
export function schemaAtPath(schema: z.ZodType, path: string): z.ZodType {
  let here = schema;
  for (const step of path.split('.')) {
    const name = step.replace(/\[\]$/, '');
    const def = defOf(unwrapSchema(here));
    // A union of objects (a part the plan may leave out): the field of the option that has it.
    const objects = def.type === 'union' ? (def.options ?? []).map((o) => defOf(unwrapSchema(o as z.ZodType))) : [def];
    const field = objects.map((d) => (d.type === 'object' ? d.shape?.[name] : undefined)).find(Boolean);
    if (!field) throw new Error(`contract path ${path}: no field \`${name}\``);
    here = field;
    if (step.endsWith('[]')) {
      const array = defOf(unwrapSchema(field));
      if (array.type !== 'array' || !array.element) throw new Error(`contract path ${path}: \`${name}\` is not an array`);
      here = array.element;
    }
  }
  return here;
}
