/** Whether a 200 body is what the contract says the operation returns; used by the client and the proxy alike. */
import type * as z from 'zod';
import { conformBody } from './conform';
import { absentPaths, withOptionalPaths } from './optional-paths';
import type { OperationMap } from './schemas/upstream-map';
import type { OperationId, ResponseOf } from './operations';
import type { ZodSide } from './zod-side';

export type BodyCheck<Id extends OperationId> =
  /** `asSent`: the body passed with nothing changed (our own origin's do); `absent`: of the optional paths asked for, those the body does not provide (none without them). */
  | { ok: true; data: ResponseOf<Id>; asSent: boolean; absent: string[] }
  /** `field` is the dotted path of the first field at fault; absent when the body is not JSON at all. */
  | { ok: false; field?: string; message: string; cause: unknown };

const lenientSchemas = new Map<string, z.ZodType>();

/** Whether a map's entry reads a body otherwise than as sent: a field renamed, converted, a value mapped, a list keyed, an envelope. */
export const hasEntries = (map: OperationMap) => map.envelope !== undefined || [map.fields, map.convert, map.values, map.keyed ?? {}].some((part) => Object.keys(part).length > 0);

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
function lenientSchema(zs: ZodSide, id: OperationId, optional: readonly string[]): z.ZodType {
  const key = `${id}:${[...optional].sort().join(',')}`;
  let schema = lenientSchemas.get(key);
  if (!schema) lenientSchemas.set(key, (schema = withOptionalPaths(zs.response(id), optional)));
  return schema;
}

/**
 * The body checked against the operation's schema. A body that fails it as
 * sent is brought onto the contract's field names first (`conformBody`: case
 * conventions, one envelope, and the upstream map's entry for the operation
 * when there is one) and checked again; the error, if any, names the
 * contract's field. With `optional` (contract paths a feature can do
 * without), that second check lets those fields be absent and says which are.
 */
export function checkResponseBody<Id extends OperationId>(zs: ZodSide, id: Id, text: string, map?: OperationMap, optional: readonly string[] = []): BodyCheck<Id> {
  // A map that renames, converts or maps values is read even where the body parses as sent: `0.559` under a
  // `percent` conversion, or an engine under a vendor's name, is a valid value that means another.
  const mapped = map !== undefined && hasEntries(map);
  const passed = mapped ? undefined : passedAsSent.get(id);
  if (passed?.text === text) return { ok: true, data: JSON.parse(passed.data) as ResponseOf<Id>, asSent: true, absent: [] };
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
    return { ok: true, data: asSent.data as ResponseOf<Id>, asSent: true, absent: [] };
  }
  // Conformed with the contract's own schema: the lenient one has the same fields, only fewer of them required.
  const result = (optional.length > 0 ? lenientSchema(zs, id, optional) : schema).safeParse(conformBody(schema, json, map));
  if (result.success) return { ok: true, data: result.data as ResponseOf<Id>, asSent: false, absent: absentPaths(result.data, optional) };
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') || '(root)';
  return { ok: false, field, message: `${id}: response field \`${field}\` ${issue?.message ?? 'is invalid'}.`, cause: result.error };
}
