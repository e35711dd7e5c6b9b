/**
 * CORS for browser dashboards (Fetch standard, CORS protocol). Allowed origins
 * come from `CORS_ORIGINS`; none by default, so a browser page elsewhere cannot
 * read the API through the proxy unless the deployment says so. Preflights are
 * answered at the edge and never reach the upstream.
 */

const ALLOWED_METHODS = 'GET, HEAD';
/** What a dashboard may send: the key, the request directives the proxy honours (Cache-Control, Pragma), its validator and a request id. */
const ALLOWED_HEADERS = 'Authorization, Cache-Control, Pragma, If-None-Match, X-Request-Id';
/** What a dashboard may read besides the CORS-safelisted response headers. */
const EXPOSED_HEADERS = 'ETag, Age, Cache-Status, X-Cache, X-Request-Id, Retry-After, RateLimit-Policy, RateLimit';
const PREFLIGHT_MAX_AGE_S = 600;

export const isPreflight = (request: Request) => request.method === 'OPTIONS' && request.headers.has('access-control-request-method');

function allowedOrigin(request: Request, allowed: readonly string[]): string | undefined {
  const origin = request.headers.get('origin');
  return origin !== null && allowed.includes(origin) ? origin : undefined;
}

/** 204 with the grants when the origin is allowed; 204 without them (the browser then refuses) when not. */
export function preflight(request: Request, allowed: readonly string[]): Response {
  const origin = allowedOrigin(request, allowed);
  const headers = new Headers({ vary: 'Origin' });
  if (origin) {
    headers.set('access-control-allow-origin', origin);
    headers.set('access-control-allow-methods', ALLOWED_METHODS);
    headers.set('access-control-allow-headers', ALLOWED_HEADERS);
    headers.set('access-control-max-age', String(PREFLIGHT_MAX_AGE_S));
  }
  return new Response(null, { status: 204, headers });
}

/** Adds the CORS grants to an actual response. */
export function withCors(request: Request, response: Response, allowed: readonly string[]): void {
  if (allowed.length === 0) return;
  response.headers.append('vary', 'Origin');
  const origin = allowedOrigin(request, allowed);
  if (!origin) return;
  response.headers.set('access-control-allow-origin', origin);
  response.headers.set('access-control-expose-headers', EXPOSED_HEADERS);
}
