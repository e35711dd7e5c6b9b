/**
 * Query and path parameters: how each kind is written on the wire, parsed,
 * bounded and documented. Every parameter of the contract is built here, so a
 * rule such as "a date is a real calendar day" lives in one place.
 */
import * as z from 'zod';
import { ACTIVITY_CATEGORIES, ENGINES, TASK_LAYERS, TASK_STATUSES } from './enums';
import { ApiError, invalidParameter } from './errors';

/**
 * What the edge accepts where the spec leaves a value open (DESIGN section 6):
 * the enumerations it shows only by example (`engine`, `layer`, `status`,
 * `category`) and the `limit` maxima. The origin checks its own values
 * strictly; the proxy forwards any well-formed value, and the upstream
 * decides. Keyed by the strict schema, before `.optional()` or `.default()`.
 */
const atTheEdge = new WeakMap<z.ZodType, z.ZodType>();
const OPEN_ENUMS: ReadonlySet<readonly string[]> = new Set<readonly string[]>([ENGINES, TASK_LAYERS, TASK_STATUSES, ACTIVITY_CATEGORIES]);
/** An open value at the edge: a word, as any of the spec's values is written. */
const openValue = (description: string) => z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: 'must be a word of letters, digits, `_`, `.` or `-`' }).meta({ description });

const WHOLE_NUMBER = /^\d{1,10}$/;

/** A whole number written in decimal, within [min, max]. */
export function intParam(o: { min: number; max: number; description: string }) {
  return z
    .string()
    .regex(WHOLE_NUMBER, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(o.min, { error: `must be at least ${o.min}` })
        .max(o.max, { error: `must be at most ${o.max}` }),
    )
    .meta({ description: o.description });
}

/** `limit`, with the per-operation default and maximum of DESIGN section 3. */
export function limitParam(defaultLimit: number, max: number, what: string) {
  const description = `Maximum number of ${what} (1 to ${max}, default ${defaultLimit}).`;
  const strict = intParam({ min: 1, max, description });
  atTheEdge.set(strict, intParam({ min: 1, max: 2_147_483_647, description }));
  return strict.default(defaultLimit);
}

/** A `YYYY-MM-DD` date that exists in the calendar (2026-02-30 does not). */
export const dateParam = (description: string) =>
  z.iso.date({ error: 'must be a real calendar date written YYYY-MM-DD' }).meta({ description });

export function enumParam<const T extends readonly [string, ...string[]]>(values: T, description: string) {
  const strict = z.enum(values, { error: `must be one of: ${values.join(', ')}` }).meta({ description });
  if (OPEN_ENUMS.has(values)) atTheEdge.set(strict, openValue(description));
  return strict;
}

/** A parameter's schema as the edge applies it: the open values of the spec accepted, every other rule kept. */
export function atEdge(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional) {
    const inner = atEdge(schema.unwrap() as z.ZodType);
    return inner === schema.unwrap() ? schema : inner.optional();
  }
  if (schema instanceof z.ZodDefault) {
    const inner = atEdge(schema.unwrap() as z.ZodType);
    return inner === schema.unwrap() ? schema : inner.default(schema.def.defaultValue as never);
  }
  return atTheEdge.get(schema) ?? schema;
}

export const textParam = (o: { max: number; description: string }) =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(o.max, { error: `must be at most ${o.max} characters` })
    .meta({ description: o.description });

/** Integer ids: brands, topics, tasks. Upper bound keeps them inside SQLite's and JSON's safe range. */
export const idParam = (description: string) => intParam({ min: 1, max: 2_147_483_647, description });

export const brandIdParam = idParam('The brand to read, an id from `GET /brands`. Required when the account has more than one brand.').optional();

/** A market code (`us`, `de`, `ch-fr`, case-insensitive) or a numeric market id. */
export const marketParam = z
  .string()
  .regex(/^(?:[A-Za-z]{2}(?:-[A-Za-z]{2})?|\d{1,10})$/, { error: 'must be a market code such as `us` or `ch-fr`, or a market id' })
  .transform((s) => s.toLowerCase())
  .meta({ description: 'Market code (case-insensitive, e.g. `us`, `de`, `ch-fr`) or numeric id from `GET /markets`. Default: the primary market.' })
  .optional();

/**
 * Reads the query string into a plain object. A parameter given twice is an
 * error rather than a silent choice between its values.
 */
export function queryObject(searchParams: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of searchParams) {
    if (Object.hasOwn(out, name)) throw invalidParameter(name, `\`${name}\` is given more than once.`);
    out[name] = value;
  }
  return out;
}

/** Path parameters arrive percent-encoded; malformed encoding is the parameter's error, not a 500. */
export function decodePathParams(raw: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      throw invalidParameter(name, `\`${name}\` is not valid percent-encoding.`);
    }
  }
  return out;
}

/** Parses with a strict schema and turns the first problem into 400 `invalid_parameter` naming the parameter. */
export function parseParams<S extends z.ZodType>(schema: S, input: Record<string, string>, hint?: (param: string) => string | undefined): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw toParamError(result.error, hint);
}

function toParamError(error: z.ZodError, hint?: (param: string) => string | undefined): ApiError {
  const issue = error.issues[0];
  if (!issue) return invalidParameter('', 'Invalid parameters.');
  if (issue.code === 'unrecognized_keys') {
    const param = String(issue.keys[0]);
    return invalidParameter(param, hint?.(param) ?? `\`${param}\` is not a parameter of this operation.`);
  }
  const param = String(issue.path[0] ?? '');
  if (issue.code === 'invalid_type' && issue.input === undefined) return invalidParameter(param, `\`${param}\` is required.`);
  return invalidParameter(param, `\`${param}\` ${issue.message}.`);
}

/**
 * The `at` query parameter of the dev routes that run a cron step as if it
 * fired then (`POST /dev/digests/plan?at=`, `POST /dev/alerts/run?at=`): an
 * ISO 8601 time, or `now()` when absent. Anything else is a 400 naming it.
 */
export function asIfAt(url: URL, now: () => Date): Date {
  const at = url.searchParams.get('at');
  const when = at ? new Date(at) : now();
  if (Number.isNaN(when.getTime())) throw invalidParameter('at', '`at` must be an ISO 8601 time, e.g. 2026-11-23T08:00:00Z.');
  return when;
}
