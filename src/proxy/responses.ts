/**
 * The proxy's answers and their headers: from a stored entry (HIT, STALE,
 * MISS, REVALIDATED, with `ETag`, `Age`, the TTL left in `Cache-Control` and
 * `Cache-Status`, the key's `RateLimit` fields, and a 304 for a matching
 * `If-None-Match`), or an upstream answer passed through unstored, always as
 * the API's JSON. `Cache-Status` is written here only (RFC 9211).
 */
import { ApiError, errorResponse, JSON_HEADERS } from '../contract/errors';
import type { ZodSide } from '../contract/zod-side';
import { budgetHeaders } from './budget';
import type { GateAnswer } from './gate';
import { count } from './stats';
import type { Entry } from './store';

export type CacheStatus = 'HIT' | 'MISS' | 'STALE' | 'REVALIDATED' | 'BYPASS';

/** The request an answer is built for: its conditional header, its id, the key's hash (for its budget) and the time it came. */
export interface Answering {
  headers: Headers;
  requestId: string;
  keyHash: string;
  nowMs: number;
}

/** What `Cache-Status` says of one answer (RFC 9211). */
export interface CacheStatusParams {
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
export const HIT: CacheStatusParams = { hit: true };

export function cacheStatusOf(p: CacheStatusParams, ttlS?: number): string {
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

const COUNTER_OF = { HIT: 'hits', MISS: 'misses', STALE: 'stale', REVALIDATED: 'revalidated', BYPASS: 'bypass' } as const;

export function fromEntry(x: Answering, entry: Entry, status: CacheStatus, cacheStatus: CacheStatusParams): Response {
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

function entryHeaders(x: Answering, entry: Entry, status: CacheStatus, cacheStatus: CacheStatusParams): Headers {
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
export function passThrough(
  zs: ZodSide,
  x: Pick<Answering, 'keyHash' | 'nowMs' | 'requestId'>,
  answer: Extract<GateAnswer, { kind: 'response' }>,
  status: CacheStatus,
  cacheStatus: CacheStatusParams,
): Response {
  count('bypass');
  // The upstream's own limit fields are the budget just noted: said here in the proxy's words, old and new.
  const headers = new Headers(answer.headers.filter(([name]) => !PASSED_OVER.has(name)));
  for (const [name, value] of Object.entries(budgetHeaders(x.keyHash, x.nowMs))) headers.set(name, value);
  headers.set('cache-control', 'no-store');
  headers.set('cache-status', cacheStatusOf(cacheStatus));
  headers.set('x-cache', status);
  headers.set('x-request-id', x.requestId);
  const apiAnswer = answer.status >= 500 ? isErrorBody(zs, answer.body) : isJsonObject(answer.body);
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

export function isJsonObject(body: string): boolean {
  if (!body.trimStart().startsWith('{')) return false;
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

function isErrorBody(zs: ZodSide, body: string): boolean {
  try {
    return zs.errorBodySchema().safeParse(JSON.parse(body)).success;
  } catch {
    return false;
  }
}

/** Whole seconds since the entry was stored: its `Age`. */
export const ageS = (entry: Entry, nowMs: number) => Math.max(0, Math.floor((nowMs - entry.storedAt) / 1000));

/** Weak comparison (RFC 9110, section 13.1.2): `W/` is ignored, `*` matches any stored answer. */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (header === null || etag === '') return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || strip(tag) === strip(etag));
}
