/**
 * The OpenAPI 3.1 document, generated from the operations table: parameters,
 * response schemas, plan and integration needs, windows and cache TTLs. It is
 * never written by hand, so it cannot drift from what the API does.
 */
import { z } from 'zod';
import { API_ERROR_STATUS, type ApiErrorCode, ErrorBody } from './errors';
import { type AnyOperation, API_BASE, documentedErrors, type OperationId, operations, OPERATION_IDS } from './operations';
import { MAX_RANGE_DAYS } from './window';

type JsonObject = Record<string, unknown>;

const componentName = (id: OperationId) => `${id[0]?.toUpperCase()}${id.slice(1)}Response`;

/** JSON Schema of one parameter, its description lifted to the parameter itself. */
function parameterSchema(field: z.ZodType): { schema: JsonObject; description?: string } {
  const { $schema: _, description, ...schema } = z.toJSONSchema(field, { io: 'output', unrepresentable: 'any' }) as JsonObject;
  return { schema, description: description as string | undefined };
}

/** The parameters, each with the value the operation's example request gives it (if any) as its `example`. */
function parameters(op: AnyOperation): JsonObject[] {
  const list = (where: 'path' | 'query', shape: Record<string, z.ZodType>, examples: Readonly<Record<string, string | number>> = {}) =>
    Object.entries(shape).map(([name, field]) => ({
      name,
      in: where,
      // Optional and defaulted parameters accept "absent".
      required: where === 'path' || !field.safeParse(undefined).success,
      ...parameterSchema(field),
      ...(examples[name] !== undefined ? { example: examples[name] } : {}),
    }));
  return [...list('path', op.pathParams.shape, op.example.path), ...list('query', op.query.shape, op.example.query)];
}

function errorResponses(codes: ApiErrorCode[]): JsonObject {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes) byStatus.set(API_ERROR_STATUS[code], [...(byStatus.get(API_ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [
      String(status),
      { description: list.map((c) => `\`${c}\``).join(', '), content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    ]),
  );
}

const windowText: Record<AnyOperation['window']['kind'], string> = {
  none: 'No time window.',
  fixed: 'Fixed window: the trailing 7 days; date parameters are refused.',
  dated: `Window: \`days\` (default 7) or \`from\`/\`to\`, at most ${MAX_RANGE_DAYS} days apart, \`to\` not after today.`,
  trailing: 'Window: `days` ending today.',
};

function pathItem(id: OperationId): JsonObject {
  const op = operations[id] as unknown as AnyOperation;
  const needs = [op.plan === 'pro_or_growth' ? 'Pro and Growth plans only.' : '', op.integration ? `Needs the ${op.integration.replace('_', ' ')} integration (409 otherwise).` : '']
    .filter(Boolean)
    .join(' ');
  return {
    get: {
      operationId: id,
      tags: [op.tag],
      summary: op.summary,
      description: [op.description, windowText[op.window.kind], needs].filter(Boolean).join('\n\n'),
      parameters: parameters(op),
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: { $ref: `#/components/schemas/${componentName(id)}` } } } },
        ...errorResponses(documentedErrors(op)),
      },
      'x-window': op.window,
      'x-plan': op.plan,
      ...(op.integration ? { 'x-integration': op.integration } : {}),
      'x-cache-ttl-seconds': op.ttl,
    },
  };
}

function componentSchemas(): JsonObject {
  const registry = z.registry<{ id: string }>();
  registry.add(ErrorBody, { id: 'Error' });
  for (const id of OPERATION_IDS) registry.add(operations[id].response, { id: componentName(id) });
  const { schemas } = z.toJSONSchema(registry, { io: 'output', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
  // Each component is a schema in the document, not a standalone JSON Schema resource.
  return Object.fromEntries(Object.entries(schemas).map(([name, { $schema: _, $id: __, ...schema }]) => [name, schema]));
}

let cached: JsonObject | undefined;

export function openApiDocument(): JsonObject {
  cached ??= {
    openapi: '3.1.0',
    info: {
      title: 'Brand AI-Visibility Read API',
      version: '1.0.0',
      description: [
        'How AI answer engines treat one brand. Every operation is a GET for one brand and one market.',
        'Authenticate with `Authorization: Bearer <key>`. Checks run in this order: key (401), brand (400 `brand_required`, 404 `brand_not_found`), plan (403), parameters (400 `invalid_parameter`, strict: unknown parameters are refused), rate limit and monthly quota (429), integration (409), item lookup (404).',
        '60 requests per rolling minute per key; `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` on every response; `Retry-After` on 429. Dates are UTC calendar days; percentages are 0 to 100 with one decimal, `null` when not measured.',
      ].join('\n\n'),
    },
    servers: [{ url: API_BASE }],
    security: [{ bearer: [] }],
    paths: Object.fromEntries(OPERATION_IDS.map((id) => [operations[id].path, pathItem(id)])),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'The API key.' } },
      schemas: componentSchemas(),
    },
  };
  return cached;
}
