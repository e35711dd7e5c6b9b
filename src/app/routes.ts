/**
 * The product's own routes beside the API, one table: subscriptions, reports, exports,
 * their OpenAPI document (`GET /openapi.json`, openapi.ts) and, in dev only
 * (`DEV_ROUTES = "on"`), the `/dev/*` routes, which have no authentication.
 * One matcher and one error translation give every route the same answers to
 * the same mistakes (src/lib/router.ts).
 */
import { ApiError, errorResponse, invalidParameter } from '../contract/errors';
import { accountRoutes } from '../account';
import { alertDevRoutes } from '../alerts';
import { digestDevRoutes } from '../digests';
import { page } from '../lib/html';
import { errorText as logText } from '../lib/log';
import { plainText } from '../lib/http';
import { matchRoute, type Route } from '../lib/router';
import { OUTBOX_BASE, showOutbox } from '../mail/outbox';
import { mcpRoutes, oauthRoutes } from '../mcp';
import { adminRoutes } from '../proxy/admin';
import { upstreamCheckRoutes } from './upstream-check';
import { exportRoutes } from '../exports';
import { reportRoutes } from '../reports';
import { subscriptionRoutes } from '../subscriptions';
import { documentResponse, PRODUCT_DOCUMENT_ASSET, PRODUCT_OPENAPI } from '../contract/documents';
import type { DocumentedRoute } from './openapi';
import type { Services } from './services';

/**
 * `GET /openapi.json`: served whatever features are on (worker.ts answers it before their gates), from the static
 * assets (`assets`: the ASSETS binding), where scripts/build-openapi.mjs writes it at build time (openapi.ts).
 */
export const serveProductDocument = (assets: Fetcher | undefined) => documentResponse(assets, PRODUCT_DOCUMENT_ASSET);
const openApiRoute: Route<Services> = { path: PRODUCT_OPENAPI, answers: 'json', methods: { GET: (_, __, services) => serveProductDocument(services.assets) } };

export const productRoutes: Route<Services>[] = [...subscriptionRoutes, ...reportRoutes, ...exportRoutes, openApiRoute];
/** The outbox's pages: every recipient with working confirm and unsubscribe links. Never without `DEV_ROUTES = "on"`. */
export const outboxRoutes: Route<Services>[] = [
  { path: OUTBOX_BASE, answers: 'page', methods: { GET: (_, __, services, url) => showOutbox(services.db, url, '') } },
  { path: `${OUTBOX_BASE}/{id}`, answers: 'page', methods: { GET: (_, params, services, url) => showOutbox(services.db, url, `/${params.id}`) } },
];
/** Mounted only with `DEV_ROUTES = "on"` (`npm run dev`, the tests): no authentication. */
export const devRoutes: Route<Services>[] = [...digestDevRoutes, ...alertDevRoutes, ...outboxRoutes];

/** The admin's routes (`handleAdmin`, behind the admin token): the proxy's own, and the compatibility check, which reads with the features' needs. */
export const allAdminRoutes = [...adminRoutes, ...upstreamCheckRoutes];

/** Every route the Worker serves beside /api/v1 (the cache admin's, `/mcp`'s and its OAuth's too, mounted by worker.ts): what `GET /openapi.json` describes (openapi.ts, at build time). */
export const documentedRoutes: readonly DocumentedRoute[] = [...productRoutes, ...devRoutes, ...allAdminRoutes, ...mcpRoutes, ...oauthRoutes];

/** The pages for people (src/account): pages, not API, so not in the OpenAPI document. */
const servedRoutes: Route<Services>[] = [...productRoutes, ...accountRoutes];
const withDevRoutes = [...servedRoutes, ...devRoutes];

/** A product route's answer, or undefined when the path is none of them. `devRoutes`: `DEV_ROUTES = "on"`. */
export async function handleProductRoute(request: Request, url: URL, services: Services, options: { devRoutes: boolean }): Promise<Response | undefined> {
  const found = await matchRoute(options.devRoutes ? withDevRoutes : servedRoutes, request.method, url.pathname);
  if (found.kind === 'not_found') return undefined;
  const answers = found.route.answers;
  try {
    if (found.kind === 'method_not_allowed') throw new ApiError('method_not_allowed', `Use ${found.allow.split(', ').join(' or ')} here.`, { headers: { allow: found.allow } });
    if (found.kind === 'bad_encoding' && !found.route.badEncoding) {
      throw invalidParameter(found.param, `The path parameter \`${found.param}\` is not valid percent-encoding: open the address exactly as it was given.`);
    }
    const response = found.kind === 'bad_encoding' ? found.route.badEncoding!(found.param) : await found.handler(request, found.params, services, url);
    return request.method === 'HEAD' ? new Response(null, response) : response;
  } catch (error) {
    // Never the request's headers or URL: they carry API keys and signed tokens.
    if (!(error instanceof ApiError)) console.error(JSON.stringify({ msg: 'route failed', route: found.route.path, error: logText(error) }));
    if (answers === 'json') return errorResponse(error);
    if (answers === 'text') return errorText(error);
    return errorPage(error);
  }
}

/** The same failures in plain text, for a tool reading a file (a CSV link). */
function errorText(error: unknown): Response {
  if (error instanceof ApiError && error.status < 500) return plainText(error.status, error.message, error.options.headers ?? {});
  return plainText(500, 'Something went wrong. Try again in a moment.');
}

/** The same failures, for a person who followed a link. */
function errorPage(error: unknown): Response {
  if (error instanceof ApiError && error.code === 'method_not_allowed') {
    const response = page(405, 'Open this link in a browser', ['This address is read with GET.']);
    response.headers.set('allow', error.options.headers?.allow ?? 'GET, HEAD');
    return response;
  }
  if (error instanceof ApiError && error.code === 'key_unconfirmed') {
    const response = page(error.status, 'Nothing was changed: try again shortly', [error.message]);
    response.headers.set('retry-after', String(error.options.retryAfter));
    return response;
  }
  if (error instanceof ApiError && error.status < 500) {
    const response = page(error.status, 'This link does not work', [error.message]);
    // A limit of the API (429): when to come back, as its own answer said.
    if (error.options.retryAfter !== undefined) response.headers.set('retry-after', String(error.options.retryAfter));
    return response;
  }
  return page(500, 'Something went wrong', ['The page could not be shown. Try again in a moment.']);
}
