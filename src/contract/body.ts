/** Whether a 200 body is what the contract says the operation returns; used by the client and the proxy alike. */
import type * as z from 'zod';
import { conformBody } from './conform';
import { absentPaths, withOptionalPaths } from './optional-paths';
import { atOrUnder } from './paths';
import type { OperationMap } from './schemas/upstream-map';
import type { OperationId, ResponseOf } from './operations';
import type { ZodSide } from './zod-side';

/** A value the body held at an optional path and the contract does not read: its contract path, and in words (`unreadableValues`). */
export interface Unreadable {
  path: string;
  said: string;
}

export type BodyCheck<Id extends OperationId> =
  /**
   * `asSent`: the body passed with nothing changed (our own origin's do); `absent`: of the optional paths asked for,
   * those the body does not provide (none without them); `unreadable`: of those, the values that were there and left
   * out, each named (`unreadableValues`).
   */
  | { ok: true; data: ResponseOf<Id>; asSent: boolean; absent: string[]; unreadable: Unreadable[] }
  /**
   * `field` is the dotted path of the first field at fault; absent when the body is not JSON at all. `unmapped`: the
   * value there, when the field is an enumeration and the value none of ours that a rule or the map reads.
   */
  | { ok: false; field?: string; unmapped?: string; message: string; cause: unknown };

const lenientSchemas = new Map<string, z.ZodType>();

/** Whether a map's entry reads a body otherwise than as sent: a field renamed, converted, a value mapped, a list keyed, an envelope. */
export const hasEntries = (map: OperationMap) => map.envelope !== undefined || [map.fields, map.convert, map.values, map.keyed ?? {}, map.columns ?? {}].some((part) => Object.keys(part).length > 0);

/**
 * Per operation, the last body that passed as sent and its checked data, as
 * JSON: the same text read again (a cache HIT read by every MCP tool call, by
 * each subscriber's digest) is not checked again. The data is a function of
 * the text alone, whoever's key read it, and each reader gets its own copy
 * (`JSON.parse`). A body over `REMEMBERED_MAX_CHARS` is not kept: the memo
 * holds at most two copies of that much per operation.
 */
const passedAsSent = new Map<OperationId, { text: string; data: string }>();
export const REMEMBERED_MAX_CHARS = 64 * 1024;

/** The operation's schema with `optional` optional (optional-paths.ts), built once per operation and paths. */
function lenientSchema(zs: ZodSide, id: OperationId, optional: readonly string[], carry: boolean): z.ZodType {
  const key = `${id}:${carry ? 'carry:' : ''}${[...optional].sort().join(',')}`;
  let schema = lenientSchemas.get(key);
  if (!schema) lenientSchemas.set(key, (schema = withOptionalPaths(zs.response(id), optional, carry)));
  return schema;
}

/**
 * The body checked against the operation's schema. A body that fails it as
 * sent is brought onto the contract's field names first (`conformBody`: case
 * conventions, one envelope, and the upstream map's entry for the operation
 * when there is one) and checked again; the error, if any, names the
 * contract's field. With `optional` (contract paths a feature can do
 * without), that second check lets those fields be absent and says which are;
 * with `carry` too, a text or number there that the contract does not read is
 * kept as sent (`withOptionalPaths`).
 */
export function checkResponseBody<Id extends OperationId>(zs: ZodSide, id: Id, text: string, map?: OperationMap, optional: readonly string[] = [], carry = false): BodyCheck<Id> {
  // A map that renames, converts or maps values is read even where the body parses as sent: `0.559` under a
  // `percent` conversion, or an engine under a vendor's name, is a valid value that means another.
  const mapped = map !== undefined && hasEntries(map);
  const passed = mapped ? undefined : passedAsSent.get(id);
  if (passed?.text === text) return { ok: true, data: JSON.parse(passed.data) as ResponseOf<Id>, asSent: true, absent: [], unreadable: [] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `${id}: the body is not JSON.`, cause: error };
  }
  const schema: z.ZodType = zs.response(id);
  const asSent = mapped ? undefined : schema.safeParse(json);
  if (asSent?.success) {
    if (text.length <= REMEMBERED_MAX_CHARS) passedAsSent.set(id, { text, data: JSON.stringify(asSent.data) });
    return { ok: true, data: asSent.data as ResponseOf<Id>, asSent: true, absent: [], unreadable: [] };
  }
  // Conformed with the contract's own schema: the lenient one has the same fields, only fewer of them required.
  const conformed = conformBody(schema, json, map);
  const result = (optional.length > 0 ? lenientSchema(zs, id, optional, carry) : schema).safeParse(conformed);
  if (result.success) {
    const absent = absentPaths(result.data, optional);
    return { ok: true, data: result.data as ResponseOf<Id>, asSent: false, absent, unreadable: absent.length > 0 ? unreadableValues(schema, conformed, absent) : [] };
  }
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') || '(root)';
  const value = issue ? valueAt(conformed, issue.path) : undefined;
  if (issue?.code === 'invalid_value' && value !== undefined) {
    const said = `is ${shown(value)}, none of the contract's values (${issue.values.join(', ')}), and no rule or entry of the upstream map reads it as one`;
    return { ok: false, field, unmapped: String(value), message: `${id}: response field \`${field}\` ${said}.`, cause: result.error };
  }
  return { ok: false, field, message: `${id}: response field \`${field}\` ${issue?.message ?? 'is invalid'}.`, cause: result.error };
}

/** The value at a zod issue's path in `value`. */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let here = value;
  for (const step of path) here = typeof here === 'object' && here !== null ? (here as Record<PropertyKey, unknown>)[step] : undefined;
  return here;
}

/** A value as a reader is shown it: text in backticks, anything else as JSON, cut short. */
const shown = (value: unknown) => `\`${(typeof value === 'string' ? value : JSON.stringify(value)).slice(0, 60)}\``;

/**
 * Of the optional paths left out (`absent`), the values the body held there that the contract does not read, each
 * named with its field (`` `unclaimed` for `prompts[].engines[].state`, none of recommended, mentioned, … ``): what a
 * feature says instead of "not provided", so a value no rule maps is never dropped unsaid. At most 3, each once.
 */
function unreadableValues(schema: z.ZodType, conformed: unknown, absent: readonly string[]): Unreadable[] {
  const strict = schema.safeParse(conformed);
  if (strict.success) return [];
  const found = new Map<string, Unreadable>();
  for (const issue of strict.error.issues) {
    const value = valueAt(conformed, issue.path);
    if (value === undefined) continue;
    const path = issue.path
      .map((step) => (typeof step === 'number' ? '[]' : `.${String(step)}`))
      .join('')
      .replace(/^\./, '');
    if (!absent.some((outer) => atOrUnder(path, outer))) continue;
    const why = issue.code === 'invalid_value' ? `none of ${issue.values.join(', ')}` : issue.message.toLowerCase();
    const said = `${shown(value)} for \`${path}\`, ${why}`;
    found.set(said, { path, said });
    if (found.size === 3) break;
  }
  return [...found.values()];
}
