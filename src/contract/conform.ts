/**
 * Bringing another implementation's body onto the contract's model, with no
 * configuration (DESIGN section 13). The spec fixes meanings, not field
 * names, so a real service may write `brandId`, `BrandId` or `brand-id` for
 * the contract's `brand_id`, and may wrap the body once (`{"data": ...}`
 * beside `meta` or `links`). Guided by the operation's response schema, this
 * walks the body and renames each field the schema knows to the contract's
 * name; fields it does not know are dropped, values are left as they are.
 * Where a respelling is not enough, the upstream map (`upstream-map.ts`)
 * names fields, converts values and maps enumerations.
 *
 * ```ts
 * conformBody(zs.response('getVisibility'), { data: { brandId: 1, score: 52.4 }, meta: { generatedAt: '...' } });
 * // { brand_id: 1, score: 52.4, generated_at: '...' }
 * ```
 *
 * The client calls it only when a body fails the schema as sent, so our own
 * origin's bodies never pay for it.
 */
import type * as z from 'zod';
import { defOf, innerSchema, unwrapSchema } from './schema-walk';
import type { OperationMap } from './schemas/upstream-map';
import { spelledValue } from './enum-spelling';
import { convertValue } from './upstream-map';

type Json = Record<string, unknown>;

/** A field name with case and separators taken out: `brand_id`, `brandId`, `BrandID` and `brand-id` are one name. */
export const fieldKey = (name: string): string => name.replace(/[-_\s]/g, '').toLowerCase();

/** A JSON object (not null, not an array): what a body and its fields are walked as. */
export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The object shape a schema describes, through its wrappers; undefined when it is not an object. */
export function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const def = defOf(unwrapSchema(schema));
  return def.type === 'object' ? def.shape : undefined;
}

/** Where a value sits in the contract's body (`history[].week_start`), and the operation's map, if any. */
interface At {
  path: string;
  map: OperationMap | undefined;
  /** The whole answer, envelope and all: where a top-level field the map names beside the envelope is read (`meta.asOf`). */
  root?: Json;
  /** For an item of a list keyed as an object: the contract field its key fills, and the key. */
  key?: { field: string; value: string };
}

/** `value` with every field `schema` knows under the contract's name, at any depth, converted as the map asks. */
export function conformValue(schema: z.ZodType, value: unknown, at: At = { path: '', map: undefined }): unknown {
  if (value === null || value === undefined) return value;
  const def = defOf(schema);
  const inner = innerSchema(def);
  if (inner) return conformValue(inner, value, at);
  const values = enumValues(def);
  // Aliases of an open value (an engine `openai-chatgpt`) are ours only once a map is kept: with none they are carried, and the rules name them.
  if (values) return spelled(scalar(value, at), values, !values.open || at.map !== undefined);
  switch (def.type) {
    case 'object':
      return isObject(value) ? conformObject(def.shape ?? {}, value, at) : value;
    case 'array': {
      if (!def.element) return value;
      const element = def.element as z.ZodType;
      const path = `${at.path}[]`;
      const keyed = at.map?.keyed?.[at.path];
      const columns = at.map?.columns?.[at.path];
      if (Array.isArray(value)) return value.map((item) => conformValue(element, item, { path, map: at.map }));
      // A list written as columns and rows (`{"cols": ["id", "name"], "rows": [[1, "Acme"]]}`): each row an item.
      if (columns && isObject(value)) {
        const rows = rowsOf(value, columns);
        return rows ? rows.map((item) => conformValue(element, item, { path, map: at.map })) : value;
      }
      // An empty object where the contract has a list is an empty list, whatever its items would be keyed by.
      if (isObject(value) && Object.keys(value).length === 0) return [];
      // A list written as an object keyed by one of its items' fields (`{"Acme": {...}}`), or by a value the contract
      // does not hold (`{"ticketly.com": {"name": "Ticketly"}}`, kept beside the item as an extra): in the object's order.
      if (keyed !== undefined && isObject(value))
        return Object.entries(value).map(([key, item]) =>
          typeof keyed === 'string'
            ? conformValue(element, item, { path, map: at.map, key: { field: keyed, value: key } })
            : withExtra(conformValue(element, item, { path, map: at.map }), keyed.extra, key),
        );
      return value;
    }
    case 'record':
      return isObject(value) && def.valueType ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, conformValue(def.valueType as z.ZodType, v, at)])) : value;
    case 'union':
      return conformUnion(def.options ?? [], value, at);
    default:
      return scalar(value, at);
  }
}

/** A leaf converted and its value mapped as the map says for its path. */
function scalar(value: unknown, { path, map }: At): unknown {
  if (!map) return value;
  const kind = map.convert[path];
  const converted = kind ? convertValue(kind, value) : value;
  const values = map.values[path];
  return values && Object.hasOwn(values, String(converted)) ? values[String(converted)] : converted;
}

function conformObject(shape: Record<string, z.ZodType>, value: Json, at: At): Json {
  const names = namesOf(value);
  const out: Json = {};
  for (const [name, field] of Object.entries(shape)) {
    const path = at.path ? `${at.path}.${name}` : name;
    const renamed = at.map?.fields[path];
    let found = at.key?.field === name ? keyValue(field, at.key.value) : renamed !== undefined ? pick(value, renamed) : fieldOf(value, name, names);
    // A top-level field the map names beside the envelope: read from the whole answer.
    if (found === undefined && renamed !== undefined && at.path === '' && at.root) found = pick(at.root, renamed);
    if (found !== undefined) out[name] = conformValue(field, found, { path, map: at.map });
  }
  return out;
}

/**
 * The items of a list written as columns and rows: `names` holds the column names (text, or objects whose field
 * `name` holds it), `rows` the rows, each a list of values in the columns' order. Undefined when the value is not so
 * written (a row longer or shorter than the names), for the schema to refuse.
 */
function rowsOf(value: Json, columns: { names: string; rows: string; name?: string | undefined }): Json[] | undefined {
  const names = pick(value, columns.names);
  const rows = pick(value, columns.rows);
  if (!Array.isArray(names) || !Array.isArray(rows)) return undefined;
  const keys = names.map((n) => (typeof n === 'string' ? n : isObject(n) && columns.name !== undefined ? n[columns.name] : undefined));
  if (!keys.every((k): k is string => typeof k === 'string') || !rows.every((row) => Array.isArray(row) && row.length === keys.length)) return undefined;
  return (rows as unknown[][]).map((row) => Object.fromEntries(keys.map((k, i) => [k, row[i]])));
}

/** An item with its list's key kept beside its fields, under a name the contract does not read. */
const withExtra = (item: unknown, name: string, key: string): unknown => (isObject(item) ? { ...item, [name]: key } : item);

/** An object's key as the value of the item field it fills: a number where the contract has one. */
function keyValue(field: z.ZodType, key: string): unknown {
  const number = defOf(unwrapSchema(field)).type === 'number';
  return number && key.trim() !== '' && Number.isFinite(Number(key)) ? Number(key) : key;
}

/** An enumeration's values, and whether the spec leaves it open (one of ours or any text: `enums.ts` `openValue`). */
function enumValues(def: ReturnType<typeof defOf>): { values: string[]; open: boolean } | undefined {
  if (def.type === 'enum') return { values: Object.values(def.entries ?? {}).map(String), open: false };
  if (def.type !== 'union') return undefined;
  const options = def.options ?? [];
  const closed = options.find((o) => defOf(o).type === 'enum');
  if (!closed || options.length !== 2 || !options.some((o) => defOf(o).type === 'string')) return undefined;
  return { values: Object.values(defOf(closed).entries ?? {}).map(String), open: true };
}

/** A value of an enumeration onto ours by the spelling rules (`enum-spelling.ts`), or as it is. */
function spelled(value: unknown, { values, open }: { values: string[]; open: boolean }, aliases: boolean): unknown {
  if (typeof value !== 'string') return value;
  const ours = aliases ? spelledValue(value, values, open) : values.find((v) => fieldKey(v) === fieldKey(value) && v !== value);
  return ours ?? value;
}

/** The value at a map's path, relative to `value`: `"."` is `value` itself, dotted names reach into it (each under any spelling). */
function pick(value: Json, path: string): unknown {
  if (path === '.') return value;
  let here: unknown = value;
  for (const name of path.split('.')) here = isObject(here) ? fieldOf(here, name, namesOf(here)) : undefined;
  return here;
}

/** A field of `value` by its exact name, or else by any spelling of it. */
function fieldOf(value: Json, name: string, names: Map<string, string>): unknown {
  const source = Object.hasOwn(value, name) ? name : names.get(fieldKey(name));
  return source === undefined ? undefined : value[source];
}

/** The body's own field names by `fieldKey`; the first spelling wins when two collide. */
function namesOf(value: Json): Map<string, string> {
  // Discovery conforms one body under many candidate maps: an object's names are read once (bodies are not changed).
  const keys = Object.keys(value);
  const known = namesMemo.get(value);
  if (known && known.count === keys.length) return known.names;
  const names = new Map<string, string>();
  for (const name of keys) {
    const key = fieldKey(name);
    if (!names.has(key)) names.set(key, name);
  }
  namesMemo.set(value, { count: keys.length, names });
  return names;
}
const namesMemo = new WeakMap<Json, { count: number; names: Map<string, string> }>();

/**
 * The first option the conformed value satisfies. When none does (a map still partial, as discovery's), the option
 * that reads the most of the value, so what the map does say is read and the schema names the field at fault rather
 * than the union; the value unchanged when no option reads any of it.
 */
function conformUnion(options: z.ZodType[], value: unknown, at: At): unknown {
  let best: { conformed: unknown; leaves: number } | undefined;
  for (const option of options) {
    const conformed = conformValue(option, value, at);
    if (option.safeParse(conformed).success) return conformed;
    const leaves = leavesOf(conformed);
    if (isObject(conformed) && leaves > 0 && (!best || leaves > best.leaves)) best = { conformed, leaves };
  }
  return best?.conformed ?? value;
}

/** How many values lie under `value` (itself, if it is one). */
function leavesOf(value: unknown): number {
  if (Array.isArray(value)) return value.reduce<number>((n, v) => n + leavesOf(v), 0);
  if (isObject(value)) return Object.values(value).reduce<number>((n, v) => n + leavesOf(v), 0);
  return value === undefined ? 0 : 1;
}

/** How many of `shape`'s fields `value` holds under some spelling. */
function matches(shape: Record<string, z.ZodType>, value: Json): number {
  const names = namesOf(value);
  return Object.keys(shape).filter((name) => names.has(fieldKey(name))).length;
}

/** The field of the top object that holds more of the schema's fields than the top object itself, if one does (the first of the best). */
export function envelopeOf(shape: Record<string, z.ZodType>, body: Json): string | undefined {
  let best: { name: string; count: number } | undefined;
  const top = matches(shape, body);
  for (const [name, child] of Object.entries(body)) {
    if (!isObject(child)) continue;
    const count = matches(shape, child);
    if (count > (best?.count ?? top)) best = { name, count };
  }
  return best?.name;
}

/**
 * The body with one envelope taken off: the envelope `at` names (a dotted
 * path, from the upstream map), or else the field of the top object that
 * holds more of the schema's fields than the top object itself (`data`,
 * `result`, whatever it is called). What the envelope lacks is looked for
 * beside it (a `meta` holding `generatedAt`, say). A value at `at` that is no
 * object is answered as it is, for the schema to refuse.
 */
export function unwrapEnvelope(shape: Record<string, z.ZodType>, body: Json, at?: string): unknown {
  const envelope = at ?? envelopeOf(shape, body);
  if (envelope === undefined) return body;
  const inner = pick(body, envelope);
  if (!isObject(inner)) return inner;
  const merged: Json = { ...inner };
  const innerNames = namesOf(inner);
  const outer = envelope.split('.')[0]!;
  for (const name of Object.keys(shape)) {
    if (innerNames.has(fieldKey(name))) continue;
    const found = besideEnvelope(body, outer, name);
    if (found !== undefined) merged[name] = found;
  }
  return merged;
}

/** A field the envelope lacks, from the top object or one of its other objects (`meta`, `links`). */
function besideEnvelope(body: Json, envelope: string, name: string): unknown {
  const key = fieldKey(name);
  for (const [sibling, value] of Object.entries(body)) {
    if (sibling === envelope) continue;
    if (fieldKey(sibling) === key) return value;
    if (isObject(value)) {
      const inner = namesOf(value).get(key);
      if (inner !== undefined) return value[inner];
    }
  }
  return undefined;
}

/**
 * A whole response body onto the contract's names: the map's envelope (or
 * one found), then every field renamed, converted and mapped as the map
 * says, and found under any spelling where it says nothing.
 */
export function conformBody(schema: z.ZodType, body: unknown, map?: OperationMap): unknown {
  const shape = objectShape(schema);
  if (!shape || !isObject(body)) return body;
  const inside = unwrapEnvelope(shape, body, map?.envelope);
  return isObject(inside) ? conformObject(shape, inside, { path: '', map, root: body }) : inside;
}
