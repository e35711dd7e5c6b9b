/**
 * The edge proxy of the Read API v1 at /api/v1: every operation of the
 * contract table, with the upstream's paths, parameters, errors and bodies.
 * The cache rules are in policy.ts; this file is the state machine that
 * applies them (the answers and their headers are responses.ts, the
 * request's directives directives.ts, the refusals refusals.ts):
 *
 *   validate at the edge (an invalid request never goes upstream; its error
 *   respects the API's check order, see refuseInOrder)
 *   -> fresh entry: HIT
 *   -> stale within stale-while-revalidate: STALE, refresh via ctx.waitUntil
 *   -> otherwise (or `Cache-Control: no-cache`): the upstream gate, then
 *      MISS / REVALIDATED on 200, stale-if-error on 5xx, timeout or 429,
 *      pass-through (never stored) for every other status.
 */
import { ApiError, errorResponse } from '../contract/errors';
import { zodSide } from '../contract/zod-side';
import { type AnyOperation, API_BASE } from '../contract/operations';
import { API_DOCUMENT_ASSET, documentResponse } from '../contract/documents';
import { bearerKey, invalidKey, isOAuthToken, oauthTokenNotAKey } from '../contract/access';
import { RATE_LIMIT } from '../contract/rate-limit';
import { matchOperation, type Match } from '../contract/request';
import { type Clock, DAY_MS } from '../lib/time';
import type { Target } from '../lib/http';
import type { ProxyEnv } from './env';
import { budgetHeaders, noteBudget, noteBudgetSpent } from './budget';
import { requestDirectives } from './directives';
import { requestIdOf } from '../contract/request-id';
import { isPreflight, preflight, withCors } from './cors';
import type { GateAnswer } from './gate';
import { CIRCUIT_OPEN_MS, entryFreshness, freshTtlMs, isUpstreamFailure, KEY_RECHECK_MS, KEY_RECHECK_RETRY_MS, softDeadlineMs, upstreamFreshness } from './policy';
import { realTimeout, type StartTimeout } from './upstream';
import { cacheKeyOf, hashApiKey, keyPrefix, knownKeyHash, knownUpstreamTag, upstreamTagOf, validate, type ValidRequest } from './cache-key';
import { upstreamUrlOf } from './upstream';
import { acceptedUpstream, checkBeforeUpstream, clientAddressOf, lastAccepted, markVerified, planRefusedAtEdge, refusedAtEdge, REMEMBERED_MAX, rememberFailedAuth, rememberPlanRefusal } from './abuse';
import { count, maybeFlushStats } from './stats';
import { CacheStore, type Entry, makeEntry } from './store';
import { ageS, type CacheStatusParams, cacheStatusOf, fromEntry, HIT, isJsonObject, passThrough } from './responses';
import { notFound, refuseInOrder } from './refusals';

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
  /**
   * Every parameter the contract lacks is a page's of the service, passed on and stored as its own entry, before any
   * map names it: discovery, which probes a service's pages to find them (src/discovery/pages.ts).
   */
  anyPageParams?: boolean;
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
    // Built at build time into the static assets (src/contract/documents.ts).
    return documentResponse(env.ASSETS, API_DOCUMENT_ASSET, { 'cache-status': cacheStatusOf({ detail: 'local' }), 'x-request-id': requestId });
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
  const upstreamTag = knownUpstreamTag(env) ?? (await upstreamTagOf(env));
  const memoKey = `${keyHash} ${upstreamTag} ${Math.floor(nowMs / DAY_MS)} ${url.pathname}${url.search}`;
  let prep = prepared.get(memoKey);
  if (!prep) {
    try {
      // Only a parameter the contract lacks asks for the map: the pages a service adds (its `pages`).
      // Loaded then, not when an isolate loads: the map's schemas are zod's, which a HIT never needs.
      const pageParams = async (undeclared: string[]) =>
        call.anyPageParams ? undeclared : ((await (await import('./upstream-map')).operationMapOf(env.CACHE, ctx.now, matched.op.id))?.pages?.params ?? []);
      prep = await prepare(memoKey, matched, parsedUrl(), apiKey, keyHash, upstreamTag, nowMs, pageParams);
    } catch (error) {
      const clientAddress = clientAddressFor(request, call);
      const readBrands = (brands: Request) => handleProxy(brands, env, ctx, { clientAddress });
      return await refuseInOrder(error, matched.op, { request, url, env, clientAddress, readBrands, apiKey, keyHash, requestId, nowMs });
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
  const zs = await zodSide();
  // Why this request goes forward (RFC 9211): the caller asked, the stored answer is stale, or there is none.
  const fwd = directives.noStore ? 'bypass' : directives.noCache || (entry && directives.maxAgeS !== undefined) ? 'request' : entry ? 'stale' : 'miss';

  try {
    // A plan the upstream refused a moment ago is refused again here, without a read (but for a probe now and then).
    const planRefused = planRefusedAtEdge(keyHash, nowMs);
    if (planRefused) throw planRefused;
    // Read only here: a HIT needs no client address.
    await checkBeforeUpstream(env, request, keyHash, nowMs, clientAddressFor(request, call));
  } catch (error) {
    // Refused at the edge (a key that failed, an address over its limit): counted with the over-budget refusals.
    if (error instanceof ApiError) count('rejected');
    throw error;
  }
  const now = directives.upstreamNow === true;
  const forward = throughGate(x, { store: !directives.noStore, fresh: now });
  const answer = entry || now ? await withinSoftDeadline(forward, softDeadlineMs(env), ctx.startTimeout ?? realTimeout) : await forward;
  if (answer === 'slow') {
    // A hung or slow upstream: the client with a stored copy gets it now; the read goes on and stores its answer.
    ctx.waitUntil(forward.catch(() => undefined));
    if (now) throw upstreamNotNow('did not answer in time', { fwd, detail: 'slow-upstream' }, SLOW_RETRY_S);
    return fromEntry(x, entry!, 'STALE', { fwd, detail: 'slow-upstream' });
  }
  if (answer.kind === 'response' && answer.status === 200) {
    const kept = !directives.noStore && !upstreamFreshness(answer.headers).noStore;
    if (!kept) return passThrough(zs, x, answer, 'BYPASS', { fwd, fwdStatus: 200 });
    return fromEntry(x, entryOf(x, answer), entry ? 'REVALIDATED' : 'MISS', { fwd, fwdStatus: 200, stored: answer.upstreamCall, collapsed: !answer.upstreamCall });
  }
  const failed = answer.kind !== 'response' || isUpstreamFailure(answer.status);
  // stale-if-error (RFC 5861, section 4): a stored answer beats an error.
  if (failed && entry && !now)
    return fromEntry(x, entry, 'STALE', answer.kind === 'response' ? { fwd, fwdStatus: answer.status } : { fwd, detail: answer.kind === 'failed' ? answer.reason : 'over-budget' });
  switch (answer.kind) {
    case 'over_budget':
      count('rejected');
      // Its RateLimit fields are the budget throughGate just noted: none left until Retry-After.
      throw new ApiError('rate_limited', `More than ${RATE_LIMIT} upstream reads in a minute for this key and nothing cached to answer with. Retry after the time in \`Retry-After\`.`, {
        retryAfter: answer.retryAfter,
        headers: { 'cache-status': cacheStatusOf({ detail: 'over-budget' }) },
      });
    case 'failed':
      if (now) throw upstreamNotNow(answer.message, { fwd, detail: answer.reason }, FAILED_RETRY_S);
      throw new ApiError('upstream_error', `${answer.message} Retry later.`, { headers: { 'cache-status': cacheStatusOf({ fwd, detail: answer.reason }) } });
    case 'response':
      return passThrough(zs, x, answer, 'BYPASS', { fwd, fwdStatus: answer.status, collapsed: !answer.upstreamCall });
  }
}

/** When a read that takes only the upstream's answer now (`upstreamNow`) may try again: after a slow upstream, after a failed one (its circuit's pause). */
const SLOW_RETRY_S = 5;
const FAILED_RETRY_S = CIRCUIT_OPEN_MS / 1000;

/** A read that takes only the upstream's answer now, without one: 502 with when to try again, never a stored copy. */
function upstreamNotNow(what: string, status: CacheStatusParams, retryAfter: number): ApiError {
  return new ApiError('upstream_error', `The upstream ${what}, and this read takes no stored answer. Retry after the time in \`Retry-After\`.`, {
    retryAfter,
    headers: { 'cache-status': cacheStatusOf(status) },
  });
}

/** The forward's answer, or `slow` when the soft deadline passed first. */
function withinSoftDeadline(forward: Promise<GateAnswer>, ms: number, startTimeout: StartTimeout): Promise<GateAnswer | 'slow'> {
  let stop = () => {};
  const slow = new Promise<'slow'>((resolve) => {
    stop = startTimeout(ms, () => resolve('slow'));
  });
  return Promise.race([forward, slow]).finally(stop);
}

/**
 * Validation and the cache key depend only on the key, the upstream, the URL
 * and the UTC day, so a polled URL is validated and hashed once a day per isolate.
 */
const prepared = new Map<string, { valid: ValidRequest; name: string }>();
const PREPARED_MEMO = 2000;

async function prepare(
  memoKey: string,
  matched: Match,
  url: URL,
  apiKey: string,
  keyHash: string,
  upstreamTag: string,
  nowMs: number,
  pageParams: (undeclared: string[]) => Promise<readonly string[]>,
) {
  const declared = (matched.op as unknown as AnyOperation).params.query;
  const undeclared = [...url.searchParams.keys()].filter((name) => !Object.hasOwn(declared, name));
  const valid = validate(matched, url, nowMs, undeclared.length > 0 ? await pageParams(undeclared) : []);
  const result = { valid, name: await cacheKeyOf(apiKey, keyHash, upstreamTag, valid.canonical) };
  if (prepared.size >= PREPARED_MEMO) prepared.delete(prepared.keys().next().value!);
  prepared.set(memoKey, result);
  return result;
}

/**
 * One upstream read through the key's gate. Its side effects happen here,
 * whether the caller waits (miss) or not (background refresh): the one caller
 * whose request went upstream stores a 200; a 401 purges the key's entries.
 */
async function throughGate(x: Exchange, o: { store: boolean; fresh?: boolean }): Promise<GateAnswer> {
  const gates = x.env.UPSTREAM_GATE;
  let answer: GateAnswer;
  try {
    // RPC widens tuples (`[string, string][]` arrives as `string[][]`); the shape is the gate's own.
    // The gate reads the upstream this Worker names its entry after: the body stored under x.name is that service's.
    const request = { cacheKey: x.name, path: x.valid.upstreamPath, apiKey: x.apiKey, requestId: x.requestId, upstream: upstreamUrlOf(x.env), ...(o.fresh ? { fresh: true } : {}) };
    answer = (await gates.get(gates.idFromName(x.keyHash)).call(request)) as GateAnswer;
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
  if (answer.kind === 'response' && answer.status === 403) {
    const refusal = (await zodSide()).errorBodySchema().safeParse(parseJson(answer.body));
    if (refusal.success && refusal.data.error.code === 'plan_inactive') rememberPlanRefusal(x.keyHash, x.nowMs, refusal.data.error.message);
  }
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

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function brandOf(body: string): number | undefined {
  try {
    const id = (JSON.parse(body) as { brand_id?: unknown }).brand_id;
    return typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}
