/**
 * "Foreign": another implementation of the Read API v1 spec, as the real
 * service behind the proxy may well be. Its bodies name their fields in
 * camelCase, carry values of `engine` this product has never heard of and
 * fields of its own; it says how old its answers are (`Age`) and how long to
 * keep them (`Cache-Control`). It can also move its base path (a same-origin
 * redirect), move host (a cross-origin one), fail with a gateway's HTML, or
 * go down. It replaces the proxy's upstream through the tests' seam and
 * records every request it gets, with the host and the key it came with.
 */
import { API_BASE } from '../src/contract/operations';
import { ApiError } from '../src/contract/errors';
import { matchOperation, parseRequest } from '../src/contract/request';
import { useUpstreamForTests } from './seams';

export const FOREIGN_BASE = 'https://foreign.test/api/v1';
/** Where a host move sends the proxy: it must never go there with a key. */
export const MOVED_HOST = 'https://api.foreign-new.test';

export type ForeignMode = 'ok' | 'moved' | 'host-moved' | 'html-504' | 'html-404' | 'down' | 'hang' | 'no-store';

export class ForeignUpstream {
  readonly requests: { url: URL; authorization: string | null }[] = [];
  mode: ForeignMode = 'ok';
  /** The query parameter its pages add (a cursor), when it pages: taken as its own, never as the spec's. */
  pageParam: string | undefined;
  /** The `Age` it gives its answers, in seconds. */
  age = 20;
  /** While `mode` is `hang`, answers wait for this. */
  private released?: () => void;
  private held = Promise.resolve();

  install(): this {
    // Its own timeout seam that never fires: a test decides when a hang ends (`release`).
    useUpstreamForTests({ transport: (request) => this.answer(request), baseUrl: FOREIGN_BASE, timeoutMs: 10_000, startTimeout: () => () => {} });
    return this;
  }

  get calls(): number {
    return this.requests.length;
  }

  /** Hangs every answer from now until `release()`. */
  hang(): void {
    this.mode = 'hang';
    this.held = new Promise<void>((resolve) => (this.released = resolve));
  }

  release(): void {
    this.mode = 'ok';
    this.released?.();
  }

  private async answer(request: Request): Promise<Response> {
    const url = new URL(request.url);
    this.requests.push({ url, authorization: request.headers.get('authorization') });
    if (url.origin !== new URL(FOREIGN_BASE).origin) return json({ leaked: true }, 200);
    if (this.mode === 'hang') await this.held;
    if (this.mode === 'down') return json({ error: { code: 'upstream_error', message: 'The service is down.' } }, 503);
    if (this.mode === 'html-504') return html('<html><body><h1>504 Gateway Time-out</h1></body></html>', 504);
    if (this.mode === 'html-404') return html('<html><body><h1>Not Found</h1></body></html>', 404);
    if (this.mode === 'moved' && url.pathname.startsWith(`${API_BASE}/`)) return redirect(301, url.pathname.replace(`${API_BASE}/`, '/v1/') + url.search);
    if (this.mode === 'host-moved') return redirect(308, `${MOVED_HOST}${url.pathname}${url.search}`);
    if (!request.headers.get('authorization')?.startsWith('Bearer ')) return json({ error: { code: 'invalid_api_key', message: 'No key.' } }, 401);
    const match = matchOperation(url.pathname.replace(/^\/v1\//, `${API_BASE}/`));
    if (!match) return json({ error: { code: 'not_found', message: 'No such operation.' } }, 404);
    const { op } = match;
    // It holds the spec's rules (not this product's choice of values): what the spec makes invalid is its 400 too.
    try {
      const asked = new URLSearchParams(url.searchParams);
      if (this.pageParam) asked.delete(this.pageParam);
      parseRequest(match, asked, new Date().toISOString().slice(0, 10), 'edge');
    } catch (error) {
      if (error instanceof ApiError) return json(error.body, error.status);
      throw error;
    }
    const body = {
      brandId: 1,
      market: { id: 11, code: 'us' },
      generatedAt: new Date().toISOString(),
      operationName: op.id,
      query: Object.fromEntries(url.searchParams),
      engine: url.searchParams.get('engine') ?? 'grok',
      vendorExtra: { region: 'eu-west', sampled: true },
    };
    const cacheControl = this.mode === 'no-store' ? 'no-store' : 'private, max-age=3600';
    return json(body, 200, { age: String(this.age), 'cache-control': cacheControl });
  }
}

const json = (body: unknown, status: number, headers: Record<string, string> = {}) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const html = (body: string, status: number) => new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8' } });
const redirect = (status: number, location: string) => new Response(null, { status, headers: { location } });
