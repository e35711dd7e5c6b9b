/** Response helpers with no product knowledge. */

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The headers of every JSON answer of the Worker: its type, and `nosniff`, so
 * that no browser reads a body (which may quote a caller's input) as HTML or
 * script whatever it looks like.
 */
export const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': JSON_CONTENT_TYPE, 'x-content-type-options': 'nosniff' };

/** A JSON answer that no shared cache keeps: every product route's answer is about one caller. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, 'cache-control': 'private, no-store', ...headers } });
}

/** A plain-text answer (a CSV link's errors: what a sheet shows in its cell, or a person in the browser), never cached. */
export function plainText(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(`${message}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers } });
}

/**
 * Whether `Accept` prefers HTML to JSON (RFC 9110, section 12.5.1: the
 * highest `q`, the more specific range on a tie of ranges; JSON when they
 * tie or nothing is said): a browser's `text/html,…,*\/*;q=0.8` gets a page,
 * `curl` and `*\/*` get JSON.
 */
export function prefersHtml(accept: string | null): boolean {
  const quality = (type: string) => {
    let best: { q: number; specificity: number } | undefined;
    for (const part of (accept ?? '').split(',')) {
      const [range = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
      const specificity = range === type ? 2 : range === `${type.split('/')[0]}/*` ? 1 : range === '*/*' ? 0 : -1;
      if (specificity < 0 || (best && best.specificity > specificity)) continue;
      const q = Number(params.find((p) => p.startsWith('q='))?.slice(2) ?? 1);
      best = { q: Number.isFinite(q) ? q : 0, specificity };
    }
    return best?.q ?? 0;
  };
  return quality('text/html') > quality('application/json');
}

/**
 * A request's or a response's body as text, when it is at most `maxBytes`:
 * a body that declares more (`Content-Length`) is refused without reading a
 * byte of it, and one that does not declare its length (chunked, or a
 * stream that never ends) is read only until it passes `maxBytes`, then
 * cancelled, so memory holds at most `maxBytes` and one chunk whatever the
 * sender sends. Refused: `tooLarge()` is thrown. `signal` cancels the read
 * (a timeout): a stream that stalls is released, not left open.
 *
 * ```ts
 * const text = await readBodyUpTo(response, 4 * 1024 * 1024, () => new Error('too large'), controller.signal);
 * ```
 */
export async function readBodyUpTo(message: Request | Response, maxBytes: number, tooLarge: () => Error, signal?: AbortSignal): Promise<string> {
  const declared = message.headers.get('content-length');
  if (declared !== null && !(/^\d+$/.test(declared) && Number(declared) <= maxBytes)) {
    await message.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!message.body) return '';
  const reader = message.body.getReader();
  const release = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', release);
  try {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      // Cancelled by `signal`: what came so far is not the whole body.
      signal?.throwIfAborted();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        release();
        throw tooLarge();
      }
      chunks.push(value);
    }
    return new TextDecoder().decode(chunks.length === 1 ? chunks[0] : concat(chunks, size));
  } finally {
    signal?.removeEventListener('abort', release);
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/**
 * `fetcher(url, init)` aborted after `ms`, its timer cleared as soon as the
 * answer's headers arrive (`AbortSignal.timeout` keeps a timer alive for the
 * whole `ms`, and a Worker may hold at most 10,000 at once).
 */
export async function fetchWithin(fetcher: typeof fetch, url: string, init: RequestInit, ms: number): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')), ms);
  try {
    return await fetcher(url, { ...init, signal: controller.signal });
  } finally {
    clearTimeout(timer);
  }
}

/** The path and query of a request, as a URL parser gives them (`URL#pathname`, `URL#search`). */
export interface Target {
  pathname: string;
  search: string;
}

/** Characters a URL parser leaves as written: in a path, and in the query of an http(s) URL (which encodes `'` there). */
const PLAIN_PATH = /^\/[A-Za-z0-9\-_~!$&'()*+,;=:@/%.]*$/;
const PLAIN_QUERY = /^[A-Za-z0-9\-_~!$&()*+,;=:@/%.?]*$/;

/**
 * The path and query of an absolute http(s) URL string without building a
 * URL, when the string is plain: only characters the parser leaves as they
 * are, and no dot segment (`.`, `..`, or `%2e` spelled in them), so the
 * parser would give back the same strings. Otherwise undefined: parse it.
 * The proxy's hot path reads a cache HIT with no URL object.
 */
export function plainTarget(raw: string): Target | undefined {
  const scheme = raw.startsWith('https://') ? 8 : raw.startsWith('http://') ? 7 : 0;
  if (scheme === 0) return undefined;
  const start = raw.indexOf('/', scheme);
  if (start < 0) return undefined;
  const mark = raw.indexOf('?', start);
  const pathname = mark < 0 ? raw.slice(start) : raw.slice(start, mark);
  const query = mark < 0 ? '' : raw.slice(mark);
  if (!PLAIN_PATH.test(pathname) || pathname.includes('/.') || /%2e/i.test(pathname)) return undefined;
  if (query !== '' && !PLAIN_QUERY.test(query)) return undefined;
  return { pathname, search: query === '?' ? '' : query };
}

/** A query parameter's value as one of `record`'s own keys, or undefined: never an inherited name (`constructor`, `toString`). */
export function ownKeyOf<T extends object>(record: T, value: string | null): Extract<keyof T, string> | undefined {
  return value !== null && Object.hasOwn(record, value) ? (value as Extract<keyof T, string>) : undefined;
}

/** `record`'s own value at `key`, or undefined: a name an upstream chose (`constructor`, `__proto__`) never reads an inherited member. */
export const ownValue = <V>(record: Readonly<Record<string, V>>, key: string): V | undefined => (Object.hasOwn(record, key) ? record[key] : undefined);

/**
 * Whether a POST comes from a page of this site: its `Origin` is ours, or (a browser that sent none)
 * `Sec-Fetch-Site` says same-origin. A request with neither is no browser's form: refused too.
 */
export function fromThisSite(request: Request): boolean {
  const origin = request.headers.get('origin');
  // `null`: a browser that withholds the origin (a page under `no-referrer`); Sec-Fetch-Site, which no page can set, then decides.
  if (origin !== null && origin !== 'null') return origin === new URL(request.url).origin;
  return request.headers.get('sec-fetch-site') === 'same-origin';
}
