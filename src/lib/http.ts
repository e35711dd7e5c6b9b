/** Response helpers with no product knowledge. */

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A JSON answer that no shared cache keeps: every product route's answer is about one caller. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'private, no-store', ...headers } });
}
