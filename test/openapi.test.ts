/**
 * The two OpenAPI documents, fetched through the Worker: the Read API's
 * (`GET /api/v1/openapi.json`) and the product routes' (`GET /openapi.json`).
 * Both are built at build time into the static assets (scripts/build-openapi.mjs)
 * and answered from them; scripts/check-openapi.mjs validates both with
 * swagger-parser before the tests; this file holds what they say to the tables
 * they are generated from and to what the proxy sends.
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import { allAdminRoutes, devRoutes, productRoutes } from '../src/app/routes';
import { API_BASE, operationList } from '../src/contract/operations';
import { API_DOCUMENT_ASSET, documentResponse, PRODUCT_DOCUMENT_ASSET } from '../src/contract/documents';
import { ApiError, PRODUCT_ERROR_STATUS } from '../src/contract/errors';
import { digestDevRoutes } from '../src/digests';
import type { Method } from '../src/lib/router';
import { mcpRoutes, oauthRoutes } from '../src/mcp';
import { adminRoutes } from '../src/proxy/admin';
import { reportRoutes } from '../src/reports';
import { subscriptionRoutes } from '../src/subscriptions';
import { api, KEYS, validPath } from './helpers';
import { restoreUpstream } from './proxy-upstream';

afterEach(() => restoreUpstream());

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  schema?: Json;
  $ref?: string;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  responses: Record<string, Json & { $ref?: string; headers?: Record<string, unknown> }>;
  'x-also-at'?: string[];
}
type PathItem = Partial<Record<'get' | 'head' | 'post' | 'put' | 'patch' | 'delete', Operation>> & { parameters?: Parameter[] };
interface Document {
  openapi: string;
  paths: Record<string, PathItem>;
  components: Json;
}

async function fetchDocument(path: string): Promise<{ doc: Document; text: string }> {
  const response = await SELF.fetch(`https://edge.test${path}`);
  expect(response.status, path).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const text = await response.text();
  return { doc: JSON.parse(text) as Document, text };
}

/** Every `$ref` of a value, with where it is. */
function refsOf(value: unknown, at = '#', found: { at: string; ref: string }[] = []) {
  if (Array.isArray(value)) value.forEach((v, i) => refsOf(v, `${at}/${i}`, found));
  else if (value && typeof value === 'object')
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') found.push({ at, ref: v });
      else refsOf(v, `${at}/${key}`, found);
    }
  return found;
}

/** The value a local `$ref` points at (RFC 6901), or undefined. */
function resolve(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!node || typeof node !== 'object' || !Object.hasOwn(node, token)) return undefined;
    node = (node as Json)[token];
  }
  return node;
}

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const;
const operationsOf = (doc: Document) => Object.values(doc.paths).flatMap((item) => METHODS.flatMap((m) => (item[m] ? [item[m]] : [])));

/** Every parameter of the document, `$ref`s resolved, with the operation (or path) it belongs to. */
function parametersOf(doc: Document): { where: string; parameter: Parameter }[] {
  const resolved = (p: Parameter) => (p.$ref ? (resolve(doc, p.$ref) as Parameter) : p);
  return Object.entries(doc.paths).flatMap(([path, item]) => [
    ...(item.parameters ?? []).map((p) => ({ where: path, parameter: resolved(p) })),
    ...METHODS.flatMap((m) => (item[m]?.parameters ?? []).map((p) => ({ where: `${m.toUpperCase()} ${path}`, parameter: resolved(p) }))),
  ]);
}

/** What both documents must be: one `#` per reference, every reference resolving, every parameter with a schema that has a type. */
function expectWellFormed(doc: Document) {
  expect(doc.openapi).toBe('3.1.0');
  const refs = refsOf(doc);
  expect(refs.length).toBeGreaterThan(0);
  expect(refs.filter(({ ref }) => ref.split('#').length !== 2)).toEqual([]);
  expect(refs.filter(({ ref }) => resolve(doc, ref) === undefined)).toEqual([]);
  const parameters = parametersOf(doc);
  expect(parameters.length).toBeGreaterThan(0);
  const untyped = parameters.filter(({ parameter }) => !parameter?.schema || Object.keys(parameter.schema).length === 0 || typeof parameter.schema.type !== 'string');
  expect(untyped).toEqual([]);
  const ids = operationsOf(doc).map((o) => o.operationId);
  expect(new Set(ids).size).toBe(ids.length);
}

describe('GET /api/v1/openapi.json', () => {
  it('is well formed: no $ref with two #, every $ref resolves, every parameter has a schema', async () => {
    const { doc } = await fetchDocument(`${API_BASE}/openapi.json`);
    expectWellFormed(doc);
    for (const name of ['MarketRef', 'Period', 'WeeklyPoint', 'Error']) expect(resolve(doc, `#/components/schemas/${name}`), name).toBeDefined();
  });

  it('is the document the embedded origin serves too', async () => {
    const viaProxy = await fetchDocument(`${API_BASE}/openapi.json`);
    const direct = await fetchDocument(`/origin${API_BASE}/openapi.json`);
    expect(direct.text).toBe(viaProxy.text);
  });

  it('has every path of the contract table, with `market` and `brand_id` described as they are written', async () => {
    const { doc } = await fetchDocument(`${API_BASE}/openapi.json`);
    expect(Object.keys(doc.paths).sort()).toEqual(operationList.map((o) => o.path).sort());
    for (const o of operationList) {
      const parameters = doc.paths[o.path]!.get!.parameters!;
      const market = parameters.find((p) => p.name === 'market');
      const brandId = parameters.find((p) => p.name === 'brand_id');
      if (o.scope === 'brand') {
        expect(market?.schema, o.id).toMatchObject({ type: 'string' });
        const pattern = new RegExp(market!.schema!.pattern as string);
        for (const good of ['us', 'DE', 'ch-fr', '11']) expect(pattern.test(good), good).toBe(true);
        for (const bad of ['', 'usa', 'ch_fr', 'us-', '1.5']) expect(pattern.test(bad), bad).toBe(false);
      } else expect(market).toBeUndefined();
      if (o.scope !== 'account') expect(brandId?.schema, o.id).toMatchObject({ type: 'integer', minimum: 1 });
    }
  });

  it("documents the headers of every answer, the 304 and the 429's Retry-After", async () => {
    const { doc } = await fetchDocument(`${API_BASE}/openapi.json`);
    const headersOf = (response: { $ref?: string; headers?: Record<string, unknown> }) =>
      Object.keys(((response.$ref ? resolve(doc, response.$ref) : response) as { headers?: Record<string, unknown> }).headers ?? {});
    for (const o of operationList) {
      const { responses } = doc.paths[o.path]!.get!;
      const answer = ['ETag', 'Age', 'Cache-Control', 'Cache-Status', 'RateLimit', 'RateLimit-Policy', 'X-Request-Id'];
      expect(headersOf(responses['200']!), o.id).toEqual(expect.arrayContaining(answer));
      expect(responses['304'], o.id).toBeDefined();
      expect(headersOf(responses['304']!), o.id).toEqual(expect.arrayContaining(answer));
      expect(headersOf(responses['429']!), o.id).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit', 'X-Request-Id']));
      const pathParameters = (doc.paths[o.path]!.parameters ?? []).map((p) => (resolve(doc, p.$ref!) as Parameter).name);
      expect(pathParameters).toEqual(expect.arrayContaining(['If-None-Match', 'Cache-Control']));
    }
    // The one older name still sent says so; the draft's older limit fields are gone.
    expect((resolve(doc, '#/components/headers/X-Cache') as { description: string }).description).toContain('kept for existing clients');
    expect(Object.keys(doc.components.headers as Json)).not.toContain('RateLimit-Remaining');
  });

  it('documents every header the proxy sends on a 200 and a 304', async () => {
    const { doc } = await fetchDocument(`${API_BASE}/openapi.json`);
    const documented = Object.keys(doc.components.headers as Json).map((name) => name.toLowerCase());
    const path = validPath('getVisibility');
    const ok = await api(path, { key: KEYS.pro, base: API_BASE, headers: { 'cache-control': 'no-cache' } });
    expect(ok.status).toBe(200);
    const undocumented = (response: Response) => [...response.headers.keys()].filter((name) => !['content-type', 'content-length', 'vary'].includes(name) && !documented.includes(name));
    expect(undocumented(ok)).toEqual([]);
    for (const name of ['etag', 'age', 'cache-status', 'ratelimit', 'ratelimit-policy', 'x-request-id']) expect(ok.headers.has(name), name).toBe(true);
    const notModified = await api(path, { key: KEYS.pro, base: API_BASE, headers: { 'if-none-match': ok.headers.get('etag')! } });
    expect(notModified.status).toBe(304);
    expect(undocumented(notModified)).toEqual([]);
  });

  it('never names a product code', async () => {
    const { text } = await fetchDocument(`${API_BASE}/openapi.json`);
    for (const code of Object.keys(PRODUCT_ERROR_STATUS)) expect(text).not.toContain(code);
    expect(text).not.toContain('recently_sent');
  });
});

describe('GET /openapi.json', () => {
  it('is well formed: no $ref with two #, every $ref resolves, every parameter has a schema', async () => {
    const { doc } = await fetchDocument('/openapi.json');
    expectWellFormed(doc);
  });

  it('has every route of the product route tables, each method', async () => {
    const { doc } = await fetchDocument('/openapi.json');
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, item]) => METHODS.flatMap((m) => (item[m] ? [path, ...(item[m]['x-also-at'] ?? [])].map((p) => `${m.toUpperCase()} ${p}`) : []))),
    );
    const tables = [subscriptionRoutes, reportRoutes, digestDevRoutes, adminRoutes, allAdminRoutes, productRoutes, devRoutes, mcpRoutes, oauthRoutes];
    const routes = tables.flatMap((table) => table.flatMap((route) => (Object.keys(route.methods) as Method[]).map((method) => `${method} ${route.path}`)));
    expect(routes.length).toBeGreaterThan(15);
    expect(routes.filter((route) => !documented.has(route))).toEqual([]);
    // And nothing else: the document is built from the tables.
    expect([...documented].filter((route) => !routes.includes(route))).toEqual([]);
  });

  it('lists the OAuth endpoints of /mcp with the methods each answers, saying they need OAUTH_KV', async () => {
    const { doc } = await fetchDocument('/openapi.json');
    const oauth = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => (item[m] as { tags?: string[] } | undefined)?.tags?.includes('MCP OAuth')).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(oauth.sort()).toEqual(
      [
        'GET /.well-known/oauth-authorization-server',
        'GET /.well-known/oauth-protected-resource',
        'GET /.well-known/oauth-protected-resource/mcp',
        'POST /oauth/register',
        'POST /oauth/token',
        'GET /oauth/authorize',
        'POST /oauth/authorize',
      ].sort(),
    );
    for (const route of oauth) {
      const [method, path] = route.split(' ') as [string, string];
      const operation = doc.paths[path]![method.toLowerCase() as 'get'] as unknown as { description: string; responses: Record<string, { content?: Json }> };
      expect(operation.description, route).toContain('Only when `OAUTH_KV` is bound');
      expect(operation.responses['404'], route).toBeDefined();
    }
    const token = doc.paths['/oauth/token']!.post as unknown as { description: string; requestBody: { content: Json } };
    expect(Object.keys(token.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(token.description).toMatch(/RFC 7009/);
    expect(Object.keys(doc.paths['/oauth/authorize']!.get!.responses['200']!.content!)).toEqual(['text/html']);
    // /mcp takes the key or an OAuth token, whose flow names these endpoints and the one scope.
    expect((doc.paths['/mcp']!.post as unknown as { security: Json[] }).security).toEqual([{ apiKey: [] }, { oauth: ['read'] }]);
    expect((doc.components.securitySchemes as Json).oauth).toMatchObject({
      type: 'oauth2',
      flows: { authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', refreshUrl: '/oauth/token', scopes: { read: expect.any(String) } } },
    });
  });

  it('tags each group, with a key, the admin token or no auth per route', async () => {
    const { doc } = await fetchDocument('/openapi.json');
    const post = (path: string) => doc.paths[path]!.post as unknown as { tags: string[]; security: Json[] };
    expect(post('/digests/subscriptions')).toMatchObject({ tags: ['Subscriptions'], security: [{ apiKey: [] }] });
    expect(post('/reports/links')).toMatchObject({ tags: ['Report links'], security: [{ apiKey: [] }] });
    expect(post('/admin/cache/purge')).toMatchObject({ tags: ['Cache admin'], security: [{ adminToken: [] }] });
    expect(post('/digests/unsubscribe')).toMatchObject({ security: [] });
  });

  it("describes the request bodies from the routes' own schemas and names `recently_sent`", async () => {
    const { doc, text } = await fetchDocument('/openapi.json');
    const schema = (name: string) => resolve(doc, `#/components/schemas/${name}`) as { properties: Json; required?: string[] };
    expect(Object.keys(schema('SubscribeBody').properties).sort()).toEqual(['brand_id', 'channel', 'email', 'kinds', 'market', 'quiet_hours', 'timezone']);
    expect(schema('SubscribeBody').required).toEqual(['email']);
    expect(Object.keys(schema('LinkBody').properties).sort()).toEqual(['brand_id', 'expires_in_days', 'kind', 'market']);
    expect(text).toContain('recently_sent');
    const send = doc.paths['/reports/weekly/send']!.post!;
    expect(send.responses['409']!.headers).toHaveProperty('Retry-After');
  });
});

describe('both documents, from the build', () => {
  it('are the built assets byte for byte, JSON, cached 5 minutes, with the request id; HEAD answers too', async () => {
    for (const [path, asset] of [
      [`${API_BASE}/openapi.json`, API_DOCUMENT_ASSET],
      ['/openapi.json', PRODUCT_DOCUMENT_ASSET],
    ] as const) {
      const built = await (await env.ASSETS.fetch(`https://assets.invalid${asset}`)).text();
      const response = await SELF.fetch(`https://edge.test${path}`, { headers: { 'x-request-id': 'req-openapi' } });
      expect([path, response.status]).toEqual([path, 200]);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('public, max-age=300');
      expect(response.headers.get('x-request-id')).toBe('req-openapi');
      expect(await response.text()).toBe(built);
      const head = await SELF.fetch(`https://edge.test${path}`, { method: 'HEAD' });
      expect([path, head.status, head.headers.get('content-type')]).toEqual([path, 200, 'application/json; charset=utf-8']);
      await head.body?.cancel();
    }
    // The API's, answered by the edge itself, says so as its reads do.
    expect((await SELF.fetch(`https://edge.test${API_BASE}/openapi.json`)).headers.get('cache-status')).toContain('detail=local');
  });

  it("without the built document or the binding: the API's error, 500, never a stack", async () => {
    const missing = { fetch: async () => new Response('not found', { status: 404 }) } as unknown as Fetcher;
    for (const assets of [missing, undefined]) {
      const error = await documentResponse(assets, '/openapi/not-built.json').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'internal_error', status: 500 });
    }
  });
});
