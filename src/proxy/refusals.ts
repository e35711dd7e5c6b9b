/**
 * The proxy's refusals of a request it finds invalid, in the API's check
 * order: the key, the brand and the plan before the parameters (DESIGN
 * section 3). An invalid request is never sent upstream as it is, unless
 * only the upstream can tell which refusal comes first.
 */
import { ApiError } from '../contract/errors';
import { type ZodSide, zodSide } from '../contract/zod-side';
import { type AnyOperation, API_BASE } from '../contract/operations';
import { checkPlan, resolveBrand } from '../contract/access';
import type { Target } from '../lib/http';
import { checkBeforeUpstream } from './abuse';
import { noteBudget } from './budget';
import type { ProxyEnv } from './env';
import type { GateAnswer } from './gate';
import { passThrough } from './responses';
import { upstreamUrlOf } from './upstream';

/**
 * An invalid request gets the error the upstream would give it: the API
 * checks the key, the brand and the plan before the parameters (DESIGN
 * section 3). The edge learns them from the key's `GET /brands`, read through
 * this proxy (cached like any read: at most one upstream call per key and
 * TTL, which later `/brands` reads are served from), and never sends the
 * invalid request itself upstream.
 */
export interface Invalid {
  request: Request;
  url: Target;
  env: ProxyEnv;
  /** The client the read is made for (unverified keys count against it). */
  clientAddress: string | null;
  /** The key's `GET /brands`, read through this proxy on behalf of the same client. */
  readBrands: (request: Request) => Promise<Response>;
  apiKey: string;
  keyHash: string;
  requestId: string;
  nowMs: number;
}

export async function refuseInOrder(paramError: unknown, op: AnyOperation, invalid: Invalid): Promise<Response> {
  if (!(paramError instanceof ApiError)) throw paramError;
  const zs = await zodSide();
  const { request } = invalid;
  const brandsRequest = new Request(new URL(`${API_BASE}/brands`, request.url), { headers: { authorization: request.headers.get('authorization') ?? '' } });
  // On behalf of the same client (the inner request carries no address of its own).
  const answer = await invalid.readBrands(brandsRequest);
  const body: unknown = await answer.json().catch(() => undefined);
  if (answer.status === 401 || answer.status === 403) {
    // The key's own refusal (invalid_api_key, plan_inactive) comes first.
    const refusal = zs.errorBodySchema().safeParse(body);
    if (refusal.success) throw new ApiError(refusal.data.error.code, refusal.data.error.message);
  }
  const account = zs.response('listBrands').safeParse(body);
  // The upstream's /brands does not say brands and plan in these words: only the upstream can tell which refusal comes first.
  if (answer.status === 200 && !account.success) return forwardUnchecked(zs, invalid, paramError);
  // Without the account (the upstream failed, the budget is spent), the parameter error is still true.
  if (!account.success) throw paramError;
  if (op.scope !== 'account') resolveBrand(account.data.brands, new URL(request.url).searchParams.get('brand_id') ?? undefined);
  checkPlan({ planActive: true, includesInsights: account.data.plan.includes_pro_operations }, op);
  throw paramError;
}

/**
 * Sends a request the edge finds invalid to the upstream as it is, through
 * the key's gate and its abuse limits, and answers as the upstream does;
 * never stored. Only when the edge cannot tell the API's check order itself.
 */
async function forwardUnchecked(zs: ZodSide, invalid: Invalid, paramError: ApiError): Promise<Response> {
  const { request, url, env, clientAddress, apiKey, keyHash, requestId, nowMs } = invalid;
  await checkBeforeUpstream(env, request, keyHash, nowMs, clientAddress);
  const path = url.pathname.slice(API_BASE.length) + url.search;
  const gates = env.UPSTREAM_GATE;
  const upstream = upstreamUrlOf(env);
  const answer = (await gates
    .get(gates.idFromName(keyHash))
    .call({ cacheKey: `unchecked ${upstream} ${path}`, path, apiKey, requestId, upstream })
    .catch(() => undefined)) as GateAnswer | undefined;
  if (answer?.kind === 'response') {
    noteBudget(keyHash, answer.headers, nowMs);
    return passThrough(zs, { keyHash, nowMs, requestId }, answer, 'BYPASS', { fwd: 'request', fwdStatus: answer.status });
  }
  // No answer: the edge's own refusal is still true.
  throw paramError;
}

export const notFound = () => new ApiError('not_found', 'No such operation. The operations are listed in /api/v1/openapi.json.');
