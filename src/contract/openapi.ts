/**
 * The OpenAPI 3.1 document, generated from the operations table: parameters,
 * response schemas, plan and integration needs, windows and cache TTLs. It is
 * never written by hand, so it cannot drift from what the API does. The
 * response headers are those the edge proxy (src/proxy/handler.ts) and the
 * reference origin (src/origin/handler.ts) send; `npm test` validates the
 * document (scripts/check-openapi.mjs, test/openapi.test.ts).
 */
import * as z from 'zod';
import { API_ERROR_STATUS, type ApiErrorCode } from './errors';
import { errorBodySchema } from './schemas/errors';
import { response } from './schemas/responses';
import { type AnyOperation, API_BASE, documentedErrors, type OperationId, operations, OPERATION_IDS } from './operations';
import type { Params } from './params';
import { paramJsonSchema } from './param-json-schema';
import { RATE_LIMIT, RATE_WINDOW_MS } from './rate-limit';
import { MAX_RANGE_DAYS } from './window';

export type JsonObject = Record<string, unknown>;

const componentName = (id: OperationId) => `${id[0]?.toUpperCase()}${id.slice(1)}Response`;

const isPipeIntoTransform = (schema: z.core.$ZodType): schema is z.core.$ZodPipe => schema._zod.def.type === 'pipe' && (schema as z.core.$ZodPipe)._zod.def.out._zod.def.type === 'transform';

/**
 * JSON Schema of one parameter, its description lifted to the parameter
 * itself. Every parameter is text on the wire; its schema says which text:
 * a parameter read as a number (`brand_id`, `limit`, `days`, ids) is an
 * `integer` with its bounds and default, which a client writes in decimal; a
 * parameter the API rewrites as it reads it (`market`, lower-cased) is the
 * text it accepts (the input of its `.transform()`, which JSON Schema cannot
 * say). A parameter without a `type` is a bug here, and throws.
 */
export function parameterSchema(field: z.ZodType): { schema: JsonObject; description?: string } {
  const json = z.toJSONSchema(field, {
    io: 'output',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if (!isPipeIntoTransform(zodSchema)) return;
      const { $schema: _, ...accepted } = z.toJSONSchema(zodSchema._zod.def.in, { io: 'input' }) as JsonObject;
      Object.assign(jsonSchema, accepted);
    },
  }) as JsonObject;
  const { $schema: _, description, ...schema } = json;
  if (typeof schema.type !== 'string') throw new Error(`a parameter has no JSON Schema type: ${JSON.stringify(json)}`);
  return { schema, ...(typeof description === 'string' ? { description } : {}) };
}

/** OpenAPI parameters for the fields of a parameter object (query or path), in order. */
export function parametersOf(where: 'path' | 'query', shape: Record<string, z.ZodType>, examples: Readonly<Record<string, string | number>> = {}): JsonObject[] {
  return Object.entries(shape).map(([name, field]) => ({
    name,
    in: where,
    // Optional and defaulted parameters accept "absent".
    required: where === 'path' || !field.safeParse(undefined).success,
    ...parameterSchema(field),
    ...(examples[name] !== undefined ? { example: examples[name] } : {}),
  }));
}

/** OpenAPI parameters for declared parameters (src/contract/params.ts), in order: their JSON Schema is written from the declaration. */
export function declaredParameters(where: 'path' | 'query', params: Params, examples: Readonly<Record<string, string | number>> = {}): JsonObject[] {
  return Object.entries(params).map(([name, param]) => ({
    name,
    in: where,
    required: where === 'path' || param.presence === 'required',
    schema: paramJsonSchema(param),
    description: param.description,
    ...(examples[name] !== undefined ? { example: examples[name] } : {}),
  }));
}

/** The parameters, each with the value the operation's example request gives it (if any) as its `example`. */
function parameters(op: AnyOperation): JsonObject[] {
  return [...declaredParameters('path', op.params.path, op.example.path), ...declaredParameters('query', op.params.query, op.example.query)];
}

const ref = (kind: 'schemas' | 'headers' | 'parameters' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const WINDOW_S = RATE_WINDOW_MS / 1000;

/**
 * The response headers, as `components.headers`. ETag, Age, Cache-Status and
 * X-Cache are the edge proxy's (the reference origin behind it sends neither);
 * the rate-limit fields and X-Request-Id are on every answer of both.
 */
export const RESPONSE_HEADERS = {
  ETag: {
    description:
      'The validator of the stored answer, computed by the edge proxy from the body (a strong tag, `"` + 32 hex digits + `"`). Send it in `If-None-Match` to get `304 Not Modified` while the stored answer is unchanged.',
    schema: { type: 'string' },
    example: '"3f2a9c0d1e8b4a7f9c2d5e6f7a8b9c0d"',
  },
  Age: {
    description: 'Seconds since the edge proxy stored this answer (0 when it was just read from the upstream).',
    schema: { type: 'integer', minimum: 0 },
  },
  'Cache-Control': {
    description: "On a 200 or 304: `private, max-age=N`, N the seconds the answer stays fresh (the operation's `x-cache-ttl-seconds` at most). On an error: `no-store`.",
    schema: { type: 'string' },
    example: 'private, max-age=300',
  },
  'Cache-Status': {
    description: [
      'How the edge proxy answered (RFC 9211): the cache\'s name, `"brand-ai-visibility-edge"`, then parameters.',
      "`hit`: answered from the cache, nothing sent upstream. `fwd=miss|stale|request|bypass`: sent upstream because nothing was stored, the stored answer was stale, the request asked for it (`Cache-Control: no-cache` or `max-age`), or the request said `no-store`; `fwd-status=N`: the upstream's status; `stored`: its answer was kept; `collapsed`: answered by another request's upstream read of the same URL.",
      "`ttl=N`: seconds the answer stays fresh (negative when a stale answer is served). `detail=refused`: refused at the edge without an upstream read (no key, invalid parameter, unknown path); `detail=over-budget`: the key's upstream budget is spent; `detail=slow-upstream`: the stored answer was served because the upstream was slow (it is refreshed in the background); `detail=timeout|network|invalid_body|too_large|redirect|circuit_open`: why the upstream read failed; `detail=local`: answered by the proxy itself (this document, a CORS preflight).",
      'Examples: `"brand-ai-visibility-edge"; hit; ttl=241`, `"brand-ai-visibility-edge"; fwd=miss; fwd-status=200; stored; ttl=300`, `"brand-ai-visibility-edge"; detail=refused`.',
    ].join('\n\n'),
    schema: { type: 'string' },
    example: '"brand-ai-visibility-edge"; hit; ttl=241',
  },
  'X-Cache': {
    description: 'The older one-word summary of `Cache-Status`, kept for existing clients.',
    schema: { type: 'string', enum: ['HIT', 'MISS', 'STALE', 'REVALIDATED', 'BYPASS'] },
  },
  'RateLimit-Policy': {
    description: `The request limit (draft-ietf-httpapi-ratelimit-headers): \`q\` requests per \`w\` seconds per key. Its name is \`"upstream"\` at the edge proxy (the key's budget at the service behind it), \`"api"\` at the reference origin, \`"address"\` when a client address's limit of requests with unverified keys refused the request.`,
    schema: { type: 'string' },
    example: `"upstream";q=${RATE_LIMIT};w=${WINDOW_S}`,
  },
  RateLimit: {
    description: 'What is left of that limit (draft-ietf-httpapi-ratelimit-headers): `r` requests remaining, `t` seconds until the window resets.',
    schema: { type: 'string' },
    example: `"upstream";r=57;t=42`,
  },
  'Retry-After': {
    description:
      "Seconds to wait before retrying: until the rate window (or the key's upstream budget at the edge proxy) frees a request (`rate_limited`), or until the first day of next month, UTC (`quota_exceeded`).",
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Content-Type-Options': {
    description: '`nosniff`, on every JSON answer: a browser reads the body as JSON and nothing else.',
    schema: { type: 'string', enum: ['nosniff'] },
  },
  'X-Request-Id': {
    description: "The request's id: the caller's own `X-Request-Id` when it is 1 to 128 letters, digits, `_`, `.`, `:` or `-`, else a new UUID. Quote it when reporting a problem.",
    schema: { type: 'string', pattern: '^[\\w.:-]{1,128}$' },
  },
} as const satisfies Record<string, JsonObject>;

type ResponseHeader = keyof typeof RESPONSE_HEADERS;
const headersOf = (names: readonly ResponseHeader[]) => Object.fromEntries(names.map((name) => [name, ref('headers', name)]));

const RATE_FIELDS = ['RateLimit', 'RateLimit-Policy'] as const satisfies readonly ResponseHeader[];
/** On a 200 and on a 304. */
const ANSWER_HEADERS = ['ETag', 'Age', 'Cache-Control', 'Cache-Status', 'X-Cache', ...RATE_FIELDS, 'X-Content-Type-Options', 'X-Request-Id'] as const satisfies readonly ResponseHeader[];
/** On every error. */
const ERROR_HEADERS = ['Cache-Control', 'Cache-Status', 'X-Cache', ...RATE_FIELDS, 'X-Content-Type-Options', 'X-Request-Id'] as const satisfies readonly ResponseHeader[];

/** The request headers every operation reads, as `components.parameters` (listed on each path). */
const REQUEST_HEADERS = {
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: "The `ETag` of an answer the client holds (or `*`). When the edge proxy's stored answer has that tag (weak comparison), the answer is `304 Not Modified` without a body.",
    schema: { type: 'string' },
  },
  CacheControl: {
    name: 'Cache-Control',
    in: 'header',
    required: false,
    description:
      'Request directives the edge proxy honours (RFC 9111): `no-cache` (revalidate upstream before answering), `max-age=N` (no stored answer older than N seconds; `max-age=0` is `no-cache`), `no-store` (neither read nor write the cache). Without `Cache-Control`, `Pragma: no-cache` counts as `no-cache`.',
    schema: { type: 'string' },
    example: 'no-cache',
  },
  XRequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description: "An id for this request, echoed in the answer's `X-Request-Id` and sent upstream; ignored (a new one is made) unless it is 1 to 128 letters, digits, `_`, `.`, `:` or `-`.",
    schema: { type: 'string', pattern: '^[\\w.:-]{1,128}$' },
  },
} as const satisfies Record<string, JsonObject>;

function errorResponses(codes: ApiErrorCode[]): JsonObject {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes) byStatus.set(API_ERROR_STATUS[code], [...(byStatus.get(API_ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        {
          description: list.map((c) => `\`${c}\``).join(', '),
          headers: headersOf(status === 429 ? [...ERROR_HEADERS, 'Retry-After'] : ERROR_HEADERS),
          content: { 'application/json': { schema: ref('schemas', 'Error') } },
        },
      ]),
  );
}

const windowText: Record<AnyOperation['window']['kind'], string> = {
  none: 'No time window.',
  fixed: 'Fixed window: the trailing 7 days; date parameters are refused.',
  dated: `Window: \`days\` (default 7) or \`from\`/\`to\`, at most ${MAX_RANGE_DAYS} days apart, \`to\` not after today.`,
  trailing: 'Window: `days` ending today.',
};

/**
 * What the table says of an operation besides its description, in words: its
 * window, then its plan and integration needs (when it has any). The OpenAPI
 * document and the MCP tools (src/mcp) append them to the description.
 */
export function operationNotes(op: Pick<AnyOperation, 'window' | 'plan' | 'integration'>): string[] {
  const needs = [op.plan === 'pro_or_growth' ? 'Pro and Growth plans only.' : '', op.integration ? `Needs the ${op.integration.replace('_', ' ')} integration (409 otherwise).` : '']
    .filter(Boolean)
    .join(' ');
  return [windowText[op.window.kind], needs].filter(Boolean);
}

function pathItem(id: OperationId): JsonObject {
  const op = operations[id] as unknown as AnyOperation;
  return {
    // Request headers of every operation, once per path (the operation's own list is its query and path parameters).
    parameters: Object.keys(REQUEST_HEADERS).map((name) => ref('parameters', name)),
    get: {
      operationId: id,
      tags: [op.tag],
      summary: op.summary,
      description: [op.description, ...operationNotes(op)].filter(Boolean).join('\n\n'),
      parameters: parameters(op),
      responses: {
        '200': { description: 'OK', headers: headersOf(ANSWER_HEADERS), content: { 'application/json': { schema: ref('schemas', componentName(id)) } } },
        '304': ref('responses', 'NotModified'),
        ...errorResponses(documentedErrors(op)),
      },
      'x-window': op.window,
      'x-plan': op.plan,
      ...(op.integration ? { 'x-integration': op.integration } : {}),
      'x-cache-ttl-seconds': op.ttl,
    },
  };
}

const SHARED_REF = /^#\/components\/schemas\/__shared#\/\$defs\/(.+)$/;

/**
 * Schemas as `components.schemas`, each under its registry id. What zod
 * extracts on its own (a schema with a `.meta({ id })` used by several
 * components: `MarketRef`, `Period`, `WeeklyPoint`) it files under one
 * `__shared` resource and points at with a second `#`
 * (`#/components/schemas/__shared#/$defs/MarketRef`), which is no JSON
 * Pointer of the document: those become components of their own, and their
 * references plain `#/components/schemas/<id>`.
 */
export function componentSchemas(entries: readonly (readonly [string, z.ZodType])[], io: 'input' | 'output' = 'output'): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of entries) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { io, unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
  const { __shared: shared, ...own } = schemas;
  const components: Record<string, JsonObject> = {};
  // Each component is a schema in the document, not a standalone JSON Schema resource.
  for (const [name, { $schema: _, $id: __, ...schema }] of Object.entries(own)) components[name] = schema;
  for (const [name, schema] of Object.entries((shared?.$defs ?? {}) as Record<string, JsonObject>)) {
    if (components[name]) throw new Error(`two schemas are named ${name} in components.schemas`);
    components[name] = schema;
  }
  return rewriteRefs(components, (target) => target.replace(SHARED_REF, (_, name: string) => `#/components/schemas/${name}`));
}

function rewriteRefs<T>(value: T, rewrite: (target: string) => string): T {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, rewrite)) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, key === '$ref' && typeof v === 'string' ? rewrite(v) : rewriteRefs(v, rewrite)])) as T;
}

/** What each tag of the table groups, for the document's reader. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Account: 'The brands and markets a key can read: where `brand_id` and `market` values come from.',
  Overview: 'The home view of one brand in one market.',
  Visibility: 'How often AI answers name the brand.',
  Topics: "The brand's visibility per tracked topic.",
  Answers: 'The tracked questions and what each engine answered.',
  Insights: 'Cited sources and pages, content coverage, competitors and activity.',
  Tasks: 'What to do next, best first.',
  Perception: 'What AI says about the brand, and forum signals.',
  Traffic: 'Search performance, AI crawlers and AI-referred visitors.',
};

let cached: JsonObject | undefined;

export function openApiDocument(): JsonObject {
  cached ??= {
    openapi: '3.1.0',
    info: {
      title: 'Brand AI-Visibility Read API',
      version: '1.0.0',
      description: [
        'How AI answer engines treat one brand. Every operation is a GET (HEAD too) for one brand and one market.',
        'Authenticate with `Authorization: Bearer <key>`. Checks run in this order: key (401), brand (400 `brand_required`, 404 `brand_not_found`), plan (403), parameters (400 `invalid_parameter`, strict: unknown parameters are refused), rate limit and monthly quota (429), integration (409), item lookup (404).',
        `${RATE_LIMIT} requests per rolling minute per key. Every response carries \`RateLimit\` and \`RateLimit-Policy\` (draft-ietf-httpapi-ratelimit-headers; the draft's older \`RateLimit-Limit\`, \`-Remaining\` and \`-Reset\` are not sent); a 429 carries \`Retry-After\`. Dates are UTC calendar days; percentages are 0 to 100 with one decimal, \`null\` when not measured.`,
        "Served through the edge proxy, answers are cached per key: `Cache-Status` says how each was answered, `ETag` and `If-None-Match` give `304 Not Modified`, `Cache-Control: no-cache` asks for a fresh read. The product's own routes (digest subscriptions, reports and report links, cache admin) are described in a document of their own, `GET /openapi.json`.",
      ].join('\n\n'),
    },
    servers: [{ url: API_BASE }],
    security: [{ bearer: [] }],
    tags: [...new Set(OPERATION_IDS.map((id) => operations[id].tag))].map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
    paths: Object.fromEntries(OPERATION_IDS.map((id) => [operations[id].path, pathItem(id)])),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'The API key.' } },
      schemas: componentSchemas([['Error', errorBodySchema()], ...OPERATION_IDS.map((id) => [componentName(id), response(id)] as const)]),
      headers: RESPONSE_HEADERS,
      parameters: REQUEST_HEADERS,
      responses: {
        NotModified: {
          description: "Not Modified: the edge proxy's stored answer has the `ETag` given in `If-None-Match`. No body; the headers of a 200.",
          headers: headersOf(ANSWER_HEADERS),
        },
      },
    },
  };
  return cached;
}
