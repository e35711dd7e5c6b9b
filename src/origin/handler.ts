/**
 * The reference Read API v1 over D1. One route per entry of the contract
 * table; every request passes the checks in the order of DESIGN section 3:
 * key (401), brand (400/404), plan (403), parameters (400), rate limit and
 * quota (429), integration (409), then the item lookups of the operation (404).
 */
import { Router } from 'itty-router';
import { ApiError, errorResponse, JSON_CONTENT_TYPE } from '../contract/errors';
import { API_BASE, type AnyOperation, type OperationId, operations, OPERATION_IDS } from '../contract/operations';
import { openApiDocument } from '../contract/openapi';
import { decodePathParams, parseParams, queryObject } from '../contract/params';
import { resolvePeriod, toDay, windowHint } from '../contract/window';
import { authenticate, bearerKey, type Caller, checkIntegration, checkPlan, integrationsStatement, marketFrom, type MarketRow, marketStatement, resolveBrand } from './access';
import { admit, countRead, peek, type RateState, rateHeaders } from './limits';
import { implementations, type OpContext } from './ops';

export interface OriginDeps {
  db: D1Database;
  /** The clock; tests move it to cross windows and month ends. */
  now?: () => Date;
  /** Where to run work that must not delay the response (`ctx.waitUntil`). */
  waitUntil?: (work: Promise<unknown>) => void;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The caller's `X-Request-Id` when it is sane, else a new one. */
export const requestIdOf = (request: Request): string => {
  const given = request.headers.get('x-request-id');
  return given && REQUEST_ID.test(given) ? given : crypto.randomUUID();
};

/** itty's `:name` for the contract's `{name}`. */
const routePattern = (path: string) => API_BASE + path.replace(/\{(\w+)\}/g, ':$1');

interface Exchange {
  requestId: string;
  nowMs: number;
  caller?: Caller;
  rate?: RateState;
}

// No `catch` here: errors leave the router and are shaped by handleOrigin, which knows the caller's rate state.
const router = Router<Request, [OriginDeps, Exchange]>();
const notFound = () => new ApiError('not_found', 'No such operation. The operations are listed in /api/v1/openapi.json.');
// itty would take `/visibility/` for `/visibility`; the API's paths have no trailing slash, here as at the edge proxy.
router.all('*', (request) => {
  if (new URL(request.url).pathname.endsWith('/')) throw notFound();
});
router.all(`${API_BASE}/openapi.json`, (request) => {
  if (request.method !== 'GET' && request.method !== 'HEAD') throw new ApiError('method_not_allowed', `${request.method} is not allowed; this API is read-only.`);
  return new Response(JSON.stringify(openApiDocument()), { headers: { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'public, max-age=300' } });
});
for (const id of OPERATION_IDS) {
  router.all(routePattern(operations[id].path), (request, deps, exchange) => serve(id, request, deps, exchange));
}
router.all('*', () => {
  throw notFound();
});

/** The origin's fetch handler: always a response, never a stack trace. */
export async function handleOrigin(request: Request, deps: OriginDeps): Promise<Response> {
  const exchange: Exchange = { requestId: requestIdOf(request), nowMs: (deps.now?.() ?? new Date()).getTime() };
  let response: Response;
  try {
    response = (await router.fetch(request, deps, exchange)) as Response;
  } catch (error) {
    if (!(error instanceof ApiError)) console.error(JSON.stringify({ request_id: exchange.requestId, error: String(error), stack: (error as Error)?.stack }));
    const rate = exchange.rate ?? (exchange.caller ? await peek(deps.db, exchange.caller.keyId, exchange.nowMs).catch(() => undefined) : undefined);
    response = errorResponse(error, rateHeaders(rate, exchange.nowMs));
  }
  response.headers.set('x-request-id', exchange.requestId);
  if (request.method === 'HEAD') return new Response(null, response);
  return response;
}

async function serve(id: OperationId, request: Request, deps: OriginDeps, exchange: Exchange): Promise<Response> {
  const op = operations[id] as unknown as AnyOperation;
  if (request.method !== 'GET' && request.method !== 'HEAD')
    throw new ApiError('method_not_allowed', `${request.method} is not allowed; every operation is a GET.`);
  const { db } = deps;
  const url = new URL(request.url);
  const now = new Date(exchange.nowMs);
  const today = toDay(now);

  const caller = await authenticate(db, bearerKey(request));
  exchange.caller = caller;
  // Brand and plan come before the parameters (DESIGN section 3), so they read `brand_id` alone; a repeated name is a parameter error after them.
  const brand = op.scope === 'account' ? undefined : resolveBrand(caller.brands, url.searchParams.get('brand_id') ?? undefined);
  checkPlan(caller, op);
  const rawQuery = queryObject(url.searchParams);

  const query = parseParams(op.query, rawQuery, windowHint(op.window));
  const path = parseParams(op.pathParams, decodePathParams((request as Request & { params?: Record<string, string> }).params ?? {}));
  const period = resolvePeriod(op.window, query as { days?: number; from?: string; to?: string }, today);

  const marketCode = (query as { market?: string }).market;
  const lookups = brand ? [integrationsStatement(db, brand.id), ...(op.scope === 'brand' ? [marketStatement(db, brand.id, marketCode)] : [])] : [];
  const admitted = await admit(db, caller, exchange.nowMs, lookups);
  exchange.rate = admitted.rate;
  if (brand) checkIntegration(admitted.lookups[0]?.results as { kind: string }[], op);
  const market = op.scope === 'brand' ? marketFrom(admitted.lookups[1]?.results[0] as MarketRow | undefined, marketCode) : undefined;

  const implementation = implementations[id] as unknown as (context: OpContext) => Promise<unknown>;
  const body = await implementation({ db, caller, brand, market, query, path, period, today, now } as OpContext);

  const counting = countRead(db, caller, exchange.nowMs);
  if (deps.waitUntil) deps.waitUntil(counting);
  else await counting;
  return new Response(JSON.stringify(body), {
    headers: {
      'content-type': JSON_CONTENT_TYPE,
      // The origin computes on every read; caching is the edge proxy's job.
      'cache-control': 'private, no-store',
      ...rateHeaders(exchange.rate, exchange.nowMs),
    },
  });
}
