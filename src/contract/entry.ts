/**
 * An entry of the operations table (operations.ts), plain data: how one is
 * declared (`operation`, which adds the shared parameters), what its fields
 * mean, how generic code sees one (`AnyOperation`), and what follows from one
 * alone: its example request as a path (`examplePath`) and the error codes it
 * can answer (`documentedErrors`).
 */
import type * as z from 'zod';
import type { ApiErrorCode } from './errors';
import { BRAND_MARKET_PARAMS, brandIdParam, type Param, type Params } from './params';
import type * as SchemaBuilders from './schemas/builders';
import { type WindowKind, type WindowParams, windowParams } from './window';

/** Who may call: every plan, or only Pro and Growth (spec, Endpoints table). */
export type PlanNeed = 'any' | 'pro_or_growth';
/**
 * The integration an operation needs: the search-performance one, or crawler
 * data from the edge-network integration or the tracking script.
 */
export type IntegrationNeed = 'search_performance' | 'crawler_data';

/**
 * How an answer becomes a table (the CSV export links, DESIGN section 11):
 * `rows` is the dotted path of the array whose items are the rows; `each`
 * names an array field of those items (per engine, per thread) whose items
 * become one row each, the item's own fields repeated. Columns follow from
 * the response schema (src/exports/table.ts): nested objects become dotted
 * columns, other arrays one JSON cell. Operations without it answer one
 * thing, not a list, and have no CSV form.
 */
export interface CsvRows {
  rows: string;
  each?: string;
}

/** Who an operation reads: the account (`GET /brands`), a brand (`GET /markets`), or a brand in a market (everything else). */
export type Scope = 'account' | 'brand_only' | 'brand';

/**
 * Where a request's value comes from when all one has is a key: the first
 * value at `path` (a path of the contract's body, as in the upstream map:
 * `topics[].id`) in the answer of `operation`. The spec: "The list operations
 * `GET /brands`, `GET /markets` and `GET /answers` ... supply ids and texts
 * used above". Discovering the upstream map reads the sources first.
 */
export interface ParamSource {
  /** An operation id of this table (a string here: the table's own ids are its keys); src/contract/contract.test.ts checks it. */
  operation: string;
  path: string;
}

/** A parameter's value in an example: what it parses to (a number for an id), written into the URL as text. */
type ExampleValue<P> = P extends Param<infer O> ? O : never;
/** Example values for a set of parameters: every one it requires, any of the others, none it lacks. */
type ExampleParams<S extends Params> = keyof S extends never
  ? { [name: string]: never }
  : {
      [K in keyof S as S[K] extends Param<unknown, unknown, 'required'> ? K : never]: ExampleValue<S[K]>;
    } & {
      [K in keyof S as S[K] extends Param<unknown, unknown, 'required'> ? never : K]?: ExampleValue<S[K]>;
    };
/**
 * An example request of an operation, typed from its own parameters: every
 * path parameter and every required query parameter must be given. It names
 * only the operation's own parameters: brand, market and window take their
 * defaults.
 */
export type ExampleRequest<P extends Params, Q extends Params> = ({} extends ExampleParams<P> ? { path?: ExampleParams<P> } : { path: ExampleParams<P> }) &
  ({} extends ExampleParams<Q> ? { query?: ExampleParams<Q> } : { query: ExampleParams<Q> });

/**
 * An entry as written in the table. Its parameters are plain declarations
 * (src/contract/params.ts), which the request parser reads; its response is
 * a builder of a zod schema, which only the zod side calls (`zs.response(id)`,
 * src/contract/zod-side.ts): a fresh isolate answering a cache HIT builds none.
 */
interface OperationInput<P extends Params, Q extends Params, R extends z.ZodType, W extends WindowKind, S extends Scope> {
  summary: string;
  description?: string;
  path: string;
  pathParams?: P;
  query?: Q;
  response: (zod: typeof SchemaBuilders) => R;
  window: W;
  plan?: PlanNeed;
  integration?: IntegrationNeed;
  scope?: S;
  ttl: number;
  tag: string;
  /**
   * A valid request for the demo key `demo_pro_single` (one brand, id 1;
   * primary market `us`) on the demo dataset, whose ids and texts are fixed
   * (src/origin/demo): it answers 200. The tests, the benchmarks and the
   * OpenAPI document (parameter `example`) read it; see `examplePath`.
   */
  example: NoInfer<ExampleRequest<P, Q>>;
  /** Its rows, for list-shaped answers: see `CsvRows`. */
  csv?: CsvRows;
  /** Where each required path or query parameter's value comes from: see `ParamSource`. */
  paramsFrom?: NoInfer<{ [K in keyof P | keyof Q]?: ParamSource }>;
}

/** Every brand-scoped operation accepts `brand_id` and `market` (spec, Shared request inputs); `/markets` only `brand_id`. */
type SharedParams<S extends Scope> = S extends 'account' ? {} : S extends 'brand_only' ? { brand_id: typeof brandIdParam } : typeof BRAND_MARKET_PARAMS;

function sharedParams<S extends Scope>(scope: S): SharedParams<S> {
  const shared = scope === 'account' ? {} : scope === 'brand_only' ? { brand_id: brandIdParam } : BRAND_MARKET_PARAMS;
  return shared as SharedParams<S>;
}

export function operation<const P extends Params = {}, const Q extends Params = {}, R extends z.ZodType = z.ZodType, const W extends WindowKind = WindowKind, const S extends Scope = 'brand'>(
  o: OperationInput<P, Q, R, W, S>,
) {
  const { pathParams, query, response, ...rest } = o;
  const scope = (o.scope ?? 'brand') as S;
  /** Every parameter of the operation, in the order they are checked: the shared ones, the window's, its own. */
  const params = {
    path: (pathParams ?? {}) as P,
    query: { ...sharedParams(scope), ...windowParams(o.window), ...(query ?? {}) } as SharedParams<S> & WindowParams<W> & Q,
  };
  return {
    ...rest,
    scope,
    plan: o.plan ?? 'any',
    integration: o.integration,
    params,
    /** Called once, by the zod side only (src/contract/schemas/responses.ts): readers ask `zs.response(id)`. */
    buildResponse: response,
  };
}

/** Any operation, seen structurally: what generic code (router, OpenAPI, proxy) reads of an entry. */
export interface AnyOperation {
  tag: string;
  summary: string;
  description?: string;
  path: string;
  /** Its parameters as declared, in the order they are checked: what requests are parsed by (`readParams`). */
  params: { path: Params; query: Params };
  window: WindowKind;
  plan: PlanNeed;
  integration?: IntegrationNeed;
  scope: Scope;
  ttl: number;
  example: OperationExample;
  csv?: CsvRows;
  paramsFrom?: Readonly<Record<string, ParamSource>>;
}

/** An example request seen structurally: parameter values by name. */
export interface OperationExample {
  path?: Readonly<Record<string, string | number>>;
  query?: Readonly<Record<string, string | number>>;
}

/**
 * The example request of an operation as a path and query under `API_BASE`
 * (the base not included): `/topics/1101`,
 * `/answers/runs?prompt=What%20is%20the%20best%20help%20desk%20software%20this%20year%3F`.
 * Values are percent-encoded; prefix `API_BASE` and a host to send it.
 */
export function examplePath(op: Pick<AnyOperation, 'path' | 'example'>): string {
  const { path = {}, query = {} } = op.example;
  const filled = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = path[name];
    if (value === undefined) throw new Error(`the example of ${op.path} lacks the path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
  const search = Object.entries(query)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
    .join('&');
  return search ? `${filled}?${search}` : filled;
}

/**
 * The error codes an operation can answer, from what the table says of it: those every operation shares, the brand's where it reads
 * a brand, `feature_not_in_plan` where a plan is needed,
 * `integration_not_connected` where an integration is. The OpenAPI document
 * lists them per status (`API_ERROR_STATUS`); the fuzzing holds every answer
 * to them.
 */
export function documentedErrors(op: Pick<AnyOperation, 'scope' | 'plan' | 'integration'>): ApiErrorCode[] {
  const codes: ApiErrorCode[] = ['invalid_parameter', 'invalid_api_key', 'plan_inactive', 'not_found', 'method_not_allowed', 'rate_limited', 'quota_exceeded', 'internal_error', 'upstream_error'];
  if (op.scope !== 'account') codes.push('brand_required', 'brand_not_found');
  if (op.plan === 'pro_or_growth') codes.push('feature_not_in_plan');
  if (op.integration) codes.push('integration_not_connected');
  return codes;
}
