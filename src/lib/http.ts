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
