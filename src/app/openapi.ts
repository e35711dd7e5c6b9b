/**
 * The OpenAPI 3.1 document of the product's own routes, beside the Read API's
 * (`/api/v1/openapi.json`, src/contract/openapi.ts): digest subscriptions,
 * reports and report links, the cache admin, and the dev routes. Served at
 * `GET /openapi.json` (routes.ts).
 *
 * Paths and methods come from the route tables (`productOpenApiDocument`
 * takes them); query parameters and request bodies from the zod schemas the
 * handlers parse with. What a table does not say (summaries, who may call,
 * the answers) is written once per route in `ROUTES` below: a route of a
 * table without an entry there, or an entry for no route, throws, so the
 * document cannot miss a route or describe one that is gone.
 */
import * as z from 'zod';
import { API_ERROR_STATUS, PRODUCT_ERROR_STATUS } from '../contract/errors';
import { componentSchemas, type JsonObject, parametersOf, RESPONSE_HEADERS } from '../contract/openapi';
import { DEV_ALERTS_PATH, type EvaluationResult } from '../alerts';
import { DEV_PLAN_PATH, type PlanResult } from '../digests';
import { JSON_CONTENT_TYPE } from '../lib/http';
import { CONFIRM_TTL, RESUBSCRIBE_TTL, UNSUBSCRIBE_TTL } from '../lib/signing';
import type { Method, Route } from '../lib/router';
import { OUTBOX_BASE } from '../mail/outbox';
import { MCP_PATH } from '../mcp';
import { OAUTH_ENDPOINTS, READ_SCOPE, WELL_KNOWN } from '../mcp/oauth-paths';
import { ADMIN_BASE, DiscoverBody, MAX_DISCOVER_BODY_BYTES, PurgeBody, UPSTREAM_ADMIN_BASE } from '../proxy/admin';
import { DiscoveryReport } from '../client/discovery/report';
import { upstreamMapSchemas } from '../contract/schemas/upstream-map';
import { paramsObject } from '../contract/schemas/params';
import { type CheckAnswer, CheckBody, UPSTREAM_CHECK_PATH } from './upstream-check';
import { COUNTERS, type Counts } from '../proxy/stats';
import { LINK_BASE, REPORTS_BASE } from '../reports';
import { EXPORT_LINK_BASE, EXPORTS_BASE } from '../exports';
import { MintBody } from '../exports/routes';
import { EXPORT_KINDS } from '../exports/target';
import { EXPORT_LINK_ID, type ExportLink as ExportLinkType } from '../links/export-links';
import { HISTORY_QUERY } from '../reports/history';
import { HISTORY_WEEKS } from '../weekly-report/history';
import { MAX_LIVE_LINKS } from '../links/link-store';
import { LINK_DAYS, LINK_ID, type ListedReportLink, REPORT_KINDS } from '../reports/links';
import { FORMATS, LINK_QUERY, LinkBody, SEND_QUERY, WEEKLY_QUERY } from '../reports/routes';
import type { SendResult } from '../reports/send';
import { SUBSCRIPTIONS_BASE } from '../subscriptions';
import { ACCOUNT_PER_DAY, ADDRESS_PER_DAY, OPTOUT_DAYS } from '../subscriptions/caps';
import { MAX_BODY_BYTES as SUBSCRIBE_MAX_BYTES, SubscribeBody } from '../subscriptions/api-routes';
import type { ConfirmationStatus } from '../subscriptions/confirmation';
import { CHANNEL_TYPES, type TestDelivery } from '../subscriptions/alert-channels';
import { type publicView, SubscriptionKind } from '../subscriptions/store';
import type { ReportSource } from '../weekly-report/read';

/** Where this document is served (routes.ts). */
export const PRODUCT_OPENAPI = '/openapi.json';

/** A route as the document reads it: its path and methods (its handlers are not called). */
export type DocumentedRoute = Pick<Route<never>, 'path' | 'methods'>;

// ---------------------------------------------------------------- schemas

const ALL_CODES = [...Object.keys(API_ERROR_STATUS), ...Object.keys(PRODUCT_ERROR_STATUS)] as [string, ...string[]];

/** The error shape of every JSON route: the API's (src/contract/errors.ts), with the product's own codes too. */
const ProductError = z.object({
  error: z.object({
    code: z.enum(ALL_CODES).describe('The API\'s codes, and the product\'s own: `recently_sent` (409, `POST /reports/weekly/send`) and `too_many_links` (409, `POST /reports/links`).'),
    message: z.string(),
    param: z.string().optional().describe('The parameter or body field at fault, only for invalid_parameter.'),
  }),
});

const RecentlySent = z.object({
  error: z.object({ code: z.literal('recently_sent'), message: z.string() }),
  last_send: z.object({ id: z.string(), sent_at: z.iso.datetime() }).describe('The send that went within the last 10 minutes.'),
});

const Market = z.object({ id: z.number().int(), code: z.string() });

const Subscription = z.object({
  id: z.string().regex(/^sub_[a-z0-9]{1,40}$/),
  email: z.string(),
  brand_id: z.number().int(),
  brand_name: z.string(),
  market: Market,
  kinds: z.array(SubscriptionKind).describe('`visibility` and `won_lost`: the weekly digest\'s parts; `alerts`: change alerts.'),
  channel: z.object({ type: z.enum(CHANNEL_TYPES), url: z.string().optional() }).optional().describe('Alerts only: where they go.'),
  quiet_hours: z.object({ start: z.string(), end: z.string() }).optional().describe('Alerts only: local times between which nothing is delivered.'),
  timezone: z.string().describe('IANA timezone: the digest goes on Mondays at 08:00 there; alerts are evaluated daily from 07:00 there.'),
  status: z
    .enum(['pending', 'active', 'paused', 'unsubscribed'])
    .describe('`pending` until the address is confirmed; `paused` when the key can no longer read the brand; `unsubscribed` when the address stopped it from its own link (it may subscribe again from that page\'s link until the account removes the subscription).'),
  paused_reason: z.string().optional().describe('Only while `paused`: why, as a code: the API\'s refusal of the key (`invalid_api_key`, `plan_inactive`…), or `endpoint_gone` for a Slack or webhook endpoint that is gone.'),
  unsubscribed_at: z.iso.datetime().optional().describe('Only while `unsubscribed`: when the address unsubscribed.'),
  created_at: z.iso.datetime(),
  confirmed_at: z.iso.datetime().nullable(),
});

const Confirmation = z
  .object({ sent: z.boolean(), sent_at: z.iso.datetime(), resend_after: z.iso.datetime() })
  .describe('The confirmation email: at most one per subscription every 10 minutes (`sent: false` inside that window), counted within its cycle: subscribing a paused or unsubscribed address again starts with none sent.');

const TestDeliverySchema = z
  .object({ sent: z.boolean(), message_id: z.string(), sent_at: z.iso.datetime() })
  .describe('Slack and webhook channels: the test delivery posted to `channel.url`, carrying the signed link that confirms the subscription.');

const SubscribeResult = z.object({
  subscription: Subscription,
  confirmation: Confirmation.optional().describe('Only while the subscription is pending (by email; for Slack and webhooks when no test delivery went now).'),
  test_delivery: TestDeliverySchema.optional(),
  webhook_secret: z.string().regex(/^whsec_/).optional().describe('Webhook channels: the Standard Webhooks signing secret, shown only in this answer (a new one when the subscription was not active).'),
});
const SubscriptionList = z.object({ subscriptions: z.array(Subscription) });

const ReportLinkId = z.string().regex(LINK_ID);
const ReportLink = z.object({
  link: z.object({
    id: ReportLinkId.describe('Revoke the link with `DELETE /reports/links/{id}`.'),
    url: z.url().describe('Shown here only: the token is not stored, so `GET /reports/links` cannot show it again.'),
    brand_id: z.number().int(),
    market: Market,
    kind: z.enum(REPORT_KINDS),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
  }),
});
const ReportLinkList = z.object({
  links: z.array(z.object({ id: ReportLinkId, brand_id: z.number().int(), market: Market, kind: z.enum(REPORT_KINDS), created_at: z.iso.datetime(), expires_at: z.iso.datetime() })).describe('The key\'s live links (not revoked, not expired), oldest first.'),
  max_live: z.number().int().describe('The most live links a key may have.'),
  note: z.string().describe('That a link\'s URL is shown once, when it is made.'),
});
const _linksFit: Fits<ListedReportLink, z.output<typeof ReportLinkList>['links'][number]> = true;
void _linksFit;

const ExportLinkId = z.string().regex(EXPORT_LINK_ID);
const ExportLinkShape = z.object({
  id: ExportLinkId.describe('Revoke the link with `DELETE /exports/links/{id}`.'),
  url: z.url().describe('`/x/<token>.csv`: RFC 4180 CSV, what `=IMPORTDATA(url)` reads.'),
  json_url: z.url().describe('`/x/<token>.json`: the same rows as a JSON array of flat objects.'),
  operation: z.string().describe('The operation id, or `history`.'),
  params: z.record(z.string(), z.string()).describe('The parameters as given (a relative `days` stays relative).'),
  brand_id: z.number().int().nullable(),
  market: Market.nullable(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
});
const ExportLink = z.object({ link: ExportLinkShape });
const ExportLinkList = z.object({
  links: z.array(ExportLinkShape).describe('The key\'s live export links (not revoked, not expired), oldest first, with their URLs.'),
  max_live: z.number().int().describe('The most live export links a key may have.'),
});
const _exportFits: Fits<ExportLinkType, z.output<typeof ExportLinkShape>> = true;
void _exportFits;

const SendAnswer = z.object({
  send: z.object({
    brand_id: z.number().int(),
    market: Market,
    recipients: z.number().int().min(0),
    sent: z.number().int().min(0),
    failed: z.number().int().min(0),
    id: z.string().optional(),
    sent_at: z.iso.datetime().optional(),
    subject: z.string().optional(),
    note: z.string().optional().describe('Why nothing was sent: no confirmed subscriber, or nothing measured in the last two weeks.'),
  }),
});

const ReportSourceSchema = z.object({
  read_at: z.iso.datetime(),
  from_cache: z.enum(['all', 'some', 'none']).describe('Whether the reads were answered by the edge cache.'),
  max_age_seconds: z.number().int().nullable(),
});
const WeeklyReport = z.object({
  report: z.record(z.string(), z.unknown()).describe('The weekly report model (src/weekly-report/model.ts `Report`): the week, visibility, won and lost questions.'),
  source: ReportSourceSchema,
});

/** `/mcp`: the JSON-RPC 2.0 messages of MCP (their methods and params are the MCP spec's, not this document's). */
const JsonRpcMessage = z
  .object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number().int()]).optional(), method: z.string(), params: z.record(z.string(), z.unknown()).optional() })
  .describe('One MCP request or notification (`initialize`, `tools/list`, `tools/call`, ...), or, for 2025 clients, an array of at most 100.');
const JsonRpcError = z
  .object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number().int()]).nullable(), error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }) })
  .describe('The MCP SDK\'s answer to a request it refuses.');

/** OAuth for `/mcp`: what `@cloudflare/workers-oauth-provider` answers (loose: the provider may add fields). */
const OAuthError = z
  .object({ error: z.string().describe('RFC 6749 section 5.2: `invalid_request`, `invalid_client`, `invalid_grant`, `unauthorized_client`, `unsupported_grant_type`, `invalid_scope`; `invalid_client_metadata` at registration.'), error_description: z.string().optional() })
  .describe('An OAuth error (RFC 6749), not the API\'s error shape.');
const AuthorizationServerMetadata = z
  .looseObject({
    issuer: z.url().describe('The Worker\'s origin.'),
    authorization_endpoint: z.url(),
    token_endpoint: z.url(),
    registration_endpoint: z.url(),
    revocation_endpoint: z.url().describe('The token endpoint: it takes revocation requests too.'),
    scopes_supported: z.array(z.string()).describe('`read`, the only scope.'),
    response_types_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()).describe('`authorization_code`, `refresh_token`.'),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()).describe('`S256` only.'),
  })
  .describe('RFC 8414 authorization server metadata.');
const ProtectedResourceMetadata = z
  .looseObject({
    resource: z.url().describe('`https://<host>/mcp`.'),
    authorization_servers: z.array(z.url()).describe('This Worker\'s origin.'),
    scopes_supported: z.array(z.string()).optional(),
    bearer_methods_supported: z.array(z.string()).describe('`header`.'),
    resource_name: z.string().optional(),
  })
  .describe('RFC 9728 protected resource metadata of `/mcp`.');
const ClientMetadata = z
  .looseObject({
    redirect_uris: z.array(z.string()).min(1).describe('Exact URIs the code may be sent to: https, or http on loopback for an app on the person\'s computer.'),
    client_name: z.string().optional().describe('Shown on the consent page, marked as not verified.'),
    grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
    response_types: z.array(z.literal('code')).optional(),
    token_endpoint_auth_method: z.enum(['none', 'client_secret_basic', 'client_secret_post']).optional().describe('`none` for a public client (PKCE alone).'),
  })
  .describe('RFC 7591 client metadata.');
const RegisteredClient = ClientMetadata.extend({
  client_id: z.string(),
  client_id_issued_at: z.number().int().optional(),
  client_secret: z.string().optional().describe('Only for a client that asked for a secret (not `none`); shown in this answer only.'),
  client_secret_expires_at: z.number().int().optional(),
}).describe('The registered client (RFC 7591 section 3.2.1).');
const TokenAnswer = z
  .looseObject({
    access_token: z.string().describe('For `Authorization: Bearer` on `/mcp`; an hour. Stands for the Read API key and is not the key.'),
    token_type: z.string().describe('`bearer`.'),
    expires_in: z.number().int(),
    refresh_token: z.string().describe('A new one with each refresh; the grant ends 90 days after consent.'),
    scope: z.string(),
  })
  .describe('RFC 6749 section 5.1.');

const Purged = z.object({ purged: z.number().int().min(0).describe('Entries deleted from KV and this location\'s cache.') });
const { UpstreamMap, UpstreamMapInput } = upstreamMapSchemas();
const StoredUpstreamMap = UpstreamMap.extend({
  version: z.number().int().min(0).describe('Numbered by the Worker at each PUT; 0 before any map is stored.'),
  updated_at: z.iso.datetime().nullable(),
});
const count = z.number().int().min(0);
const CacheStats = z.object({ ...Object.fromEntries(COUNTERS.map((name) => [name, z.number().int().min(0)])), since: z.iso.datetime() });
/** `POST /admin/upstream/check`'s answer (src/weekly-report/compat.ts). */
const UpstreamCheck = z.object({
  features: z.array(
    z.object({
      feature: z.enum(['digest', 'report_page', 'alerts', 'csv_exports', 'history', 'weekly_report']),
      label: z.string(),
      status: z.enum(['works', 'works_without', 'cannot_run']),
      missing: z.array(
        z.object({
          part: z.string().describe('A part of the weekly report (`history`, `per_engine`, `moved`, `topics`, `rivals`, `score`, `won_lost`), or a CSV export\'s `rows` or `column`, or `body`.'),
          operation: z.string(),
          field: z.string().nullable().describe('The contract\'s field that is absent or unreadable; null when the operation itself is missing.'),
          answer: z.string().optional().describe('What the service answered instead of the operation (`404 not_found`).'),
          words: z.string(),
          required: z.boolean().describe('Whether the feature (for CSV, that operation\'s export) cannot run without it.'),
          line: z.string().optional().describe('What the feature says where it leaves the section out.'),
        }),
      ),
    }),
  ),
  operations: z.array(
    z.object({
      operation: z.string(),
      status: z.enum(['readable', 'readable_without', 'unreadable', 'not_provided', 'refused', 'not_checked']),
      fields: z.array(z.string()),
      code: z.string().optional(),
      note: z.string().optional(),
    }),
  ),
  reads: count,
  calls: count.describe('Upstream calls the check spent of the key\'s budget; a read served from the cache spends none.'),
  checked_at: z.iso.datetime(),
});
const DevPlan = z.object({ at: z.iso.datetime(), planned: z.number().int().min(0), groups: z.number().int().min(0) });
const DevAlerts = z.object({ at: z.iso.datetime(), evaluated: count, reads: count, events: count, deliveries: count, held: count, enqueued: count, failed: count, paused: count });

/**
 * Compile-time: what the handlers answer fits what the document says
 * (`npm run typecheck` fails when one of them drifts).
 */
type Fits<Actual, Documented> = [Actual] extends [Documented] ? true : never;
const _answersFit: [
  Fits<ReturnType<typeof publicView>, z.output<typeof Subscription>>,
  Fits<ConfirmationStatus, z.output<typeof Confirmation>>,
  Fits<SendResult & { brand_id: number; market: { id: number; code: string } }, z.output<typeof SendAnswer>['send']>,
  Fits<ReportSource, z.output<typeof ReportSourceSchema>>,
  Fits<Counts, Omit<z.output<typeof CacheStats>, 'since'>>,
  Fits<Pick<PlanResult, 'planned' | 'groups'>, Omit<z.output<typeof DevPlan>, 'at'>>,
  Fits<EvaluationResult, Omit<z.output<typeof DevAlerts>, 'at'>>,
  Fits<TestDelivery, z.output<typeof TestDeliverySchema>>,
  Fits<CheckAnswer, z.output<typeof UpstreamCheck>>,
] = [true, true, true, true, true, true, true, true, true];
void _answersFit;

const SCHEMAS = {
  Error: ProductError,
  RecentlySent,
  Subscription,
  SubscribeResult,
  SubscriptionList,
  SubscribeBody,
  ReportLink,
  ReportLinkList,
  LinkBody,
  ExportLink,
  ExportLinkList,
  MintBody,
  ExportRows: z.array(z.record(z.string(), z.unknown())).describe('One flat object per row, keyed by column.'),
  SendAnswer,
  WeeklyReport,
  PurgeBody,
  JsonRpcMessage,
  JsonRpcError,
  Purged,
  CacheStats,
  UpstreamMap: StoredUpstreamMap,
  UpstreamMapInput,
  DiscoverBody,
  DiscoveryReport,
  CheckBody,
  UpstreamCheck,
  DevPlan,
  DevAlerts,
  OAuthError,
  AuthorizationServerMetadata,
  ProtectedResourceMetadata,
  ClientMetadata,
  RegisteredClient,
  TokenAnswer,
} as const;
/** Request bodies are described as the client writes them: defaulted fields optional. */
const INPUT_SCHEMAS = new Set<keyof typeof SCHEMAS>(['SubscribeBody', 'LinkBody', 'MintBody', 'PurgeBody', 'UpstreamMapInput', 'DiscoverBody', 'CheckBody', 'ClientMetadata']);

// ---------------------------------------------------------------- answers

const ref = (kind: 'schemas' | 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const jsonOf = (schema: keyof typeof SCHEMAS) => ({ [JSON_CONTENT_TYPE.split(';')[0]!]: { schema: ref('schemas', schema) } });
const HTML = { 'text/html': { schema: { type: 'string' } } };
const TEXT = { 'text/plain': { schema: { type: 'string' } } };
const requestId = { 'X-Request-Id': ref('headers', 'X-Request-Id') };

const ok = (description: string, content: JsonObject, headers: JsonObject = {}) => ({ description, headers: { ...requestId, ...headers }, content });
/** A JSON error, the codes it can carry named in its description. */
const error = (codes: string) => ({ description: codes, headers: requestId, content: jsonOf('Error') });
/** What every admin route answers a caller without the admin token, and a method it does not take. */
const ADMIN_REFUSALS = { '401': error('`invalid_api_key`: no or a wrong admin token'), '405': error('`method_not_allowed`') };
/** An HTML page for a person who followed a link. */
const pageAnswer = (description: string) => ({ description, headers: requestId, content: HTML });

/** The errors of the routes read with an API key: the key's and the API's, passed through as the API gave them. */
const KEYED_ERRORS = {
  '400': error('`invalid_parameter` (the parameter or field is named in `param`), `brand_required`'),
  '401': error('`invalid_api_key`'),
  '403': error('`plan_inactive`, `feature_not_in_plan`'),
  '404': error('`brand_not_found`, `not_found`'),
  '405': error('`method_not_allowed`'),
  '429': { ...error('`rate_limited`, `quota_exceeded` (the API\'s limits, passed through)'), headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') } },
  '502': error('`upstream_error`: the Read API did not answer'),
};
type KeyedStatus = keyof typeof KEYED_ERRORS;
const keyed = (...statuses: KeyedStatus[]) => Object.fromEntries(statuses.map((status) => [status, KEYED_ERRORS[status]]));
/** A route that reads the API for a brand and market: every refusal of the API, and the route's own 400. */
const READS_BRAND = keyed('400', '401', '403', '404', '405', '429', '502');
/** A route that reads the account's brands (`GET /brands`): no parameter of the API's. */
const READS_ACCOUNT = keyed('401', '403', '405', '429', '502');

const TOKEN_PAGES = {
  '400': pageAnswer('A malformed link (cut short or changed).'),
  '403': pageAnswer('A link that was not issued here, or was issued for another purpose.'),
  '410': pageAnswer('An expired link, or one of something that has ended: a subscription cycle (unsubscribed, subscribed again, removed by the account) or a revoked report link.'),
};

const tokenParam = (what: string) => [{ name: 'token', in: 'query', required: true, description: `The signed token of the ${what} link, as the email gave it.`, schema: { type: 'string', minLength: 1 } }];

// ---------------------------------------------------------------- routes

type Tag = 'Subscriptions' | 'Reports' | 'Report links' | 'Export links' | 'Cache admin' | 'Upstream map' | 'MCP' | 'MCP OAuth' | 'Dev' | 'Documents';

const TAGS: Record<Tag, string> = {
  Subscriptions: 'Weekly digest subscriptions: subscribe with an API key (double opt-in by email), list, unsubscribe; the confirm and unsubscribe links of the emails.',
  Reports: 'The weekly report on demand, and sending the digest now.',
  'Report links': 'Signed, expiring links that open the report without a key.',
  'Export links': 'Signed, expiring, revocable CSV links to an operation\'s rows or to the kept history, for Google Sheets (`=IMPORTDATA(url)`), Excel and BI tools.',
  'Cache admin': 'The edge cache\'s purge and counters, behind `ADMIN_TOKEN`.',
  'Upstream map': 'How the real service\'s field names map onto the contract\'s, for the features that read fields (docs/upstream.md), behind `ADMIN_TOKEN`.',
  MCP: 'The Model Context Protocol server for AI assistants (docs/mcp.md): every Read API operation as a read-only tool, and `weekly_report`, read with the API key through the same edge cache.',
  'MCP OAuth':
    'OAuth 2.1 for `/mcp` (docs/mcp.md), so that assistants connect by URL: the person pastes their Read API key on the consent page once, and the assistant gets tokens that stand for it. `@cloudflare/workers-oauth-provider`\'s endpoints, the consent page ours. Only when `OAUTH_KV` is bound, and on the hosts of `MCP_ALLOWED_HOSTS` (localhost too in dev): 404 otherwise. The provider answers CORS preflights (OPTIONS) on the metadata, token and registration endpoints.',
  Dev: 'Dev only: mounted only with `DEV_ROUTES = "on"` (`npm run dev`, the tests), never in a deployment; 404 otherwise. No authentication.',
  Documents: 'The OpenAPI documents.',
};

interface Described {
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  /** Who may call: the Read API key (at `/mcp` also an OAuth token standing for one), the admin token, or anyone holding the link. */
  /** `mcp`: the API key, or an OAuth access token that stands for one (with `OAUTH_KV` bound). */
  security: 'key' | 'mcp' | 'admin' | 'none';
  /** Query and path parameters, as OpenAPI parameter objects. */
  parameters?: JsonObject[];
  requestBody?: JsonObject;
  responses: Record<string, JsonObject>;
}

const query = (schema: z.ZodObject) => parametersOf('query', schema.shape as Record<string, z.ZodType>);
const jsonBody = (schema: keyof typeof SCHEMAS, description: string) => ({ required: true, description, content: jsonOf(schema) });

const SUBSCRIPTION_ID = parametersOf('path', { id: z.string().regex(/^sub_[a-z0-9]{1,40}$/).meta({ description: 'The subscription\'s id, from `GET /digests/subscriptions`.' }) });

/**
 * Routes documented under another path (`x-also-at` there): a path with a
 * trailing slash is no OpenAPI path of its own (linters refuse it).
 */
const SAME_AS: Record<string, string> = { [`GET ${LINK_BASE}/`]: `GET ${LINK_BASE}` };

/** The dev routes that run a cron job as if it fired at `?at=`. */
const asIfAt = { parameters: [{ name: 'at', in: 'query' as const, required: false, description: 'An ISO 8601 time; default now.', schema: { type: 'string', format: 'date-time' } }] };

/** OAuth for `/mcp` (src/mcp/oauth-routes.ts) exists only with `OAUTH_KV` bound. */
const OAUTH_ONLY = 'Only when `OAUTH_KV` is bound and on the hosts of `MCP_ALLOWED_HOSTS` (localhost too in dev); 404 otherwise.';
const OAUTH_OFF = { '404': error('`not_found`: `OAUTH_KV` is not bound (the message says so: `/mcp` then takes only a key in `Authorization`), or the host is not one of `MCP_ALLOWED_HOSTS`') };
/** The provider's OAuth errors (RFC 6749 section 5.2), not the API's shape. */
const oauthError = (codes: string) => ({ description: codes, headers: requestId, content: jsonOf('OAuthError') });
/** The provider's 405: an empty body on the metadata, an OAuth error on the token and registration endpoints. */
const oauth405 = (allow: string, body?: 'error') => ({ '405': { description: `Another method; \`Allow: ${allow}\`.`, headers: requestId, ...(body ? { content: jsonOf('OAuthError') } : {}) } });
const CONSENT_405 = pageAnswer('Another method; `Allow: GET, HEAD, POST`.');

/** Every route of the tables, by `METHOD path`. */
const ROUTES: Record<string, Described> = {
  [`POST ${SUBSCRIPTIONS_BASE}/subscriptions`]: {
    operationId: 'subscribe',
    tag: 'Subscriptions',
    summary: 'Subscribe to the weekly digest or to change alerts',
    description: `The key must read the brand and market (the same read the digest makes; its error is the answer). A new subscription is \`pending\` and a confirmation email goes out (its link works for ${CONFIRM_TTL / 86_400} days); subscribing again updates the one subscription of the address, brand and market. With \`"kinds": ["alerts"]\` and a \`channel\` of type \`slack\` or \`webhook\`, \`channel.url\` must be https and resolve only to public addresses (a 400 names \`channel.url\` otherwise); no email is sent: a test delivery posted there carries the signed confirm link, and a webhook's answer carries its signing secret (\`webhook_secret\`), once. One such subscription per URL, brand and market. Body: JSON, at most ${SUBSCRIBE_MAX_BYTES} bytes.`,
    security: 'key',
    requestBody: jsonBody('SubscribeBody', 'Who gets which digest. `brand_id` and `market` as in the Read API (default: the only brand, the primary market).'),
    responses: {
      '201': ok('Subscribed: a new subscription.', jsonOf('SubscribeResult')),
      '200': ok('Subscribed again: the existing subscription, updated.', jsonOf('SubscribeResult')),
      ...READS_BRAND,
      '429': {
        ...READS_BRAND['429'],
        description:
          `\`rate_limited\`, \`quota_exceeded\`: the API's limits, passed through; or \`rate_limited\` with no email sent, over a cap on confirmation mail: one mailbox gets at most ${ADDRESS_PER_DAY} in 24 hours across all accounts (an address counted case-folded and without a \`+tag\`; a Slack or webhook URL by its receiver: scheme, host and port), an account (the brands its key reads) sends at most ${ACCOUNT_PER_DAY} in 24 hours, and a mailbox that unsubscribed gets none for ${OPTOUT_DAYS} days (only its own subscribe-again link can). \`Retry-After\`: when the oldest counted send leaves the 24 hours, or the ${OPTOUT_DAYS} days end.`,
      },
    },
  },
  [`GET ${SUBSCRIPTIONS_BASE}/subscriptions`]: {
    operationId: 'listSubscriptions',
    tag: 'Subscriptions',
    summary: 'List the subscriptions of the key\'s account',
    description: 'Every subscription of the brands the key can read, whatever its state (`pending`, `active`, `paused`, `unsubscribed`), with that state, oldest first.',
    security: 'key',
    responses: { '200': ok('The subscriptions.', jsonOf('SubscriptionList')), ...READS_ACCOUNT },
  },
  [`DELETE ${SUBSCRIPTIONS_BASE}/subscriptions/{id}`]: {
    operationId: 'unsubscribe',
    tag: 'Subscriptions',
    summary: 'Remove one subscription, for good',
    description: 'Final, in every state (`pending`, `active`, `paused`, `unsubscribed`): no link the address was sent before (confirm, unsubscribe, subscribe again, view in browser, that page\'s CSV links, an alert channel\'s confirmation) works again, each answering 410, and nothing more is sent; subscribing the address again makes a new subscription, confirmed anew. Another account\'s subscription is answered like a missing one: 404.',
    security: 'key',
    parameters: SUBSCRIPTION_ID,
    responses: {
      '204': { description: 'Removed.', headers: requestId },
      '400': error('`invalid_parameter` (`id`): not valid percent-encoding'),
      ...READS_ACCOUNT,
      '404': error('`not_found`: no such subscription for this account'),
    },
  },
  [`GET ${SUBSCRIPTIONS_BASE}/confirm`]: {
    operationId: 'showConfirm',
    tag: 'Subscriptions',
    summary: 'The confirm page (the link of the confirmation email)',
    description: `Shows a button that posts to the same address; a GET confirms nothing, so mail scanners that prefetch links cannot confirm for the reader. An active subscription shows when its next digest arrives. The link works for ${CONFIRM_TTL / 86_400} days.`,
    security: 'none',
    parameters: tokenParam('confirmation'),
    responses: {
      '200': pageAnswer('The page with the button (or: already confirmed).'),
      ...TOKEN_PAGES,
      '404': pageAnswer('The subscription no longer exists.'),
      '409': pageAnswer('The subscription was cancelled or paused after the link was sent.'),
    },
  },
  [`POST ${SUBSCRIPTIONS_BASE}/confirm`]: {
    operationId: 'confirmSubscription',
    tag: 'Subscriptions',
    summary: 'Confirm an address (the confirm page\'s button)',
    description: 'Double opt-in: the subscription becomes `active`; the page says when the first digest arrives. Idempotent. Takes no body.',
    security: 'none',
    parameters: tokenParam('confirmation'),
    responses: {
      '200': pageAnswer('Confirmed (or: already confirmed).'),
      ...TOKEN_PAGES,
      '404': pageAnswer('The subscription no longer exists.'),
      '409': pageAnswer('The subscription was cancelled or paused after the link was sent.'),
    },
  },
  [`HEAD ${SUBSCRIPTIONS_BASE}/confirm`]: {
    operationId: 'checkConfirmLink',
    tag: 'Subscriptions',
    summary: 'Check the confirmation link without confirming',
    description: 'For link checkers: answers 200 with no body and confirms nothing.',
    security: 'none',
    responses: { '200': { description: 'Nothing confirmed.', headers: requestId } },
  },
  [`GET ${SUBSCRIPTIONS_BASE}/unsubscribe`]: {
    operationId: 'showUnsubscribe',
    tag: 'Subscriptions',
    summary: 'The unsubscribe page (the link of every email)',
    description: `Shows a button that posts to the same address; a GET unsubscribes no one, so link scanners that prefetch URLs cannot. The link works for ${UNSUBSCRIBE_TTL / 86_400} days.`,
    security: 'none',
    parameters: tokenParam('unsubscribe'),
    responses: { '200': pageAnswer('The page with the button (or: already unsubscribed).'), ...TOKEN_PAGES },
  },
  [`POST ${SUBSCRIPTIONS_BASE}/unsubscribe`]: {
    operationId: 'oneClickUnsubscribe',
    tag: 'Subscriptions',
    summary: 'One-click unsubscribe (RFC 8058)',
    description: 'The `List-Unsubscribe-Post` target of every email, and the page\'s button. Idempotent.',
    security: 'none',
    parameters: tokenParam('unsubscribe'),
    requestBody: {
      required: false,
      content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { 'List-Unsubscribe': { type: 'string', const: 'One-Click' } } } } },
    },
    responses: { '200': pageAnswer('Unsubscribed.'), ...TOKEN_PAGES },
  },
  [`GET ${SUBSCRIPTIONS_BASE}/resubscribe`]: {
    operationId: 'showResubscribe',
    tag: 'Subscriptions',
    summary: 'The "subscribe again" page (shown after unsubscribing)',
    description: `Shows a button that posts to the same address; a GET changes nothing. The link is given once, on the page shown right after unsubscribing, and works for ${RESUBSCRIBE_TTL / 86_400} days.`,
    security: 'none',
    parameters: tokenParam('subscribe-again'),
    responses: { '200': pageAnswer('The page with the button (or: already subscribed).'), ...TOKEN_PAGES },
  },
  [`POST ${SUBSCRIPTIONS_BASE}/resubscribe`]: {
    operationId: 'resubscribe',
    tag: 'Subscriptions',
    summary: 'Subscribe again',
    description: 'Puts the subscription back to `pending` and sends a new confirmation email (double opt-in again). Answers a page.',
    security: 'none',
    parameters: tokenParam('subscribe-again'),
    responses: {
      '200': pageAnswer('A new confirmation email went out; or one of this round went out in the last 10 minutes, and the page says from when its button sends another (unsubscribing starts a new round with none sent, so the first press sends at once).'),
      ...TOKEN_PAGES,
      '429': { ...pageAnswer(`No email sent: the mailbox (or the endpoint's receiver) has had ${ADDRESS_PER_DAY} confirmations in 24 hours, or the account ${ACCOUNT_PER_DAY} (the ${OPTOUT_DAYS} days after an unsubscribe do not hold this link back).`), headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') } },
    },
  },
  [`GET ${REPORTS_BASE}/weekly`]: {
    operationId: 'getWeeklyReport',
    tag: 'Reports',
    summary: 'Get the weekly report',
    description: 'The report of the last week for one brand and market, read with the key through the edge cache: a page, the report model as JSON, or the plain-text digest. When the Read API does not answer, `format=html` gets a 502 page and the others the JSON error.',
    security: 'key',
    parameters: query(paramsObject(WEEKLY_QUERY)),
    responses: {
      '200': ok('The report.', { ...HTML, ...jsonOf('WeeklyReport'), ...TEXT }),
      ...READS_BRAND,
      '502': { ...KEYED_ERRORS['502'], content: { ...jsonOf('Error'), ...HTML } },
    },
  },
  [`POST ${REPORTS_BASE}/links`]: {
    operationId: 'createReportLink',
    tag: 'Report links',
    summary: 'Create a signed report link',
    description: `A link that opens the report without a key, for ${LINK_DAYS.min} to ${LINK_DAYS.max} days (default ${LINK_DAYS.default}). The key must read the brand and market. Fields go in the JSON body; a query string is refused. The URL is shown in this answer only (the token is not stored). A key has at most ${MAX_LIVE_LINKS} live links (not revoked, not expired): past that, 409 \`too_many_links\`, made and counted atomically.`,
    security: 'key',
    requestBody: jsonBody('LinkBody', 'Which report, and for how long.'),
    responses: {
      '201': ok('The link (also in `Location`).', jsonOf('ReportLink'), { Location: { description: 'The link\'s URL.', schema: { type: 'string', format: 'uri' } } }),
      ...READS_BRAND,
      '409': error(`\`too_many_links\`: the key has ${MAX_LIVE_LINKS} live links already; revoke one (\`DELETE ${REPORTS_BASE}/links/{id}\`) or wait until one expires (the message says when the first does)`),
    },
  },
  [`GET ${REPORTS_BASE}/links`]: {
    operationId: 'listReportLinks',
    tag: 'Report links',
    summary: 'List the key\'s live report links',
    description: `The links this key made that still work (not revoked, not expired), oldest first: at most ${MAX_LIVE_LINKS}. Without their URLs: a link's token is not stored, its URL was shown once, when it was made. Only the key that made a link lists it (not other keys of the account). A key whose plan is inactive may still list and revoke.`,
    security: 'key',
    responses: { '200': ok('The links.', jsonOf('ReportLinkList')), ...keyed('400', '401', '405', '429', '502') },
  },
  [`DELETE ${REPORTS_BASE}/links/{id}`]: {
    operationId: 'revokeReportLink',
    tag: 'Report links',
    summary: 'Revoke a report link',
    description: 'The link stops working at once: its row and the sealed key are deleted, and opening it answers 410, as do the CSV links its pages handed out. Another key\'s link, an expired one or an unknown id is answered like a missing one: 404.',
    security: 'key',
    parameters: parametersOf('path', { id: ReportLinkId.meta({ description: 'The link\'s id, from `POST /reports/links` or `GET /reports/links`.' }) }),
    responses: { '204': { description: 'Revoked.', headers: requestId }, ...keyed('400', '401', '405', '429', '502'), '404': error('`not_found`: no such live link for this key') },
  },
  [`POST ${REPORTS_BASE}/weekly/send`]: {
    operationId: 'sendDigestNow',
    tag: 'Reports',
    summary: 'Send the weekly digest now',
    description: 'To the confirmed subscribers of the brand and market, and to no one else: the request takes no body. At most once per 10 minutes per brand and market (409 `recently_sent` otherwise).',
    security: 'key',
    parameters: query(paramsObject(SEND_QUERY)),
    responses: {
      '202': ok('Sent, or nothing to send (`note` says why).', jsonOf('SendAnswer')),
      ...READS_BRAND,
      '409': {
        description: '`recently_sent`: the digest of this brand and market went out within the last 10 minutes.',
        headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') },
        content: jsonOf('RecentlySent'),
      },
      '502': error('`upstream_error`: the Read API did not answer, or the mail service refused the send (nothing went out)'),
    },
  },
  [`GET ${LINK_BASE}/{token}`]: {
    operationId: 'openReportLink',
    tag: 'Report links',
    summary: 'Open a report link',
    description: 'The report the link names, read with the key it was minted with. Pages for a person; with `format=json` or `text`, the Read API\'s errors as JSON.',
    security: 'none',
    parameters: [
      { name: 'token', in: 'path', required: true, description: 'The link\'s signed token.', schema: { type: 'string', minLength: 1 } },
      ...query(paramsObject(LINK_QUERY)),
    ],
    responses: {
      '200': ok('The report.', { ...HTML, ...jsonOf('WeeklyReport'), ...TEXT }),
      '400': pageAnswer('An unknown option, or a malformed link.'),
      '401': { description: 'The key behind the link was revoked.', headers: requestId, content: { ...HTML, ...jsonOf('Error') } },
      '403': { description: 'A forged or changed link, or the account cannot read the report.', headers: requestId, content: { ...HTML, ...jsonOf('Error') } },
      '404': { description: 'The brand or market no longer exists for the account.', headers: requestId, content: { ...HTML, ...jsonOf('Error') } },
      '410': pageAnswer('An expired or revoked link, or a digest\'s link whose subscription was unsubscribed, removed by the account or subscribed again since.'),
      '429': {
        description: 'The Read API\'s rate limit or quota for the key behind the link (`rate_limited`, `quota_exceeded`), with its `Retry-After`.',
        headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') },
        content: { ...HTML, ...jsonOf('Error') },
      },
      '502': { description: 'The Read API did not answer.', headers: requestId, content: { ...HTML, ...jsonOf('Error') } },
    },
  },
  [`GET ${LINK_BASE}`]: {
    operationId: 'openReportLinkWithoutToken',
    tag: 'Report links',
    summary: 'A report link cut short before its token',
    description: `\`${LINK_BASE}/\` answers the same (\`x-also-at\`).`,
    security: 'none',
    responses: { '400': pageAnswer('A malformed link.') },
  },
  [`GET ${REPORTS_BASE}/history`]: {
    operationId: 'getHistory',
    tag: 'Reports',
    summary: 'Get the kept weekly history',
    description: `Up to ${HISTORY_WEEKS} weeks (2 years) of the brand's weekly figures in the market, as kept in D1 when digests are read and weekly by the cron: a page with a chart and a table, and a CSV link (\`${EXPORT_LINK_BASE}/<token>.csv\`, kind \`history\`). The key must read the brand and market.`,
    security: 'key',
    parameters: query(paramsObject(HISTORY_QUERY)),
    responses: { '200': ok('The page.', HTML), ...READS_BRAND },
  },
  [`GET ${LINK_BASE}/{token}/history`]: {
    operationId: 'openReportLinkHistory',
    tag: 'Report links',
    summary: 'The kept weekly history through a report link',
    description: 'The history page of the report link\'s brand and market, read with the key the link was minted with; its CSV link expires no later than the report link.',
    security: 'none',
    parameters: [{ name: 'token', in: 'path', required: true, description: 'The report link\'s signed token.', schema: { type: 'string', minLength: 1 } }],
    responses: { '200': pageAnswer('The page.'), ...TOKEN_PAGES, '401': pageAnswer('The key behind the link was revoked.'), '404': pageAnswer('The brand or market no longer exists for the account.'), '410': pageAnswer('An expired or revoked link.'), '429': pageAnswer('The API\'s limit for the key behind the link.'), '502': pageAnswer('The Read API did not answer.') },
  },
  [`POST ${EXPORTS_BASE}/links`]: {
    operationId: 'createExportLink',
    tag: 'Export links',
    summary: 'Create a CSV export link',
    description: `A link to one operation's rows with its parameters (\`operation\`: ${EXPORT_KINDS.map((k) => `\`${k}\``).join(', ')}), for ${LINK_DAYS.min} to ${LINK_DAYS.max} days (default ${LINK_DAYS.default}). The operation and \`params\` are checked with the Read API's own rules (400 naming \`operation\` or \`params.<name>\`), and the key must be able to make the read (the API's own errors). A relative window (\`days\`) stays relative: the link gives the latest figures whenever it is read. At most ${MAX_LIVE_LINKS} live export links per key: past that, 409 \`too_many_links\`.`,
    security: 'key',
    requestBody: jsonBody('MintBody', 'Which operation, its parameters, and for how long.'),
    responses: {
      '201': ok('The link (also in `Location`).', jsonOf('ExportLink'), { Location: { description: 'The CSV link.', schema: { type: 'string', format: 'uri' } } }),
      ...READS_BRAND,
      '409': error(`\`too_many_links\`: the key has ${MAX_LIVE_LINKS} live export links already; revoke one (\`DELETE ${EXPORTS_BASE}/links/{id}\`) or wait until one expires`),
    },
  },
  [`GET ${EXPORTS_BASE}/links`]: {
    operationId: 'listExportLinks',
    tag: 'Export links',
    summary: 'List the key\'s live export links',
    description: `The export links this key made that still work, oldest first, at most ${MAX_LIVE_LINKS}, with their URLs. Only the key that made a link lists it.`,
    security: 'key',
    responses: { '200': ok('The links.', jsonOf('ExportLinkList')), ...keyed('400', '401', '405', '429', '502') },
  },
  [`DELETE ${EXPORTS_BASE}/links/{id}`]: {
    operationId: 'revokeExportLink',
    tag: 'Export links',
    summary: 'Revoke an export link',
    description: 'The link stops working at once (410). Another key\'s link, an expired one or an unknown id: 404.',
    security: 'key',
    parameters: parametersOf('path', { id: ExportLinkId.meta({ description: 'The link\'s id, from `POST /exports/links` or `GET /exports/links`.' }) }),
    responses: { '204': { description: 'Revoked.', headers: requestId }, ...keyed('400', '401', '405', '429', '502'), '404': error('`not_found`: no such live export link for this key') },
  },
  [`GET ${EXPORT_LINK_BASE}/{file}`]: {
    operationId: 'readExportLink',
    tag: 'Export links',
    summary: 'Read an export link as CSV or JSON',
    description: 'No key: the link reads with the key that minted it, through the edge cache and within that key\'s budget. `.csv`: RFC 4180 (`text/csv; charset=utf-8`, a header row, CRLF, quotes where needed), nested objects as dotted columns, text cells that begin with `=`, `+`, `-`, `@`, tab or carriage return prefixed with `\'` (numbers are not). `.json`: the same rows as an array of flat objects. Errors are plain text.',
    security: 'none',
    parameters: [{ name: 'file', in: 'path', required: true, description: 'The link\'s token followed by `.csv` or `.json`.', schema: { type: 'string', minLength: 1 } }],
    responses: {
      '200': ok('The rows.', { 'text/csv': { schema: { type: 'string' } }, ...jsonOf('ExportRows') }),
      '400': { description: 'A malformed link.', headers: requestId, content: TEXT },
      '403': { description: 'A forged or changed link, or the key behind it can no longer read the data (the API\'s 401 or 403).', headers: requestId, content: TEXT },
      '404': { description: 'Not `.csv` or `.json`, or the API found nothing for the link\'s parameters.', headers: requestId, content: TEXT },
      '410': { description: 'An expired or revoked link, or a report page\'s link whose report link or subscription ended, or whose key was revoked.', headers: requestId, content: TEXT },
      '429': { description: 'The key behind the link is over the API\'s limit.', headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') }, content: TEXT },
      '502': { description: 'The Read API did not answer.', headers: requestId, content: TEXT },
    },
  },
  [`POST ${ADMIN_BASE}/purge`]: {
    operationId: 'purgeCache',
    tag: 'Cache admin',
    summary: 'Purge cached answers',
    description: 'Of one API key, of one brand, or all. Deletes from KV (global) and from this location\'s Cache API; other locations\' copies expire within minutes.',
    security: 'admin',
    requestBody: jsonBody('PurgeBody', 'One of `{"api_key": "..."}`, `{"brand_id": 2}`, `{"all": true}`.'),
    responses: { '200': ok('Purged.', jsonOf('Purged')), '400': error('`invalid_parameter` (`param`: `body`)'), ...ADMIN_REFUSALS },
  },
  [`GET ${ADMIN_BASE}/stats`]: {
    operationId: 'getCacheStats',
    tag: 'Cache admin',
    summary: 'Get the cache\'s counters',
    description: 'Totals since `since`, over every isolate (each adds its counts every few seconds).',
    security: 'admin',
    responses: { '200': ok('The counters.', jsonOf('CacheStats')), ...ADMIN_REFUSALS },
  },
  [`GET ${UPSTREAM_ADMIN_BASE}/map`]: {
    operationId: 'getUpstreamMap',
    tag: 'Upstream map',
    summary: 'Get the upstream map',
    description: 'How another implementation\'s bodies map onto the contract\'s fields, per operation (docs/upstream.md). Version 0 and no operations before one is stored.',
    security: 'admin',
    responses: { '200': ok('The stored map.', jsonOf('UpstreamMap')), ...ADMIN_REFUSALS },
  },
  [`PUT ${UPSTREAM_ADMIN_BASE}/map`]: {
    operationId: 'putUpstreamMap',
    tag: 'Upstream map',
    summary: 'Replace the upstream map',
    description: 'Validated against the contract (every path must be a field of the operation\'s body) and stored as the next version. Send `version` (the one you read) to be told when someone replaced it meanwhile.',
    security: 'admin',
    requestBody: jsonBody('UpstreamMapInput', '`{"version": 1, "operations": {"getVisibility": {"fields": {"score": "visibility"}}}}`'),
    responses: {
      '200': ok('The stored map, with its new version.', jsonOf('UpstreamMap')),
      '400': error('`invalid_parameter`: the field at fault named in `param` (`operations.getVisibility.fields.scroe`)'),
      ...ADMIN_REFUSALS,
      '409': error('`map_version_conflict`: `version` is not the stored version'),
    },
  },
  [`POST ${UPSTREAM_ADMIN_BASE}/discover`]: {
    operationId: 'discoverUpstreamMap',
    tag: 'Upstream map',
    summary: 'Propose the upstream map from one read of each operation',
    description: `Reads one answer of each operation the key can read (through the edge cache and within the key's budget, like any read: \`calls\` and \`upstream_calls\` say what it cost), the ids and texts some requests need taken from the list operations read first. Proposes the map from the fields' names (case conventions, plurals, synonyms such as \`history\`/\`weeks\`), their types and their values, with a confidence per field: only fields at or above \`threshold\` go into \`map\`; the others are under \`to_confirm\` with their candidates, for a person to add with \`PUT /admin/upstream/map\`. Operations the key cannot read are listed with the API's error. With \`"apply": true\` the proposed map is stored as the next version (docs/upstream.md). Body: JSON, at most ${MAX_DISCOVER_BODY_BYTES} bytes.`,
    security: 'admin',
    requestBody: jsonBody('DiscoverBody', '`{"api_key": "...", "apply": false}`'),
    responses: {
      '200': ok('The proposed map and, per operation, how each field was placed.', jsonOf('DiscoveryReport')),
      '400': error('`invalid_parameter`: the field at fault named in `param` (`api_key` when the Read API refuses the key: nothing could be read)'),
      ...ADMIN_REFUSALS,
      '409': error('`map_version_conflict`: with `apply`, the map was replaced while discovery ran'),
      '502': error('`upstream_error`: the Read API did not answer discovery\'s first read; nothing was read'),
    },
  },
  [`POST ${UPSTREAM_CHECK_PATH}`]: {
    operationId: 'checkUpstream',
    tag: 'Upstream map',
    summary: 'Check which features work with the service',
    description:
      'Reads each operation the features read with `api_key` (in the body: keys never go in a URL), through the upstream map and the key\'s cache and budget, and says per feature whether it works, works without a section (which, and which field is missing), or cannot run (which operation and field). Each feature needs only what it cannot do without (docs/upstream.md, "What each feature needs"). Operations that need a parameter only a person can give (a topic id, a question, a rival) are not read. A page instead of JSON when `Accept` prefers `text/html`. The key is neither logged nor shown.',
    security: 'admin',
    requestBody: jsonBody('CheckBody', '`{"api_key": "...", "brand_id": 2, "market": "us"}`; `brand_id` and `market` as in the Read API (default: the key\'s only brand, its primary market).'),
    responses: {
      '200': ok('The verdicts.', { ...jsonOf('UpstreamCheck'), ...HTML }),
      '400': error('`invalid_parameter`: a field of the body, or `api_key` when the Read API refuses the key'),
      ...ADMIN_REFUSALS,
      '429': error('`rate_limited`, `quota_exceeded`: the key\'s limits, passed through'),
      '502': error('`upstream_error`: the Read API did not answer'),
    },
  },
  [`POST ${MCP_PATH}`]: {
    operationId: 'mcp',
    tag: 'MCP',
    summary: 'Send an MCP message (Streamable HTTP, stateless)',
    description:
      'MCP over Streamable HTTP (revisions 2026-07-28 and 2025), stateless: no session, every request stands alone. The tools: one per Read API operation (its id in snake_case, e.g. `get_visibility`, with the operation\'s parameters as arguments) and `weekly_report`; each result carries the API\'s JSON body as `structuredContent` (on the contract\'s field names, valid against the tool\'s `outputSchema`; a list longer than 25 rows in pages, with `page` and an `offset` argument); the prompts (`weekly_review`, `competitor_radar`, `engine_scorecard`, `content_plan`) complete their `brand`, `market` and `competitor` arguments (`completion/complete`); a refusal of the API (401, 403, 404, 409, 429, 502) is a result with `isError: true` and the API\'s `error.code` and `message` (`retry_after` on a 429). Every call reads through the edge cache with the key\'s upstream budget. `Host` and `Origin` must name a host of `MCP_ALLOWED_HOSTS` (localhost too in dev).',
    security: 'mcp',
    requestBody: jsonBody('JsonRpcMessage', 'A JSON-RPC 2.0 message of MCP. Send `Accept: application/json, text/event-stream`.'),
    responses: {
      '200': ok('The JSON-RPC response, as JSON or as a Server-Sent Events stream (`text/event-stream`).', { ...jsonOf('JsonRpcMessage'), 'text/event-stream': { schema: { type: 'string' } } }),
      '202': { description: 'A notification, accepted.', headers: requestId },
      '400': { description: 'Not a JSON-RPC message of MCP, or a batch of more than 100 (the SDK\'s error).', headers: requestId, content: jsonOf('JsonRpcError') },
      '401': { ...error('`invalid_api_key`: no credential, or a key the API does not know, or an OAuth token that is unknown, expired or revoked'), headers: { ...requestId, 'WWW-Authenticate': { description: `With OAuth (\`OAUTH_KV\` bound): \`Bearer realm="OAuth", resource_metadata="https://<host>${WELL_KNOWN.mcpResource}", scope="read"\` (and \`error="invalid_token"\` when a credential was refused); without: \`Bearer realm="mcp"\`.`, schema: { type: 'string' } } } },
      '403': { description: '`Host` or `Origin` names a host that is not allowed (DNS rebinding protection).', headers: requestId, content: jsonOf('JsonRpcError') },
      '406': { description: '`Accept` lacks `application/json` or `text/event-stream`.', headers: requestId, content: jsonOf('JsonRpcError') },
      '413': { description: 'A body over 4 MiB.', headers: requestId, content: jsonOf('JsonRpcError') },
      '415': { description: 'A body that is not `application/json`.', headers: requestId, content: jsonOf('JsonRpcError') },
    },
  },
  [`GET ${MCP_PATH}`]: {
    operationId: 'mcpOpenStream',
    tag: 'MCP',
    summary: 'Open a server-to-client stream: not offered',
    description: 'A stateless server has no stream to open (MCP, Streamable HTTP): always 405, `Allow: POST`.',
    security: 'none',
    responses: { '405': { description: 'Method not allowed; `Allow: POST`.', headers: requestId, content: jsonOf('JsonRpcError') } },
  },
  [`DELETE ${MCP_PATH}`]: {
    operationId: 'mcpEndSession',
    tag: 'MCP',
    summary: 'End a session: not offered',
    description: 'A stateless server has no session to end (MCP, Streamable HTTP): always 405, `Allow: POST`.',
    security: 'none',
    responses: { '405': { description: 'Method not allowed; `Allow: POST`.', headers: requestId, content: jsonOf('JsonRpcError') } },
  },
  [`GET ${WELL_KNOWN.authorizationServer}`]: {
    operationId: 'getOAuthServerMetadata',
    tag: 'MCP OAuth',
    summary: 'Get the authorization server\'s metadata (RFC 8414)',
    description: `Where an assistant finds the endpoints below, the scope (\`read\`), PKCE \`S256\`, and that revocation goes to the token endpoint. The issuer is the Worker's origin. ${OAUTH_ONLY}`,
    security: 'none',
    responses: { '200': ok('The metadata.', jsonOf('AuthorizationServerMetadata')), ...OAUTH_OFF, ...oauth405('GET, HEAD, OPTIONS') },
  },
  [`GET ${WELL_KNOWN.mcpResource}`]: {
    operationId: 'getMcpResourceMetadata',
    tag: 'MCP OAuth',
    summary: 'Get `/mcp`\'s protected resource metadata (RFC 9728)',
    description: `The document \`/mcp\`'s 401 challenge names (\`resource_metadata\`): the resource \`https://<host>/mcp\` and its authorization server, this Worker. ${OAUTH_ONLY}`,
    security: 'none',
    responses: { '200': ok('The metadata.', jsonOf('ProtectedResourceMetadata')), ...OAUTH_OFF, ...oauth405('GET, HEAD, OPTIONS') },
  },
  [`GET ${WELL_KNOWN.protectedResource}`]: {
    operationId: 'getResourceMetadataAtRoot',
    tag: 'MCP OAuth',
    summary: 'Get `/mcp`\'s protected resource metadata at the root address',
    description: `The same document as \`GET ${WELL_KNOWN.mcpResource}\`, for clients that look here first. ${OAUTH_ONLY}`,
    security: 'none',
    responses: { '200': ok('The metadata.', jsonOf('ProtectedResourceMetadata')), ...OAUTH_OFF, ...oauth405('GET, HEAD, OPTIONS') },
  },
  [`POST ${OAUTH_ENDPOINTS.register}`]: {
    operationId: 'registerOAuthClient',
    tag: 'MCP OAuth',
    summary: 'Register an assistant as a client (RFC 7591)',
    description: `Dynamic client registration: an assistant registers itself before sending the person to the consent page. Open to anyone: a registration grants nothing until a person approves on the consent page, which marks the name as not verified. ${OAUTH_ONLY}`,
    security: 'none',
    requestBody: jsonBody('ClientMetadata', 'The client\'s metadata, as JSON (at most 1 MiB).'),
    responses: {
      '201': ok('Registered.', jsonOf('RegisteredClient')),
      '400': oauthError('`invalid_client_metadata` (for example a redirect URI it does not accept), `invalid_request`'),
      ...OAUTH_OFF,
      ...oauth405('POST, OPTIONS', 'error'),
      '413': oauthError('`invalid_request`: a body over 1 MiB'),
    },
  },
  [`POST ${OAUTH_ENDPOINTS.token}`]: {
    operationId: 'oauthToken',
    tag: 'MCP OAuth',
    summary: 'Get, refresh or revoke tokens (RFC 6749, RFC 7009)',
    description: `Form-encoded. \`grant_type=authorization_code\` with \`code\`, \`redirect_uri\` and the PKCE \`code_verifier\` (S256 only) exchanges the consent page's code for an access token (an hour) and a refresh token; \`grant_type=refresh_token\` with \`refresh_token\` renews both (the grant ends 90 days after consent). Without \`grant_type\`, \`token\` (and optionally \`token_type_hint\`) is a revocation (RFC 7009): the metadata's \`revocation_endpoint\` is this one; revoking a refresh token ends the grant. A client with a secret authenticates with HTTP Basic or \`client_secret\`; a public one sends \`client_id\`. ${OAUTH_ONLY}`,
    security: 'none',
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            properties: Object.fromEntries(['grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'token', 'token_type_hint', 'client_id', 'client_secret', 'resource'].map((name) => [name, { type: 'string' }])),
          },
        },
      },
    },
    responses: {
      '200': ok('The tokens; for a revocation, an empty body.', jsonOf('TokenAnswer')),
      '400': oauthError('`invalid_request`, `invalid_grant` (a code or refresh token that is unknown, used, expired or revoked; a wrong `code_verifier`), `unsupported_grant_type`, `invalid_scope`'),
      '401': oauthError('`invalid_client`: unknown client, or a wrong secret'),
      ...OAUTH_OFF,
      ...oauth405('POST, OPTIONS', 'error'),
    },
  },
  [`GET ${OAUTH_ENDPOINTS.authorize}`]: {
    operationId: 'showConsent',
    tag: 'MCP OAuth',
    summary: 'The consent page (the authorization endpoint)',
    description: `Where the assistant sends the person's browser, with the OAuth 2.1 authorization request (\`response_type=code\`, \`client_id\`, \`redirect_uri\` exactly as registered, \`code_challenge\` with \`code_challenge_method=S256\`, \`state\`, \`scope=read\`, \`resource\`). Shows which client asks and where it will send the access, and asks for the person's Read API key. A page, not for programs; it cannot be framed. ${OAUTH_ONLY}`,
    security: 'none',
    responses: {
      '200': pageAnswer('The key step: the form asking for the Read API key.'),
      '302': { description: 'An error the client must hear (RFC 6749 section 4.1.2.1), sent back to its validated `redirect_uri`.', headers: { ...requestId, Location: { schema: { type: 'string', format: 'uri' } } } },
      '400': pageAnswer('A request that cannot start: an unknown client, a redirect URI it did not register, PKCE missing or not S256. Said on the page, never redirected.'),
      ...OAUTH_OFF,
      '405': CONSENT_405,
    },
  },
  [`POST ${OAUTH_ENDPOINTS.authorize}`]: {
    operationId: 'answerConsent',
    tag: 'MCP OAuth',
    summary: 'Answer the consent page\'s form',
    description: `The page's own form (\`application/x-www-form-urlencoded\`, with its single-use, 10-minute handle, bound to the browser by a cookie). \`step=key\`: the key is checked with the Read API (\`GET /brands\`, through the edge cache); accepted, the page lists the key's brands to approve. \`step=approve\`: the browser is sent back to the client with a one-time code (the key kept only in the grant, encrypted). \`decision=deny\` at either step: back with \`error=access_denied\`. ${OAUTH_ONLY}`,
    security: 'none',
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            properties: { step: { type: 'string', enum: ['key', 'approve'] }, handle: { type: 'string' }, api_key: { type: 'string' }, decision: { type: 'string', enum: ['deny'] } },
            required: ['step', 'handle'],
          },
        },
      },
    },
    responses: {
      '200': pageAnswer('The approve step: the brands the key reads.'),
      '302': { description: 'Back to the client: with the code (Approve), or `error=access_denied` (Deny).', headers: { ...requestId, Location: { schema: { type: 'string', format: 'uri' } } } },
      '400': pageAnswer('The key step again with the error: the Read API refused the key (or none was pasted); or a form that could not be read.'),
      '403': pageAnswer('A form not from this browser\'s page, or used, forged or older than 10 minutes.'),
      ...OAUTH_OFF,
      '405': CONSENT_405,
      '413': pageAnswer('A form over 8 KiB.'),
      '429': pageAnswer('The key step again: too many key checks just now (the Read API\'s rate limit).'),
      '503': pageAnswer('The key step again: the Read API did not answer the key\'s check.'),
    },
  },
  [`POST ${DEV_PLAN_PATH}`]: {
    operationId: 'devPlanDigests',
    tag: 'Dev',
    summary: 'Plan the weekly digests as if the cron fired at `at`',
    security: 'none',
    ...asIfAt,
    responses: { '200': ok('What was planned.', jsonOf('DevPlan')), '400': error('`invalid_parameter` (`at`)') },
  },
  [`POST ${DEV_ALERTS_PATH}`]: {
    operationId: 'devRunAlerts',
    tag: 'Dev',
    summary: 'Evaluate change alerts as if the cron fired at `at`',
    description: 'Evaluates the alert groups due at `at` (once a day from 07:00 in their timezone) and enqueues the deliveries that are due.',
    security: 'none',
    ...asIfAt,
    responses: { '200': ok('What was evaluated and enqueued.', jsonOf('DevAlerts')), '400': error('`invalid_parameter` (`at`)') },
  },
  [`GET ${OUTBOX_BASE}`]: {
    operationId: 'devListOutbox',
    tag: 'Dev',
    summary: 'List the mail the dev outbox kept',
    description: 'Newest first.',
    security: 'none',
    parameters: [
      { name: 'to', in: 'query', required: false, description: 'Only mail to this address.', schema: { type: 'string' } },
      { name: 'limit', in: 'query', required: false, description: 'At most this many (1 to 500, default 50).', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
      { name: 'format', in: 'query', required: false, description: '`json` for JSON; a page otherwise.', schema: { type: 'string', enum: ['json'] } },
    ],
    responses: { '200': ok('The list.', { ...HTML, 'application/json': { schema: { type: 'object', properties: { messages: { type: 'array', items: { type: 'object' } } }, required: ['messages'] } } }) },
  },
  [`GET ${OUTBOX_BASE}/{id}`]: {
    operationId: 'devGetOutboxMessage',
    tag: 'Dev',
    summary: 'Get one message of the dev outbox',
    security: 'none',
    parameters: [
      { name: 'id', in: 'path', required: true, description: 'The message\'s id.', schema: { type: 'string', pattern: '^\\d{1,12}$' } },
      { name: 'format', in: 'query', required: false, description: '`text` for the plain-text part, `json` for the whole message; the HTML part otherwise.', schema: { type: 'string', enum: ['text', 'json'] } },
    ],
    responses: {
      '200': ok('The message.', { ...HTML, ...TEXT, 'application/json': { schema: { type: 'object', properties: { message: { type: 'object' } }, required: ['message'] } } }),
      '400': pageAnswer('`id` is not valid percent-encoding.'),
      '404': error('`not_found`'),
    },
  },
  [`GET ${PRODUCT_OPENAPI}`]: {
    operationId: 'getProductOpenApi',
    tag: 'Documents',
    summary: 'Get this document',
    description: 'The Read API\'s own document is `GET /api/v1/openapi.json`.',
    security: 'none',
    responses: { '200': ok('This document.', { 'application/json': { schema: { type: 'object' } } }) },
  },
};

const METHODS: readonly Method[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const SECURITY: Record<Described['security'], JsonObject[]> = { key: [{ apiKey: [] }], mcp: [{ apiKey: [] }, { oauth: [READ_SCOPE] }], admin: [{ adminToken: [] }], none: [] };

function operationOf(d: Described): JsonObject {
  return {
    operationId: d.operationId,
    tags: [d.tag],
    summary: d.summary,
    ...(d.description ? { description: d.description } : {}),
    security: SECURITY[d.security],
    ...(d.parameters?.length ? { parameters: d.parameters } : {}),
    ...(d.requestBody ? { requestBody: d.requestBody } : {}),
    responses: d.responses,
  };
}

/** The paths of the routes, each method described; throws on a route without a description or a description without a route. */
function pathsOf(routes: readonly DocumentedRoute[]): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  const used = new Set<string>();
  for (const route of routes) {
    for (const method of METHODS.filter((m) => route.methods[m])) {
      const key = `${method} ${route.path}`;
      if (SAME_AS[key]) {
        used.add(key);
        continue;
      }
      const described = ROUTES[key];
      if (!described) throw new Error(`the product's OpenAPI document does not describe ${key} (src/app/openapi.ts ROUTES)`);
      used.add(key);
      (paths[route.path] ??= {})[method.toLowerCase()] = operationOf(described);
    }
  }
  for (const [key, target] of Object.entries(SAME_AS)) {
    const [method = '', path = ''] = target.split(' ');
    const operation = paths[path]?.[method.toLowerCase()];
    if (!used.has(key) || !operation) throw new Error(`the product's OpenAPI document has no route ${key} or ${target}`);
    operation['x-also-at'] = [...((operation['x-also-at'] as string[] | undefined) ?? []), key.split(' ')[1]];
  }
  const gone = Object.keys(ROUTES).filter((key) => !used.has(key));
  if (gone.length > 0) throw new Error(`the product's OpenAPI document describes routes no table has: ${gone.join(', ')}`);
  return paths;
}

const documents = new WeakMap<readonly DocumentedRoute[], JsonObject>();

/** The document of the given route tables (one array: every route the Worker mounts beside /api/v1). */
export function productOpenApiDocument(routes: readonly DocumentedRoute[]): JsonObject {
  let document = documents.get(routes);
  if (document) return document;
  const schemaEntries = Object.entries(SCHEMAS) as [keyof typeof SCHEMAS, z.ZodType][];
  document = {
    openapi: '3.1.0',
    info: {
      title: 'Brand AI-Visibility Edge: product routes',
      version: '1.0.0',
      description: [
        'The routes this Worker serves beside the Read API (`/api/v1`, described in `GET /api/v1/openapi.json`): weekly digest subscriptions, reports and signed report links, the edge cache\'s admin, `/mcp` and its OAuth, and the dev routes.',
        'JSON routes answer errors in the Read API\'s shape, `{"error": {"code", "message", "param"?}}`, with codes of their own: `recently_sent` (409) and `too_many_links` (409); a cap on confirmation mail is the API\'s `rate_limited` (429, with `Retry-After`). A route read with an API key reads the Read API through the edge cache with that key, and passes the API\'s refusals through (401, 403, 404, 429). Routes opened from an email (confirm, unsubscribe, report links) answer HTML pages. OAuth\'s token and registration endpoints answer OAuth\'s own errors (RFC 6749, `{"error", "error_description"}`). Every answer carries `X-Request-Id`; a GET route answers HEAD too.',
        `Report formats: ${FORMATS.map((f) => `\`${f}\``).join(', ')}.`,
      ].join('\n\n'),
    },
    servers: [{ url: '/', description: 'This Worker.' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths: pathsOf(routes),
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A Read API key, as for `/api/v1`.' },
        oauth: {
          type: 'oauth2',
          description: 'OAuth 2.1 for `/mcp` (docs/mcp.md), when `OAUTH_KV` is bound: the authorization code with PKCE (S256), the person pasting their Read API key on the consent page; the access token stands for that key. Clients register themselves (`' + OAUTH_ENDPOINTS.register + '`, RFC 7591) and find all of it from `' + WELL_KNOWN.authorizationServer + '` (RFC 8414).',
          flows: { authorizationCode: { authorizationUrl: OAUTH_ENDPOINTS.authorize, tokenUrl: OAUTH_ENDPOINTS.token, refreshUrl: OAUTH_ENDPOINTS.token, scopes: { [READ_SCOPE]: 'Read, never change: what the key reads at `/api/v1`.' } } },
        },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The deployment\'s `ADMIN_TOKEN`.' },
      },
      schemas: {
        ...componentSchemas(schemaEntries.filter(([name]) => !INPUT_SCHEMAS.has(name))),
        ...componentSchemas(schemaEntries.filter(([name]) => INPUT_SCHEMAS.has(name)), 'input'),
      },
      headers: { 'X-Request-Id': RESPONSE_HEADERS['X-Request-Id'], 'Retry-After': { ...RESPONSE_HEADERS['Retry-After'], description: 'Seconds to wait before retrying.' } },
    },
  };
  documents.set(routes, document);
  return document;
}
