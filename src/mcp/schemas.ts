/**
 * Output schemas: what each tool's `structuredContent` is, generated from the
 * contract's response schema (zod's JSON Schema, draft 2020-12), as an
 * outline. The whole schemas of the 23 operations are about 80 KB, four times
 * the 20 KB `tools/list` may weigh (every tool's schemas travel in it, and
 * each `outputSchema` must stand alone: a client compiles it without the
 * others), so a tool's schema names what an assistant reads first and no
 * more: every top-level field with its type (a `null` branch where it may be null,
 * `enum` where the contract closes the values); an object or an array is
 * `{"type": "object"}` or `{"type": "array"}`, its fields left to the body.
 * The whole schema of each body is in the OpenAPI document
 * (`GET /api/v1/openapi.json`). Descriptions, bounds and patterns are left
 * out; what the outline keeps, every body the contract accepts satisfies.
 */
import * as z from 'zod';
import type { JsonObject } from '../contract/openapi';
import type { AnyOperation, CsvRows, OperationId } from '../contract/operations';
import { commonSchemas } from '../contract/schemas/common';
import { response } from '../contract/schemas/responses';
import { PAGE_FIELD, PAGE_SCHEMA } from './pages';

type Json = JsonObject;

const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

/** What every brand-scoped body names (`brand_id`, `market`, `generated_at`): said once, in the server's instructions, not in each outline. */
const BRAND_SCOPE = new Set(Object.keys(commonSchemas().brandScope));

/** The JSON Schema of a tool's result: the outline of the operation's response, and `page` for a tool with a list. */
export function outputSchemaOf(op: Pick<AnyOperation, 'csv'> & { id: OperationId }): Json {
  return resultSchemaOf(response(op.id), op.csv);
}

/** The outline of a response schema, and `page` when `csv` says the result is a list. */
export function resultSchemaOf(body: z.ZodType, csv: CsvRows | undefined): Json {
  const full = z.toJSONSchema(body, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' }) as Json;
  const { properties, ...schema } = outline(full, full, 1);
  const fields = Object.fromEntries(Object.entries(properties as Record<string, Json>).filter(([name]) => !BRAND_SCOPE.has(name)));
  if (!csv) return { ...schema, properties: fields };
  if (fields[PAGE_FIELD]) throw new Error(`a response has a field \`${PAGE_FIELD}\`, which paged results add`);
  return { ...schema, properties: { ...fields, [PAGE_FIELD]: PAGE_SCHEMA } };
}

/**
 * `schema` to `depth` levels of objects (an array's items at the array's
 * own). `root` holds the `$defs` that `$ref`s point at (zod's named
 * schemas: `MarketRef`, `Period`).
 */
export function outline(schema: Json, root: Json, depth: number): Json {
  const ref = schema.$ref;
  if (typeof ref === 'string') return outline(resolve(root, ref), root, depth);
  const members = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(members)) return union((members as Json[]).map((m) => outline(m, root, depth)));
  const type = schema.type;
  if (type === 'object') {
    if (depth <= 0) return { type };
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    return { type, properties: Object.fromEntries(Object.entries(properties).map(([name, field]) => [name, outline(field, root, depth - 1)])) };
  }
  if (type === 'array') return depth <= 0 || !schema.items ? { type } : { type, items: outline(schema.items as Json, root, depth) };
  if (typeof type === 'string' && SCALARS.has(type)) return { type, ...(Array.isArray(schema.enum) ? { enum: schema.enum } : {}) };
  if (type === 'null') return { type };
  // `unrepresentable: 'any'` and open values: anything.
  return {};
}

/**
 * `X | null` as `anyOf` with a `null` branch, not `type: [X, "null"]`: clients that map tool schemas onto a
 * single-`type` dialect (Gemini's function declarations) refuse a type array, and the MCP Inspector warns of it.
 */
export const nullable = (schema: Json): Json => ({ anyOf: [schema, { type: 'null' }] });

/**
 * A union's outline: members of one scalar type as that type (an open value, `chatgpt` or any text, is a string;
 * their values kept only when every member closes them), a union of objects as an object (its members' fields
 * differ: the outline keeps none), and `null` among them as `nullable`.
 */
function union(members: Json[]): Json {
  const isNull = (m: Json) => m.type === 'null';
  const rest = members.filter((m) => !isNull(m));
  const types = new Set(rest.map((m) => m.type));
  const [type] = types;
  if (types.size !== 1 || typeof type !== 'string' || !(type === 'object' || SCALARS.has(type))) return {};
  const closed = type !== 'object' && rest.every((m) => Array.isArray(m.enum));
  const only: Json = rest.length === 1 ? rest[0]! : closed ? { type, enum: [...new Set(rest.flatMap((m) => m.enum as unknown[]))] } : { type };
  return members.some(isNull) ? nullable(only) : only;
}

function resolve(root: Json, ref: string): Json {
  const name = /^#\/\$defs\/(.+)$/.exec(ref)?.[1];
  const target = name === undefined ? undefined : (root.$defs as Record<string, Json> | undefined)?.[name];
  if (!target) throw new Error(`an output schema refers to ${ref}, which it does not define`);
  return target;
}
