/**
 * The Worker. Routes:
 *   /api/v1/*         the cached edge proxy of the Read API v1 (src/proxy)
 *   /admin/cache/*    purge and stats of that cache (bearer ADMIN_TOKEN)
 *   /origin/api/v1/*  the embedded reference origin itself, when it is the upstream (UPSTREAM_URL unset)
 *   /digests/*, /reports/*, /r/*, /dev/*   the product's own routes (routes.ts)
 * and the hourly cron (digest planner), the digest queues, and Email Routing (unsubscribe by mail).
 */
import { ApiError, errorResponse } from '../contract/errors';
import { API_BASE } from '../contract/operations';
import { requestIdOf } from '../contract/request-id';
import { consumeDigestBatch, runDigestPlanner } from '../digests';
import { ensureDemoData } from '../origin/demo/auto';
import { handleOrigin } from '../origin/handler';
import { ADMIN_BASE, handleAdmin, handleProxy, type StartTimeout } from '../proxy';
import { unsubscribeByMail } from '../subscriptions';
import { type AppEnv, parseEnv } from './env';
import { handleProductRoute } from './routes';
import { systemClock } from '../lib/time';
import { buildServices, type Services } from './services';

/** Where the embedded origin answers directly, e.g. for its own tests; the proxy calls it in-process. */
const ORIGIN_MOUNT = '/origin';

const under = (pathname: string, base: string) => pathname === base || pathname.startsWith(`${base}/`);

export interface WorkerSeams {
  /** Replaces some services (clock, mailer, `api`, sleep) in every request and event: the tests' and benchmarks' seam. */
  services?: () => Partial<Services>;
  /** The proxy's timer for its soft deadline, held by a test. */
  proxyTimeout?: () => StartTimeout | undefined;
}

/** A named configuration error (MissingSecretError, InvalidEnvError) is logged for the operator, never shown. */
function configured(rawEnv: Env): AppEnv {
  try {
    return parseEnv(rawEnv);
  } catch (error) {
    console.error(JSON.stringify({ msg: 'invalid configuration', error: String(error) }));
    throw error;
  }
}

export function createWorker(seams: WorkerSeams = {}) {
  const servicesFor = (env: AppEnv, ctx: Pick<ExecutionContext, 'waitUntil'>, overrides: Partial<Services> = {}) => buildServices(env, ctx, { ...seams.services?.(), ...overrides });
  return {
    async fetch(request, rawEnv, ctx) {
      let env: AppEnv;
      try {
        env = configured(rawEnv);
      } catch {
        return withRequestId(errorResponse(new ApiError('internal_error', 'The service is misconfigured.')), requestIdOf(request));
      }
      const url = new URL(request.url);
      const { pathname } = url;
      if (env.DEMO_DATA === 'on-empty') await ensureDemoData(env.DB);
      // The proxy's hot path needs only the clock and waitUntil: no Services are built for it.
      const now = seams.services?.().now ?? systemClock;
      const startTimeout = seams.proxyTimeout?.();
      if (under(pathname, API_BASE)) return handleProxy(request, env, { now, waitUntil: (work) => ctx.waitUntil(work), ...(startTimeout ? { startTimeout } : {}) }, { url });
      if (under(pathname, ADMIN_BASE)) return handleAdmin(request, env, ctx);
      if (!env.UPSTREAM_URL && under(pathname, ORIGIN_MOUNT + API_BASE)) {
        url.pathname = pathname.slice(ORIGIN_MOUNT.length);
        return handleOrigin(new Request(url, request), { db: env.DB, now, waitUntil: (work) => ctx.waitUntil(work) });
      }
      const requestId = requestIdOf(request);
      const routed = await handleProductRoute(request, url, servicesFor(env, ctx));
      if (routed) return withRequestId(routed, requestId);
      return withRequestId(errorResponse(new ApiError('not_found', 'Nothing here. The API is at /api/v1 (see /api/v1/openapi.json).')), requestId);
    },

    /** Hourly: plans the weekly digests that are due (src/digests/planner.ts). */
    async scheduled(controller, rawEnv, ctx) {
      await runDigestPlanner(servicesFor(configured(rawEnv), ctx, { now: () => new Date(controller.scheduledTime) }), controller.cron);
    },

    /** The digest send queue and its dead-letter queue (src/digests/consumer.ts). */
    async queue(batch, rawEnv, ctx) {
      await consumeDigestBatch(batch, servicesFor(configured(rawEnv), ctx));
    },

    /** Email Routing: the mailto: unsubscribe address of the digests (src/subscriptions/mailto.ts). */
    async email(message, rawEnv, ctx) {
      await unsubscribeByMail(message, servicesFor(configured(rawEnv), ctx));
    },
  } satisfies ExportedHandler<Env>;
}

function withRequestId(response: Response, requestId: string): Response {
  if (!response.headers.has('x-request-id')) {
    try {
      response.headers.set('x-request-id', requestId);
    } catch {
      // Immutable headers (a response passed through as is): copy.
      const copy = new Response(response.body, response);
      copy.headers.set('x-request-id', requestId);
      return copy;
    }
  }
  return response;
}
