/**
 * The Worker. Routes:
 *   /api/v1/*         the cached edge proxy of the Read API v1 (src/proxy)
 *   /admin/cache/*    purge and stats of that cache (bearer ADMIN_TOKEN)
 *   /origin/api/v1/*  the embedded reference origin itself, when it is the upstream (UPSTREAM_URL unset)
 *   /mcp              the MCP server for AI assistants (src/mcp): the API as tools, read through the same cache
 *   /oauth/*, /.well-known/oauth-*   OAuth 2.1 for /mcp (src/mcp/oauth-routes.ts), with OAUTH_KV bound
 *   /digests/*, /reports/*, /r/*   the product's own routes (routes.ts)
 *   /exports/*, /x/*  the CSV export links (src/exports)
 *   /dev/*            dev only (DEV_ROUTES = "on"): the outbox of unsent mail, the planner and the alert evaluation at a chosen time
 * and the hourly cron (digest planner, the kept history, alert evaluation), the digest and alert queues, and Email Routing (unsubscribe by mail).
 *
 * The proxy and its admin always run; the rest only when the env has what
 * they need (features.ts). A feature that is off answers its routes with 404
 * naming what to configure, and its events only log.
 */
import { ApiError, errorResponse } from '../contract/errors';
import { API_BASE } from '../contract/operations';
import { loadWithSchemas } from '../contract/zod-side';
import { requestIdOf } from '../contract/request-id';
import { guardOrigin } from '../proxy/abuse';
import { handleProxy } from '../proxy/handler';
import type { StartTimeout } from '../proxy/upstream';
import { handleMcp, handleOAuth, isOAuthPath, MCP_PATH } from '../mcp';
import { type AppEnv, parseEnv } from './env';
import { type Features, featuresLine, featuresOf, isAlertsEnv, isDigestsEnv, isOriginEnv, isReportsEnv, offMessage, type ReportsEnv } from './features';
import { errorText } from '../lib/log';
import { plainTarget, prefersHtml } from '../lib/http';
import { under } from '../lib/router';
import { systemClock } from '../lib/time';
import type { Services } from './services';

/**
 * The rest of the Worker (product.ts), loaded at the first request or event
 * that is not for /api/v1 or /mcp: an isolate that only serves the API never
 * evaluates the features, the mailer or the product's OpenAPI document. With
 * it, the contract's zod schemas (src/contract/zod-side.ts), which all of it
 * reads.
 */
const product = loadWithSchemas(() => import('./product'));
type Product = Awaited<ReturnType<typeof product>>;

/** Where the embedded origin answers directly, e.g. for its own tests; the proxy calls it in-process. */
const ORIGIN_MOUNT = '/origin';

export interface WorkerSeams {
  /** Replaces some services (clock, mailer, `api`, sleep) in every request and event: the tests' and benchmarks' seam. */
  services?: () => Partial<Services>;
  /** The proxy's timer for its soft deadline, held by a test. */
  proxyTimeout?: () => StartTimeout | undefined;
}

/** A named configuration error (MissingSecretError, InvalidEnvError) is logged for the operator, never shown. */
function configured(rawEnv: Env): { env: AppEnv; features: Features } {
  let env: AppEnv;
  try {
    env = parseEnv(rawEnv);
  } catch (error) {
    console.error(JSON.stringify({ msg: 'invalid configuration', error: errorText(error) }));
    throw error;
  }
  return { env, features: featuresFor(env) };
}

const announced = new WeakMap<AppEnv, Features>();

/**
 * The env's features, derived and logged the first time this env is seen
 * (once per isolate, at its first request or event), then remembered: the
 * proxy's hot path reads them without deriving them again.
 */
function featuresFor(env: AppEnv): Features {
  let features = announced.get(env);
  if (!features) {
    features = featuresOf(env);
    announced.set(env, features);
    console.log(JSON.stringify(featuresLine(features)));
  }
  return features;
}

export function createWorker(seams: WorkerSeams = {}) {
  const servicesFor = (p: Product, env: ReportsEnv, ctx: Pick<ExecutionContext, 'waitUntil'>, overrides: Partial<Services> = {}) =>
    p.buildServices(env, ctx, { ...seams.services?.(), ...overrides }, seams.proxyTimeout?.());
  return {
    async fetch(request, rawEnv, ctx) {
      let env: AppEnv;
      let features: Features;
      try {
        ({ env, features } = configured(rawEnv));
      } catch {
        return withRequestId(errorResponse(new ApiError('internal_error', 'The service is misconfigured.')), requestIdOf(request.headers));
      }
      if (env.DEMO_DATA === 'on-empty' && env.DB) await (await product()).ensureDemoData(env.DB);
      // The proxy's hot path needs only the clock and waitUntil: no Services are built for it.
      const now = seams.services?.().now ?? systemClock;
      const startTimeout = seams.proxyTimeout?.();
      const proxyRuntime = { now, waitUntil: (work: Promise<unknown>) => ctx.waitUntil(work), ...(startTimeout ? { startTimeout } : {}) };
      // A plain address (every client's, nearly) is routed without a URL object: a cache HIT never builds one.
      const plain = plainTarget(request.url);
      if (plain && under(plain.pathname, API_BASE)) return handleProxy(request, env, proxyRuntime, { url: plain });
      const url = new URL(request.url);
      const { pathname } = url;
      if (under(pathname, API_BASE)) return handleProxy(request, env, proxyRuntime, { url });
      // Needs only the proxy, so it runs on a proxy-only deployment too.
      const mcpOptions = {
        hosts: env.MCP_ALLOWED_HOSTS,
        dev: features.devRoutes,
        ...(features.mcpOAuth ? { oauthKv: env.OAUTH_KV, oauthSecret: env.SIGNING_SECRET, oauthWrites: env.OAUTH_WRITES } : {}),
        assets: env.ASSETS,
      };
      // The endpoint as often pasted, with a slash: the one endpoint, its method and body kept (308).
      if (pathname === `${MCP_PATH}/`) return withRequestId(new Response(null, { status: 308, headers: { location: `${MCP_PATH}${url.search}` } }), requestIdOf(request.headers));
      if (pathname === MCP_PATH) return withRequestId(await handleMcp(request, url, env, proxyRuntime, mcpOptions, ctx), requestIdOf(request.headers));
      // OAuth for /mcp (its consent page, the provider's endpoints and metadata): off without OAUTH_KV, OAUTH_WRITES and SIGNING_SECRET.
      if (isOAuthPath(pathname)) return withRequestId(await handleOAuth(request, env, proxyRuntime, mcpOptions, ctx), requestIdOf(request.headers));
      const p = await product();
      if (under(pathname, p.ADMIN_BASE) || under(pathname, p.UPSTREAM_ADMIN_BASE)) return p.handleAdmin(request, env, proxyRuntime, p.allAdminRoutes);
      if (isOriginEnv(env) && under(pathname, ORIGIN_MOUNT + API_BASE)) {
        url.pathname = pathname.slice(ORIGIN_MOUNT.length);
        const deps = { db: env.DB, now, waitUntil: (work: Promise<unknown>) => ctx.waitUntil(work), assets: env.ASSETS };
        // Behind the edge's abuse limits, like /api/v1: a flood of random keys costs the origin no more D1 reads.
        return guardOrigin(new Request(url, request), env, deps, (inner) => p.handleOrigin(inner, deps));
      }
      const requestId = requestIdOf(request.headers);
      if (pathname === p.PRODUCT_OPENAPI && (request.method === 'GET' || request.method === 'HEAD')) return withRequestId(await p.serveProductDocument(env.ASSETS).catch(errorResponse), requestId);
      // A feature that is off: its paths say what to configure. 404, not 503: nothing here will come back by
      // waiting, and the API's error codes (API_ERROR_STATUS) have none for "not configured".
      const owner = p.featureOfPath(pathname, features);
      if (owner && !features[owner]) return withRequestId(errorResponse(new ApiError('not_found', offMessage(owner, features))), requestId);
      if (isReportsEnv(env)) {
        const routed = await p.handleProductRoute(request, url, servicesFor(p, env, ctx), { devRoutes: features.devRoutes });
        if (routed) return withRequestId(routed, requestId);
      }
      // The front door, for a browser; a client that asks for JSON (or anything) keeps the JSON answer.
      if (pathname === '/' && (request.method === 'GET' || request.method === 'HEAD') && prefersHtml(request.headers.get('accept'))) {
        const door = p.frontDoor(url.origin, (request.headers.get('cookie') ?? '').includes(`${p.SESSION_COOKIE}=`));
        return withRequestId(request.method === 'HEAD' ? new Response(null, door) : door, requestId);
      }
      // A browser gets a page it can go back from; any other client the API's JSON.
      if ((request.method === 'GET' || request.method === 'HEAD') && prefersHtml(request.headers.get('accept'))) {
        const missing = p.notFoundPage((request.headers.get('cookie') ?? '').includes(`${p.SESSION_COOKIE}=`));
        return withRequestId(request.method === 'HEAD' ? new Response(null, missing) : missing, requestId);
      }
      return withRequestId(errorResponse(new ApiError('not_found', 'Nothing here. The API is at /api/v1 (see /api/v1/openapi.json).')), requestId);
    },

    /** Hourly: plans the weekly digests that are due (src/digests/planner.ts), keeps the week's history (src/exports/history-cron.ts) and evaluates change alerts (src/alerts). */
    async scheduled(controller, rawEnv, ctx) {
      const { env, features } = configured(rawEnv);
      const p = await product();
      const at = { now: () => new Date(controller.scheduledTime) };
      try {
        if (isDigestsEnv(env)) await p.runDigestPlanner(servicesFor(p, env, ctx, at), controller.cron);
        else console.log(JSON.stringify({ msg: 'digests are off: the cron run planned nothing', cron: controller.cron, needs: features.off.digests }));
        // After the planner: a brand whose digest was just planned is kept by that digest's read.
        if (isReportsEnv(env)) {
          const kept = await p.keepWeeklyHistory(servicesFor(p, env, ctx, at));
          console.log(JSON.stringify({ msg: 'history kept', cron: controller.cron, ...kept }));
        }
      } finally {
        // Whatever became of the digests' planning and the history: the alerts are evaluated too (and each failure still fails the run).
        if (isAlertsEnv(env)) await p.runAlertEvaluation(servicesFor(p, env, ctx, at), controller.cron);
      }
    },

    /** The digest send queue and its dead-letter queue (src/digests/consumer.ts); the alert deliveries and theirs (src/alerts), by `batch.queue`. */
    async queue(batch, rawEnv, ctx) {
      const { env, features } = configured(rawEnv);
      const p = await product();
      const owner = p.isAlertQueue(batch.queue)
        ? { feature: 'alerts' as const, on: isAlertsEnv(env), consume: p.consumeAlertBatch }
        : { feature: 'digests' as const, on: isDigestsEnv(env), consume: p.consumeDigestBatch };
      // A feature that is on has a reports env; `isReportsEnv` tells the type checker so. A batch of a feature that
      // is off is kept for a later delivery (the Queue's retry delay), as a failed start did before: a secret put
      // back in time sends them; otherwise they end in the dead-letter queue, which gets the same answer.
      if (!owner.on || !isReportsEnv(env)) {
        console.error(
          JSON.stringify({ msg: `${owner.feature} are off: the batch is left to the Queue to retry`, queue: batch.queue, messages: batch.messages.length, needs: features.off[owner.feature] }),
        );
        batch.retryAll();
        return;
      }
      await owner.consume(batch, servicesFor(p, env, ctx));
    },

    /** Email Routing: the mailto: unsubscribe address of the digests (src/subscriptions/mailto.ts). */
    async email(message, rawEnv, ctx) {
      const { env, features } = configured(rawEnv);
      if (!isDigestsEnv(env)) {
        console.log(JSON.stringify({ msg: 'digests are off: mail to the unsubscribe address rejected', needs: features.off.digests }));
        message.setReject('This address takes no mail.');
        return;
      }
      const p = await product();
      await p.unsubscribeByMail(message, servicesFor(p, env, ctx));
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
