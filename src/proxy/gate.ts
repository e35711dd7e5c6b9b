/**
 * The upstream gate: one Durable Object per upstream API key (named by its
 * SHA-256). A Durable Object is a single instance worldwide, so it can hold
 * the key's exact budget of 60 upstream calls per rolling minute for every
 * location at once; Workers' rate-limiting binding counts per location and
 * approximately, so it cannot. It also coalesces identical misses (same cache
 * key) in flight, like nginx `proxy_cache_lock` or Varnish's waiting list: N
 * concurrent misses cause one upstream request.
 *
 * The calls of the rolling minute are kept in the object's SQLite storage, so
 * an eviction does not reset the budget. That storage lives one window past
 * the key's last upstream call and no longer: every call pushes the object's
 * alarm to `last call + RATE_WINDOW_MS`, and the alarm deletes everything
 * (`deleteAll`, which also drops the table and the alarm). So a key that goes
 * quiet, above all one of a flood of random keys, leaves no state behind: at
 * any moment only the keys that called upstream in the last minute hold rows,
 * and src/proxy/abuse.ts bounds how many unverified keys one address can make
 * call upstream in a minute.
 *
 * (The other choice, not persisting until a key is verified, would leave a
 * verified key's rows forever once it goes quiet, and would still need this
 * cleanup; one rule for every key is simpler to reason about.)
 */
import { parseRetryAfter, retryAfterSeconds } from '../lib/time';
import { DurableObject } from 'cloudflare:workers';
import { proxyEnvOf } from './env';
import { sha256Hex } from '../lib/hash';
import { readBodyUpTo } from '../lib/http';
import { RATE_LIMIT, RATE_WINDOW_MS } from '../contract/rate-limit';
import { CIRCUIT_FAILURES, CIRCUIT_OPEN_MS, COALESCE_AFTER_MS, upstreamFreshness } from './policy';
import { upstreamConfig, type UpstreamConfig } from './upstream';

/** Upstream calls `apiKey` has left in its rolling minute, as its gate counts them: what a check spent is the difference. */
export async function callsLeft(gates: DurableObjectNamespace<UpstreamGate>, apiKey: string): Promise<number> {
  return gates.get(gates.idFromName(await sha256Hex(apiKey))).remaining();
}

export interface GateRequest {
  /** Identical requests share one upstream call. */
  cacheKey: string;
  /** Path and query below /api/v1, as the caller wrote them. */
  path: string;
  /** Forwarded as the bearer token; held only for the call, never stored. */
  apiKey: string;
  requestId: string;
  /**
   * The upstream the Worker's cache names this read's entry after (`UPSTREAM_URL` as read, '' for the embedded
   * origin): the gate reads that one, not its own env's, so a body is never stored under another service's name
   * while a deployment that changes `UPSTREAM_URL` rolls out (a Worker and its gate may run different versions).
   */
  upstream: string;
  /** Not an answer another request had just now (`recent`): the upstream's own, to this request or one in flight. */
  fresh?: boolean;
}

/** What the upstream said, or why it said nothing. */
export type Outcome =
  | {
      kind: 'response';
      status: number;
      headers: [string, string][];
      body: string;
      /** When the upstream answered (ms): the entry's `stored_at`, the same for every coalesced caller. */
      at: number;
      /** Strong validator of a 200 body (RFC 9110, section 8.8.3). */
      etag?: string;
    }
  /**
   * `invalid_body`: a 200 whose body is not a JSON object (checked by the proxy before storing). `redirect`: to another
   * origin. `too_large`: a body over the upstream's `maxBytes`, abandoned there.
   */
  | { kind: 'failed'; reason: 'timeout' | 'network' | 'invalid_body' | 'redirect' | 'circuit_open' | 'too_large'; message: string };

export type GateAnswer =
  | (Outcome & {
      /** This caller's request was the one sent upstream (exactly one caller per upstream call sees true). */
      upstreamCall: boolean;
    })
  | { kind: 'over_budget'; retryAfter: number; upstreamCall: false };

/**
 * Upstream headers the proxy reads or passes on: the limit (in the draft's current names or its older
 * ones, `readRateFields`), its `Age` and `Cache-Control` (which shape the entry's freshness); not its cookies.
 */
const PASSED_HEADERS = ['content-type', 'retry-after', 'ratelimit', 'ratelimit-policy', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-request-id', 'age', 'cache-control'];
/** An upstream 429 blocks further calls of this key for its Retry-After, at most this long. */
const MAX_BLOCK_MS = 60 * 60 * 1000;

export class UpstreamGate extends DurableObject<Env> {
  /** Start times of the upstream calls of the rolling minute, oldest first. */
  private calls: number[] = [];
  /** Whether the `calls` table exists: created by the first upstream call, dropped by the idle alarm. */
  private stored = false;
  private readonly inflight = new Map<string, Promise<Outcome>>();
  private readonly recent = new Map<string, { at: number; outcome: Outcome }>();
  /** After an upstream 429: its answer, replayed until `until`, so the key stops knocking. */
  private blocked?: { until: number; outcome: Extract<Outcome, { kind: 'response' }> };
  /** Upstream failures in a row, and until when the circuit is open after CIRCUIT_FAILURES of them (a circuit breaker). */
  private failuresInRow = 0;
  private openUntil = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      // Only read here: an object that never calls upstream writes nothing.
      this.stored = ctx.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'calls'").toArray().length > 0;
      if (!this.stored) return;
      this.calls = ctx.storage.sql
        .exec<{ at_ms: number }>('SELECT at_ms FROM calls WHERE at_ms > ? ORDER BY at_ms', Date.now() - RATE_WINDOW_MS)
        .toArray()
        .map((row) => row.at_ms);
    });
  }

  /** One upstream read, within the key's budget, shared by identical concurrent requests. */
  async call(request: GateRequest): Promise<GateAnswer> {
    const now = Date.now();
    this.forgetOld(now);
    const recent = request.fresh ? undefined : this.recent.get(request.cacheKey);
    if (recent) return { ...recent.outcome, upstreamCall: false };
    const flight = this.inflight.get(request.cacheKey);
    if (flight) return { ...(await flight), upstreamCall: false };

    if (this.blocked && now < this.blocked.until) return { ...this.replayBlocked(now), upstreamCall: false };
    if (now < this.openUntil) {
      const seconds = Math.ceil((this.openUntil - now) / 1000);
      return { kind: 'failed', reason: 'circuit_open', message: `The upstream failed ${this.failuresInRow} times in a row; it is not asked again for ${seconds} s.`, upstreamCall: false };
    }
    if (this.calls.length >= RATE_LIMIT) {
      return { kind: 'over_budget', retryAfter: retryAfterSeconds(this.calls[0]! + RATE_WINDOW_MS, now), upstreamCall: false };
    }
    this.calls.push(now);
    this.store(now);

    const call = this.fetchUpstream(request).then((outcome) => {
      this.countFailure(outcome);
      // Only a 200 the upstream lets us keep is shared after the fact: sharing an error, or a no-store answer, would be caching it.
      if (outcome.kind === 'response' && outcome.status === 200 && !upstreamFreshness(outcome.headers).noStore) this.recent.set(request.cacheKey, { at: Date.now(), outcome });
      return outcome;
    });
    this.inflight.set(request.cacheKey, call);
    try {
      return { ...(await call), upstreamCall: true };
    } finally {
      this.inflight.delete(request.cacheKey);
    }
  }

  /**
   * The key has made no upstream call for a whole window (each call pushes the
   * alarm back): nothing stored still counts, so all of it goes. The memory
   * keeps what this object's clock still counts, which is nothing unless the
   * clock disagrees with the scheduler's (a test's fake clock).
   */
  override async alarm(): Promise<void> {
    this.forgetOld(Date.now());
    await this.ctx.storage.deleteAll();
    this.stored = false;
  }

  /** Upstream calls left in the rolling minute (for tests and the stats page). */
  async remaining(): Promise<number> {
    this.forgetOld(Date.now());
    return RATE_LIMIT - this.calls.length;
  }

  /** Records an upstream call durably and moves the idle alarm to one window after it. */
  private store(at: number): void {
    const sql = this.ctx.storage.sql;
    if (!this.stored) {
      sql.exec('CREATE TABLE IF NOT EXISTS calls (at_ms INTEGER NOT NULL)');
      this.stored = true;
    }
    sql.exec('INSERT INTO calls (at_ms) VALUES (?)', at);
    // Not awaited: the write joins the INSERT's, and the output gate holds the answer until both are durable.
    void this.ctx.storage.setAlarm(at + RATE_WINDOW_MS);
  }

  private forgetOld(now: number): void {
    let expired = 0;
    while (expired < this.calls.length && this.calls[expired]! <= now - RATE_WINDOW_MS) expired++;
    if (expired > 0) {
      this.calls.splice(0, expired);
      if (this.stored) this.ctx.storage.sql.exec('DELETE FROM calls WHERE at_ms <= ?', now - RATE_WINDOW_MS);
    }
    for (const [key, { at }] of this.recent) if (now - at >= COALESCE_AFTER_MS || now < at) this.recent.delete(key);
  }

  /** A failure (no answer, a 5xx) counts towards opening the circuit; any other answer closes it. After it opens, one call is let through to see whether the upstream is back. */
  private countFailure(outcome: Outcome): void {
    if (outcome.kind === 'response' && outcome.status < 500) {
      this.failuresInRow = 0;
      return;
    }
    this.failuresInRow++;
    if (this.failuresInRow >= CIRCUIT_FAILURES) this.openUntil = Date.now() + CIRCUIT_OPEN_MS;
  }

  private replayBlocked(now: number): Outcome {
    const { until, outcome } = this.blocked!;
    const retryAfter = String(retryAfterSeconds(until, now));
    return { ...outcome, headers: outcome.headers.map(([name, value]) => [name, name === 'retry-after' ? retryAfter : value]) };
  }

  /**
   * Where this key's reads go: the upstream the calling Worker names (its
   * `UPSTREAM_URL`), with this deployment's timeout and size bound; without
   * one, this deployment's own. The seam of the tests and the benchmark,
   * whose Worker entries subclass the gate to put a counting,
   * fault-injecting or hanging upstream here.
   */
  protected upstream(upstreamUrl?: string): UpstreamConfig {
    const env = proxyEnvOf(this.env);
    return upstreamConfig(upstreamUrl === undefined ? env : { ...env, UPSTREAM_URL: upstreamUrl || undefined }, (work) => this.ctx.waitUntil(work));
  }

  private async fetchUpstream(request: GateRequest): Promise<Outcome> {
    const upstream = this.upstream(request.upstream);
    const controller = new AbortController();
    let stopTimeout = () => {};
    const expired = new Promise<'timeout'>((resolve) => {
      stopTimeout = upstream.startTimeout(upstream.timeoutMs, () => {
        controller.abort();
        resolve('timeout');
      });
    });
    const requestTo = (url: string) =>
      new Request(url, {
        headers: { authorization: `Bearer ${request.apiKey}`, accept: 'application/json', 'x-request-id': request.requestId },
        signal: controller.signal,
        // Redirects are followed here, not by fetch: fetch would follow one to another origin without the key.
        redirect: 'manual',
      });
    try {
      const answer = await Promise.race([
        followSameOrigin(upstream.transport, requestTo, upstream.baseUrl + request.path).then(async (followed) => {
          if (followed.kind === 'cross_origin') return followed;
          // Read up to the limit and no further; the timeout's abort cancels a body still trickling in, whether or not the transport honours the request's signal.
          return { response: followed.response, body: await readBodyUpTo(followed.response, upstream.maxBytes, () => new TooLarge(), controller.signal) };
        }),
        expired,
      ]);
      if (answer === 'timeout') return { kind: 'failed', reason: 'timeout', message: `The upstream did not answer within ${upstream.timeoutMs} ms.` };
      if ('kind' in answer) {
        // Where it pointed is the operator's to see, never the caller's: an upstream may point at an internal address.
        console.warn(JSON.stringify({ request_id: request.requestId, msg: 'upstream redirected to another origin: not followed', target: answer.location }));
        return { kind: 'failed', reason: 'redirect', message: 'The upstream redirected elsewhere; nothing was followed, and the API key was sent nowhere else.' };
      }
      const headers: [string, string][] = [];
      for (const name of PASSED_HEADERS) {
        const value = answer.response.headers.get(name);
        if (value !== null) headers.push([name, value]);
      }
      const status = answer.response.status;
      const outcome: Outcome = { kind: 'response', status, headers, body: answer.body, at: Date.now(), ...(status === 200 ? { etag: await etagOf(answer.body) } : {}) };
      if (answer.response.status === 429) this.block(outcome, answer.response.headers.get('retry-after'));
      return outcome;
    } catch (error) {
      if (error instanceof TooLarge) {
        return { kind: 'failed', reason: 'too_large', message: `The upstream's answer is larger than UPSTREAM_MAX_BYTES (${upstream.maxBytes} bytes); it was not read past that.` };
      }
      return { kind: 'failed', reason: 'network', message: `The upstream could not be reached (${(error as Error)?.name ?? 'error'}).` };
    } finally {
      stopTimeout();
    }
  }

  private block(outcome: Extract<Outcome, { kind: 'response' }>, retryAfterHeader: string | null): void {
    const now = Date.now();
    const seconds = parseRetryAfter(retryAfterHeader, now) ?? 60;
    this.blocked = { until: now + Math.min(seconds * 1000, MAX_BLOCK_MS), outcome };
  }
}

/** Same-origin redirects followed, at most this many in a row. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Sends the request, following redirects within the upstream's origin (a
 * moved path, a trailing slash); a redirect to another origin (a host move,
 * http to https) is reported, never followed: the key stays with the origin
 * it was configured for.
 */
async function followSameOrigin(
  transport: UpstreamConfig['transport'],
  requestTo: (url: string) => Request,
  url: string,
): Promise<{ kind?: undefined; response: Response } | { kind: 'cross_origin'; location: string }> {
  let current = new URL(url);
  for (let hops = 0; ; hops++) {
    const response = await transport(requestTo(current.href));
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null || hops >= MAX_REDIRECTS) return { response };
    const next = new URL(location, current);
    await response.body?.cancel();
    if (next.origin !== current.origin) return { kind: 'cross_origin', location: next.origin };
    current = next;
  }
}

export const etagOf = async (body: string) => `"${(await sha256Hex(body)).slice(0, 32)}"`;

/** An upstream body past `maxBytes`. */
class TooLarge extends Error {}
