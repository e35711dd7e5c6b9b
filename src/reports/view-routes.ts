/**
 * The views besides the weekly report (src/views), as pages and JSON:
 *
 *   GET /reports/views/{view}?brand_id=&market=&format=   read with the API key: `html` (default) or `json`
 *   POST /reports/views/{view}?brand_id=&market=          the page with its CSV links made (the key confirmed upstream first)
 *   GET /r/<token>[?format=]                              a report link minted with `kind` a view (routes.ts dispatches here)
 *
 * and in the account, `/account/views/{view}` (src/account), through `viewAs`.
 * Every read goes through the proxy with the caller's key (its cache and
 * budget); a part the plan or the service does not provide is one line of
 * the page and of the JSON, never an error. A GET writes nothing: the page
 * offers its CSV links by a form, and its POST (`POST /reports/views/{view}`,
 * `/r/<token>/csv`, the account's) answers the page with them, made after
 * the key is confirmed upstream: the key's own on a keyed page, ending with
 * the link on a signed one.
 */
import { requireKey } from '../contract/access';
import { ApiError, errorResponse } from '../contract/errors';
import { BRAND_MARKET_PARAMS, enumParam, queryObject, readParams } from '../contract/params';
import { json } from '../lib/http';
import type { Route } from '../lib/router';
import { DAY_MS } from '../lib/time';
import { exportLinkFor } from '../links/export-links';
import { LINK_DAYS, readFailure } from '../links/keyed-routes';
import type { LinkParent } from '../links/link-store';
import { clientAddressOf, confirmKeyNow } from '../proxy';
import type { Caller } from '../subscriptions';
import { isViewKind, readView, tableProvided, type View, VIEW_KINDS, VIEWS, type ViewKind } from '../views';
import type { ReportDeps } from './deps';
import type { OpenedLink } from './links';
import { messagePage } from './page';
import { type ViewLinks, viewPage } from './view-page';

export const VIEWS_BASE = '/reports/views';

const VIEW_FORMATS = ['html', 'json'] as const;
const viewFormat = enumParam(VIEW_FORMATS, 'How to answer: `html` (a page, default) or `json` (the view).').default('html');

/** The query parameters of a view (their schemas: the product's OpenAPI document). */
export const VIEW_QUERY = { ...BRAND_MARKET_PARAMS, format: viewFormat };

/** The view's CSV links by table id, read with `apiKey`, none outliving `notAfter`, ending with `parent`; none for a part not provided. */
async function viewCsvLinks(deps: ReportDeps, apiKey: string, view: View, notAfter: Date, parent: LinkParent | null): Promise<Record<string, string>> {
  const scope = { brandId: view.brand.id, market: view.market };
  const links: Record<string, string> = {};
  for (const table of VIEWS[view.kind].tables) {
    if (!tableProvided(view, table)) continue;
    const outcome = await exportLinkFor(deps, apiKey, { kind: table.operation, params: { brand_id: String(view.brand.id), market: view.market.code, ...table.params }, ...scope }, notAfter, parent);
    // At the key's cap of CSV links: the page renders without the rest.
    if (!outcome.ok) break;
    links[table.id] = outcome.link.url;
  }
  return links;
}

/** Reads the view; a failure that is not a part's (the key, a limit, an outage) is the API's error. */
async function read(deps: ReportDeps, caller: Caller, kind: ViewKind, target: { brand_id?: number | undefined; market?: string | undefined }): Promise<View> {
  try {
    return await readView(deps.api(caller.key, caller.clientAddress), kind, target, { db: deps.db, now: deps.now() });
  } catch (error) {
    throw readFailure(error);
  }
}

/** The page of an outage or a refusal, for a reader who asked for a page. */
function problemPage(error: ApiError, kind: ViewKind): Response {
  const what = VIEWS[kind].heading;
  if (error.code === 'key_unconfirmed') {
    const page = messagePage(error.status, 'No CSV link was made', [error.message]);
    page.headers.set('retry-after', String(error.options.retryAfter));
    return page;
  }
  if (error.status >= 500) return messagePage(502, `The ${what} data is unavailable`, ['The Read API did not answer, so there are no figures to show right now.', 'Try again in a few minutes.']);
  const page = messagePage(error.status, `The ${what} page cannot be shown`, [error.message]);
  if (error.options.retryAfter !== undefined) page.headers.set('retry-after', String(error.options.retryAfter));
  return page;
}

async function answer(
  deps: ReportDeps,
  caller: Caller,
  kind: ViewKind,
  target: { brand_id?: number | undefined; market?: string | undefined },
  format: (typeof VIEW_FORMATS)[number],
  o: { links: (view: View) => ViewLinks; notAfter: Date; parent: LinkParent | null; headers?: Record<string, string>; makeCsv?: boolean; keyConfirmed?: boolean },
): Promise<Response> {
  let view: View;
  try {
    // Links are a write: made only when asked for (a POST), and then with the key's word now, not a stored answer.
    if (o.makeCsv && !o.keyConfirmed) await confirmKeyNow(deps.api(caller.key, caller.clientAddress));
    view = await read(deps, caller, kind, target);
  } catch (error) {
    if (error instanceof ApiError && format === 'html') return problemPage(error, kind);
    throw error;
  }
  if (format === 'json') return json({ view }, 200, o.headers);
  const links = o.links(view);
  const csv = o.makeCsv ? await viewCsvLinks(deps, caller.key, view, o.notAfter, o.parent) : {};
  const page = viewPage(view, o.makeCsv ? { ...links, csv, csvForm: undefined } : links);
  return new Response(page.html, { headers: { ...page.headers, ...o.headers } });
}

const scopeQuery = (view: Pick<View, 'brand'> & { market: { code: string } }) => new URLSearchParams({ brand_id: String(view.brand.id), market: view.market.code }).toString();

/** Where a keyed page's siblings are: each view by the key, the report and the history by theirs. */
function keyedSiblings(base: string, view: View): ViewLinks['siblings'] {
  const q = scopeQuery(view);
  return { weekly: `${base}/weekly?${q}`, history: `${base}/history?${q}`, ...Object.fromEntries(VIEW_KINDS.map((k) => [k, `${base}/views/${k}?${q}`])) };
}

/**
 * The view of `kind` for the caller's key, as a page or JSON; `links` gives the page's siblings and frame. The keyed
 * route and the account's view pages (src/account) both answer with it.
 */
export function viewAs(
  deps: ReportDeps,
  caller: Caller,
  kind: ViewKind,
  searchParams: URLSearchParams,
  links: (view: View) => ViewLinks,
  o: { headers?: Record<string, string>; makeCsv?: boolean; keyConfirmed?: boolean } = {},
): Promise<Response> {
  const query = readParams(VIEW_QUERY, queryObject(searchParams));
  return answer(deps, caller, kind, query, query.format, { links, notAfter: new Date(deps.now().getTime() + LINK_DAYS.max * DAY_MS), parent: null, ...o });
}

/** `GET /reports/views/{view}` with the API key; `POST` answers the page with its CSV links made. */
async function keyedView(request: Request, url: URL, name: string, deps: ReportDeps): Promise<Response> {
  const caller = { key: requireKey(request), clientAddress: clientAddressOf(request) };
  if (!isViewKind(name)) throw new ApiError('not_found', `No such view: the views are ${VIEW_KINDS.join(', ')}.`);
  const csvForm = { action: `${url.pathname}${url.search}` };
  return viewAs(deps, caller, name, url.searchParams, (view) => ({ siblings: keyedSiblings('/reports', view), csvForm }), { headers: { vary: 'Authorization' }, makeCsv: request.method === 'POST' });
}

/**
 * A report link of a view's kind, opened: the view of its brand and market, read with its key; with `makeCsv` (the
 * page's form, posted to `/r/<token>/csv`) its CSV links too, ending with it.
 */
export async function linkViewAnswer(deps: ReportDeps, request: Request, link: OpenedLink & { kind: ViewKind }, self: string, format: string, makeCsv = false): Promise<Response> {
  if (format !== 'html' && format !== 'json')
    return messagePage(400, 'This page has no text form', [`A ${VIEWS[link.kind].heading} link answers format=html or json; the text form is the weekly report's.`]);
  try {
    return await answer(deps, { key: link.apiKey, clientAddress: clientAddressOf(request) }, link.kind, { brand_id: link.brandId, market: link.market }, format, {
      links: () => ({ share: { url: self, expiresAt: link.expiresAt }, json: `${self}?format=json`, csvForm: { action: `${self}/csv` } }),
      notAfter: new Date(link.expiresAt),
      parent: link.parent,
      makeCsv,
    });
  } catch (error) {
    // No key was sent: the API's error as JSON, for the reader who asked for JSON.
    if (error instanceof ApiError) return errorResponse(error);
    throw error;
  }
}

const keyedViewRoute = (request: Request, params: Record<string, string>, deps: ReportDeps, url: URL) => keyedView(request, url, params.view!, deps);
export const viewRoutes: Route<ReportDeps>[] = [{ path: `${VIEWS_BASE}/{view}`, answers: 'json', methods: { GET: keyedViewRoute, POST: keyedViewRoute } }];
