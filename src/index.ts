/**
 * The Worker. Routes:
 *   /api/v1/*         the cached edge proxy of the Read API v1 (src/proxy)
 *   /admin/cache/*    purge and stats of that cache (bearer ADMIN_TOKEN)
 *   /origin/api/v1/*  the embedded reference origin itself, when it is the upstream (UPSTREAM_URL unset)
 *   /digests/*        digest subscriptions, confirm and unsubscribe links; /dev/outbox (src/digests)
 *   /reports/*, /r/*  on-demand weekly reports: page, JSON, text, signed links, send now (src/reports)
 */
import { ApiError, errorResponse } from './contract/errors';
import { API_BASE } from './contract/operations';
import { parseEnv } from './config/env';
import { ensureDemoData } from './origin/demo/auto';
import { handleOrigin, requestIdOf } from './origin/handler';
import { ADMIN_BASE, handleAdmin, handleProxy } from './proxy';
import { isReportPath, reportFetch } from './reports';
import { digestEmail, digestFetch, digestQueue, digestScheduled, isDigestPath } from './digests';

export { ProxyStats, UpstreamGate } from './proxy';

/**
 * Where the embedded origin answers directly, e.g. for its own tests; the proxy calls it in-process.
 * Not exported: workerd takes every export of the main module for an entrypoint (test/worker-exports.unit.test.ts).
 */
const ORIGIN_MOUNT = '/origin';

const under = (pathname: string, base: string) => pathname === base || pathname.startsWith(`${base}/`);

export default {
  async fetch(request, rawEnv, ctx) {
    let env;
    try {
      env = parseEnv(rawEnv);
    } catch (error) {
      // A named configuration error (MissingSecretError, ...): logged for the operator, a plain 500 for the caller.
      console.error(JSON.stringify({ msg: 'invalid configuration', error: String(error) }));
      return errorResponse(new ApiError('internal_error', 'The service is misconfigured.'));
    }
    const url = new URL(request.url);
    const { pathname } = url;
    if (env.DEMO_DATA === 'on-empty') await ensureDemoData(env.DB);
    if (under(pathname, API_BASE)) return handleProxy(request, env, ctx, { url });
    if (under(pathname, ADMIN_BASE)) return handleAdmin(request, env, ctx);
    if (isDigestPath(pathname)) return digestFetch(request, env, ctx);
    if (isReportPath(pathname)) return reportFetch(request, env, ctx);
    if (!env.UPSTREAM_URL && under(pathname, ORIGIN_MOUNT + API_BASE)) {
      url.pathname = pathname.slice(ORIGIN_MOUNT.length);
      return handleOrigin(new Request(url, request), { db: env.DB, waitUntil: (work) => ctx.waitUntil(work) });
    }
    const response = errorResponse(new ApiError('not_found', 'Nothing here. The API is at /api/v1 (see /api/v1/openapi.json).'));
    response.headers.set('x-request-id', requestIdOf(request));
    return response;
  },

  /** Hourly: plans the weekly digests that are due (src/digests/planner.ts). */
  async scheduled(controller, rawEnv, ctx) {
    await digestScheduled(controller, parseEnv(rawEnv), ctx);
  },

  /** The digest send queue and its dead-letter queue (src/digests/consumer.ts). */
  async queue(batch, rawEnv, ctx) {
    await digestQueue(batch, parseEnv(rawEnv), ctx);
  },

  /** Email Routing: the mailto: unsubscribe address of the digests (src/digests/index.ts). */
  async email(message, rawEnv) {
    await digestEmail(message, parseEnv(rawEnv));
  },
} satisfies ExportedHandler<Env>;
