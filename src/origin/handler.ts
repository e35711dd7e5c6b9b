/**
 * The reference Read API v1 over D1. Every operation of the contract table,
 * matched and parsed by the contract's request pipeline; every request passes
 * the checks in the order of DESIGN section 3: key (401), brand (400/404),
 * plan (403), parameters (400), rate limit and quota (429), integration (409),
 * then the item lookups of the operation (404).
 */
import { bearerKey, checkIntegration, checkPlan, resolveBrand } from '../contract/access';
import { ApiError, errorResponse, JSON_HEADERS } from '../contract/errors';
import { API_BASE } from '../contract/operations';
import { API_DOCUMENT_ASSET, documentResponse } from '../contract/documents';
import { rateHeaders, type RateState } from '../contract/rate-limit';
import { type Match, matchOperation, parseRequest } from '../contract/request';
import { requestIdOf } from '../contract/request-id';
import { toDay } from '../contract/window';
import { authenticate, type Caller, integrationsStatement, marketFrom, type MarketRow, marketStatement } from './access';
import { admit, countRead, peek } from './limits';
import { implementations, type OpContext } from './ops';

export interface OriginDeps {
  db: D1Database;
  /** The clock; tests move it to cross windows and month ends. */
  now?: () => Date;
  /** Where to run work that must not delay the response (`ctx.waitUntil`). */
  waitUntil?: (work: Promise<unknown>) => void;
  /** The static assets (ASSETS), holding the OpenAPI document built at build time; without them it answers 500. */
  assets?: Fetcher;
}

interface Exchange {
  requestId: string;
  nowMs: number;
  caller?: Caller;
  rate?: RateState;
}

const notFound = () => new ApiError('not_found', 'No such operation. The operations are listed in /api/v1/openapi.json.');
const OPENAPI_PATH = `${API_BASE}/openapi.json`;

function route(request: Request, url: URL, deps: OriginDeps, exchange: Exchange): Promise<Response> | Response {
  const isRead = request.method === 'GET' || request.method === 'HEAD';
  if (url.pathname === OPENAPI_PATH) {
    if (!isRead) throw new ApiError('method_not_allowed', `${request.method} is not allowed; this API is read-only.`);
    return documentResponse(deps.assets, API_DOCUMENT_ASSET);
  }
  // The API's paths have no trailing slash: `/visibility/` matches nothing, here as at the edge proxy.
  const match = matchOperation(url.pathname);
  if (!match) throw notFound();
  if (!isRead) throw new ApiError('method_not_allowed', `${request.method} is not allowed; every operation is a GET.`);
  return serve(match, request, url, deps, exchange);
}

/** The origin's fetch handler: always a response, never a stack trace. */
export async function handleOrigin(request: Request, deps: OriginDeps): Promise<Response> {
  const exchange: Exchange = { requestId: requestIdOf(request.headers), nowMs: (deps.now?.() ?? new Date()).getTime() };
  let response: Response;
  try {
    response = await route(request, new URL(request.url), deps, exchange);
  } catch (error) {
    if (!(error instanceof ApiError)) console.error(JSON.stringify({ request_id: exchange.requestId, error: String(error), stack: (error as Error)?.stack }));
    const rate = exchange.rate ?? (exchange.caller ? await peek(deps.db, exchange.caller.keyId, exchange.nowMs).catch(() => undefined) : undefined);
    response = errorResponse(error, rateHeaders(rate, exchange.nowMs));
  }
  response.headers.set('x-request-id', exchange.requestId);
  if (request.method === 'HEAD') return new Response(null, response);
  return response;
}

async function serve(match: Match, request: Request, url: URL, deps: OriginDeps, exchange: Exchange): Promise<Response> {
  const { op } = match;
  const { db } = deps;
  const now = new Date(exchange.nowMs);
  const today = toDay(now);

  const caller = await authenticate(db, bearerKey(request.headers));
  exchange.caller = caller;
  // Brand and plan come before the parameters (DESIGN section 3), so they read `brand_id` alone; a repeated name is a parameter error after them.
  const brand = op.scope === 'account' ? undefined : resolveBrand(caller.brands, url.searchParams.get('brand_id') ?? undefined);
  checkPlan(caller, op);
  const { query, path, period } = parseRequest(match, url.searchParams, today);

  const marketCode = (query as { market?: string }).market;
  const lookups = brand ? [integrationsStatement(db, brand.id), ...(op.scope === 'brand' ? [marketStatement(db, brand.id, marketCode)] : [])] : [];
  const admitted = await admit(db, caller, exchange.nowMs, lookups);
  exchange.rate = admitted.rate;
  if (brand) checkIntegration(new Set((admitted.lookups[0]!.results as { kind: string }[]).map((r) => r.kind)), op);
  const market = op.scope === 'brand' ? marketFrom(admitted.lookups[1]?.results[0] as MarketRow | undefined, marketCode) : undefined;

  const implementation = implementations[op.id] as unknown as (context: OpContext) => Promise<unknown>;
  const body = await implementation({ db, caller, brand, market, query, path, period, today, now } as OpContext);

  const counting = countRead(db, caller, exchange.nowMs);
  if (deps.waitUntil) deps.waitUntil(counting);
  else await counting;
  return new Response(JSON.stringify(body), {
    headers: {
      ...JSON_HEADERS,
      // Computed on every read; how long the answer holds is the operation's TTL (the contract table), which
      // the edge proxy honours. `private`: one key's answer is never another's.
      'cache-control': `private, max-age=${op.ttl}`,
      ...rateHeaders(exchange.rate, exchange.nowMs),
    },
  });
}
