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
import { ApiError, errorResponse, JSON_HEADERS } from '../contract/errors';
import { loadSchemas, loadWithSchemas, schemas } from '../contract/zod-side';
import { type AnyOperation, API_BASE, operations } from '../contract/operations';
import { bearerKey, checkPlan, invalidKey, isOAuthToken, oauthTokenNotAKey, resolveBrand } from '../contract/access';
import { RATE_LIMIT } from '../contract/rate-limit';
import { matchOperation, type Match } from '../contract/request';
import { type Clock, DAY_MS } from '../lib/time';
import type { Target } from '../lib/http';
import type { ProxyEnv } from './env';
import { budgetHeaders, noteBudget, noteBudgetSpent } from './budget';
import { requestIdOf } from '../contract/request-id';
import { isPreflight, preflight, withCors } from './cors';
import type { GateAnswer } from './gate';
import { entryFreshness, freshTtlMs, isUpstreamFailure, KEY_RECHECK_MS, KEY_RECHECK_RETRY_MS, softDeadlineMs, upstreamFreshness } from './policy';
import { realTimeout, type StartTimeout } from './upstream';
import { cacheKeyOf, hashApiKey, keyPrefix, knownKeyHash, validate, type ValidRequest } from './cache-key';
import { acceptedUpstream, checkBeforeUpstream, clientAddressOf, lastAccepted, markVerified, refusedAtEdge, REMEMBERED_MAX, rememberFailedAuth } from './abuse';
import { count, maybeFlushStats } from './stats';
import { CacheStore, type Entry, makeEntry } from './store';

export type CacheStatus = 'HIT' | 'MISS' | 'STALE' | 'REVALIDATED' | 'BYPASS';

let openApiJson: string | undefined;
/** The API's OpenAPI document's builder, loaded at the first `GET /api/v1/openapi.json`: a read never needs it. */
const contractDocument = loadWithSchemas(() => import('../contract/openapi'));

/** What the proxy needs of the moment it runs in: the clock, and where background work goes (`ctx.waitUntil`). */
export interface ProxyRuntime {
  now: Clock;
  waitUntil(work: Promise<unknown>): void;
  /** The soft deadline's timer (`realTimeout` unless a test holds the clock). */
  startTimeout?: StartTimeout;
}

export interface ProxyCall {
  /**
   * The address of the client the request is made for, when it is not the
   * request's own `CF-Connecting-IP` (an in-process read on a client's behalf;
   * null: no client, e.g. the digest queue). Unverified keys count against it.
   */
  clientAddress?: string | null;
  /** `request.url`'s path and query, read already (by the Worker's router): a URL, or `plainTarget`'s strings, which a HIT needs no more than. */
  url?: URL | Target;
}

/** The client a read is made for: the caller's say, else the request's own address. */
const clientAddressFor = (request: Request, call: ProxyCall) => (call.clientAddress !== undefined ? call.clientAddress : clientAddressOf(request));

/** The proxy's fetch handler for /api/v1/*: always a response. */
export async function handleProxy(request: Request, env: ProxyEnv, ctx: ProxyRuntime, call: ProxyCall = {}): Promise<Response> {
  // Read once: every read of a Request's headers or method is a call into the runtime, on a path that costs a few hundred µs.
  const headers = request.headers;
  const method = request.method;
  const requestId = requestIdOf(headers);
  // Without allowed origins there is no CORS: an OPTIONS request is answered like any other method (404 or 405).
  if (env.CORS_ORIGINS.length > 0 && isPreflight(request)) {
    const answer = preflight(request, env.CORS_ORIGINS);
    answer.headers.set('x-request-id', requestId);
    answer.headers.set('cache-status', cacheStatusOf({ detail: 'local' }));
    return answer;
  }
  const incoming: Incoming = { request, headers, method, requestId, nowMs: ctx.now().getTime() };
  const caller: { keyHash?: string } = {};
  let response: Response;
  try {
    response = await serve(incoming, env, ctx, call, caller);
  } catch (error) {
    // Never log the request's headers: they carry the API key.
    if (!(error instanceof ApiError)) console.error(JSON.stringify({ request_id: requestId, error: String(error), stack: (error as Error)?.stack }));
    count('bypass');
    // Answered at the edge without a stored answer or a forward, unless the error says otherwise (its own Cache-Status).
    response = errorResponse(error, {
      ...budgetHeaders(caller.keyHash, incoming.nowMs),
      'cache-control': 'no-store',
      'x-cache': 'BYPASS',
      'cache-status': cacheStatusOf({ detail: 'refused' }),
      'x-request-id': requestId,
    });
  }
  withCors(request, response, env.CORS_ORIGINS);
  maybeFlushStats(env.PROXY_STATS, incoming.nowMs, (work) => ctx.waitUntil(work));
  if (method === 'HEAD') return new Response(null, response);
  return response;
}

/** The request as read once by handleProxy. Every answer the proxy builds carries `requestId` as `X-Request-Id`. */
interface Incoming {
  request: Request;
  headers: Headers;
  method: string;
  requestId: string;
  nowMs: number;
}

interface Exchange {
  request: Request;
  headers: Headers;
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

async function serve(incoming: Incoming, env: ProxyEnv, ctx: ProxyRuntime, call: ProxyCall, caller: { keyHash?: string }): Promise<Response> {
  const { request, headers, method, requestId, nowMs } = incoming;
  const url = call.url ?? new URL(request.url);
  // Parsed only when the request is read for the first time (validated, then remembered): never on a HIT.
  const parsedUrl = () => (url instanceof URL ? url : new URL(request.url));
  if (method !== 'GET' && method !== 'HEAD') {
    if (url.pathname !== `${API_BASE}/openapi.json` && !matchOperation(url.pathname)) throw notFound();
    throw new ApiError('method_not_allowed', `${method} is not allowed; every operation is a GET.`);
  }
  if (url.pathname === `${API_BASE}/openapi.json`) {
    openApiJson ??= JSON.stringify((await contractDocument()).openApiDocument());
    return new Response(openApiJson, {
      headers: { ...JSON_HEADERS, 'cache-control': 'public, max-age=300', 'cache-status': cacheStatusOf({ detail: 'local' }), 'x-request-id': requestId },
    });
  }
  const matched = matchOperation(url.pathname);
  if (!matched) throw notFound();

  const apiKey = bearerKey(headers);
  if (!apiKey) throw invalidKey();
  // A token of our OAuth stands for a key at /mcp only: never passed to the upstream as a key.
  if (isOAuthToken(apiKey)) throw oauthTokenNotAKey();
  const keyHash = knownKeyHash(apiKey) ?? (await hashApiKey(apiKey));
  caller.keyHash = keyHash;
  if (refusedAtEdge(keyHash, nowMs)) {
    count('rejected');
    throw invalidKey();
  }
  // The HIT path avoids awaits where the answer is already in memory.
  const memoKey = `${keyHash} ${Math.floor(nowMs / DAY_MS)} ${url.pathname}${url.search}`;
  let prep = prepared.get(memoKey);
  if (!prep) {
    try {
      prep = await prepare(memoKey, matched, parsedUrl(), apiKey, keyHash, nowMs);
    } catch (error) {
      return await refuseInOrder(error, matched.op, { request, url, env, ctx, call, apiKey, keyHash, requestId, nowMs });
    }
  }
  const { valid, name } = prep;
  const store = new CacheStore(env.CACHE, (work) => ctx.waitUntil(work));
  const x: Exchange = { request, headers, env, ctx, store, requestId, nowMs, apiKey, keyHash, valid, name };

  const directives = requestDirectives(headers);
  const stored = directives.noStore ? undefined : (store.recall(name, nowMs) ?? (await store.read(name, nowMs)));
  // Past stale-if-error an entry is dead, whatever KV still holds.
  const entry = stored && nowMs < stored.staleUntil ? stored : undefined;

  // A stored entry proves the key good: it skips the checks that guard the upstream from unknown keys.
  if (entry) markVerified(keyHash);
  const acceptable = entry && !directives.noCache && (directives.maxAgeS === undefined || ageS(entry, nowMs) <= directives.maxAgeS);
  // Served from the cache, a key is checked with the upstream KEY_RECHECK_MS after it last accepted it.
  const recheck = acceptable && recheckDue(x, entry);
  if (acceptable) {
    if (nowMs < entry.freshUntil) {
      // No await on the HIT path unless the check is due.
      if (recheck && !(await stillAccepted(x))) throw invalidKey();
      return fromEntry(x, entry, 'HIT', HIT);
    }
    // A stale entry with the check due is revalidated now instead of in the background: the revalidation is the check.
    if (nowMs < entry.revalidateUntil && !recheck) {
      ctx.waitUntil(throughGate(x, { store: true }).catch(() => undefined));
      return fromEntry(x, entry, 'STALE', HIT);
    }
  }
  // Past a HIT the contract's schemas may be read (the upstream's error bodies, the refusals' order): loaded here, once per isolate.
  await loadSchemas();
  // Why this request goes forward (RFC 9211): the caller asked, the stored answer is stale, or there is none.
  const fwd = directives.noStore ? 'bypass' : directives.noCache || (entry && directives.maxAgeS !== undefined) ? 'request' : entry ? 'stale' : 'miss';

  try {
    // Read only here: a HIT needs no client address.
    await checkBeforeUpstream(env, request, keyHash, nowMs, clientAddressFor(request, call));
  } catch (error) {
    // Refused at the edge (a key that failed, an address over its limit): counted with the over-budget refusals.
    if (error instanceof ApiError) count('rejected');
    throw error;
  }
  const forward = throughGate(x, { store: !directives.noStore });
  const answer = entry ? await withinSoftDeadline(forward, softDeadlineMs(env), ctx.startTimeout ?? realTimeout) : await forward;
  if (answer === 'slow') {
    // A hung or slow upstream: the client with a stored copy gets it now; the read goes on and stores its answer.
    ctx.waitUntil(forward.catch(() => undefined));
    return fromEntry(x, entry!, 'STALE', { fwd, detail: 'slow-upstream' });
  }
  if (answer.kind === 'response' && answer.status === 200) {
    const kept = !directives.noStore && !upstreamFreshness(answer.headers).noStore;
    if (!kept) return passThrough(x, answer, 'BYPASS', { fwd, fwdStatus: 200 });
    return fromEntry(x, entryOf(x, answer), entry ? 'REVALIDATED' : 'MISS', { fwd, fwdStatus: 200, stored: answer.upstreamCall, collapsed: !answer.upstreamCall });
  }
  const failed = answer.kind !== 'response' || isUpstreamFailure(answer.status);
  // stale-if-error (RFC 5861, section 4): a stored answer beats an error.
  if (failed && entry) return fromEntry(x, entry, 'STALE', answer.kind === 'response' ? { fwd, fwdStatus: answer.status } : { fwd, detail: answer.kind === 'failed' ? answer.reason : 'over-budget' });
  switch (answer.kind) {
    case 'over_budget':
      count('rejected');
      // Its RateLimit fields are the budget throughGate just noted: none left until Retry-After.
      throw new ApiError('rate_limited', `More than ${RATE_LIMIT} upstream reads in a minute for this key and nothing cached to answer with. Retry after the time in \`Retry-After\`.`, {
        retryAfter: answer.retryAfter,
        headers: { 'cache-status': cacheStatusOf({ detail: 'over-budget' }) },
      });
    case 'failed':
      throw new ApiError('upstream_error', `${answer.message} Retry later.`, { headers: { 'cache-status': cacheStatusOf({ fwd, detail: answer.reason }) } });
    case 'response':
      return passThrough(x, answer, 'BYPASS', { fwd, fwdStatus: answer.status, collapsed: !answer.upstreamCall });
  }
}

/** The forward's answer, or `slow` when the soft deadline passed first. */
function withinSoftDeadline(forward: Promise<GateAnswer>, ms: number, startTimeout: StartTimeout): Promise<GateAnswer | 'slow'> {
  let stop = () => {};
  const slow = new Promise<'slow'>((resolve) => {
    stop = startTimeout(ms, () => resolve('slow'));
  });
  return Promise.race([forward, slow]).finally(stop);
}

/** What `Cache-Status` says of one answer (RFC 9211). */
interface CacheStatusParams {
  /** Answered from the cache, nothing forwarded. */
  hit?: true;
  /** Forwarded, and why. */
  fwd?: 'miss' | 'stale' | 'request' | 'bypass';
  fwdStatus?: number;
  /** The forwarded answer was kept. */
  stored?: boolean;
  /** Answered by another request's forward (the gate coalesced them). */
  collapsed?: boolean;
  detail?: string;
}

const CACHE_NAME = '"brand-ai-visibility-edge"';
const HIT: CacheStatusParams = { hit: true };

function cacheStatusOf(p: CacheStatusParams, ttlS?: number): string {
  let field = CACHE_NAME;
  if (p.hit) field += '; hit';
  if (p.fwd) field += `; fwd=${p.fwd}`;
  if (p.fwdStatus !== undefined) field += `; fwd-status=${p.fwdStatus}`;
  if (p.stored) field += '; stored';
  if (p.collapsed) field += '; collapsed';
  if (ttlS !== undefined) field += `; ttl=${ttlS}`;
  if (p.detail) field += `; detail=${p.detail}`;
  return field;
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
interface Invalid {
  request: Request;
  url: Target;
  env: ProxyEnv;
  ctx: ProxyRuntime;
  call: ProxyCall;
  apiKey: string;
  keyHash: string;
  requestId: string;
  nowMs: number;
}

async function refuseInOrder(paramError: unknown, op: AnyOperation, invalid: Invalid): Promise<Response> {
  if (!(paramError instanceof ApiError)) throw paramError;
  await loadSchemas();
  const { request, env, ctx, call } = invalid;
  const brandsRequest = new Request(new URL(`${API_BASE}/brands`, request.url), { headers: { authorization: request.headers.get('authorization') ?? '' } });
  // On behalf of the same client (the inner request carries no address of its own).
  const answer = await handleProxy(brandsRequest, env, ctx, { clientAddress: clientAddressFor(request, call) });
  const body: unknown = await answer.json().catch(() => undefined);
  if (answer.status === 401 || answer.status === 403) {
    // The key's own refusal (invalid_api_key, plan_inactive) comes first.
    const refusal = schemas().errorBodySchema().safeParse(body);
    if (refusal.success) throw new ApiError(refusal.data.error.code, refusal.data.error.message);
  }
  const account = operations.listBrands.response.safeParse(body);
  // The upstream's /brands does not say brands and plan in these words: only the upstream can tell which refusal comes first.
  if (answer.status === 200 && !account.success) return forwardUnchecked(invalid, paramError);
  // Without the account (the upstream failed, the budget is spent), the parameter error is still true.
  if (!account.success) throw paramError;
  if (op.scope !== 'account') resolveBrand(account.data.brands, new URL(request.url).searchParams.get('brand_id') ?? undefined);
  checkPlan({ planActive: true, includesInsights: account.data.plan.includes_pro_operations }, op);
  throw paramError;
}

/**
 * Sends a request the edge finds invalid to the upstream as it is, through
 * the key's gate and its abuse limits, and answers as the upstream does;
 * never stored. Only when the edge cannot tell the API's check order itself.
 */
async function forwardUnchecked(invalid: Invalid, paramError: ApiError): Promise<Response> {
  const { request, url, env, call, apiKey, keyHash, requestId, nowMs } = invalid;
  await checkBeforeUpstream(env, request, keyHash, nowMs, clientAddressFor(request, call));
  const path = url.pathname.slice(API_BASE.length) + url.search;
  const gates = env.UPSTREAM_GATE;
  const answer = (await gates
    .get(gates.idFromName(keyHash))
    .call({ cacheKey: `unchecked ${path}`, path, apiKey, requestId })
    .catch(() => undefined)) as GateAnswer | undefined;
  if (answer?.kind === 'response') {
    noteBudget(keyHash, answer.headers, nowMs);
    return passThrough({ keyHash, nowMs, requestId }, answer, 'BYPASS', { fwd: 'request', fwdStatus: answer.status });
  }
  // No answer: the edge's own refusal is still true.
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
  // The proxy is a cache, not a judge of bodies (DESIGN section 6): any JSON object is stored as it
  // is, whatever its field names. A 200 that is not one (truncated, HTML, a bare array) is an
  // upstream failure: never stored, answered from stale or as 502, like a 5xx.
  if (answer.kind === 'response' && answer.status === 200 && !isJsonObject(answer.body)) {
    console.error(JSON.stringify({ request_id: x.requestId, msg: 'upstream 200 is not a JSON object', operation: x.valid.op.id }));
    answer = { kind: 'failed', reason: 'invalid_body', message: 'The upstream answered 200 with a body that is not a JSON object.', upstreamCall: answer.upstreamCall };
  }
  if (answer.kind === 'response') noteBudget(x.keyHash, answer.headers, x.nowMs);
  if (answer.kind === 'over_budget') noteBudgetSpent(x.keyHash, answer.retryAfter, x.nowMs);
  if (answer.upstreamCall) {
    count('upstream_calls');
    if (answer.kind === 'failed' || isUpstreamFailure(answer.status)) count('upstream_errors');
  } else if (answer.kind === 'response') count('coalesced');

  if (answer.kind === 'response' && answer.status === 200) acceptedUpstream(x.env, x.keyHash, x.nowMs, (work) => x.ctx.waitUntil(work));
  if (answer.kind === 'response' && answer.status === 200 && answer.upstreamCall && o.store && !upstreamFreshness(answer.headers).noStore) x.store.write(x.name, entryOf(x, answer), x.nowMs);
  if (answer.kind === 'response' && answer.status === 401) await revoke(x);
  return answer;
}

/** Keys whose validity check failed to get an answer: not asked again before this (ms). */
const recheckAfter = new Map<string, number>();

/**
 * Whether the key may still be served from the cache: the upstream accepted
 * it less than KEY_RECHECK_MS ago (a stored answer is such an acceptance), or
 * it accepts it now. The check is the key's own `GET /brands`, through its
 * gate; a 401 there drops the key's entries (throughGate) and this answer.
 * No answer (an outage, the budget spent) serves the key and asks again soon.
 */
function recheckDue(x: Exchange, entry: Entry): boolean {
  const acceptedAt = Math.max(entry.storedAt, lastAccepted(x.keyHash) ?? 0);
  return x.nowMs - acceptedAt >= KEY_RECHECK_MS && x.nowMs >= (recheckAfter.get(x.keyHash) ?? 0);
}

async function stillAccepted(x: Exchange): Promise<boolean> {
  const check = new Request(new URL(`${API_BASE}/brands`, x.request.url), { headers: { authorization: `Bearer ${x.apiKey}`, 'cache-control': 'no-cache', 'x-request-id': x.requestId } });
  const answer = await handleProxy(check, x.env, x.ctx, { clientAddress: null });
  await answer.body?.cancel();
  if (answer.status === 401) return false;
  if (answer.status !== 200) {
    if (recheckAfter.size >= REMEMBERED_MAX) recheckAfter.delete(recheckAfter.keys().next().value!);
    recheckAfter.set(x.keyHash, x.nowMs + KEY_RECHECK_RETRY_MS);
  }
  return true;
}

/** An upstream 401: the key's entries are unusable at once (this isolate, KV, this location's Cache API), and the failure is remembered. */
async function revoke(x: Exchange): Promise<void> {
  rememberFailedAuth(x.env, x.keyHash, x.nowMs, (work) => x.ctx.waitUntil(work));
  await x.store.purge(keyPrefix(x.keyHash));
}

/** Entries made of upstream answers: a MISS stores and answers the same entry, and its body is parsed once for it. */
const entries = new WeakMap<GateAnswer, Entry>();

function entryOf(x: Exchange, answer: Extract<GateAnswer, { kind: 'response' }>): Entry {
  let entry = entries.get(answer);
  if (!entry) {
    entry = makeEntry(answer.body, answer.etag ?? '', entryFreshness(answer.at, freshTtlMs(x.valid.op, x.env), upstreamFreshness(answer.headers)), brandOf(answer.body));
    entries.set(answer, entry);
  }
  return entry;
}

function brandOf(body: string): number | undefined {
  try {
    const id = (JSON.parse(body) as { brand_id?: unknown }).brand_id;
    return typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

const COUNTER_OF = { HIT: 'hits', MISS: 'misses', STALE: 'stale', REVALIDATED: 'revalidated', BYPASS: 'bypass' } as const;

function fromEntry(x: Exchange, entry: Entry, status: CacheStatus, cacheStatus: CacheStatusParams): Response {
  count(COUNTER_OF[status]);
  const headers = entryHeaders(x, entry, status, cacheStatus);
  const notModified = matchesIfNoneMatch(x.headers.get('if-none-match'), entry.etag);
  if (notModified) count('not_modified');
  const response = notModified ? new Response(null, { status: 304, headers }) : new Response(entry.body, { headers });
  response.headers.set('x-request-id', x.requestId);
  return response;
}

/**
 * An answer's headers from a stored entry, all but `X-Request-Id`. A HIT's
 * change only with the second (`Age`, the TTL left) and the key's budget, so
 * the last one built for an entry is kept and given again while they hold:
 * a `Headers` copied natively costs the runtime less than eleven fields
 * converted from a JavaScript object, on the path every poll takes.
 */
interface KeptHeaders {
  ageS: number;
  ttlS: number;
  ratelimit: string;
  policy: string;
  headers: Headers;
}
const keptHeaders = new WeakMap<Entry, KeptHeaders>();

function entryHeaders(x: Exchange, entry: Entry, status: CacheStatus, cacheStatus: CacheStatusParams): Headers {
  const ttlS = Math.floor((entry.freshUntil - x.nowMs) / 1000);
  const age = ageS(entry, x.nowMs);
  // The key's upstream budget as the upstream last reported it (just now, on a MISS).
  const budget = budgetHeaders(x.keyHash, x.nowMs);
  const ratelimit = budget.ratelimit!;
  const policy = budget['ratelimit-policy']!;
  const hit = cacheStatus === HIT && status === 'HIT';
  const kept = hit ? keptHeaders.get(entry) : undefined;
  if (kept && kept.ageS === age && kept.ttlS === ttlS && kept.ratelimit === ratelimit && kept.policy === policy) return kept.headers;
  const headers = new Headers({
    ...JSON_HEADERS,
    etag: entry.etag,
    age: String(age),
    'cache-control': `private, max-age=${Math.max(0, ttlS)}`,
    'cache-status': cacheStatusOf(cacheStatus, ttlS),
    vary: 'Authorization',
    'x-cache': status,
    'ratelimit-policy': policy,
    ratelimit,
  });
  if (hit) keptHeaders.set(entry, { ageS: age, ttlS, ratelimit, policy, headers });
  return headers;
}

/**
 * An upstream answer that is not stored: its status, error body and limit
 * headers, as the upstream sent them, always as JSON. What is not the API's
 * (a gateway's HTML 504, an HTML 404 from a wrong base path) says nothing a
 * client can parse: it becomes 502 `upstream_error` saying what came back.
 */
function passThrough(x: Pick<Exchange, 'keyHash' | 'nowMs' | 'requestId'>, answer: Extract<GateAnswer, { kind: 'response' }>, status: CacheStatus, cacheStatus: CacheStatusParams): Response {
  count('bypass');
  // The upstream's own limit fields are the budget just noted: said here in the proxy's words, old and new.
  const headers = new Headers(answer.headers.filter(([name]) => !PASSED_OVER.has(name)));
  for (const [name, value] of Object.entries(budgetHeaders(x.keyHash, x.nowMs))) headers.set(name, value);
  headers.set('cache-control', 'no-store');
  headers.set('cache-status', cacheStatusOf(cacheStatus));
  headers.set('x-cache', status);
  headers.set('x-request-id', x.requestId);
  const apiAnswer = answer.status >= 500 ? isErrorBody(answer.body) : isJsonObject(answer.body);
  if (!apiAnswer) {
    const type = mediaTypeOf(answer.headers.find(([name]) => name === 'content-type')?.[1]);
    const hint = answer.status === 404 ? ' Check UPSTREAM_URL: it must be the base URL ending in /api/v1.' : ' Retry later.';
    headers.delete('content-length');
    return errorResponse(new ApiError('upstream_error', `The upstream answered HTTP ${answer.status} with ${type}, not the API's JSON.${hint}`), Object.fromEntries(headers));
  }
  for (const [name, value] of Object.entries(JSON_HEADERS)) headers.set(name, value);
  return new Response(answer.body, { status: answer.status, headers });
}

/** The media type of an upstream `Content-Type`, alone: its parameters, or a value that is not one, are the upstream's words, not repeated to the caller. */
function mediaTypeOf(contentType: string | undefined): string {
  if (contentType === undefined) return 'no content type';
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(type) ? type : 'an unreadable content type';
}

/** Upstream fields a pass-through does not repeat: the proxy says them itself (the limit's in the draft's current names only). */
const PASSED_OVER = new Set(['x-request-id', 'content-type', 'age', 'cache-control', 'ratelimit', 'ratelimit-policy', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']);

function isJsonObject(body: string): boolean {
  if (!body.trimStart().startsWith('{')) return false;
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

function isErrorBody(body: string): boolean {
  try {
    return schemas().errorBodySchema().safeParse(JSON.parse(body)).success;
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

function requestDirectives(headers: Headers): Directives {
  const cacheControl = headers.get('cache-control') ?? '';
  // The common case, a plain poll: nothing to parse.
  if (cacheControl === '' && !headers.has('pragma')) return NO_DIRECTIVES;
  const directives = new Map<string, string>();
  for (const part of cacheControl.split(',')) {
    const [name = '', ...argument] = part.split('=');
    if (name.trim()) directives.set(name.trim().toLowerCase(), argument.join('=').trim().replace(/^"(.*)"$/, '$1'));
  }
  const maxAge = directives.get('max-age');
  const maxAgeS = maxAge !== undefined && /^\d+$/.test(maxAge) ? Number(maxAge) : undefined;
  const pragmaNoCache = cacheControl.trim() === '' && (headers.get('pragma') ?? '').split(',').some((d) => d.trim().toLowerCase() === 'no-cache');
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
