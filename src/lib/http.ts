/** Response helpers with no product knowledge. */

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A JSON answer that no shared cache keeps: every product route's answer is about one caller. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'private, no-store', ...headers } });
}

/** A plain-text answer (a CSV link's errors: what a sheet shows in its cell, or a person in the browser), never cached. */
export function plainText(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(`${message}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers } });
}

/**
 * A request's body as text, when it is at most `maxBytes`: a body that
 * declares more (`Content-Length`) is refused without reading a byte of it,
 * and one that does not declare its length (chunked) is read only until it
 * passes `maxBytes`, then cancelled. Refused: `tooLarge()` is thrown.
 */
export async function readBodyUpTo(request: Request, maxBytes: number, tooLarge: () => Error): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && !(/^\d+$/.test(declared) && Number(declared) <= maxBytes)) throw tooLarge();
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
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
