/**
 * Property-based fuzzing (fast-check, fixed seeds, bounded runs) of every
 * operation of the contract table, through the reference origin and through
 * the Worker's proxy: random and adversarial paths, query strings (the
 * table's parameter names and others), keys, methods, and the headers the
 * proxy acts on (Cache-Control, Pragma, If-None-Match, Origin).
 *
 * Every answer must be one the contract documents for that operation: the
 * error codes of `documentedErrors` (which its OpenAPI entry is generated
 * from) at their statuses (`API_ERROR_STATUS`), narrowed by what the table
 * says of the operation and the request (409 only where an integration is
 * needed, 403 `feature_not_in_plan` only where a plan is, 404 `not_found`
 * only where a market or an item is looked up, 405 only for another method,
 * 304 only with If-None-Match, 502 only from the proxy), with the API's error
 * body; never a 500, never a stack trace, never an error or an unasked-for
 * HIT served from cache, CORS only as configured.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import fc from 'fast-check';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_ERROR_STATUS } from '../src/contract/errors';
import { errorBodySchema } from '../src/contract/schemas/errors';
import { type AnyOperation, API_BASE, documentedErrors, type OperationId, operationList } from '../src/contract/operations';
import { sha256Hex } from '../src/lib/hash';
import worker from './worker';
import { handleOrigin } from '../src/origin/handler';
import { matchOperation } from '../src/contract/request';
import { KEYS } from './helpers';

export const FUZZ_SEED = 20261121;
export const FUZZ_RUNS = Number(globalThis.process?.env?.FUZZ_RUNS ?? 250);

// ---------------------------------------------------------------------------
// What the contract documents, per operation

type Op = AnyOperation & { id: OperationId };
type Via = 'origin' | 'proxy';

/** An operation looks something up besides the brand: a market (brand-and-market scope), a path item, or a question by its text. */
const looksUp = (op: Op) => ({ market: op.scope === 'brand', item: Object.keys(op.params.path).length > 0 || 'prompt' in op.params.query });

interface Asked {
  method: string;
  ifNoneMatch: boolean;
  preflight: boolean;
}

/**
 * The answers (`status code`, or `status` for bodiless ones) this request may
 * get: the documented errors of the operation its path names, narrowed by the
 * contract table and the request. A path that names no operation: 404 only.
 */
function documented(op: Op | undefined, asked: Asked, via: Via): Set<string> {
  const read = asked.method === 'GET' || asked.method === 'HEAD';
  if (asked.preflight && via === 'proxy') return new Set(['204']);
  if (!op) return new Set(['404 not_found']);
  // Another method on an operation's path is 405, whatever else is wrong: the method is checked first.
  if (!read) return new Set(['405 method_not_allowed']);
  const allowed = new Set(['200']);
  if (asked.ifNoneMatch && via === 'proxy') allowed.add('304');
  const lookups = looksUp(op);
  for (const code of documentedErrors(op)) {
    if (code === 'internal_error' || code === 'method_not_allowed') continue;
    if (code === 'upstream_error' && via !== 'proxy') continue;
    if (code === 'not_found' && !lookups.market && !lookups.item) continue;
    allowed.add(`${API_ERROR_STATUS[code]} ${code}`);
  }
  return allowed;
}

// The table's own needs, checked against the documented errors the narrowing reads: a drift here would make the fuzzing lax.
describe('the documented answers', () => {
  it('follow the contract table: 409 only with an integration, feature_not_in_plan only with a plan, not_found only with a lookup', () => {
    const get = { method: 'GET', ifNoneMatch: false, preflight: false };
    for (const op of operationList) {
      const origin = documented(op, get, 'origin');
      expect({ op: op.id, has409: [...origin].some((a) => a.startsWith('409')) }).toEqual({ op: op.id, has409: op.integration !== undefined });
      expect({ op: op.id, plan: origin.has('403 feature_not_in_plan') }).toEqual({ op: op.id, plan: op.plan === 'pro_or_growth' });
      expect({ op: op.id, lookup: origin.has('404 not_found') }).toEqual({ op: op.id, lookup: !['listBrands', 'listMarkets'].includes(op.id) });
      expect(origin.has('304') || origin.has('502 upstream_error') || origin.has('500 internal_error')).toBe(false);
      expect(documented(op, { ...get, ifNoneMatch: true }, 'proxy').has('304')).toBe(true);
    }
    expect(documented(operationList[0], { ...get, method: 'POST' }, 'origin')).toEqual(new Set(['405 method_not_allowed']));
  });
});

// ---------------------------------------------------------------------------
// Generators

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '%',
    '%2F',
    '..%2F..',
    '%00',
    '-1',
    '0',
    '1e9',
    '99999999999999999999',
    '2026-02-30',
    '2026-13-01',
    '2024-02-29',
    '9999-12-31',
    'null',
    'true',
    '[]',
    '{}',
    "' OR 1=1 --",
    '<script>',
    'us',
    'US',
    'de',
    'zz',
    '11',
    'ch-fr',
    'chatgpt',
    'open',
    'query',
    'page',
  ),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String),
  fc.string({ minLength: 2000, maxLength: 5000 }),
);

/** Every query parameter name of the table. */
const PARAM_NAMES = [...new Set(operationList.flatMap((op) => Object.keys(op.params.query)))];

const paramNames = fc.oneof(fc.constantFrom(...PARAM_NAMES), fc.string({ maxLength: 12 }));

/** The demo accounts by plan: Pro (one brand, 1), Growth (brands 2 and 3; 3 has no integration), Starter (brand 4). */
type Role = 'pro' | 'growth' | 'starter';
const ROLES: Role[] = ['pro', 'growth', 'starter'];

const DASHBOARD = 'https://dash.example';

/** The headers the proxy acts on. `$etag` stands for the last ETag the proxy gave for the operation in this run. */
const cacheHeaders = fc.record({
  cacheControl: fc.option(
    fc.oneof(
      fc.constantFrom('no-cache', 'no-store', 'max-age=0', 'max-age=5', 'max-age="0"', 'NO-CACHE', ' no-cache , no-store', 'private', 'only-if-cached', 'max-stale', 'max-age=-1', ''),
      fc.string({ maxLength: 40 }),
    ),
  ),
  pragma: fc.option(fc.oneof(fc.constantFrom('no-cache', 'NO-CACHE', 'x-other, no-cache', 'cache'), fc.string({ maxLength: 20 }))),
  ifNoneMatch: fc.option(fc.oneof(fc.constantFrom('*', '$etag', 'W/$etag', '"other", $etag', '"other"', 'W/"x"', '""', `"${'a'.repeat(3000)}"`), fc.string({ maxLength: 60 }))),
  origin: fc.option(
    fc.oneof(fc.constantFrom(DASHBOARD, 'https://evil.example', 'null', `${DASHBOARD}/`, DASHBOARD.toUpperCase(), `${DASHBOARD}.evil.example`, 'http://dash.example'), fc.string({ maxLength: 40 })),
  ),
  preflight: fc.boolean(),
  /** Through the Worker with CORS_ORIGINS granting DASHBOARD (else the test env: none). */
  cors: fc.boolean(),
});

const OPS = new Map(operationList.map((op) => [op.id, op]));
const opIds = fc.constantFrom(...operationList.map((op) => op.id));

const anything = fc.record({
  op: opIds,
  pathParam: nasty,
  query: fc.array(fc.tuple(paramNames, nasty), { maxLength: 6 }),
  method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
  key: fc.oneof(fc.constantFrom<Role | string>(...ROLES, KEYS.inactive, KEYS.revoked, '', 'x'.repeat(300)), fc.string({ maxLength: 30 })),
  scheme: fc.constantFrom('Bearer ', 'bearer ', 'Basic ', 'Bearer  ', ''),
  requestId: fc.option(fc.string({ maxLength: 200 })),
  extraPath: fc.constantFrom('', '', '', '/', '/extra', '%2F..'),
  headers: cacheHeaders,
});

/** Path ids that exist for brand 1 (the path parameter of each operation's example request), so "mostly valid" requests reach the operations. */
const EXISTING: Partial<Record<OperationId, string>> = Object.fromEntries(
  operationList.flatMap((op) =>
    Object.values(op.example.path ?? {})
      .slice(0, 1)
      .map((value) => [op.id, String(value)]),
  ),
);

/**
 * A valid request of a plan's key, its own brand or another (brand_not_found),
 * with at most one adversarial parameter: these get past the checks and reach
 * plans (403), integrations (409 for brand 3), lookups (404) and the cache (304).
 */
const mostlyValid = fc
  .record({
    op: opIds,
    pathParam: nasty,
    who: fc.constantFrom<[Role, string | null]>(['pro', null], ['pro', '1'], ['growth', '2'], ['growth', '3'], ['growth', '3'], ['growth', null], ['starter', null], ['starter', '4'], ['pro', '2']),
    query: fc.oneof(fc.constant([] as [string, string][]), fc.constant([] as [string, string][]), fc.array(fc.tuple(paramNames, nasty), { maxLength: 1 })),
    existing: fc.boolean(),
    headers: cacheHeaders,
  })
  .map(({ op, pathParam, who: [role, brand], query, existing, headers }) => ({
    op,
    pathParam: existing ? (EXISTING[op] ?? pathParam) : pathParam,
    query: brand && OPS.get(op)!.scope !== 'account' ? [['brand_id', brand] as [string, string], ...query] : query,
    method: 'GET',
    key: role as Role | string,
    scheme: 'Bearer ',
    requestId: null as string | null,
    extraPath: '',
    headers,
  }));

const request = fc.oneof({ arbitrary: anything, weight: 2 }, { arbitrary: mostlyValid, weight: 2 });

type Fuzzed = typeof request extends fc.Arbitrary<infer T> ? T : never;

// ---------------------------------------------------------------------------
// Requests and checks

/** Header values must be ByteStrings; adversarial bytes are kept within what HTTP can carry. */
const safe = (s: string) => s.replace(/[^\x20-\x7e]/g, '?');

/** The keys each target reads with: the demo keys at the origin, keys of the same accounts made for this run at the proxy (their upstream budgets are the fuzzing's own). */
const keysFor: Record<Via, Record<Role, string>> = {
  origin: { pro: KEYS.pro, growth: KEYS.growth, starter: KEYS.starter },
  proxy: { pro: `fuzz_pro_${crypto.randomUUID()}`, growth: `fuzz_growth_${crypto.randomUUID()}`, starter: `fuzz_starter_${crypto.randomUUID()}` },
};

/** The last ETag the proxy gave per operation, for `If-None-Match: $etag`. */
const lastEtag = new Map<OperationId, string>();

type Sent = Asked & { cacheControl: string | null; pragma: string | null; tags: string | null; origin: string | null };

function toRequest(r: Fuzzed, via: Via): { request: Request; asked: Sent } {
  const op = OPS.get(r.op)!;
  const path = op.path.replace(/\{\w+\}/g, () => encodeURIComponent(r.pathParam)) + r.extraPath;
  const query = new URLSearchParams(r.query).toString();
  const key = (ROLES as string[]).includes(r.key) ? keysFor[via][r.key as Role] : r.key;
  const headers = new Headers();
  headers.set('authorization', safe(`${r.scheme}${key}`));
  if (r.requestId !== null) headers.set('x-request-id', safe(r.requestId));
  const h = r.headers;
  const etag = lastEtag.get(r.op) ?? '"none"';
  const ifNoneMatch = h.ifNoneMatch === null ? null : safe(h.ifNoneMatch.replaceAll('$etag', etag));
  if (h.cacheControl !== null) headers.set('cache-control', safe(h.cacheControl));
  if (h.pragma !== null) headers.set('pragma', safe(h.pragma));
  if (ifNoneMatch !== null) headers.set('if-none-match', ifNoneMatch);
  if (h.origin !== null) headers.set('origin', safe(h.origin));
  if (r.method === 'OPTIONS' && h.preflight) headers.set('access-control-request-method', 'GET');
  // Without allowed origins there is no CORS: such an OPTIONS is one more method the API refuses.
  const preflight = r.method === 'OPTIONS' && h.preflight && h.cors;
  return {
    request: new Request(`https://edge.test${API_BASE}${path}${query ? `?${query}` : ''}`, { method: r.method, headers }),
    asked: {
      method: r.method,
      ifNoneMatch: ifNoneMatch !== null,
      preflight,
      cacheControl: headers.get('cache-control'),
      pragma: headers.get('pragma'),
      tags: ifNoneMatch,
      origin: headers.get('origin'),
    },
  };
}

const answers = { origin: new Map<string, number>(), proxy: new Map<string, number>() };
const tally = (via: Via, answer: string) => answers[via].set(answer, (answers[via].get(answer) ?? 0) + 1);

/** Checks one answer against what the contract documents; returns it as `status code`. */
async function expectDocumented(response: Response, request: Request, asked: Asked, via: Via): Promise<string> {
  const text = await response.text();
  const op = matchOperation(new URL(request.url).pathname)?.op;
  const where = `${via} ${request.method} ${request.url.slice(0, 160)}`;
  expect(text, where).not.toMatch(/\n\s+at |\.ts:\d+|TypeError|ReferenceError/);
  expect(response.headers.get('x-request-id'), where).toBeTruthy();
  let answer = String(response.status);
  if (response.status >= 400) {
    expect(['HIT', 'STALE'], where).not.toContain(response.headers.get('x-cache'));
    if (request.method !== 'HEAD') {
      const body = errorBodySchema().safeParse(JSON.parse(text));
      expect(body.success, `${where}: ${text.slice(0, 200)}`).toBe(true);
      const { code, param } = body.data!.error;
      answer = `${response.status} ${code}`;
      // DESIGN section 3: `param` only for a bad parameter.
      if (param !== undefined) expect(code, where).toBe('invalid_parameter');
    }
  }
  const allowed = documented(op, asked, via);
  const ok = allowed.has(answer) || (request.method === 'HEAD' && [...allowed].some((a) => a.split(' ')[0] === answer));
  expect(ok, `${where}: ${answer} is not documented for ${op?.id ?? 'no operation'} (${[...allowed].join(', ')}): ${text.slice(0, 200)}`).toBe(true);
  if (response.status === 405) expect(response.headers.get('allow'), where).toBe('GET, HEAD');
  if (response.status === 429) expect(Number(response.headers.get('retry-after')), where).toBeGreaterThan(0);
  return answer;
}

/** The proxy's own rules for the headers fuzzed. */
function expectCacheRules(response: Response, asked: Sent, opId: OperationId | undefined, where: string): void {
  const xCache = response.headers.get('x-cache');
  const directives = (asked.cacheControl ?? '')
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  const pragmaNoCache =
    (asked.cacheControl ?? '').trim() === '' &&
    (asked.pragma ?? '')
      .toLowerCase()
      .split(',')
      .map((d) => d.trim())
      .includes('no-cache');
  const noStore = directives.includes('no-store');
  const maxAge = /^max-age="?(\d+)"?$/.exec(directives.find((d) => d.startsWith('max-age=')) ?? '')?.[1];
  // A caller who says no-store gets nothing from the cache, and nothing is stored for it (RFC 9111, 5.2.1.5).
  if (noStore && xCache !== null) expect(xCache, where).toBe('BYPASS');
  // no-cache, max-age=0 and Pragma: no-cache revalidate: never a HIT (RFC 9111, 5.2.1.4 and 5.4).
  if (directives.includes('no-cache') || maxAge === '0' || pragmaNoCache) expect(xCache, where).not.toBe('HIT');
  // max-age=N: a HIT is at most N seconds old (RFC 9111, 5.2.1.1).
  if (maxAge !== undefined && xCache === 'HIT') expect(Number(response.headers.get('age')), where).toBeLessThanOrEqual(Number(maxAge));
  if (response.status === 200 && xCache !== null && xCache !== 'BYPASS') {
    expect(response.headers.get('cache-control'), where).toMatch(/^private, max-age=\d+$/);
    expect(response.headers.get('etag'), where).toMatch(/^"[0-9a-f]{32}"$/);
    expect(response.headers.get('age'), where).toMatch(/^\d+$/);
    if (opId) lastEtag.set(opId, response.headers.get('etag')!);
  }
  if (response.status >= 400 || xCache === 'BYPASS') expect(response.headers.get('cache-control'), where).toMatch(/no-store/);
  if (response.status === 304) {
    expect(asked.tags, where).not.toBeNull();
    const etag = response.headers.get('etag')!;
    const tags = asked.tags!.split(',').map((t) => t.trim().replace(/^W\//, ''));
    expect(tags.includes('*') || tags.includes(etag), `${where}: 304 for ${asked.tags} with ETag ${etag}`).toBe(true);
  }
}

/** CORS as configured: grants only to an allowed origin, exactly it, never `*` or credentials; nothing at all when none is allowed. */
function expectCors(response: Response, asked: Sent, cors: boolean, where: string): void {
  const grant = response.headers.get('access-control-allow-origin');
  expect(response.headers.get('access-control-allow-credentials'), where).toBeNull();
  if (!cors) {
    expect(
      [...response.headers.keys()].filter((h) => h.startsWith('access-control-')),
      where,
    ).toEqual([]);
    return;
  }
  expect(grant, where).toBe(asked.origin === DASHBOARD ? DASHBOARD : null);
  expect(response.headers.get('vary') ?? '', where).toMatch(/Origin/);
  if (grant && asked.preflight) expect(response.headers.get('access-control-allow-methods'), where).toBe('GET, HEAD');
  if (grant && !asked.preflight) expect(response.headers.get('access-control-expose-headers'), where).toMatch(/X-Cache/);
}

const corsEnv = { ...env, CORS_ORIGINS: DASHBOARD } as unknown as Env;

async function throughWorker(request: Request, cors: boolean): Promise<Response> {
  if (!cors) return SELF.fetch(request);
  const ctx = createExecutionContext();
  const response = await worker.fetch!(request as Request<unknown, IncomingRequestCfProperties>, corsEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

let fuzzed = 0;
beforeAll(async () => {
  // The proxy's keys: new keys of the demo accounts, so the fuzzing spends upstream budgets of its own.
  for (const role of ROLES) {
    const account = await env.DB.prepare('SELECT account_id FROM api_keys WHERE key_hash = ?')
      .bind(await sha256Hex(keysFor.origin[role]))
      .first<{ account_id: number }>();
    await env.DB.prepare("INSERT INTO api_keys (account_id, key_hash, label, created_at) VALUES (?, ?, 'fuzz', '2026-01-01T00:00:00Z')")
      .bind(account!.account_id, await sha256Hex(keysFor.proxy[role]))
      .run();
  }
});
beforeEach(async () => {
  await env.DB.prepare('DELETE FROM rate_hits').run();
});

const summary = (via: Via) => JSON.stringify(Object.fromEntries([...answers[via]].sort(([a], [b]) => a.localeCompare(b))));

describe('fuzzing', () => {
  it('the reference origin answers every request as the contract documents for its operation', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        if (++fuzzed % 50 === 0) await env.DB.prepare('DELETE FROM rate_hits').run();
        const { request: sent, asked } = toRequest(r, 'origin');
        // The origin knows no conditional requests or CORS: only the parts of the request it reads.
        const plain = { ...asked, ifNoneMatch: false, preflight: false };
        tally('origin', await expectDocumented(await handleOrigin(sent, { db: env.DB }), sent, plain, 'origin'));
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_RUNS },
    );
    // The generators reach past authentication into every kind of answer.
    for (const answer of [
      '200',
      '400 invalid_parameter',
      '400 brand_required',
      '401 invalid_api_key',
      '403 plan_inactive',
      '403 feature_not_in_plan',
      '404 brand_not_found',
      '404 not_found',
      '405 method_not_allowed',
      '409 integration_not_connected',
    ]) {
      expect(answers.origin.get(answer) ?? 0, `${answer} in ${summary('origin')}`).toBeGreaterThan(0);
    }
    console.log(`origin: ${FUZZ_RUNS} requests fuzzed, answers ${summary('origin')}`);
  });

  it('the Worker at /api/v1 (the proxy) answers every request as documented, with its cache and CORS rules', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        if (++fuzzed % 50 === 0) await env.DB.prepare('DELETE FROM rate_hits').run();
        const { request: sent, asked } = toRequest(r, 'proxy');
        const where = `proxy ${sent.method} ${sent.url.slice(0, 160)} ${JSON.stringify(r.headers).slice(0, 300)}`;
        const response = await throughWorker(sent.clone(), r.headers.cors);
        expectCacheRules(response, asked, matchOperation(new URL(sent.url).pathname)?.op.id, where);
        expectCors(response, asked, r.headers.cors, where);
        tally('proxy', await expectDocumented(response, sent, asked, 'proxy'));
      }),
      { seed: FUZZ_SEED + 1, numRuns: FUZZ_RUNS },
    );
    for (const answer of ['200', '204', '304', '400 invalid_parameter', '401 invalid_api_key', '403 feature_not_in_plan', '404 not_found', '405 method_not_allowed', '409 integration_not_connected']) {
      expect(answers.proxy.get(answer) ?? 0, `${answer} in ${summary('proxy')}`).toBeGreaterThan(0);
    }
    console.log(`proxy: ${FUZZ_RUNS} requests fuzzed, answers ${summary('proxy')}`);
  });
});
