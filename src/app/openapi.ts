/**
 * The OpenAPI 3.1 document of the product's own routes, beside the Read API's
 * (`/api/v1/openapi.json`, src/contract/openapi.ts): digest subscriptions,
 * reports and report links, export links, the admin, `/mcp` and its OAuth,
 * and the dev routes. Served at `GET /openapi.json` (routes.ts).
 *
 * Assembled, not written, here: each feature documents its own routes beside
 * them (`<feature>/openapi.ts`: each route's text and the schemas it
 * answers), in the words of src/contract/product-openapi.ts. Paths and
 * methods come from the route tables (`productOpenApiDocument` takes them). A
 * method of a route without its documentation, documentation of a route no
 * table has, or a schema named and not given, throws: the document cannot
 * miss a route or describe one that is gone.
 */
import type * as z from 'zod';
import { PRODUCT_OPENAPI } from '../contract/documents';
import { componentSchemas, type JsonObject, RESPONSE_HEADERS } from '../contract/openapi';
import { type FeatureDocs, KEY_UNCONFIRMED, ok, ProductError, type RouteDoc, type SameAs, TAGS } from '../contract/product-openapi';
import type { Method, Route } from '../lib/router';
import { alertDocs } from '../alerts/openapi';
import { digestDocs } from '../digests/openapi';
import { exportDocs } from '../exports/openapi';
import { outboxDocs } from '../mail/openapi';
import { mcpDocs } from '../mcp/openapi';
import { OAUTH_ENDPOINTS, READ_SCOPE, WELL_KNOWN } from '../mcp/oauth-paths';
import { adminDocs } from '../proxy/openapi';
import { reportDocs } from '../reports/openapi';
import { FORMATS } from '../reports/routes';
import { subscriptionDocs } from '../subscriptions/openapi';
import { upstreamCheckDocs } from './upstream-check-openapi';

/** A route as the document reads it: its path and methods (its handlers are not called). */
export type DocumentedRoute = Pick<Route<never>, 'path' | 'methods'>;

/** This document's own route. */
const documentDocs: FeatureDocs = {
  schemas: { Error: ProductError },
  routes: {
    [PRODUCT_OPENAPI]: {
      GET: {
        operationId: 'getProductOpenApi',
        tag: 'Documents',
        summary: 'Get this document',
        description: "The Read API's own document is `GET /api/v1/openapi.json`.",
        security: 'none',
        responses: { '200': ok('This document.', { 'application/json': { schema: { type: 'object' } } }) },
      },
    },
  },
};

/** Every feature's documentation: the document's schemas are theirs, in this order (a name given twice throws). */
const FEATURES: readonly FeatureDocs[] = [documentDocs, subscriptionDocs, reportDocs, exportDocs, adminDocs, upstreamCheckDocs, mcpDocs, digestDocs, alertDocs, outboxDocs];

/**
 * The components in the order the document has always listed them, so that
 * a client diffing it sees no change; a schema not named here follows, in the
 * order of `FEATURES`.
 */
const COMPONENT_ORDER = [
  'Error',
  'RecentlySent',
  'Subscription',
  'SubscribeResult',
  'SubscriptionList',
  'SubscribeBody',
  'ReportLink',
  'ReportLinkList',
  'LinkBody',
  'ExportLink',
  'ExportLinkList',
  'MintBody',
  'ExportRows',
  'SendAnswer',
  'WeeklyReport',
  'PurgeBody',
  'JsonRpcMessage',
  'JsonRpcError',
  'Purged',
  'CacheStats',
  'UpstreamMap',
  'UpstreamMapInput',
  'DiscoverBody',
  'DiscoveryReport',
  'CheckBody',
  'UpstreamCheck',
  'DevPlan',
  'DevAlerts',
  'OAuthError',
  'AuthorizationServerMetadata',
  'ProtectedResourceMetadata',
  'ClientMetadata',
  'RegisteredClient',
  'TokenAnswer',
];

type Component = readonly [string, z.ZodType];

/** The features' schemas, answers and request bodies apart (request bodies are described as the client writes them: defaulted fields optional). */
function componentsOf(features: readonly FeatureDocs[]): { outputs: Component[]; inputs: Component[] } {
  const all = new Map<string, { schema: z.ZodType; input: boolean }>();
  for (const feature of features) {
    for (const [input, schemas] of [
      [false, feature.schemas],
      [true, feature.inputs],
    ] as const) {
      for (const [name, schema] of Object.entries(schemas ?? {})) {
        if (all.has(name)) throw new Error(`the product's OpenAPI document has two schemas named ${name}`);
        all.set(name, { schema, input });
      }
    }
  }
  const rank = (name: string) => (COMPONENT_ORDER.includes(name) ? COMPONENT_ORDER.indexOf(name) : COMPONENT_ORDER.length);
  const ordered = [...all].sort(([a], [b]) => rank(a) - rank(b));
  const of = (input: boolean): Component[] => ordered.filter(([, c]) => c.input === input).map(([name, c]) => [name, c.schema]);
  return { outputs: of(false), inputs: of(true) };
}

const METHODS: readonly Method[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const SECURITY: Record<RouteDoc['security'], JsonObject[]> = { key: [{ apiKey: [] }], mcp: [{ apiKey: [] }, { oauth: [READ_SCOPE] }], admin: [{ adminToken: [] }], none: [] };

function operationOf(d: RouteDoc, method: Method): JsonObject {
  // A write with the key asks the upstream about it now (confirmedCaller, src/proxy/api.ts): each may answer 503.
  const writes = d.security === 'key' && method !== 'GET' && method !== 'HEAD';
  return {
    operationId: d.operationId,
    tags: [d.tag],
    summary: d.summary,
    ...(d.description ? { description: d.description } : {}),
    security: SECURITY[d.security],
    ...(d.parameters?.length ? { parameters: d.parameters } : {}),
    ...(d.requestBody ? { requestBody: d.requestBody } : {}),
    responses: writes ? { ...d.responses, '503': d.responses['503'] ?? KEY_UNCONFIRMED } : d.responses,
  };
}

const isSameAs = (doc: RouteDoc | SameAs): doc is SameAs => 'sameAs' in doc;

/** The paths of the routes, each method described by its feature; throws on a route without a description or a description without a route. */
function pathsOf(routes: readonly DocumentedRoute[], features: readonly FeatureDocs[]): JsonObject {
  const docs = new Map<string, RouteDoc | SameAs>();
  for (const feature of features)
    for (const [path, methods] of Object.entries(feature.routes))
      for (const [method, doc] of Object.entries(methods)) {
        if (docs.has(`${method} ${path}`)) throw new Error(`the product's OpenAPI document describes ${method} ${path} twice`);
        docs.set(`${method} ${path}`, doc);
      }
  const paths: Record<string, Record<string, JsonObject>> = {};
  const used = new Set<string>();
  const alsoAt: [string, string][] = [];
  for (const route of routes) {
    for (const method of METHODS.filter((m) => route.methods[m])) {
      const key = `${method} ${route.path}`;
      const doc = docs.get(key);
      if (!doc) throw new Error(`the product's OpenAPI document does not describe ${key} (the openapi.ts beside its route)`);
      used.add(key);
      if (isSameAs(doc)) alsoAt.push([key, `${method} ${doc.sameAs}`]);
      else (paths[route.path] ??= {})[method.toLowerCase()] = operationOf(doc, method);
    }
  }
  for (const [key, target] of alsoAt) {
    const [method = '', path = ''] = target.split(' ');
    const operation = paths[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`the product's OpenAPI document has no route ${target} for ${key}`);
    operation['x-also-at'] = [...((operation['x-also-at'] as string[] | undefined) ?? []), key.split(' ')[1]];
  }
  const gone = [...docs.keys()].filter((key) => !used.has(key));
  if (gone.length > 0) throw new Error(`the product's OpenAPI document describes routes no table has: ${gone.join(', ')}`);
  return paths;
}

/** Every `#/components/schemas/` name the document points at is one of its schemas. */
function checkRefs(value: unknown, schemas: JsonObject): void {
  if (Array.isArray(value)) return value.forEach((v) => checkRefs(v, schemas));
  if (value === null || typeof value !== 'object') return;
  for (const [key, v] of Object.entries(value)) {
    if (key === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/') && !Object.hasOwn(schemas, v.slice('#/components/schemas/'.length)))
      throw new Error(`the product's OpenAPI document names a schema it does not have: ${v}`);
    checkRefs(v, schemas);
  }
}

const documents = new WeakMap<readonly DocumentedRoute[], JsonObject>();

/** The document of the given route tables (one array: every route the Worker mounts beside /api/v1). */
export function productOpenApiDocument(routes: readonly DocumentedRoute[]): JsonObject {
  let document = documents.get(routes);
  if (document) return document;
  const { outputs, inputs } = componentsOf(FEATURES);
  document = {
    openapi: '3.1.0',
    info: {
      title: 'Brand AI-Visibility Edge: product routes',
      version: '1.0.0',
      description: [
        "The routes this Worker serves beside the Read API (`/api/v1`, described in `GET /api/v1/openapi.json`): weekly digest subscriptions, reports and signed report links, the edge cache's admin, `/mcp` and its OAuth, and the dev routes.",
        'JSON routes answer errors in the Read API\'s shape, `{"error": {"code", "message", "param"?}}`, with codes of their own: `recently_sent` (409) and `too_many_links` (409); a cap on confirmation mail is the API\'s `rate_limited` (429, with `Retry-After`). A route read with an API key reads the Read API through the edge cache with that key, and passes the API\'s refusals through (401, 403, 404, 429). Routes opened from an email (confirm, unsubscribe, report links) answer HTML pages. OAuth\'s token and registration endpoints answer OAuth\'s own errors (RFC 6749, `{"error", "error_description"}`). Every answer carries `X-Request-Id`; a GET route answers HEAD too.',
        `Report formats: ${FORMATS.map((f) => `\`${f}\``).join(', ')}.`,
      ].join('\n\n'),
    },
    servers: [{ url: '/', description: 'This Worker.' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths: pathsOf(routes, FEATURES),
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A Read API key, as for `/api/v1`.' },
        oauth: {
          type: 'oauth2',
          description:
            'OAuth 2.1 for `/mcp` (docs/mcp.md), when `OAUTH_KV` is bound: the authorization code with PKCE (S256), the person pasting their Read API key on the consent page; the access token stands for that key. Clients register themselves (`' +
            OAUTH_ENDPOINTS.register +
            '`, RFC 7591) and find all of it from `' +
            WELL_KNOWN.authorizationServer +
            '` (RFC 8414).',
          flows: {
            authorizationCode: {
              authorizationUrl: OAUTH_ENDPOINTS.authorize,
              tokenUrl: OAUTH_ENDPOINTS.token,
              refreshUrl: OAUTH_ENDPOINTS.token,
              scopes: { [READ_SCOPE]: 'Read, never change: what the key reads at `/api/v1`.' },
            },
          },
        },
        adminToken: { type: 'http', scheme: 'bearer', description: "The deployment's `ADMIN_TOKEN`." },
      },
      schemas: { ...componentSchemas(outputs), ...componentSchemas(inputs, 'input') },
      headers: { 'X-Request-Id': RESPONSE_HEADERS['X-Request-Id'], 'Retry-After': { ...RESPONSE_HEADERS['Retry-After'], description: 'Seconds to wait before retrying.' } },
    },
  };
  checkRefs(document, (document.components as { schemas: JsonObject }).schemas);
  documents.set(routes, document);
  return document;
}
