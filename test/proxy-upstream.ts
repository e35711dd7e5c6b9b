/**
 * A counting, fault-injecting upstream for the proxy tests. It replaces the
 * proxy's upstream in the Worker's isolate (the tests run there), answers
 * every operation with a small JSON body naming the brand, and records each
 * request it gets. It also owns the upstream timeout's timer: no real timer
 * runs, and a request times out exactly when the fake says its deadline has
 * passed (it hangs, or its body stalls), so no test waits in real time.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, beforeEach, vi } from 'vitest';
import { handleOrigin } from '../src/origin/handler';
import { matchOperation } from '../src/contract/request';
import { DEMO_KEYS, readOrigin, validPath } from './helpers';
import { useUpstreamForTests } from './seams';
import { API_BASE } from '../src/contract/operations';
import worker from './worker';

export type Fault = 'ok' | 'hang' | 'network' | { status: number; code?: string; headers?: Record<string, string>; body?: string };

/** The upstream timeout of one request, as the fake controls it. */
export interface Deadline {
  /** The timeout passes now (if the proxy has not stopped it). */
  pass(): void;
}

export class FakeUpstream {
  /** Every request the proxy sent upstream, in order. */
  readonly requests: Request[] = [];
  /** What the next requests get; per key when set in `byKey`. */
  fault: Fault = 'ok';
  readonly byKey = new Map<string, Fault>();
  /** Answers wait for this before being sent (to hold many misses in flight). */
  hold?: Promise<void>;
  brandId = 1;
  /**
   * Whether demo keys' reads are this fake's like any key's. By default they
   * are the embedded origin's, not recorded and never faulted: the upstream
   * seam is global, and a demo key's background refresh started before
   * `install` (a stale entry read in an earlier test or file) may reach the
   * gate after it, and would otherwise count here and store this fake's body
   * as the demo key's for the files after. Tests use fresh keys (`freshKey`).
   */
  servesDemoKeys = false;
  /** The deadline the gate started last: it starts each request's just before handing it to the transport. */
  private started: Deadline = { pass: () => {} };

  /** `maxBytes`: the upstream's size bound (the deployment's, UPSTREAM_MAX_BYTES or its default, when not given). */
  install(timeoutMs = 10_000, maxBytes?: number): this {
    useUpstreamForTests({
      transport: (request) => this.answer(request),
      baseUrl: 'https://upstream.test/api/v1',
      timeoutMs,
      ...(maxBytes !== undefined ? { maxBytes } : {}),
      startTimeout: (_ms, expire) => {
        let live = true;
        this.started = { pass: () => live && expire() };
        return () => {
          live = false;
        };
      },
    });
    return this;
  }

  get calls(): number {
    return this.requests.length;
  }

  /** When set, answers every request itself (e.g. a body that stalls, then passes its deadline). */
  answerWith?: (request: Request, deadline: Deadline) => Response | Promise<Response>;

  private async answer(request: Request): Promise<Response> {
    // Taken before any await: the deadline the gate started for this very request.
    const deadline = this.started;
    const key = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
    if (!this.servesDemoKeys && DEMO_KEYS.has(key)) return readOrigin(new URL(request.url), key);
    this.requests.push(request);
    if (this.answerWith) return this.answerWith(request, deadline);
    const fault = this.byKey.get(key) ?? this.fault;
    if (this.hold) await this.hold;
    if (fault === 'hang') {
      // Silence until the timeout: the deadline passes, the answer never comes.
      deadline.pass();
      return new Promise<Response>(() => {});
    }
    if (fault === 'network') throw new TypeError('connection reset by peer');
    if (fault !== 'ok') {
      const body = fault.body ?? JSON.stringify({ error: { code: fault.code ?? 'upstream_error', message: `injected ${fault.status}` } });
      return new Response(body, { status: fault.status, headers: { 'content-type': 'application/json; charset=utf-8', ...fault.headers } });
    }
    const url = new URL(request.url);
    // A body the contract accepts (the proxy refuses to store any other), marked with this fake's brand and call number.
    const body = { ...(await contractBody(url.pathname)), brand_id: this.brandId, generated_at: new Date().toISOString(), path: url.pathname + url.search, n: this.calls };
    return new Response(JSON.stringify(body), {
      headers: { 'content-type': 'application/json; charset=utf-8', 'ratelimit-limit': '60', 'ratelimit-remaining': '59', 'ratelimit-reset': '60' },
    });
  }
}

const templates = new Map<string, Promise<Record<string, unknown>>>();

/** The embedded origin's answer to a valid demo request of the operation at `pathname`, read once per operation. */
function contractBody(pathname: string): Promise<Record<string, unknown>> {
  const op = matchOperation(pathname)?.op;
  if (!op) throw new Error(`no operation at ${pathname}`);
  let template = templates.get(op.id);
  if (!template) {
    template = (async () => {
      const response = await handleOrigin(new Request(`https://origin.test${API_BASE}${validPath(op.id)}`, { headers: { authorization: 'Bearer demo_pro_single' } }), { db: env.DB });
      if (response.status !== 200) throw new Error(`no contract body for ${op.id}: the origin answered ${response.status}`);
      return (await response.json()) as Record<string, unknown>;
    })();
    templates.set(op.id, template);
  }
  return template;
}

export function restoreUpstream(): void {
  useUpstreamForTests();
}

/** A fresh API key per test: its cache entries and its gate (budget) are its own. */
export const freshKey = (label = 'k') => `test_${label}_${crypto.randomUUID()}`;

function proxyRequest(path: string, key: string | null, headers: Record<string, string>, method: string): Request {
  const h = new Headers(headers);
  if (key) h.set('authorization', `Bearer ${key}`);
  return new Request(`https://edge.test${API_BASE}${path}`, { method, headers: h });
}

export function get(path: string, key: string | null, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  return SELF.fetch(proxyRequest(path, key, headers, method));
}

/**
 * Like `get`, through the Worker's fetch handler with a context of its own,
 * and returns once the request's background work (cache writes, a
 * stale-while-revalidate refresh, a revocation's purge) has finished: what
 * the next request sees is then decided, without polling or sleeping.
 * `o.env` replaces the Worker's env (e.g. to watch a binding).
 */
export async function settled(path: string, key: string | null, headers: Record<string, string> = {}, o: { method?: string; env?: Env } = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch!(proxyRequest(path, key, headers, o.method ?? 'GET') as Request<unknown, IncomingRequestCfProperties>, o.env ?? env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** Reads the body and the headers the cache tests look at. */
export async function read(response: Response) {
  const text = await response.text();
  return {
    status: response.status,
    cache: response.headers.get('x-cache'),
    age: response.headers.get('age'),
    etag: response.headers.get('etag'),
    cacheControl: response.headers.get('cache-control'),
    retryAfter: response.headers.get('retry-after'),
    body: text ? (JSON.parse(text) as Record<string, unknown> & { error?: { code: string; message: string } }) : null,
    text,
  };
}

/**
 * Every test of the calling file starts with `Date` at `t0` and a new
 * FakeUpstream installed, and ends with the upstream and the clock restored.
 * `fake.up` is the running test's upstream.
 */
export function fakeUpstreamEachTest(t0: number): { up: FakeUpstream } {
  const fake = {} as { up: FakeUpstream };
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(t0);
    fake.up = new FakeUpstream().install();
  });
  afterEach(() => {
    restoreUpstream();
    vi.useRealTimers();
  });
  return fake;
}
