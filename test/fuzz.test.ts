/**
 * Property-based fuzzing (fast-check, fixed seed, bounded runs) of all 23
 * operations: random and adversarial paths, query strings, headers and
 * methods. Every answer must be a documented status with the API's error
 * body: never a 500, never a stack trace, never an error served from cache.
 */
import { env, SELF } from 'cloudflare:test';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorBody } from '../src/contract/errors';
import { API_BASE, operationList } from '../src/contract/operations';
import { handleOrigin } from '../src/origin/handler';
import { KEYS } from './helpers';

/** Statuses the API documents (OpenAPI); 304 from the proxy's conditional requests. */
const DOCUMENTED = new Set([200, 304, 400, 401, 403, 404, 405, 409, 429, 502]);
export const FUZZ_SEED = 20261121;
export const FUZZ_RUNS = Number(globalThis.process?.env?.FUZZ_RUNS ?? 250);

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', ' ', '%', '%2F', '..%2F..', '%00', '-1', '0', '1e9', '99999999999999999999', '2026-02-30', '2026-13-01', '2024-02-29', '9999-12-31', 'null', 'true', '[]', '{}', "' OR 1=1 --", '<script>', 'us', 'US', 'de', 'zz', '11', 'ch-fr', 'chatgpt', 'open', 'query', 'page'),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String),
  fc.string({ minLength: 2000, maxLength: 5000 }),
);

const paramNames = fc.oneof(
  fc.constantFrom('brand_id', 'market', 'days', 'from', 'to', 'limit', 'prompt', 'engine', 'layer', 'status', 'category', 'dimension', 'topic_id'),
  fc.string({ maxLength: 12 }),
);

const anything = fc.record({
  op: fc.constantFrom(...operationList),
  pathParam: nasty,
  query: fc.array(fc.tuple(paramNames, nasty), { maxLength: 6 }),
  method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
  key: fc.oneof(fc.constantFrom(KEYS.pro, KEYS.growth, KEYS.starter, KEYS.inactive, KEYS.revoked, '', 'x'.repeat(300)), fc.string({ maxLength: 30 })),
  scheme: fc.constantFrom('Bearer ', 'bearer ', 'Basic ', 'Bearer  ', ''),
  requestId: fc.option(fc.string({ maxLength: 200 })),
  extraPath: fc.constantFrom('', '', '', '/', '/extra', '%2F..'),
});

/** Path ids that exist in the demo data, so "mostly valid" requests reach the operations. */
const EXISTING: Partial<Record<string, string>> = { getTopic: '1101', getCompetitor: 'Helpwave', getTask: '1' };

/** A valid request with at most one adversarial parameter: these get past the checks and exercise the operations. */
const mostlyValid = fc
  .record({
    op: fc.constantFrom(...operationList),
    pathParam: nasty,
    query: fc.oneof(fc.constant([] as [string, string][]), fc.array(fc.tuple(paramNames, nasty), { maxLength: 1 })),
    method: fc.constant('GET'),
    key: fc.constant<string>(KEYS.pro),
    scheme: fc.constant('Bearer '),
    requestId: fc.constant<string | null>(null),
    extraPath: fc.constant(''),
  })
  .map((r) => ({ ...r, pathParam: EXISTING[r.op.id] ?? r.pathParam }));

const request = fc.oneof({ arbitrary: anything, weight: 2 }, { arbitrary: mostlyValid, weight: 1 });

type Fuzzed = typeof request extends fc.Arbitrary<infer T> ? T : never;

function toRequest(r: Fuzzed, base: string): Request {
  const path = r.op.path.replace(/\{\w+\}/g, () => encodeURIComponent(r.pathParam)) + r.extraPath;
  const query = new URLSearchParams(r.query).toString();
  const headers = new Headers();
  // Header values must be ByteStrings; adversarial bytes are kept within what HTTP can carry.
  const safe = (s: string) => s.replace(/[^\x20-\x7e]/g, '?');
  headers.set('authorization', safe(`${r.scheme}${r.key}`));
  if (r.requestId !== null) headers.set('x-request-id', safe(r.requestId));
  return new Request(`https://edge.test${base}${path}${query ? `?${query}` : ''}`, { method: r.method, headers });
}

async function expectDocumented(response: Response, method: string): Promise<void> {
  const text = await response.text();
  expect(DOCUMENTED.has(response.status) || (method === 'OPTIONS' && response.status === 204), `status ${response.status}: ${text.slice(0, 200)}`).toBe(true);
  expect(response.headers.get('x-request-id')).toBeTruthy();
  expect(text).not.toMatch(/\n\s+at |\.ts:\d+|TypeError|ReferenceError/);
  if (response.status >= 400) {
    if (method !== 'HEAD') expect(ErrorBody.safeParse(JSON.parse(text)).success, text.slice(0, 200)).toBe(true);
    expect(['HIT', 'STALE']).not.toContain(response.headers.get('x-cache'));
  }
}

let fuzzed = 0;
const statuses = new Map<number, number>();
const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
beforeEach(async () => {
  await env.DB.prepare('DELETE FROM rate_hits').run();
});

describe('fuzzing', () => {
  it('the reference origin answers every request with a documented status and error body', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        fuzzed++;
        if (fuzzed % 50 === 0) await env.DB.prepare('DELETE FROM rate_hits').run();
        const response = await handleOrigin(toRequest(r, API_BASE), { db: env.DB });
        count(response.status);
        await expectDocumented(response, r.method);
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_RUNS },
    );
    // The generator reaches past authentication: real reads and parameter errors both occur.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(FUZZ_RUNS / 50);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(FUZZ_RUNS / 20);
    console.log(`origin: ${FUZZ_RUNS} requests fuzzed, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  });

  it('the Worker at /api/v1 answers every request with a documented status and error body', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        fuzzed++;
        if (fuzzed % 50 === 0) await env.DB.prepare('DELETE FROM rate_hits').run();
        await expectDocumented(await SELF.fetch(toRequest(r, API_BASE)), r.method);
      }),
      { seed: FUZZ_SEED + 1, numRuns: FUZZ_RUNS },
    );
  });
});
