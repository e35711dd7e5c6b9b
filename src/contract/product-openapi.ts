/**
 * The pieces every feature's route documentation is written with, for the
 * OpenAPI document of the product's own routes (`GET /openapi.json`,
 * assembled by src/app/openapi.ts from each feature's `openapi.ts`, beside
 * its routes): what a route's documentation says (`RouteDoc`), the answers
 * routes share (the error shape, the refusals of a keyed route, the pages of a
 * link), the tags, and the compile-time check that a handler's answer fits
 * its documented schema (`Fits`). Loaded only with the product's routes: the
 * Read API's own document is openapi.ts.
 *
 * ```ts
 * export const reportDocs: FeatureDocs = {
 *   schemas: { WeeklyReport },
 *   routes: { [`${REPORTS_BASE}/weekly`]: { GET: { operationId: 'getWeeklyReport', tag: 'Reports', summary: '...', security: 'key', responses: { '200': ok('The report.', jsonOf('WeeklyReport')), ...READS_BRAND } } } },
 * };
 * ```
 */
import * as z from 'zod';
import { JSON_CONTENT_TYPE } from '../lib/http';
import type { Method } from '../lib/router';
import { API_ERROR_STATUS, PRODUCT_ERROR_STATUS } from './errors';
import { declaredParameters, type JsonObject } from './openapi';
import type { Params } from './params';

// ---------------------------------------------------------------- what a feature documents

export type Tag = 'Subscriptions' | 'Reports' | 'Report links' | 'Export links' | 'Cache admin' | 'Upstream map' | 'MCP' | 'MCP OAuth' | 'Dev' | 'Documents';

export const TAGS: Record<Tag, string> = {
  Subscriptions: 'Weekly digest subscriptions: subscribe with an API key (double opt-in by email), list, unsubscribe; the confirm and unsubscribe links of the emails.',
  Reports: 'The weekly report on demand, and sending the digest now.',
  'Report links': 'Signed, expiring links that open the report without a key.',
  'Export links': "Signed, expiring, revocable CSV links to an operation's rows or to the kept history, for Google Sheets (`=IMPORTDATA(url)`), Excel and BI tools.",
  'Cache admin': "The edge cache's purge and counters, behind `ADMIN_TOKEN`.",
  'Upstream map': "How the real service's field names map onto the contract's, for the features that read fields (docs/upstream.md), behind `ADMIN_TOKEN`.",
  MCP: 'The Model Context Protocol server for AI assistants (docs/mcp.md): every Read API operation as a read-only tool, and `weekly_report`, read with the API key through the same edge cache.',
  'MCP OAuth':
    "OAuth 2.1 for `/mcp` (docs/mcp.md), so that assistants connect by URL: the person pastes their Read API key on the consent page once, and the assistant gets tokens that stand for it. `@cloudflare/workers-oauth-provider`'s endpoints, the consent page ours. Only when `OAUTH_KV` is bound, and on the hosts of `MCP_ALLOWED_HOSTS` (localhost too in dev): 404 otherwise. The provider answers CORS preflights (OPTIONS) on the metadata, token and registration endpoints.",
  Dev: 'Dev only: mounted only with `DEV_ROUTES = "on"` (`npm run dev`, the tests), never in a deployment; 404 otherwise. No authentication.',
  Documents: 'The OpenAPI documents.',
};

export interface RouteDoc {
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  /** Who may call: the Read API key; `mcp`: the API key, or an OAuth access token that stands for one (with `OAUTH_KV` bound); the admin token; or anyone holding the link. */
  security: 'key' | 'mcp' | 'admin' | 'none';
  /** Query and path parameters, as OpenAPI parameter objects. */
  parameters?: JsonObject[];
  requestBody?: JsonObject;
  responses: Record<string, JsonObject>;
}

/**
 * A route documented where another path's same method is (`x-also-at`
 * there): a path with a trailing slash is no OpenAPI path of its own
 * (linters refuse it).
 */
export interface SameAs {
  sameAs: string;
}

/** A feature's routes, by path (the path of its route table) and method, each documented beside the route. */
export type RouteDocs = Record<string, Partial<Record<Method, RouteDoc | SameAs>>>;

/**
 * What a feature adds to the document: its routes' documentation and the
 * schemas they name (`jsonOf('Subscription')`), by component name; `inputs`
 * are request bodies, described as the client writes them (defaulted fields
 * optional).
 */
export interface FeatureDocs {
  routes: RouteDocs;
  schemas?: Record<string, z.ZodType>;
  inputs?: Record<string, z.ZodType>;
}

/**
 * Compile-time: what the handlers answer fits what the document says
 * (`npm run check -- typecheck` fails when one of them drifts).
 */
export type Fits<Actual, Documented> = [Actual] extends [Documented] ? true : never;

// ---------------------------------------------------------------- answers

const ALL_CODES = [...Object.keys(API_ERROR_STATUS), ...Object.keys(PRODUCT_ERROR_STATUS)] as [string, ...string[]];

/** The error shape of every JSON route: the API's (src/contract/errors.ts), with the product's own codes too. */
export const ProductError = z.object({
  error: z.object({
    code: z
      .enum(ALL_CODES)
      .describe(
        "The API's codes, and the product's own: `recently_sent` (409, `POST /reports/weekly/send`), `too_many_links` (409, `POST /reports/links`), `map_version_conflict` (409, `PUT /admin/upstream/map`) and `operation_missing` (502: the service lacks an operation the route needs).",
      ),
    message: z.string(),
    param: z.string().optional().describe('The parameter or body field at fault, only for invalid_parameter.'),
    operation: z.string().optional().describe("Only for `operation_missing`: the contract's operation the service does not have (`getAnswerHistory`)."),
  }),
});

/** A market as the product's answers name it. */
export const Market = z.object({ id: z.number().int(), code: z.string() });

export const ref = (kind: 'schemas' | 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });
export const jsonOf = (schema: string) => ({ [JSON_CONTENT_TYPE.split(';')[0]!]: { schema: ref('schemas', schema) } });
export const HTML = { 'text/html': { schema: { type: 'string' } } };
export const TEXT = { 'text/plain': { schema: { type: 'string' } } };
export const requestId = { 'X-Request-Id': ref('headers', 'X-Request-Id') };

export const ok = (description: string, content: JsonObject, headers: JsonObject = {}) => ({ description, headers: { ...requestId, ...headers }, content });
/** A JSON error, the codes it can carry named in its description. */
export const error = (codes: string) => ({ description: codes, headers: requestId, content: jsonOf('Error') });
/** What every admin route answers a caller without the admin token, and a method it does not take. */
export const ADMIN_REFUSALS = { '401': error('`invalid_api_key`: no or a wrong admin token'), '405': error('`method_not_allowed`') };
/** An HTML page for a person who followed a link. */
export const pageAnswer = (description: string) => ({ description, headers: requestId, content: HTML });

/** The errors of the routes read with an API key: the key's and the API's, passed through as the API gave them. */
export const KEYED_ERRORS = {
  '400': error('`invalid_parameter` (the parameter or field is named in `param`), `brand_required`'),
  '401': error('`invalid_api_key`'),
  '403': error('`plan_inactive`, `feature_not_in_plan`'),
  '404': error('`brand_not_found`, `not_found`'),
  '405': error('`method_not_allowed`'),
  '429': { ...error("`rate_limited`, `quota_exceeded` (the API's limits, passed through)"), headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') } },
  '502': error('`upstream_error`: the Read API did not answer'),
};
export type KeyedStatus = keyof typeof KEYED_ERRORS;
/** What every route that writes with the key may answer (src/app/openapi.ts adds it to each): the key not confirmed now, nothing written. */
export const KEY_UNCONFIRMED = {
  ...error('`key_unconfirmed`: the Read API could not confirm the key just now (its 60 reads of the minute spent, the service slow or down), so nothing was written; try again after `Retry-After`'),
  headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') },
};
export const keyed = (...statuses: KeyedStatus[]) => Object.fromEntries(statuses.map((status) => [status, KEYED_ERRORS[status]]));
/** A route that reads the API for a brand and market: every refusal of the API, and the route's own 400. */
export const READS_BRAND = keyed('400', '401', '403', '404', '405', '429', '502');
/** A route that reads the account's brands (`GET /brands`): no parameter of the API's. */
export const READS_ACCOUNT = keyed('401', '403', '405', '429', '502');

export const TOKEN_PAGES = {
  '400': pageAnswer('A malformed link (cut short or changed).'),
  '403': pageAnswer('A link that was not issued here, or was issued for another purpose.'),
  '410': pageAnswer('An expired link, or one of something that has ended: a subscription cycle (unsubscribed, subscribed again, removed by the account) or a revoked report link.'),
};

export const tokenParam = (what: string) => [
  { name: 'token', in: 'query', required: true, description: `The signed token of the ${what} link, as the email gave it.`, schema: { type: 'string', minLength: 1 } },
];

/** The OpenAPI parameters of a route's declared query parameters (src/contract/params.ts). */
export const query = (params: Params) => declaredParameters('query', params);
export const jsonBody = (schema: string, description: string) => ({ required: true, description, content: jsonOf(schema) });

/** A form-encoded request body (`application/x-www-form-urlencoded`): its fields, and those it must have. */
export const formBody = (o: { required: boolean; properties: Record<string, unknown>; requiredFields?: readonly string[] }) => ({
  required: o.required,
  content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: o.properties, ...(o.requiredFields ? { required: o.requiredFields } : {}) } } },
});

/** The dev routes that run a cron job as if it fired at `?at=`. */
export const asIfAt = { parameters: [{ name: 'at', in: 'query' as const, required: false, description: 'An ISO 8601 time; default now.', schema: { type: 'string', format: 'date-time' } }] };
