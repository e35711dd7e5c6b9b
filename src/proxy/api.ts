/**
 * `apiFor()`: the one way any feature of this Worker reads the API. The typed
 * client over the proxy's own pipeline, in-process: every read shares the
 * cache and the key's upstream gate with /api/v1, so the key's exact budget
 * holds for digests, reports and everything later, and a fresh answer costs
 * the upstream nothing.
 *
 * ```ts
 * const read = apiFor(env, runtime, { clientAddress: clientAddressOf(request) });
 * const { data, meta } = await read('demo_pro_single').withMeta.getVisibility(); // meta.cache: 'HIT' | 'MISS' | ...
 * ```
 *
 * The proxy stores and serves any well-formed JSON object the upstream
 * answers; the contract's schemas are checked here, where a feature reads
 * fields. A body that fails them as sent is read in any case convention and
 * out of one envelope, then through the stored upstream map
 * (upstream-map.ts, docs/upstream.md); one that still breaks them is a
 * `parse` error naming the operation and the field (logged once per
 * operation and isolate).
 *
 * `clientAddress` is the client the reads are made for: a key not yet
 * verified counts against that address, as on /api/v1. Null for work no
 * client triggers (the cron and the queue, which read with stored keys).
 */
import { type ApiClient, ApiClientError, createClient, type RetryPolicy, toApiError } from '../client';
import { requireKey } from '../contract/access';
import { ApiError } from '../contract/errors';
import { API_BASE } from '../contract/operations';
import { acceptedWithin, clientAddressOf, UNVERIFIED_FLOOD } from './abuse';
import { hashApiKey } from './cache-key';
import type { ProxyEnv } from './env';
import { handleProxy, type ProxyRuntime } from './handler';
import { KEY_RECHECK_MS, upstreamMaxBytes } from './policy';
import { operationMapOf } from './upstream-map';

/** Never resolved: the proxy's router reads only the path. */
const IN_PROCESS_BASE_URL = `http://proxy.internal${API_BASE}`;

export interface ReadOptions {
  clientAddress: string | null;
  /** Retries inside one call (the client's own policy by default). */
  retry?: Partial<RetryPolicy>;
  /** How the client waits between tries: a seam, so tests never sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** Every parameter the contract lacks is taken as a page's of the service (`ProxyCall.anyPageParams`): discovery's probes of pages. */
  anyPageParams?: boolean;
}

/** A reader of the API for one API key. */
export type ReadApi = (apiKey: string) => ApiClient;

/** Operations whose bodies broke the contract, logged once per isolate: a real service that names a field otherwise says so on every read. */
const mismatchLogged = new Set<string>();

function logMismatch(error: ApiClientError): void {
  if (mismatchLogged.has(error.operation)) return;
  mismatchLogged.add(error.operation);
  console.error(JSON.stringify({ msg: 'upstream body breaks the contract', operation: error.operation, field: error.field ?? null, problem: error.message }));
}

export function apiFor(env: ProxyEnv, runtime: ProxyRuntime, options: ReadOptions): ReadApi {
  const call = { clientAddress: options.clientAddress, ...(options.anyPageParams ? { anyPageParams: true } : {}) };
  const transport = (request: Request) => handleProxy(request, env, runtime, call);
  return (apiKey) =>
    createClient({
      apiKey,
      transport,
      baseUrl: IN_PROCESS_BASE_URL,
      // The proxy's answers are the upstream's, bounded by the same setting.
      maxBytes: upstreamMaxBytes(env),
      now: () => runtime.now().getTime(),
      onContractMismatch: logMismatch,
      upstreamMap: (id) => operationMapOf(env.CACHE, runtime.now, id),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
}

/**
 * Whether a read with this key would now be served without asking the
 * upstream about the key: this isolate saw the upstream accept it less than
 * KEY_RECHECK_MS ago and no refusal since (handler.ts re-checks a key served
 * from the cache after that long). A caller that only needs to know the key
 * is good (/mcp's check) takes this for a yes instead of a read; past it, its
 * read asks the upstream, so a revoked key is still refused within the bound.
 */
export async function acceptedRecently(apiKey: string, nowMs: number): Promise<boolean> {
  return acceptedWithin(await hashApiKey(apiKey), nowMs, KEY_RECHECK_MS);
}

/**
 * What the read before a write asks: the upstream's word on the key now (`stale-if-error=0`, src/proxy/directives.ts),
 * never a stored answer, one another request had, or a slow upstream's stale copy.
 */
export const ASK_NOW = { headers: { 'cache-control': 'no-cache, stale-if-error=0' } } as const;

/** Waited for when the read before a write said nothing of when to try again. */
const UNCONFIRMED_RETRY_S = 30;

/**
 * The read before a write that got no word on the key now (its budget spent, the service slow or down): 503
 * `key_unconfirmed` saying when to try again, for the write to stop at; undefined for any other failure (a revoked
 * key's 401 among them), which is the API's own.
 */
export function keyUnconfirmed(error: ApiClientError): ApiError | undefined {
  const apiError = toApiError(error);
  if (apiError.code !== 'rate_limited' && apiError.status < 500) return undefined;
  // An address flooding unverified keys is held by its own limit, said as such (429), as on every keyed route.
  if (apiError.message === UNVERIFIED_FLOOD) return undefined;
  const wait = error.retryAfter ?? UNCONFIRMED_RETRY_S;
  return new ApiError('key_unconfirmed', `The Read API could not confirm your API key just now, so nothing was changed. Try again in ${wait} seconds.`, { retryAfter: wait });
}

/** A write acts on the key's word now: its `GET /brands` asked of the upstream; a refusal (a revoked key: 401) is the API's error, no answer now `key_unconfirmed`. */
export async function confirmKeyNow(client: ApiClient): Promise<void> {
  try {
    await client.listBrands({}, ASK_NOW);
  } catch (error) {
    if (!(error instanceof ApiClientError)) throw error;
    throw keyUnconfirmed(error) ?? toApiError(error);
  }
}

/**
 * The caller of a route that writes with the API key it sends (a link, a subscription, a send, a revocation): its
 * key, confirmed by the upstream now before anything is written. Every such write asks, so a key revoked upstream
 * writes nothing from then on, even while its reads are still served from the cache (SECURITY.md).
 */
export async function confirmedCaller(request: Request, api: (apiKey: string, clientAddress: string | null) => ApiClient): Promise<{ key: string; clientAddress: string | null }> {
  const caller = { key: requireKey(request), clientAddress: clientAddressOf(request) };
  await confirmKeyNow(api(caller.key, caller.clientAddress));
  return caller;
}
