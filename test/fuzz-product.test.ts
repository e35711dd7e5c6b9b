/**
 * Property-based fuzzing (fast-check, fixed seeds, bounded runs) of every
 * product route beside /api/v1: the routes are read from the route tables the
 * Worker mounts (src/app/routes.ts `productRoutes` and `devRoutes`, and the
 * admin's `allAdminRoutes`: the proxy's and the compatibility check), so a feature's routes join this test when its
 * table joins them (exports, once it exists). `/mcp` is not one of them: it
 * answers bad input with the MCP SDK's JSON-RPC errors, not the API's error
 * shape; test/mcp.test.ts holds it to never answering a 500.
 *
 * Generated: methods (the route's own and others), path parameters (`%`,
 * `%ZZ`, cut UTF-8 like `%E0%A4%A`, very long, unicode, real ids and signed
 * tokens), query strings (the routes' parameter names and others, raw broken
 * escapes), headers (Authorization with the demo keys, the admin token,
 * garbage or none; Content-Type variants; Content-Length lies; request ids)
 * and bodies (valid-ish JSON, broken JSON, huge, arrays, wrong types, forms,
 * bytes).
 *
 * The oracle: never a 5xx (the upstream is the embedded origin, which is up:
 * no 502 is due) but a write's 503 `key_unconfirmed` with Retry-After once
 * the fuzz has spent a demo key's budget, never a stack trace; every answer has X-Request-Id; a JSON
 * route answers its 4xx in the API's error shape (`{"error": {"code",
 * "message"}}`, a code of the API's or the product's own); a page route
 * answers text/html (a JSON error only where `format=` asked for JSON or
 * text); a 405 names its Allow, a 429 its Retry-After.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allAdminRoutes, productRoutes, devRoutes } from '../src/app/routes';
import { API_ERROR_STATUS, PRODUCT_ERROR_STATUS } from '../src/contract/errors';
import { digestDevRoutes } from '../src/digests';
import { prefersHtml } from '../src/lib/http';
import { matchRoute, type Method, type Route } from '../src/lib/router';
import { OUTBOX_BASE } from '../src/mail/outbox';
import { ADMIN_BASE, adminRoutes, UPSTREAM_ADMIN_BASE } from '../src/proxy/admin';
import { reportRoutes } from '../src/reports';
import { mintReportLink } from '../src/reports/links';
import { confirmUrl, reportUrl, subscriptionRoutes, unsubscribeUrl } from '../src/subscriptions';
import { resubscribeUrl } from '../src/subscriptions/links';
import { clearDigests, FakeQueue, seedSubscriptions } from './digests-helpers';
import { KEYS } from './helpers';
import { clearReports } from './reports-helpers';
import worker from './worker';

export const FUZZ_SEED = 20261207;
/** Requests per chunk; the run is `CHUNKS` chunks, each with fresh rate budgets (test/setup.ts resets them per test). */
export const FUZZ_RUNS = Number(globalThis.process?.env?.FUZZ_RUNS ?? 500);
const CHUNKS = 4;

// ---------------------------------------------------------------------------
// The routes, from the tables

type AnyRoute = Route<never>;
/** Where the Worker looks them up (src/app/worker.ts): the admin's own table under /admin/cache and /admin/upstream, the product's (and the dev routes, mounted with the dev outbox) elsewhere. */
const PRODUCT: AnyRoute[] = [...productRoutes, ...devRoutes] as unknown as AnyRoute[];
const ADMIN: AnyRoute[] = allAdminRoutes as unknown as AnyRoute[];
const ROUTES: AnyRoute[] = [...PRODUCT, ...ADMIN];

const METHODS: Method[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const OTHER_METHODS = [...METHODS, 'OPTIONS'] as const;
const routeMethods = (route: AnyRoute) => Object.keys(route.methods) as Method[];

describe('the routes fuzzed', () => {
  it("are every route of the tables: subscriptions, reports and links, the digests' and the outbox's dev routes, the cache admin", () => {
    const paths = new Set(ROUTES.map((r) => r.path));
    for (const table of [subscriptionRoutes, reportRoutes, digestDevRoutes, adminRoutes] as unknown as AnyRoute[][]) for (const route of table) expect(paths).toContain(route.path);
    for (const path of [OUTBOX_BASE, `${OUTBOX_BASE}/{id}`, '/reports/links', '/reports/links/{id}', '/r/{token}', '/digests/confirm', '/digests/unsubscribe']) expect(paths).toContain(path);
  });
});

// ---------------------------------------------------------------------------
// Generators

/** Stand-ins for values known only once the storage is seeded (beforeAll): real ids and signed tokens. */
const LIVE = ['$confirm', '$unsubscribe', '$resubscribe', '$report', '$subreport', '$link', '$sub', '$outbox'] as const;
type Live = (typeof LIVE)[number];
const live: Partial<Record<Live, string>> = {};

const nasty = fc.oneof(
  { arbitrary: fc.constantFrom(...LIVE), weight: 3 },
  {
    arbitrary: fc.constantFrom(
      '%',
      '%%',
      '%ZZ',
      '%E0%A4%A',
      '%C3%28',
      '%00',
      '%2F',
      '%2e%2e',
      '..',
      '.',
      '-1',
      '0',
      '1',
      '7',
      '99999999999999999999',
      'null',
      '[]',
      '{}',
      "' OR 1=1 --",
      '<script>alert(1)</script>',
      'rl_abc',
      'sub_abc',
      'v1.e30.x',
      'v1..',
      'ü',
      '🙂',
      '\u202e',
      'a b',
      'a/b',
      'a?b',
      'a#b',
    ),
    weight: 4,
  },
  { arbitrary: fc.string({ maxLength: 20 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 10 }), weight: 1 },
  { arbitrary: fc.constantFrom(3000, 9000).map((n) => 'x'.repeat(n)), weight: 1 },
);

/** `arbitrary`, or null one time in `nullEvery`. */
const maybe = <T>(arbitrary: fc.Arbitrary<T>, nullEvery: number) => fc.oneof({ arbitrary: fc.constant(null), weight: 1 }, { arbitrary, weight: nullEvery - 1 });
/** null, or `arbitrary` one time in `every`. */
const seldom = <T>(arbitrary: fc.Arbitrary<T>, every: number) => fc.oneof({ arbitrary: fc.constant(null), weight: every - 1 }, { arbitrary, weight: 1 });

const paramNames = fc.oneof(fc.constantFrom('token', 'format', 'brand_id', 'market', 'at', 'to', 'limit', 'kind', 'id', 'expires_in_days', 'List-Unsubscribe'), fc.string({ maxLength: 10 }));
const formats = fc.constantFrom('html', 'json', 'text', 'pdf', '', 'JSON');

const query = fc.record({
  pairs: fc.array(fc.tuple(paramNames, fc.oneof(nasty, formats)), { maxLength: 4 }),
  /** Appended as written, escapes broken or not. */
  raw: fc.constantFrom('', '', '', '&%ZZ', '%E0%A4%A', '=&=', '&format', '?', '%', '&&', '#frag', '&token=%ZZ'),
});

const DEMO_KEYS = [KEYS.pro, KEYS.growth, KEYS.starter, KEYS.inactive, KEYS.revoked];
const authorization = maybe(
  fc.oneof(
    { arbitrary: fc.constantFrom(...DEMO_KEYS).map((k) => `Bearer ${k}`), weight: 6 },
    { arbitrary: fc.constant(`Bearer ${env.ADMIN_TOKEN}`), weight: 2 },
    {
      arbitrary: fc.constantFrom('Bearer ', 'Bearer', 'bearer demo_pro_single', 'Basic ZGVtbzpwdw==', `Bearer ${'x'.repeat(300)}`, 'Bearer demo_pro_single extra', 'Bearer\tdemo_pro_single'),
      weight: 2,
    },
    { arbitrary: fc.string({ maxLength: 40 }).map((s) => `Bearer ${s}`), weight: 1 },
    { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
  ),
  5,
);

const contentType = maybe(
  fc.oneof(
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json;',
      'application/jsonx',
      'application/json ; x=y',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'text/html',
      '',
    ),
    fc.string({ maxLength: 30 }),
  ),
  4,
);

/** Declared lengths that are true only by chance. */
const contentLength = seldom(fc.constantFrom('0', '1', '3', '-1', '1e3', 'abc', '1024', '1025', '4096', '99999999999999999999', ' 10', '10, 10'), 4);

const VALID_BODIES = [
  { market: 'us' },
  { brand_id: 2, market: 'us' },
  { brand_id: 1, market: 'us', kind: 'weekly', expires_in_days: 90 },
  { email: 'fuzz@example.com', brand_id: 1, market: 'us' },
  { email: 'Fuzz+2@example.com', kinds: ['won_lost'], timezone: 'Europe/Berlin' },
  { all: true },
  { brand_id: 1 },
  { api_key: 'demo_pro_single' },
];

const jsonText = (value: unknown) => JSON.stringify(value);
const wrongTypes = fc.record(
  {
    brand_id: fc.jsonValue({ maxDepth: 1 }),
    market: fc.jsonValue({ maxDepth: 1 }),
    email: fc.jsonValue({ maxDepth: 1 }),
    kind: fc.jsonValue({ maxDepth: 1 }),
    kinds: fc.jsonValue({ maxDepth: 1 }),
    expires_in_days: fc.oneof(fc.double(), fc.integer(), fc.string()),
    timezone: fc.oneof(fc.string(), fc.constantFrom('UTC', 'Mars/Olympus', 'Etc/GMT+99')),
    all: fc.jsonValue({ maxDepth: 1 }),
    api_key: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);

const body = fc.oneof(
  { arbitrary: fc.constant<string | Uint8Array | null>(null), weight: 3 },
  { arbitrary: fc.constantFrom(...VALID_BODIES).map(jsonText), weight: 4 },
  { arbitrary: wrongTypes.map(jsonText), weight: 3 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }).map(jsonText), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      '{',
      '{"market":',
      '[1,',
      'nul',
      '\u0000',
      '{"a":1}}',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{}}}',
      '"just a string"',
      '1e999',
      '[]',
      '[{}]',
      'List-Unsubscribe=One-Click',
      'List-Unsubscribe=Other',
    ),
    weight: 3,
  },
  { arbitrary: fc.string({ maxLength: 60 }), weight: 1 },
  { arbitrary: fc.constantFrom(2_000, 100_000, 1_500_000).map((n) => jsonText({ market: 'us', pad: 'x'.repeat(n) })), weight: 1 },
  { arbitrary: fc.array(fc.constant({ market: 'us' }), { minLength: 1, maxLength: 3000 }).map(jsonText), weight: 1 },
  { arbitrary: fc.uint8Array({ maxLength: 64 }), weight: 1 },
);

const headerValue = fc.oneof(fc.string({ maxLength: 60 }), fc.constant('x'.repeat(2000)));

const anything = fc.record({
  route: fc.nat({ max: ROUTES.length - 1 }),
  ownMethod: fc.boolean(),
  methodPick: fc.nat(),
  otherMethod: fc.constantFrom(...OTHER_METHODS),
  /** Path parameters: percent-encoded (as a client would) or written raw (`%ZZ` stays `%ZZ`). */
  param: nasty,
  encodeParam: fc.boolean(),
  suffix: fc.oneof({ arbitrary: fc.constant(''), weight: 17 }, { arbitrary: fc.constantFrom('/', '/x', '%2F', '//', '.json', '/..'), weight: 3 }),
  /** Now and then a path under a product prefix that names no route. */
  stray: seldom(fc.tuple(fc.constantFrom('/digests', '/reports', '/r', '/dev', '/admin/cache', '/admin/upstream', '/x', '/mcp', '/exports'), fc.string({ maxLength: 20 })), 12),
  query,
  authorization,
  contentType,
  contentLength,
  requestId: seldom(headerValue, 4),
  accept: seldom(fc.constantFrom('application/json', 'text/html', '*/*', 'text/csv'), 4),
  body,
});

type Preset = { queries?: [string, string][][]; bodies?: [string, string][]; params?: string[]; keys?: string[] };
const json = (...bodies: unknown[]): [string, string][] => bodies.map((b) => ['application/json', jsonText(b)]);
const ADMIN_KEY = [env.ADMIN_TOKEN];

/**
 * What a client of each route sends, by `METHOD path`: the queries, bodies,
 * ids and keys that get past its checks. A route missing here (a new table's)
 * gets any of them, and is still fuzzed by `anything`.
 */
const PRESETS: Record<string, Preset> = {
  'POST /digests/subscriptions': {
    bodies: json(
      { email: 'fuzz@example.com', brand_id: 1, market: 'us' },
      { email: 'Fuzz+2@example.com', kinds: ['won_lost'], timezone: 'Europe/Berlin' },
      { email: 'fuzz3@example.com', brand_id: 2 },
    ),
  },
  'DELETE /digests/subscriptions/{id}': { params: ['$sub', 'sub_abc'] },
  'GET /digests/confirm': { queries: [[['token', '$confirm']]] },
  'GET /digests/unsubscribe': { queries: [[['token', '$unsubscribe']]] },
  'POST /digests/unsubscribe': { queries: [[['token', '$unsubscribe']]], bodies: [['application/x-www-form-urlencoded', 'List-Unsubscribe=One-Click']] },
  'GET /digests/resubscribe': { queries: [[['token', '$resubscribe']]] },
  'POST /digests/resubscribe': { queries: [[['token', '$resubscribe']]] },
  'GET /reports/weekly': {
    queries: [
      [['market', 'us']],
      [
        ['brand_id', '1'],
        ['market', 'us'],
        ['format', 'json'],
      ],
      [
        ['brand_id', '2'],
        ['market', 'us'],
        ['format', 'text'],
      ],
      [
        ['brand_id', '1'],
        ['market', 'de'],
      ],
    ],
  },
  'POST /reports/links': { bodies: json({ market: 'us' }, {}, { brand_id: 2, market: 'us', expires_in_days: 1 }, { brand_id: 1, kind: 'weekly', expires_in_days: 90 }) },
  'DELETE /reports/links/{id}': { params: ['$link', 'rl_abc'] },
  'POST /reports/weekly/send': {
    queries: [
      [
        ['brand_id', '1'],
        ['market', 'us'],
      ],
      [['market', 'us']],
    ],
  },
  'GET /r/{token}': { params: ['$report', '$subreport'], queries: [[], [['format', 'json']], [['format', 'text']]] },
  'POST /dev/digests/plan': { queries: [[], [['at', '2026-11-23T08:00:00Z']], [['at', '2026-11-23T07:00:00-05:00']]] },
  'POST /dev/alerts/run': { queries: [[], [['at', '2026-11-23T07:00:00Z']]] },
  'GET /dev/outbox': {
    queries: [
      [],
      [
        ['to', 'fuzz-active@example.com'],
        ['limit', '5'],
      ],
      [['format', 'json']],
    ],
  },
  'GET /dev/outbox/{id}': { params: ['$outbox', '1'], queries: [[], [['format', 'text']], [['format', 'json']], [['format', 'html']]] },
  'POST /admin/cache/purge': { keys: ADMIN_KEY, bodies: json({ brand_id: 1 }, { api_key: 'demo_pro_single' }, { all: true }) },
  'GET /admin/cache/stats': { keys: ADMIN_KEY },
  'GET /admin/upstream/map': { keys: ADMIN_KEY },
  // Maps that change nothing another test reads (the map is global): converting an ISO date-time to itself.
  'PUT /admin/upstream/map': { keys: ADMIN_KEY, bodies: json({ operations: {} }, { operations: { listBrands: { convert: { generated_at: 'date-time' } } } }) },
  // Never `apply`: a map it stored would change how every later test reads bodies. Our origin's bodies propose none anyway.
  'POST /admin/upstream/discover': { keys: ADMIN_KEY, bodies: json({ api_key: KEYS.pro }, { api_key: KEYS.starter, apply: false }, { api_key: KEYS.revoked }) },
  'POST /admin/upstream/check': { keys: ADMIN_KEY, bodies: json({ api_key: KEYS.pro }, { api_key: KEYS.growth, brand_id: 2, market: 'us' }, { api_key: KEYS.starter }, { api_key: 'demo_revoked' }) },
};
const ANY: Required<Preset> = {
  queries: [...new Set(Object.values(PRESETS).flatMap((p) => p.queries ?? []))],
  bodies: Object.values(PRESETS).flatMap((p) => p.bodies ?? []),
  params: [...LIVE],
  keys: [KEYS.pro, KEYS.growth, env.ADMIN_TOKEN],
};

/**
 * A request a client of the route could make: one of its methods, a key that
 * reads (or the admin token), real ids and tokens, the query and body the
 * route takes, and now and then one part of `anything` instead. These get
 * past the checks: links minted up to the cap, subscriptions, sends, revokes.
 */
const mostlyValid = fc
  .record({
    route: fc.nat({ max: ROUTES.length - 1 }),
    picks: fc.array(fc.nat(), { minLength: 5, maxLength: 5 }),
    /** A key of another plan or state instead of the preset's. */
    otherKey: seldom(fc.constantFrom(KEYS.growth, KEYS.starter, KEYS.inactive), 4),
    twist: seldom(anything, 3),
    twistPart: fc.constantFrom('param', 'query', 'authorization', 'contentType', 'contentLength', 'body', 'requestId'),
  })
  .map(({ route, picks: [m, q, b, p, k], otherKey, twist, twistPart }) => {
    const own = routeMethods(ROUTES[route]!);
    const method = own[m! % own.length]!;
    const preset = PRESETS[`${method} ${ROUTES[route]!.path}`] ?? ANY;
    const pick = <T>(list: T[] | undefined, i: number, none: T) => (list && list.length > 0 ? list[i % list.length]! : none);
    const [type, content] = pick<[string | null, string | null]>(preset.bodies, b!, [null, null]);
    const valid = {
      route,
      ownMethod: true,
      methodPick: m!,
      otherMethod: 'GET' as (typeof OTHER_METHODS)[number],
      param: pick(preset.params, p!, '1'),
      encodeParam: true,
      suffix: '',
      stray: null as [string, string] | null,
      query: { pairs: pick(preset.queries, q!, []), raw: '' },
      authorization: `Bearer ${otherKey ?? pick(preset.keys, k!, KEYS.pro)}` as string | null,
      contentType: type,
      contentLength: null as string | null,
      requestId: null as string | null,
      accept: null as string | null,
      body: content as string | Uint8Array | null,
    };
    if (!twist) return valid;
    if (twistPart === 'param') return { ...valid, param: twist.param, encodeParam: twist.encodeParam };
    return { ...valid, [twistPart]: twist[twistPart] };
  });

const request = fc.oneof({ arbitrary: anything, weight: 1 }, { arbitrary: mostlyValid, weight: 1 });

type Fuzzed = typeof request extends fc.Arbitrary<infer T> ? T : never;

// ---------------------------------------------------------------------------
// Requests and checks

/** Header values must be ByteStrings: adversarial text kept to what HTTP can carry. */
const safe = (s: string) => s.replace(/[^\x20-\x7e\t]/g, '?');
const resolveLive = (s: string) => ((LIVE as readonly string[]).includes(s) ? (live[s as Live] ?? s) : s);

function toRequest(r: Fuzzed): Request {
  const route = ROUTES[r.route]!;
  const own = routeMethods(route);
  const method = r.ownMethod ? own[r.methodPick % own.length]! : r.otherMethod;
  const param = resolveLive(r.param);
  let path = r.stray ? `${r.stray[0]}/${encodeURIComponent(r.stray[1])}` : route.path.replace(/\{\w+\}/g, () => (r.encodeParam ? encodeURIComponent(param) : param)) + r.suffix;
  if (!path.startsWith('/')) path = `/${path}`;
  const search = new URLSearchParams(r.query.pairs.map(([name, value]) => [name, resolveLive(value)])).toString();
  const url = `https://edge.test${path}${search || r.query.raw ? '?' : ''}${search}${r.query.raw}`;
  const headers = new Headers();
  if (r.authorization !== null) headers.set('authorization', safe(r.authorization));
  if (r.contentType !== null) headers.set('content-type', safe(r.contentType));
  if (r.contentLength !== null) headers.set('content-length', r.contentLength);
  if (r.requestId !== null) headers.set('x-request-id', safe(r.requestId));
  if (r.accept !== null) headers.set('accept', r.accept);
  const withBody = method !== 'GET' && method !== 'HEAD' && r.body !== null;
  return new Request(url, { method, headers, ...(withBody ? { body: r.body } : {}) });
}

const CODES = [...Object.keys(API_ERROR_STATUS), ...Object.keys(PRODUCT_ERROR_STATUS)] as [string, ...string[]];
/** The API's error shape, with the product's codes too (src/contract/product-openapi.ts `ProductError`, the `Error` component). */
const ProductErrorBody = z.object({ error: z.object({ code: z.enum(CODES), message: z.string().min(1), param: z.string().optional() }) });

const under = (pathname: string, base: string) => pathname === base || pathname.startsWith(`${base}/`);

/** The route the Worker answers a request with (src/app/worker.ts), and whether it answers JSON or pages. */
async function expectedOf(request: Request): Promise<{ route: string; answers: 'json' | 'page' | 'text' }> {
  const { pathname } = new URL(request.url);
  const found = under(pathname, ADMIN_BASE) || under(pathname, UPSTREAM_ADMIN_BASE) ? await matchRoute(ADMIN, request.method, pathname) : await matchRoute(PRODUCT, request.method, pathname);
  // A path of no table: the Worker's own 404 (the admin's is JSON).
  const route = found.kind === 'not_found' ? undefined : found.route;
  // No route: a browser's GET gets the 404 page, any other request the API's JSON.
  const browser = (request.method === 'GET' || request.method === 'HEAD') && prefersHtml(request.headers.get('accept'));
  return { route: route?.path ?? '(no route)', answers: route?.answers ?? (browser && !under(pathname, ADMIN_BASE) && !under(pathname, UPSTREAM_ADMIN_BASE) ? 'page' : 'json') };
}

/** Statuses per route, and in all. */
const histogram = new Map<string, Map<number, number>>();
let total = 0;
const tally = (route: string, status: number) => {
  const byStatus = histogram.get(route) ?? new Map<number, number>();
  byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  histogram.set(route, byStatus);
  total++;
};
/** `METHOD path` of each table route that was called with one of its own methods. */
const reached = new Set<string>();
/** Routes that answered without X-Request-Id (`METHOD path status`). */
const withoutRequestId = new Set<string>();

/** One env for the run (the Worker announces its features once per env). */
const fuzzEnv = { ...env, DIGEST_QUEUE: new FakeQueue() } as unknown as Env;

async function send(request: Request): Promise<Response> {
  // Straight to the Worker's fetch with a fake Queue: the dev planner's jobs are kept, never consumed into mail.
  const ctx = createExecutionContext();
  const response = await worker.fetch!(request as Request<unknown, IncomingRequestCfProperties>, fuzzEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

async function check(request: Request, response: Response, r: Fuzzed): Promise<void> {
  const { route, answers } = await expectedOf(request);
  const url = new URL(request.url);
  const where = `${request.method} ${request.url.slice(0, 200)} [auth ${JSON.stringify(r.authorization)?.slice(0, 40)}, type ${JSON.stringify(r.contentType)}, length ${JSON.stringify(r.contentLength)}, body ${typeof r.body === 'string' ? JSON.stringify(r.body.slice(0, 80)) : r.body === null ? 'none' : 'bytes'}]`;
  tally(route, response.status);
  if (route !== '(no route)' && routeMethods(ROUTES.find((x) => x.path === route)!).includes(request.method as Method)) reached.add(`${request.method} ${route}`);
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  // A write whose key the upstream cannot confirm now (the fuzz spends the demo keys' 60 reads a minute) writes nothing: 503 `key_unconfirmed`, saying when to try again.
  const unconfirmed = response.status === 503 && Number(response.headers.get('retry-after')) > 0 && (text.includes('"key_unconfirmed"') || /Nothing was changed|No CSV link was made/.test(text));
  if (!unconfirmed) expect(response.status, `${where}: ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(text, where).not.toMatch(/\n\s+at |\.ts:\d+|TypeError|ReferenceError|SyntaxError: /);
  if (!response.headers.get('x-request-id')) withoutRequestId.add(`${request.method} ${route} ${response.status}`);
  expect(response.headers.get('x-request-id'), where).toBeTruthy();
  if (response.status === 405) expect(response.headers.get('allow'), where).toBeTruthy();
  if (response.status === 429) expect(Number(response.headers.get('retry-after')), where).toBeGreaterThan(0);
  // HEAD: the HTTP layer drops any body (an error's too); what there is must still be the route's kind of answer.
  if (request.method === 'HEAD' && text === '') {
    if (response.status >= 400 && answers === 'page') expect(type, where).toBe('text/html; charset=utf-8');
    if (response.status >= 400 && answers === 'json') expect(type, where).toMatch(/^application\/json\b/);
    if (response.status >= 400 && answers === 'text') expect(type, where).toBe('text/plain; charset=utf-8');
    return;
  }
  /** `format=` asked for another form than a page: a page route may answer JSON or text then. */
  const asksFormat = url.searchParams.getAll('format').some((f) => f !== 'html' && f !== '');
  if (response.status >= 400) {
    const isJson = /^application\/json\b/.test(type);
    if (answers === 'json' || (asksFormat && isJson)) {
      expect(type, `${where}: ${text.slice(0, 200)}`).toMatch(/^application\/json\b/);
      const parsed = ProductErrorBody.safeParse(JSON.parse(text));
      expect(parsed.success, `${where}: ${text.slice(0, 300)}`).toBe(true);
      if (parsed.data!.error.param !== undefined) expect(parsed.data!.error.code, where).toBe('invalid_parameter');
    } else if (answers === 'text') {
      // A CSV link's errors: plain text, for the sheet's cell or the person in the browser.
      expect(type, `${where}: ${text.slice(0, 200)}`).toBe('text/plain; charset=utf-8');
    } else {
      expect(type, `${where}: ${text.slice(0, 200)}`).toBe('text/html; charset=utf-8');
      expect(text, where).toMatch(/^<!doctype html>/i);
    }
    return;
  }
  if (response.status === 204) {
    expect(text, where).toBe('');
    return;
  }
  if (answers === 'page' && !asksFormat) expect(type, `${where}: ${text.slice(0, 200)}`).toMatch(/^text\/html\b/);
  if (/^application\/json\b/.test(type)) expect(() => JSON.parse(text), where).not.toThrow();
}

// ---------------------------------------------------------------------------
// The run

beforeAll(async () => {
  await clearReports();
  await clearDigests();
  const now = () => new Date();
  const deps = { db: env.DB, encryptionKey: env.ENCRYPTION_KEY, signingSecret: env.SIGNING_SECRET, publicUrl: 'https://edge.test', now };
  const [active, pending] = await seedSubscriptions([
    { email: 'fuzz-active@example.com' },
    { email: 'fuzz-pending@example.com', status: 'pending' },
    // No token names this one: it stays confirmed however early the fuzzing unsubscribes the first, so a
    // second send-now within 10 minutes meets its 409 whatever order the routes are drawn in.
    { email: 'fuzz-steady@example.com' },
  ]);
  const token = (url: string) => new URL(url).searchParams.get('token')!;
  const cycle = (id: string) => env.DB.prepare('SELECT id, generation, key_sealed FROM digest_subscriptions WHERE id = ?').bind(id).first<{ id: string; generation: number; key_sealed: string }>();
  const [pendingRow, activeRow] = [(await cycle(pending!))!, (await cycle(active!))!];
  const link = await mintReportLink(deps, { apiKey: KEYS.pro, brandId: 1, market: { id: 11, code: 'us' }, kind: 'weekly', days: 30 });
  if (!link.ok) throw new Error('no link');
  await env.DB.prepare(
    "INSERT INTO digest_outbox (idempotency_key, position, kind, to_addr, from_addr, subject, html, text, headers, created_at) VALUES ('fuzz/1', 0, 'confirm', 'a@example.com', 'b@example.com', 'Fuzz', '<p>x</p>', 'x', '{}', ?)",
  )
    .bind(new Date().toISOString())
    .run();
  const outbox = await env.DB.prepare('SELECT MAX(id) AS id FROM digest_outbox').first<number>('id');
  Object.assign(live, {
    $confirm: token(await confirmUrl(deps, pendingRow)),
    $unsubscribe: token(await unsubscribeUrl(deps, activeRow)),
    $resubscribe: token((await resubscribeUrl(deps, activeRow)).url),
    $report: link.link.token,
    $subreport: new URL(await reportUrl(deps, { ...activeRow, brand_id: 1, market_code: 'us' })).pathname.slice(3),
    $link: link.link.id,
    $sub: active!,
    $outbox: String(outbox),
  } satisfies Record<Live, string>);
});

beforeEach(async () => {
  await env.DB.prepare('DELETE FROM rate_hits').run();
});

// What the fuzzing made (links, subscriptions, outbox mail): other files start from clean tables.
afterAll(async () => {
  await clearReports();
  await clearDigests();
});

const summary = () =>
  JSON.stringify(Object.fromEntries([...histogram].sort(([a], [b]) => a.localeCompare(b)).map(([route, byStatus]) => [route, Object.fromEntries([...byStatus].sort(([a], [b]) => a - b))])));
const statusTotals = () => {
  const totals = new Map<number, number>();
  for (const byStatus of histogram.values()) for (const [status, n] of byStatus) totals.set(status, (totals.get(status) ?? 0) + n);
  return Object.fromEntries([...totals].sort(([a], [b]) => a - b));
};

describe('fuzzing the product routes', () => {
  for (let chunk = 0; chunk < CHUNKS; chunk++) {
    it(`chunk ${chunk + 1} of ${CHUNKS}: no 5xx, a request id, the error shape of the route`, async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          if (++n % 50 === 0) await env.DB.batch([env.DB.prepare('DELETE FROM rate_hits'), env.DB.prepare('DELETE FROM usage')]);
          const sent = toRequest(r);
          await check(sent, await send(sent.clone()), r);
        }),
        { seed: FUZZ_SEED + chunk, numRuns: FUZZ_RUNS },
      );
    });
  }

  it('reached every route with its own methods, and answers past the checks', () => {
    console.log(`product routes: ${total} requests fuzzed, statuses ${JSON.stringify(statusTotals())}; per route ${summary()}`);
    if (withoutRequestId.size > 0) console.log(`answers without X-Request-Id: ${[...withoutRequestId].join('; ')}`);
    const everyRoute = ROUTES.flatMap((route) => routeMethods(route).map((method) => `${method} ${route.path}`));
    expect(everyRoute.filter((route) => !reached.has(route))).toEqual([]);
    const totals = statusTotals();
    for (const status of [200, 201, 202, 204, 400, 401, 403, 404, 405, 409, 410]) expect(totals[status] ?? 0, `${status} in ${JSON.stringify(totals)}`).toBeGreaterThan(0);
  });
});
