/**
 * Keeps floods of random or revoked keys from spending the upstream's budget
 * or creating unbounded state (issue 7):
 *
 * - A failed authentication (an upstream 401) is remembered for a minute per
 *   key hash, in this isolate and in KV (global), so the key's next requests
 *   are refused at the edge without an upstream call or a gate object. One
 *   request per `PROBE_INTERVAL_MS` still goes upstream, so a key that the
 *   upstream accepts again (its 401 was a blip) is served again within
 *   seconds, not a minute.
 * - A key-wide plan refusal (an upstream 403 `plan_inactive`: every operation
 *   of the key answers it) is remembered the same way, in this isolate: the
 *   key's next reads that would go upstream get the same 403 at the edge,
 *   with one probe per `PROBE_INTERVAL_MS`, so a page of four reads reloaded
 *   ten times costs its first four reads and a probe per 5 seconds, and a
 *   plan made active again is served within seconds.
 * - A request that would go upstream with a key not yet verified in this
 *   isolate counts against its client address in the Workers rate-limiting
 *   binding. That binding counts per location and approximately, which is
 *   right here: it bounds a flood from one place, not a key's exact budget
 *   (the gate holds that). Verified keys never touch it.
 *
 * The embedded origin's own mount, `/origin/api/v1/*`, sits behind the same
 * limits (`guardOrigin`): there the origin is the upstream, and each unknown
 * key costs it a D1 read.
 */
import { bearerKey, invalidKey } from '../contract/access';
import { ApiError, errorResponse } from '../contract/errors';
import { rateHeaders } from '../contract/rate-limit';
import { matchOperation } from '../contract/request';
import { requestIdOf } from '../contract/request-id';
import type { Clock } from '../lib/time';
import { hashApiKey, knownKeyHash } from './cache-key';

/** How long a failed authentication is remembered: KV's shortest expiry. */
export const FAILED_AUTH_TTL_S = 60;
/** While a key is remembered as failed, one of its requests per this interval goes upstream to see whether it is good again. */
export const PROBE_INTERVAL_MS = 5_000;
/** What an address over its limit of unverified keys hears (429): its own limit, not a key the service could not confirm. */
export const UNVERIFIED_FLOOD = 'Too many requests with unverified API keys from this address. Retry after the time in `Retry-After`.';

/** Requests with unverified keys a client address may send upstream per minute (wrangler.toml [[ratelimits]] UNVERIFIED_KEYS). */
export const UNVERIFIED_PER_MINUTE = 120;
/**
 * Keys this isolate remembers, verified and failed: at most this many of each,
 * the oldest forgotten first. A failed key forgotten here is still refused
 * through KV until its minute is over; a verified one forgotten is checked
 * again. Either way a flood of new keys cannot grow the isolate's memory.
 */
export const REMEMBERED_MAX = 10_000;

const failedName = (keyHash: string) => `authfail:v1:${keyHash}`;
const verified = new Set<string>();
/** Failed keys: until when they are refused, and when the next probe may go upstream. */
const failedHere = new Map<string, { until: number; probeAt: number }>();

/** Keys whose plan the upstream refused (403 `plan_inactive`): until when, the next probe, and the upstream's words. */
const planRefusedHere = new Map<string, { until: number; probeAt: number; message: string }>();

interface AbuseEnv {
  CACHE: KVNamespace;
  UNVERIFIED_KEYS: RateLimit;
}

/** A key whose upstream read succeeded (or that a stored entry proves good): no more checks for it here. */
export function markVerified(keyHash: string): void {
  if (verified.has(keyHash)) return;
  if (verified.size >= REMEMBERED_MAX) verified.delete(verified.values().next().value!);
  verified.add(keyHash);
}

/** When the upstream last accepted each key (ms), as this isolate saw it; bounded like the other maps. */
const acceptedAt = new Map<string, number>();

/** The upstream accepted the key: verified here, and no longer failed, here or (within KV's propagation) anywhere. */
export function acceptedUpstream(env: AbuseEnv, keyHash: string, nowMs: number, waitUntil: (work: Promise<unknown>) => void): void {
  markVerified(keyHash);
  acceptedAt.delete(keyHash);
  if (acceptedAt.size >= REMEMBERED_MAX) acceptedAt.delete(acceptedAt.keys().next().value!);
  acceptedAt.set(keyHash, nowMs);
  planRefusedHere.delete(keyHash);
  if (failedHere.delete(keyHash)) waitUntil(env.CACHE.delete(failedName(keyHash)).catch(() => undefined));
}

/** When this isolate last saw the upstream accept the key, if it did (and refuse it nowhere since: a 401 forgets it). */
export const lastAccepted = (keyHash: string): number | undefined => acceptedAt.get(keyHash);

/** Whether the upstream accepted the key less than `windowMs` ago, as this isolate saw it, and no refusal of it is remembered here. */
export function acceptedWithin(keyHash: string, nowMs: number, windowMs: number): boolean {
  const at = acceptedAt.get(keyHash);
  const failed = failedHere.get(keyHash);
  return at !== undefined && nowMs - at < windowMs && (failed === undefined || nowMs >= failed.until);
}

function rememberFailed(keyHash: string, nowMs: number): void {
  // Re-inserted at the end: the map stays in expiry order, so its first entries are the first to go.
  failedHere.delete(keyHash);
  if (failedHere.size >= REMEMBERED_MAX) failedHere.delete(failedHere.keys().next().value!);
  failedHere.set(keyHash, { until: nowMs + FAILED_AUTH_TTL_S * 1000, probeAt: nowMs + PROBE_INTERVAL_MS });
}

/** An upstream 401: remember it here at once and everywhere within KV's propagation. */
export function rememberFailedAuth(env: AbuseEnv, keyHash: string, nowMs: number, waitUntil: (work: Promise<unknown>) => void): void {
  verified.delete(keyHash);
  acceptedAt.delete(keyHash);
  rememberFailed(keyHash, nowMs);
  waitUntil(env.CACHE.put(failedName(keyHash), '1', { expirationTtl: FAILED_AUTH_TTL_S }).catch(() => undefined));
}

/**
 * Whether the key is refused at the edge now: this isolate saw it fail in the
 * last minute, and it is not yet time for its next probe (when it is, this
 * request becomes the probe and goes on). Checked before anything else,
 * without I/O.
 */
export function refusedAtEdge(keyHash: string, nowMs: number): boolean {
  const failed = failedHere.get(keyHash);
  if (failed === undefined) return false;
  if (nowMs >= failed.until) {
    failedHere.delete(keyHash);
    return false;
  }
  if (nowMs < failed.probeAt) return true;
  failed.probeAt = nowMs + PROBE_INTERVAL_MS;
  return false;
}

/** An upstream 403 `plan_inactive` for the key: its next upstream reads are answered so at the edge for a minute, but for one probe per `PROBE_INTERVAL_MS`. */
export function rememberPlanRefusal(keyHash: string, nowMs: number, message: string): void {
  planRefusedHere.delete(keyHash);
  if (planRefusedHere.size >= REMEMBERED_MAX) planRefusedHere.delete(planRefusedHere.keys().next().value!);
  planRefusedHere.set(keyHash, { until: nowMs + FAILED_AUTH_TTL_S * 1000, probeAt: nowMs + PROBE_INTERVAL_MS, message });
}

/** The plan refusal to answer at the edge now instead of an upstream read, if one is remembered and this read is not its probe. */
export function planRefusedAtEdge(keyHash: string, nowMs: number): ApiError | undefined {
  const refused = planRefusedHere.get(keyHash);
  if (refused === undefined) return undefined;
  if (nowMs >= refused.until) {
    planRefusedHere.delete(keyHash);
    return undefined;
  }
  if (nowMs < refused.probeAt) return new ApiError('plan_inactive', refused.message);
  refused.probeAt = nowMs + PROBE_INTERVAL_MS;
  return undefined;
}

/** How many keys this isolate remembers now (for the tests: both stay within REMEMBERED_MAX). */
export const rememberedHere = () => ({ verified: verified.size, failed: failedHere.size });

/**
 * The address of the client behind a request: `CF-Connecting-IP`, which
 * Cloudflare's edge sets on every request and callers cannot remove or forge.
 * Null without one (local tools, tests, work no client triggers).
 */
export const clientAddressOf = (request: Request): string | null => request.headers.get('cf-connecting-ip');

/**
 * Before an upstream read: refuses a key that failed authentication in the
 * last minute (401), and a client address that sends too many unverified
 * keys (429 `rate_limited`).
 *
 * `clientAddress` is the address of the client the read is made for; it
 * defaults to the request's own. Reads made in-process on a client's behalf
 * (the reports through `proxyTransport`) pass the outer request's address, so
 * they count against it like /api/v1 does.
 */
export async function checkBeforeUpstream(env: AbuseEnv, request: Request, keyHash: string, nowMs: number, clientAddress: string | null = clientAddressOf(request)): Promise<void> {
  if (verified.has(keyHash)) return;
  // Known here (refusedAtEdge let this one through as a probe) or never seen: KV is for keys another isolate saw fail.
  if (!failedHere.has(keyHash) && (await env.CACHE.get(failedName(keyHash)).catch(() => null)) !== null) {
    rememberFailed(keyHash, nowMs);
    throw invalidKey();
  }
  // Without an address (local tools, tests, the digest queue and cron) there is no one to hold a flood against.
  if (clientAddress === null) return;
  const { success } = await env.UNVERIFIED_KEYS.limit({ key: clientAddress });
  if (!success) {
    // The limit that refused is the address's, so the RateLimit fields say that one, spent, instead of the key's.
    throw new ApiError('rate_limited', UNVERIFIED_FLOOD, {
      retryAfter: 60,
      headers: {
        'ratelimit-policy': `"address";q=${UNVERIFIED_PER_MINUTE};w=60`,
        ratelimit: '"address";r=0;t=60',
      },
    });
  }
}

/**
 * `/origin/api/v1/*`: the embedded origin answered directly, behind the same
 * abuse limits as `/api/v1`. A request with a key to an operation is refused
 * at the edge when the key failed in the last minute (401, but for one probe
 * per `PROBE_INTERVAL_MS`) or when its client address (`CF-Connecting-IP`) has
 * sent `UNVERIFIED_PER_MINUTE` unverified keys this minute (429); the
 * origin's 401 is remembered for the key, its 200 verifies it, for this mount
 * and for /api/v1 alike (the origin is their upstream). Requests without a
 * key, the OpenAPI document and other methods cost the origin no D1 read and
 * go through as they are.
 */
export async function guardOrigin(
  request: Request,
  env: AbuseEnv,
  runtime: { now: Clock; waitUntil(work: Promise<unknown>): void },
  handle: (request: Request) => Promise<Response>,
): Promise<Response> {
  const apiKey = bearerKey(request.headers);
  if (!apiKey || (request.method !== 'GET' && request.method !== 'HEAD') || !matchOperation(new URL(request.url).pathname)) return handle(request);
  const keyHash = knownKeyHash(apiKey) ?? (await hashApiKey(apiKey));
  const nowMs = runtime.now().getTime();
  try {
    if (refusedAtEdge(keyHash, nowMs)) throw invalidKey();
    await checkBeforeUpstream(env, request, keyHash, nowMs);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    // As the origin itself answers an unknown key (its RateLimit fields: nothing counted), or the address's spent limit.
    const refused = errorResponse(error, { ...rateHeaders(undefined, nowMs), 'x-request-id': requestIdOf(request.headers) });
    return request.method === 'HEAD' ? new Response(null, refused) : refused;
  }
  const response = await handle(request);
  if (response.status === 401) rememberFailedAuth(env, keyHash, nowMs, runtime.waitUntil);
  else if (response.status === 200) acceptedUpstream(env, keyHash, nowMs, runtime.waitUntil);
  return response;
}
