/**
 * The edge proxy of the Read API v1 at /api/v1: every operation of the
 * contract table, with the upstream's paths, parameters, errors and bodies.
 * The cache rules are in policy.ts; this file applies them:
 *
 *   validate at the edge (an invalid request never goes upstream; its error
 *   respects the API's check order, see refuseInOrder)
 *   -> fresh entry: HIT
 *   -> stale within stale-while-revalidate: STALE, refresh via ctx.waitUntil
 *   -> otherwise (or `Cache-Control: no-cache`): the upstream gate, then
 *      MISS / REVALIDATED on 200, stale-if-error on 5xx, timeout or 429,
 *      pass-through (never stored) for every other status.
 */
import { ApiError, errorResponse, ErrorBody, JSON_CONTENT_TYPE } from '../contract/errors';
import { type AnyOperation, API_BASE } from '../contract/operations';
import { openApiDocument } from '../contract/openapi';
import { bearerKey, checkPlan, invalidKey, resolveBrand } from '../contract/access';
import { RATE_LIMIT } from '../contract/rate-limit';
import { matchOperation, type Match } from '../contract/request';
import { type Clock, DAY_MS } from '../lib/time';
import type { ProxyEnv } from './env';
import { BrandList } from '../contract/schemas/core';
import { budgetHeaders, noteBudget } from './budget';
import { requestIdOf } from '../contract/request-id';
import { isPreflight, preflight, withCors } from './cors';
import type { GateAnswer } from './gate';
import { freshnessFor, freshTtlMs, isUpstreamFailure } from './policy';
import { cacheKeyOf, hashApiKey, keyPrefix, knownKeyHash, validate, type ValidRequest } from './cache-key';
import { checkResponseBody } from '../contract/body';
import { checkBeforeUpstream, clientAddressOf, failedRecently, markVerified, rememberFailedAuth } from './abuse';
import { count, maybeFlushStats } from './stats';
import { CacheStore, type Entry } from './store';

export type CacheStatus = 'HIT' | 'MISS' | 'STALE' | 'REVALIDATED' | 'BYPASS';

let openApiJson: string | undefined;

/** What the proxy needs of the moment it runs in: the clock, and where background work goes (`ctx.waitUntil`). */
export interface ProxyRuntime {
  now: Clock;
  waitUntil(work: Promise<unknown>): void;
}

export interface ProxyCall {
  /**
   * The address of the client the request is made for, when it is not the
   * request's own `CF-Connecting-IP` (an in-process read on a client's behalf;
   * null: no client, e.g. the digest queue). Unverified keys count against it.
   */
  clientAddress?: string | null;
  /** `request.url` parsed already (by the Worker's router): parsed once per request. */
  url?: URL;
}

/** The client a read is made for: the caller's say, else the request's own address. */
const clientAddressFor = (request: Request, call: ProxyCall) => (call.clientAddress !== undefined ? call.clientAddress : clientAddressOf(request));

/** The proxy's fetch handler for /api/v1/*: always a response. */
export async function handleProxy(request: Request, env: ProxyEnv, ctx: ProxyRuntime, call: ProxyCall = {}): Promise<Response> {
  const requestId = requestIdOf(request);
  // Without allowed origins there is no CORS: an OPTIONS request is answered like any other method (404 or 405).
  if (env.CORS_ORIGINS.length > 0 && isPreflight(request)) {
    const answer = preflight(request, env.CORS_ORIGINS);
    answer.headers.set('x-request-id', requestId);
    return answer;
  }
  const nowMs = ctx.now().getTime();
  const caller: { keyHash?: string } = {};
  let response: Response;
  try {
    response = await serve(request, env, ctx, requestId, nowMs, call, caller);
  } catch (error) {
    // Never log the request's headers: they carry the API key.
    if (!(error instanceof ApiError)) console.error(JSON.stringify({ request_id: requestId, error: String(error), stack: (error as Error)?.stack }));
    count('bypass');
    response = errorResponse(error, { ...budgetHeaders(caller.keyHash, nowMs), 'cache-control': 'no-store', 'x-cache': 'BYPASS' });
  }
  if (!response.headers.has('x-request-id')) response.headers.set('x-request-id', requestId);
  withCors(request, response, env.CORS_ORIGINS);
  maybeFlushStats(env.PROXY_STATS, (work) => ctx.waitUntil(work));
  if (request.method === 'HEAD') return new Response(null, response);
  return response;
}

interface Exchange {
  request: Request;
  env: ProxyEnv;
  ctx: ProxyRuntime;
  store: CacheStore;
  requestId: string;
  nowMs: number;
  apiKey: string;
  keyHash: string;
  valid: ValidRequest;
  /** The entry's name in both tiers. */
  name: string;
}

async function serve(
  request: Request,
  env: ProxyEnv,
  ctx: ProxyRuntime,
  requestId: string,
  nowMs: number,
  call: ProxyCall,
  caller: { keyHash?: string },
): Promise<Response> {
  const url = call.url ?? new URL(request.url);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    if (url.pathname !== `${API_BASE}/openapi.json` && !matchOperation(url.pathname)) throw notFound();
    throw new ApiError('method_not_allowed', `${request.method} is not allowed; every operation is a GET.`);
  }
  if (url.pathname === `${API_BASE}/openapi.json`) {
    openApiJson ??= JSON.stringify(openApiDocument());
    return new Response(openApiJson, { headers: { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'public, max-age=300' } });
  }
  const matched = matchOperation(url.pathname);
  if (!matched) throw notFound();

  const apiKey = bearerKey(request);
  if (!apiKey) throw invalidKey();
  const keyHash = knownKeyHash(apiKey) ?? (await hashApiKey(apiKey));
  caller.keyHash = keyHash;
  if (failedRecently(keyHash, nowMs)) {
    count('rejected');
    throw invalidKey();
  }
  // The HIT path avoids awaits where the answer is already in memory.
  const memoKey = `${keyHash} ${Math.floor(nowMs / DAY_MS)} ${url.pathname}${url.search}`;
  const { valid, name } =
    prepared.get(memoKey) ?? (await prepare(memoKey, matched, url, apiKey, keyHash, nowMs).catch((error: unknown) => refuseInOrder(error, matched.op, request, env, ctx, call)));
  const store = new CacheStore(env.CACHE, (work) => ctx.waitUntil(work));
  const x: Exchange = { request, env, ctx, store, requestId, nowMs, apiKey, keyHash, valid, name };

  const directives = requestDirectives(request);
  const stored = directives.noStore ? undefined : (store.recall(name, nowMs) ?? (await store.read(name, nowMs)));
  // Past stale-if-error an entry is dead, whatever KV still holds.
  const entry = stored && nowMs < stored.staleUntil ? stored : undefined;

  // A stored entry proves the key good: it skips the checks that guard the upstream from unknown keys.
  if (entry) markVerified(keyHash);
  const acceptable = entry && !directives.noCache && (directives.maxAgeS === undefined || ageS(entry, nowMs) <= directives.maxAgeS);
  if (acceptable) {
    if (nowMs < entry.freshUntil) return fromEntry(x, entry, 'HIT');
    if (nowMs < entry.revalidateUntil) {
      ctx.waitUntil(throughGate(x, { store: true }).catch(() => undefined));
      return fromEntry(x, entry, 'STALE');
    }
  }

  try {
    // Read only here: a HIT needs no client address.
    await checkBeforeUpstream(env, request, keyHash, nowMs, clientAddressFor(request, call));
  } catch (error) {
    // Refused at the edge (a key that failed, an address over its limit): counted with the over-budget refusals.
    if (error instanceof ApiError) count('rejected');
    throw error;
  }
  const answer = await throughGate(x, { store: !directives.noStore });
  if (answer.kind === 'response' && answer.status === 200) {
    if (directives.noStore) return passThrough(answer, 'BYPASS');
    return fromEntry(x, entryOf(x, answer), entry ? 'REVALIDATED' : 'MISS');
  }
  const failed = answer.kind !== 'response' || isUpstreamFailure(answer.status);
  // stale-if-error (RFC 5861, section 4): a stored answer beats an error.
  if (failed && entry) return fromEntry(x, entry, 'STALE');
  switch (answer.kind) {
    case 'over_budget':
      count('rejected');
      // Its RateLimit fields are the budget throughGate just noted: none left until Retry-After.
      throw new ApiError('rate_limited', `More than ${RATE_LIMIT} upstream reads in a minute for this key and nothing cached to answer with. Retry after the time in \`Retry-After\`.`, {
        retryAfter: answer.retryAfter,
      });
    case 'failed':
      throw new ApiError('upstream_error', `${answer.message} Retry later.`);
    case 'response':
      return passThrough(answer, 'BYPASS');
  }
}

/**
 * Validation and the cache key depend only on the key, the URL and the UTC
 * day, so a polled URL is validated and hashed once a day per isolate.
 */
const prepared = new Map<string, { valid: ValidRequest; name: string }>();
const PREPARED_MEMO = 2000;

async function prepare(memoKey: string, matched: Match, url: URL, apiKey: string, keyHash: string, nowMs: number) {
  const valid = validate(matched, url, nowMs);
  const result = { valid, name: await cacheKeyOf(apiKey, keyHash, valid.canonical) };
  if (prepared.size >= PREPARED_MEMO) prepared.delete(prepared.keys().next().value!);
  prepared.set(memoKey, result);
  return result;
}

/**
 * An invalid request gets the error the upstream would give it: the API
 * checks the key, the brand and the plan before the parameters (DESIGN
 * section 3). The edge learns them from the key's `GET /brands`, read through
 * this proxy (cached like any read: at most one upstream call per key and
 * TTL, which later `/brands` reads are served from), and never sends the
 * invalid request itself upstream.
 */
async function refuseInOrder(paramError: unknown, op: AnyOperation, request: Request, env: ProxyEnv, ctx: ProxyRuntime, call: ProxyCall): Promise<never> {
  if (!(paramError instanceof ApiError)) throw paramError;
  const brandsRequest = new Request(new URL(`${API_BASE}/brands`, request.url), { headers: { authorization: request.headers.get('authorization') ?? '' } });
  // On behalf of the same client (the inner request carries no address of its own).
  const answer = await handleProxy(brandsRequest, env, ctx, { clientAddress: clientAddressFor(request, call) });
  const body: unknown = await answer.json().catch(() => undefined);
  if (answer.status === 401 || answer.status === 403) {
    // The key's own refusal (invalid_api_key, plan_inactive) comes first.
    const refusal = ErrorBody.safeParse(body);
    if (refusal.success) throw new ApiError(refusal.data.error.code, refusal.data.error.message);
  }
  const account = BrandList.safeParse(body);
  // Without the account (the upstream failed, the budget is spent), the parameter error is still true.
  if (!account.success) throw paramError;
  if (op.scope !== 'account') resolveBrand(account.data.brands, new URL(request.url).searchParams.get('brand_id') ?? undefined);
  checkPlan({ planActive: true, includesInsights: account.data.plan.includes_pro_operations }, op);
  throw paramError;
}

/**
 * One upstream read through the key's gate. Its side effects happen here,
 * whether the caller waits (miss) or not (background refresh): the one caller
 * whose request went upstream stores a 200; a 401 purges the key's entries.
 */
async function throughGate(x: Exchange, o: { store: boolean }): Promise<GateAnswer> {
  const gates = x.env.UPSTREAM_GATE;
  let answer: GateAnswer;
  try {
    // RPC widens tuples (`[string, string][]` arrives as `string[][]`); the shape is the gate's own.
    answer = (await gates.get(gates.idFromName(x.keyHash)).call({ cacheKey: x.name, path: x.valid.upstreamPath, apiKey: x.apiKey, requestId: x.requestId })) as GateAnswer;
  } catch (error) {
    console.error(JSON.stringify({ request_id: x.requestId, msg: 'upstream gate failed', error: String(error) }));
    answer = { kind: 'failed', reason: 'network', message: 'The upstream gate is unavailable.', upstreamCall: false };
  }
  // A 200 that is not what the contract says (truncated, not JSON, a field wrong) is an upstream
  // failure: never stored, answered from stale or as 502, like a 5xx.
  if (answer.kind === 'response' && answer.status === 200) {
    const checked = checkResponseBody(x.valid.op.id, answer.body);
    if (!checked.ok) {
      console.error(JSON.stringify({ request_id: x.requestId, msg: 'upstream body breaks the contract', problem: checked.message }));
      answer = { kind: 'failed', reason: 'invalid_body', message: `The upstream's answer does not match the contract: ${checked.message}`, upstreamCall: answer.upstreamCall };
    }
  }
  if (answer.kind === 'response') noteBudget(x.keyHash, answer.headers, x.nowMs);
  if (answer.kind === 'over_budget') noteBudget(x.keyHash, [['ratelimit-remaining', '0'], ['ratelimit-reset', String(answer.retryAfter)]], x.nowMs);
  if (answer.upstreamCall) {
    count('upstream_calls');
    if (answer.kind === 'failed' || isUpstreamFailure(answer.status)) count('upstream_errors');
  } else if (answer.kind !== 'over_budget') count('coalesced');

  if (answer.kind === 'response' && answer.status === 200) markVerified(x.keyHash);
  if (answer.kind === 'response' && answer.status === 200 && answer.upstreamCall && o.store) x.store.write(x.name, entryOf(x, answer), x.nowMs);
  if (answer.kind === 'response' && answer.status === 401) await revoke(x);
  return answer;
}

/** An upstream 401: the key's entries are unusable at once (this isolate, KV, this location's Cache API), and the failure is remembered. */
async function revoke(x: Exchange): Promise<void> {
  rememberFailedAuth(x.env, x.keyHash, x.nowMs, (work) => x.ctx.waitUntil(work));
  await x.store.purge(keyPrefix(x.keyHash));
}

function entryOf(x: Exchange, answer: Extract<GateAnswer, { kind: 'response' }>): Entry {
  return {
    status: 200,
    body: answer.body,
    etag: answer.etag ?? '',
    ...freshnessFor(answer.at, freshTtlMs(x.valid.op, x.env)),
    ...brandOf(answer.body),
  };
}

function brandOf(body: string): { brandId?: number } {
  try {
    const id = (JSON.parse(body) as { brand_id?: unknown }).brand_id;
    return typeof id === 'number' ? { brandId: id } : {};
  } catch {
    return {};
  }
}

function fromEntry(x: Exchange, entry: Entry, status: CacheStatus): Response {
  count(({ HIT: 'hits', MISS: 'misses', STALE: 'stale', REVALIDATED: 'revalidated', BYPASS: 'bypass' } as const)[status]);
  const fields: Record<string, string> = {
    'content-type': JSON_CONTENT_TYPE,
    etag: entry.etag,
    age: String(ageS(entry, x.nowMs)),
    'cache-control': `private, max-age=${Math.max(0, Math.floor((entry.freshUntil - x.nowMs) / 1000))}`,
    vary: 'Authorization',
    'x-cache': status,
    'x-request-id': x.requestId,
  };
  // The key's upstream budget as the upstream last reported it (just now, on a MISS).
  Object.assign(fields, budgetHeaders(x.keyHash, x.nowMs));
  // The plain object goes to the Response as is: one native Headers construction on the HIT path.
  if (matchesIfNoneMatch(x.request.headers.get('if-none-match'), entry.etag)) {
    count('not_modified');
    return new Response(null, { status: 304, headers: fields });
  }
  return new Response(entry.body, { headers: fields });
}

/** An upstream answer that is not stored: its status, error body and limit headers, as the upstream sent them. */
function passThrough(answer: Extract<GateAnswer, { kind: 'response' }>, status: CacheStatus): Response {
  count('bypass');
  const headers = new Headers(answer.headers.filter(([name]) => name !== 'x-request-id'));
  headers.set('cache-control', 'no-store');
  headers.set('x-cache', status);
  if (answer.status >= 500 && !isErrorBody(answer.body)) {
    // A gateway's HTML page says nothing a client can parse: the spec's answer for a failed upstream is 502 upstream_error.
    return errorResponse(new ApiError('upstream_error', `The upstream failed (HTTP ${answer.status}). Retry later.`), Object.fromEntries(headers));
  }
  return new Response(answer.body, { status: answer.status, headers });
}

function isErrorBody(body: string): boolean {
  try {
    return ErrorBody.safeParse(JSON.parse(body)).success;
  } catch {
    return false;
  }
}

interface Directives {
  /** Revalidate before answering from the cache. */
  noCache: boolean;
  /** Neither read nor write the cache. */
  noStore: boolean;
  /** The oldest stored answer the caller accepts, in seconds. */
  maxAgeS?: number;
}

/**
 * Request directives (RFC 9111, section 5.2.1; names compared without case,
 * arguments as token or quoted string): `no-cache` revalidates; `max-age=N`
 * revalidates an answer older than N seconds (`max-age=0`: always);
 * `no-store` neither reads nor writes the cache. Without Cache-Control,
 * `Pragma: no-cache` counts as `no-cache` (section 5.4).
 */
const NO_DIRECTIVES: Directives = { noCache: false, noStore: false };

function requestDirectives(request: Request): Directives {
  const cacheControl = request.headers.get('cache-control') ?? '';
  // The common case, a plain poll: nothing to parse.
  if (cacheControl === '' && !request.headers.has('pragma')) return NO_DIRECTIVES;
  const directives = new Map<string, string>();
  for (const part of cacheControl.split(',')) {
    const [name = '', ...argument] = part.split('=');
    if (name.trim()) directives.set(name.trim().toLowerCase(), argument.join('=').trim().replace(/^"(.*)"$/, '$1'));
  }
  const maxAge = directives.get('max-age');
  const maxAgeS = maxAge !== undefined && /^\d+$/.test(maxAge) ? Number(maxAge) : undefined;
  const pragmaNoCache = cacheControl.trim() === '' && (request.headers.get('pragma') ?? '').split(',').some((d) => d.trim().toLowerCase() === 'no-cache');
  const noStore = directives.has('no-store');
  return { noStore, noCache: noStore || directives.has('no-cache') || pragmaNoCache || maxAgeS === 0, ...(maxAgeS !== undefined ? { maxAgeS } : {}) };
}

/** Whole seconds since the entry was stored: its `Age`. */
const ageS = (entry: Entry, nowMs: number) => Math.max(0, Math.floor((nowMs - entry.storedAt) / 1000));

/** Weak comparison (RFC 9110, section 13.1.2): `W/` is ignored, `*` matches any stored answer. */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (header === null || etag === '') return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || strip(tag) === strip(etag));
}

const notFound = () => new ApiError('not_found', 'No such operation. The operations are listed in /api/v1/openapi.json.');
