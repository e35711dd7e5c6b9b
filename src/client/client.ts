/**
 * The typed client of the Read API v1: one method per operation of the
 * contract table, typed parameters in, zod-validated typed results out.
 *
 * ```ts
 * const api = createClient({ apiKey, ...upstreamFromEnv(env) });
 * const { score } = await api.getVisibility({ brand_id: 2, market: 'us' });
 * const topics = await api.listTopics({ days: 28 });
 * const { data, meta } = await api.withMeta.getTopic({ id: 1101 }); // meta.cache, meta.ageSeconds, meta.readAt
 * ```
 */
import { apiKeyProblem, invalidKey } from '../contract/access';
import { checkResponseBody, type Unreadable } from '../contract/body';
import type { ErrorBody } from '../contract/errors';
import { type ZodSide, zodSide } from '../contract/zod-side';
import type { OperationMap } from '../contract/schemas/upstream-map';
import { type RateFields, readRateFields } from '../contract/rate-limit';
import { API_BASE, type AnyOperation, type OperationId, type Operations, operations, OPERATION_IDS, type ResponseOf } from '../contract/operations';
import type { ParamsInput } from '../contract/params';
import { readBodyUpTo } from '../lib/http';
import { parseRetryAfter } from '../lib/time';
import { ApiClientError } from './errors';
import { DEFAULT_MAX_BYTES, type Transport } from './transport';
import { joinPages, MAX_PAGES, nextPage, type Pages } from './pages';

export type { Transport };

export interface RetryPolicy {
  /** Requests in all, the first included. */
  attempts: number;
  /** First backoff step; each retry doubles it, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Wall time for the whole call, waits included; a retry that would pass it is not made. */
  totalMs: number;
}

/** Bounded on both counts: at most 4 requests and 30 s per call, whatever the API says. */
export const defaultRetry: RetryPolicy = { attempts: 4, baseDelayMs: 200, maxDelayMs: 5_000, totalMs: 30_000 };
export const DEFAULT_TIMEOUT_MS = 10_000;
/** 502 is the spec's "retry later"; 503 and 504 are what proxies and load balancers say for the same. */
const RETRYABLE_STATUS = new Set([502, 503, 504]);

export interface ClientOptions {
  apiKey: string;
  transport: Transport;
  /** Base address including `/api/v1`. With an in-process transport any host will do. */
  baseUrl?: string;
  /** Per request, not per call: each retry gets its own. */
  timeoutMs?: number;
  /** The largest answer read, in bytes (`DEFAULT_MAX_BYTES`): a longer one is abandoned there, a `parse` error. */
  maxBytes?: number;
  retry?: Partial<RetryPolicy>;
  /** Seams, so tests never wait: how to wait, the jitter source (0 to 1) and the clock. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
  /**
   * The upstream map's entry for an operation (src/contract/upstream-map.ts), asked for only when a body
   * fails the contract as sent: how another implementation's fields map onto the contract's.
   */
  upstreamMap?: (id: OperationId) => Promise<OperationMap | undefined>;
  /** Told of every 200 whose body breaks the contract (before the `parse` error is thrown): where a deployment logs it. */
  onContractMismatch?: (error: ApiClientError) => void;
}

export interface CallOptions {
  /** Extra request headers, e.g. `{ 'cache-control': 'no-cache' }` to make the edge proxy revalidate. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** What a method takes: path and query parameters by name, numbers as numbers, defaults optional (their declarations' types). */
export type ParamsOf<Id extends OperationId> = Simplify<ParamsInput<Operations[Id]['params']['query']> & ParamsInput<Operations[Id]['params']['path']>>;

type ArgsOf<Id extends OperationId> = {} extends ParamsOf<Id> ? [params?: ParamsOf<Id>, options?: CallOptions] : [params: ParamsOf<Id>, options?: CallOptions];

export type CacheStatus = 'HIT' | 'MISS' | 'STALE' | 'REVALIDATED' | 'BYPASS';

/** What the reports need to say about a read besides its data. */
export interface ResponseMeta {
  status: number;
  /** `X-Cache` of the edge proxy; null when read from the origin directly. */
  cache: CacheStatus | null;
  /** `Age` in seconds: how long ago the proxy stored the answer (0 when fresh from upstream). */
  ageSeconds: number | null;
  etag: string | null;
  requestId: string | null;
  /** When this client received the answer. */
  readAt: Date;
  attempts: number;
  rateLimit: RateFields | null;
}

export interface WithMeta<T> {
  data: T;
  meta: ResponseMeta;
}

export interface LenientOptions extends CallOptions {
  /** Contract paths the caller can do without (`history`, `topics[].rivals`): absent or unreadable, they are left out. */
  optional: readonly string[];
  /** Keep a text or number at those paths that the contract does not read, as sent, instead of leaving it out: for callers that only show values (CSV cells). */
  carry?: boolean;
}

export interface Lenient<T> extends WithMeta<T> {
  /** Of `optional`, the paths the body does not provide (after the upstream map): left out of `data`. */
  absent: string[];
  /** Of those, the values the body held and the contract does not read, each with its field (src/contract/body.ts). */
  unreadable: Unreadable[];
}

export type ApiClient = { [Id in OperationId]: (...args: ArgsOf<Id>) => Promise<ResponseOf<Id>> } & {
  /** The same methods, resolving to `{ data, meta }`. */
  withMeta: { [Id in OperationId]: (...args: ArgsOf<Id>) => Promise<WithMeta<ResponseOf<Id>>> };
  /**
   * The body as the API sent it, any JSON object, not checked against the
   * contract: for callers that pass bodies on rather than read their fields
   * (the MCP tools), so an implementation of the spec with other field names
   * is served as it is, as the proxy serves it.
   */
  unchecked: { [Id in OperationId]: (...args: ArgsOf<Id>) => Promise<WithMeta<Record<string, unknown>>> };
  /**
   * The same methods for a feature that can do without some of a body
   * (DESIGN section 13): only the `optional` paths may be absent, and
   * `absent` says which were; a body that breaks any other field still
   * fails naming it. `data` lacks the absent fields, whatever its type says.
   */
  lenient: { [Id in OperationId]: (params: ParamsOf<Id>, options: LenientOptions) => Promise<Lenient<ResponseOf<Id>>> };
};

const CACHE_STATUSES: readonly string[] = ['HIT', 'MISS', 'STALE', 'REVALIDATED', 'BYPASS'];

/**
 * The URL of one call: path parameters substituted (percent-encoded), the rest
 * as the query string. Undefined values are left out.
 */
export function operationUrl(baseUrl: string, id: OperationId, params: Record<string, unknown> = {}): string {
  const op = operations[id] as unknown as AnyOperation;
  const pathNames = new Set(Object.keys(op.params.path));
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`${id}: path parameter \`${name}\` is required.`);
    return encodeURIComponent(String(value));
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (pathNames.has(name) || value === undefined || value === null) continue;
    query.append(name, String(value));
  }
  const search = query.size > 0 ? `?${query}` : '';
  return `${baseUrl.replace(/\/+$/, '')}${path}${search}`;
}

/**
 * Delay before retry number `retry` (1-based): exponential, capped, with
 * "equal jitter" so it stays within [step/2, step] and clients spread out.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return step / 2 + random() * (step / 2);
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class Timeout extends Error {}
class TooLarge extends Error {}

/** Creates a client; see the module comment for an example. */
export function createClient(options: ClientOptions): ApiClient {
  const baseUrl = options.baseUrl ?? `http://origin.internal${API_BASE}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const retry: RetryPolicy = { ...defaultRetry, ...options.retry };
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;

  /** One attempt: the response and its body text, or a timeout/network error. */
  async function attempt(id: OperationId, url: string, call: CallOptions, limitMs: number): Promise<{ response: Response; text: string }> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(call.signal?.reason);
    call.signal?.addEventListener('abort', onAbort);
    const headers = new Headers(call.headers);
    headers.set('authorization', `Bearer ${options.apiKey}`);
    headers.set('accept', 'application/json');
    const request = new Request(url, { headers, signal: controller.signal });
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The race, not only the abort signal: an in-process transport may ignore the signal.
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Timeout());
      }, limitMs);
    });
    try {
      return await Promise.race([
        // Bounded, and cancelled by the timeout's abort: an answer that never ends neither fills memory nor outlives the call.
        options.transport(request).then(async (response) => ({ response, text: await readBodyUpTo(response, maxBytes, () => new TooLarge(), controller.signal) })),
        expired,
      ]);
    } catch (error) {
      if (error instanceof Timeout) throw new ApiClientError({ kind: 'timeout', code: 'timeout', status: 0, operation: id, message: `${id}: no answer within ${limitMs} ms.` });
      if (error instanceof TooLarge)
        throw new ApiClientError({ kind: 'parse', code: 'invalid_response', status: 0, operation: id, message: `${id}: the answer is larger than ${maxBytes} bytes; it was not read past that.` });
      throw new ApiClientError({ kind: 'network', code: 'network_error', status: 0, operation: id, message: `${id}: the request failed: ${String(error)}`, cause: error });
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', onAbort);
    }
  }

  function httpError(zs: ZodSide, id: OperationId, response: Response, text: string): ApiClientError {
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'), now());
    let body: ErrorBody | undefined;
    try {
      const parsed = zs.errorBodySchema().safeParse(JSON.parse(text));
      if (parsed.success) body = parsed.data;
    } catch {
      // Not JSON: a proxy's HTML error page, say. The status still tells what happened.
    }
    return new ApiClientError({
      kind: 'http',
      code: body?.error.code ?? (response.status >= 500 ? 'upstream_error' : 'invalid_response'),
      status: response.status,
      operation: id,
      message: body ? `${id}: ${body.error.message}` : `${id}: HTTP ${response.status} without an error body.`,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
      ...(body?.error.param !== undefined ? { param: body.error.param } : {}),
    });
  }

  async function parseBody<Id extends OperationId>(
    zs: ZodSide,
    id: Id,
    text: string,
    optional: readonly string[],
    carry: boolean,
    mapOf: () => Promise<OperationMap | undefined>,
  ): Promise<{ data: ResponseOf<Id>; absent: string[]; unreadable: Unreadable[] }> {
    const plain = checkResponseBody(zs, id, text, undefined, optional, carry);
    if (plain.ok && plain.asSent) return plain;
    // Another implementation's body: its map, when there is one, is read even where no configuration reads the body,
    // since it may map values the contract leaves open (an engine `openai`) or say where an optional part is.
    // A map that breaks what reads without it is not followed.
    const map = await mapOf();
    const mapped = map ? checkResponseBody(zs, id, text, map, optional, carry) : undefined;
    if (mapped?.ok) return mapped;
    if (plain.ok) return plain;
    const checked = mapped ?? plain;
    throw mismatch(
      new ApiClientError({
        kind: 'parse',
        code: 'invalid_response',
        status: 200,
        operation: id,
        ...(checked.field !== undefined ? { field: checked.field } : {}),
        ...(checked.unmapped !== undefined ? { unmapped: checked.unmapped } : {}),
        message: checked.message,
        cause: checked.cause,
      }),
    );
  }

  /** A 200 whose body breaks the contract: told to the deployment, then thrown. */
  function mismatch(error: ApiClientError): ApiClientError {
    options.onContractMismatch?.(error);
    return error;
  }

  /** Whether to try again after `error`, and after how long. */
  function nextDelay(error: ApiClientError, retries: number): number | undefined {
    if (error.kind === 'network' || error.kind === 'timeout') return backoffDelay(retries, retry, random);
    if (error.kind === 'http' && RETRYABLE_STATUS.has(error.status)) return backoffDelay(retries, retry, random);
    // 429 is retried only when it is the per-minute limit and says when; `quota_exceeded` lasts until next month.
    if (error.code === 'rate_limited' && error.retryAfter !== undefined) return error.retryAfter * 1000;
    return undefined;
  }

  /** Any JSON object, as sent: what `unchecked` answers. */
  function parseObject(id: OperationId, text: string): Record<string, unknown> {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (cause) {
      json = cause;
    }
    if (typeof json === 'object' && json !== null && !Array.isArray(json) && !(json instanceof Error)) return json as Record<string, unknown>;
    throw new ApiClientError({ kind: 'parse', code: 'invalid_response', status: 200, operation: id, message: `${id}: the body is not a JSON object.` });
  }

  /** How a call reads its body: checked against the contract (some paths optional), or any JSON object as sent. */
  type Reading = { check: true; optional: readonly string[]; carry?: boolean } | { check: false };
  const CHECKED: Reading = { check: true, optional: [] };

  /** One request, retried as the policy says: the response and its text on a 2xx, the API's error thrown otherwise. */
  async function fetchOk(zs: ZodSide, id: OperationId, url: string, callOptions: CallOptions): Promise<{ response: Response; text: string; attempts: number }> {
    const started = now();
    for (let attempts = 1; ; attempts++) {
      const left = retry.totalMs - (now() - started);
      let failure: ApiClientError;
      try {
        const { response, text } = await attempt(id, url, callOptions, Math.max(1, Math.min(timeoutMs, left)));
        if (response.ok) return { response, text, attempts };
        failure = httpError(zs, id, response, text);
      } catch (error) {
        if (!(error instanceof ApiClientError)) throw error;
        failure = error;
      }
      const delay = attempts < retry.attempts && !callOptions.signal?.aborted ? nextDelay(failure, attempts) : undefined;
      if (delay === undefined || now() - started + delay >= retry.totalMs) throw withAttempts(failure, attempts);
      await sleep(delay);
    }
  }

  async function call<Id extends OperationId>(id: Id, params: Record<string, unknown> | undefined, callOptions: CallOptions = {}, reading: Reading = CHECKED): Promise<Lenient<ResponseOf<Id>>> {
    const url = operationUrl(baseUrl, id, params);
    // A key no header can carry is refused as the API refuses a malformed key, before `new Headers` throws with it in its message.
    if (apiKeyProblem(options.apiKey)) throw new ApiClientError({ kind: 'http', code: 'invalid_api_key', status: 401, operation: id, message: `${id}: ${invalidKey().message}` });
    // The schemas the bodies are checked with, loaded at the first call (src/contract/zod-side.ts).
    const zs = await zodSide();
    const { response, text, attempts } = await fetchOk(zs, id, url, callOptions);
    const meta = metaOf(response, now(), attempts);
    // A body passed on is passed on as it is, a page at a time, as the proxy passes it.
    if (!reading.check) return { data: parseObject(id, text) as ResponseOf<Id>, absent: [], unreadable: [], meta };
    let map: Promise<OperationMap | undefined> | undefined;
    const mapOf = () => (map ??= options.upstreamMap?.(id) ?? Promise.resolve(undefined));
    const parse = (page: string) => parseBody(zs, id, page, reading.optional, reading.carry === true, mapOf);
    const first = await parse(text);
    const pages = (await mapOf())?.pages;
    if (!pages) return { ...first, meta };
    return { ...first, data: joinPages(first.data, await readPages(zs, id, new URL(url), text, pages, callOptions, parse), pages.list), meta };
  }

  /** The pages after the first (`pages.ts`), each read and checked as the first was: their data, in order. */
  async function readPages<T>(zs: ZodSide, id: OperationId, url: URL, firstText: string, pages: Pages, callOptions: CallOptions, parse: (text: string) => Promise<{ data: T }>): Promise<T[]> {
    const read: T[] = [];
    const seen = new Set([url.search]);
    let [at, text] = [url, firstText];
    for (let count = 1; ; count++) {
      const next = nextPage(at, parseObject(id, text), pages);
      if (next === undefined) return read;
      const refuse = (problem: string) =>
        mismatch(new ApiClientError({ kind: 'parse', code: 'invalid_response', status: 200, operation: id, message: `${id}: ${problem}; the list \`${pages.list}\` was not read whole.` }));
      if ('problem' in next) throw refuse(next.problem);
      if (count >= MAX_PAGES) throw refuse(`the list runs past ${MAX_PAGES} pages`);
      if (seen.has(next.search)) throw refuse('the next page is one already read');
      seen.add(next.search);
      ({ text } = await fetchOk(zs, id, next.href, callOptions));
      at = next;
      read.push((await parse(text)).data);
    }
  }

  const plain = {} as Record<string, unknown>;
  const meta = {} as Record<string, unknown>;
  const unchecked = {} as Record<string, unknown>;
  const lenient = {} as Record<string, unknown>;
  for (const id of OPERATION_IDS) {
    meta[id] = (params?: Record<string, unknown>, callOptions?: CallOptions) => call(id, params, callOptions);
    plain[id] = async (params?: Record<string, unknown>, callOptions?: CallOptions) => (await call(id, params, callOptions)).data;
    unchecked[id] = (params?: Record<string, unknown>, callOptions?: CallOptions) => call(id, params, callOptions, { check: false });
    lenient[id] = (params: Record<string, unknown> | undefined, { optional, carry, ...callOptions }: LenientOptions) => call(id, params, callOptions, { check: true, optional, carry: carry === true });
  }
  return { ...plain, withMeta: meta, unchecked, lenient } as ApiClient;
}

function withAttempts(error: ApiClientError, attempts: number): ApiClientError {
  if (error.attempts === attempts) return error;
  return new ApiClientError({
    kind: error.kind,
    code: error.code,
    status: error.status,
    operation: error.operation,
    message: error.message,
    attempts,
    ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    ...(error.param !== undefined ? { param: error.param } : {}),
    ...(error.field !== undefined ? { field: error.field } : {}),
    ...(error.cause !== undefined ? { cause: error.cause } : {}),
  });
}

function metaOf(response: Response, readAtMs: number, attempts: number): ResponseMeta {
  const header = (name: string) => response.headers.get(name);
  const number = (name: string) => {
    const value = header(name);
    return value === null || !/^\d+$/.test(value) ? null : Number(value);
  };
  const cache = header('x-cache');
  return {
    status: response.status,
    cache: cache !== null && CACHE_STATUSES.includes(cache) ? (cache as CacheStatus) : null,
    ageSeconds: number('age'),
    etag: header('etag'),
    requestId: header('x-request-id'),
    readAt: new Date(readAtMs),
    attempts,
    rateLimit: readRateFields(header) ?? null,
  };
}
