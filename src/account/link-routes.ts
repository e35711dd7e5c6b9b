/**
 * The share links and CSV links screens (links-page.ts):
 *
 *   GET  /account/report            the weekly report page, read with the session's key (`weeklyAs`); POST: with its CSV links made
 *   GET  /account/history           the kept history of a brand and market, read with it (`historyAs`); POST: with its CSV link made
 *   GET  /account/views/{view}      a view (rivals, citations, perception, traffic), read with it (`viewAs`); POST: with its CSV links made
 *   GET  /account/links             the key's live report links, and the form that makes one
 *   POST /account/links             make one (200: its URL, shown this once)
 *   POST /account/links/revoke      revoke one  -> 303 ?done=revoked
 *   GET  /account/exports           the key's live CSV links (address and IMPORTDATA formula), and the form
 *   POST /account/exports           make one (200: it, first in the list)
 *   POST /account/exports/revoke    revoke one  -> 303 ?done=revoked
 *
 * Each through the function of its JSON route (`mintReportLinkAs`, `mintExportLinkAs`, and the stores'
 * list and revoke): the caps, the checks of the read the link will make, and the messages are the API's.
 */
import { ApiError } from '../contract/errors';
import { EXPORT_KINDS, mintExportLinkAs, tableOperation } from '../exports';
import { listExportLinks, revokeExportLink } from '../links/export-links';
import type { Route } from '../lib/router';
import { BRAND_MARKET_PARAMS, type Param, queryObject, readParams } from '../contract/params';
import { historyAs, listReportLinks, mintReportLinkAs, revokeReportLink, siblingsNav, type ViewLinks, viewAs, weeklyAs } from '../reports';
import { html } from '../lib/html';
import { isViewKind, VIEW_KINDS, VIEWS, type ViewKind } from '../views';
import type { SubscriptionDeps } from '../subscriptions';
import { field, scopeOf } from './form';
import { seeOther, type SignedIn, signedIn, signedInForm } from './guard';
import { type CsvView, csvPage, EMPTY_LINK_FORM, LINK_DONE, type LinkField, type LinkForm, type ParamField, sharePage, type ShareView } from './links-page';
import { ACCOUNT_PATHS } from './paths';
import { accountFrame, answering, inPeoplesWords } from './shell';
import { ownKeyOf } from '../lib/http';

type Deps = SubscriptionDeps;

const FIELD_OF_PARAM: Record<string, LinkField> = {
  brand_id: 'scope',
  market: 'scope',
  'params.brand_id': 'scope',
  'params.market': 'scope',
  expires_in_days: 'days',
  operation: 'operation',
  kind: 'kind',
};
/** The field an API error is shown beside: the brand and market's, a table parameter's own (`params.days` → `p.days`), or the form's. */
const fieldOf = (error: ApiError): LinkField => {
  const param = error.param;
  if (param && FIELD_OF_PARAM[param]) return FIELD_OF_PARAM[param];
  if (param?.startsWith('params.')) return `p.${param.slice('params.'.length)}`;
  return error.code.startsWith('brand_') ? 'scope' : 'form';
};

/** The form as typed: the table's parameters are its `p.<name>` fields, an empty one left out. */
function typed(form: FormData): LinkForm {
  const params: Record<string, string> = {};
  for (const [name, value] of form) if (name.startsWith('p.') && typeof value === 'string' && value.trim() !== '') params[name.slice(2)] = value.trim();
  return { scope: field(form, 'scope'), days: field(form, 'days').trim(), operation: field(form, 'operation'), kind: field(form, 'kind') || 'weekly', params };
}
/** `expires_in_days` as the JSON body takes it: a number (a word stays a word, so the API says what is wrong). */
const daysOf = (days: string) => (days === '' ? {} : { expires_in_days: /^\d+$/.test(days) ? Number(days) : days });
const doneOf = (url: URL) => {
  const done = ownKeyOf(LINK_DONE, url.searchParams.get('done'));
  return done ? { done } : {};
};

/** Runs an action; an API error shows the screen again with it, beside its field. */
async function acting(render: (status: number, error: { field: LinkField; message: string }) => Promise<Response>, action: () => Promise<Response>): Promise<Response> {
  try {
    return await action();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    const response = await render(error.status, { field: fieldOf(error), message: inPeoplesWords(error.message, error.param, LINK_LABELS) });
    if (error.options.retryAfter !== undefined) response.headers.set('retry-after', String(error.options.retryAfter));
    return response;
  }
}

// ---------------------------------------------------------------- share links

/** What a share link may open: the weekly report, or a view. */
const SHARE_KINDS = [{ id: 'weekly', label: 'The weekly report' }, ...VIEW_KINDS.map((kind) => ({ id: kind, label: VIEWS[kind].title }))];

/** The newest first: the one just made is at the top. */
const newestFirst = <L extends { created_at: string }>(links: L[]) => links.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));

async function shareView(deps: Deps, who: SignedIn, rest: Partial<ShareView> = {}): Promise<ShareView> {
  return {
    csrf: who.session.csrf,
    brands: who.brands,
    form: EMPTY_LINK_FORM,
    kinds: SHARE_KINDS,
    links: newestFirst(await listReportLinks(deps, who.caller.key)),
    ...(who.inactive ? { inactive: who.inactive } : {}),
    ...rest,
  };
}

const showShare = answering(async (request: Request, deps: Deps, url: URL) => {
  const who = await signedIn(request, deps);
  return sharePage(200, await shareView(deps, who, doneOf(url)));
});

const makeShare = answering(async (request: Request, deps: Deps) => {
  const who = await signedInForm(request, deps);
  const form = typed(who.form);
  const render = async (status: number, error: ShareView['error']) => sharePage(status, await shareView(deps, who, { form, ...(error ? { error } : {}) }));
  return acting(render, async () => {
    const link = await mintReportLinkAs(deps, who.caller, { ...scopeOf(form.scope), kind: form.kind, ...daysOf(form.days) });
    // Its URL is shown this once: never through a redirect.
    return sharePage(200, await shareView(deps, who, { made: { url: link.url, kind: link.kind, expires_at: link.expires_at } }));
  });
});

const revokeShare = answering(async (request: Request, deps: Deps) => {
  const who = await signedInForm(request, deps);
  const render = async (status: number, error: ShareView['error']) => sharePage(status, await shareView(deps, who, error ? { error } : {}));
  return acting(render, async () => {
    // Another key's link is as invisible as a missing one, as on DELETE /reports/links/{id}.
    if (!(await revokeReportLink(deps, who.caller.key, field(who.form, 'id')))) throw new ApiError('not_found', 'No such live report link for this key.');
    return seeOther(`${ACCOUNT_PATHS.links}?done=revoked`);
  });
});

// ---------------------------------------------------------------- the weekly report

/**
 * The report page of `GET /reports/weekly`, read with the session's key: its market switch stays here; a link
 * that works without a key is made on the share links screen.
 */
const showReport = answering(async (request: Request, deps: Deps, url: URL) => {
  const posted = request.method === 'POST';
  // A POST makes CSV links: from this site, with the session's token, the key confirmed now (signedInForm).
  const who = posted ? await signedInForm(request, deps) : await signedIn(request, deps);
  const query = readParams(BRAND_MARKET_PARAMS, queryObject(url.searchParams));
  // The frame's switch leads to every brand and market of the key, so the page's own market links are not repeated.
  const links = (brandId: number, market: string) => ({
    history: scopeUrl(ACCOUNT_PATHS.history, brandId, market),
    frame: framed(who, ACCOUNT_PATHS.report, { brandId, market }, 'weekly'),
  });
  const csvForm = { action: `${ACCOUNT_PATHS.report}${url.search}`, fields: { csrf: who.session.csrf } };
  return weeklyAs(deps, who.caller, { ...query, format: 'html' }, links, { csv: { csvForm, makeCsv: posted, keyConfirmed: posted } });
});

/** The brand and market an address names (the only brand when it names none); none marked when the market is left to the API. */
function shownOf(who: SignedIn, url: URL): { brandId: number; market: string } | undefined {
  const brandId = Number(url.searchParams.get('brand_id') ?? (who.brands.length === 1 ? who.brands[0]!.id : Number.NaN));
  const market = url.searchParams.get('market')?.toLowerCase();
  return Number.isInteger(brandId) && market ? { brandId, market } : undefined;
}

const scopeUrl = (path: string, brandId: number, market: string) => `${path}?${new URLSearchParams({ brand_id: String(brandId), market })}`;

/** The kept history of `GET /reports/history`, read with the session's key; its "this week's report" stays here. */
const showHistory = answering(async (request: Request, deps: Deps, url: URL) => {
  const posted = request.method === 'POST';
  const who = posted ? await signedInForm(request, deps) : await signedIn(request, deps);
  const csv = { csvForm: { action: `${ACCOUNT_PATHS.history}${url.search}`, fields: { csrf: who.session.csrf } }, makeCsv: posted, keyConfirmed: posted };
  const frame = framed(who, ACCOUNT_PATHS.history, shownOf(who, url), 'history');
  return historyAs(deps, who.caller, url.searchParams, (brandId, market) => scopeUrl(ACCOUNT_PATHS.report, brandId, market), frame, csv);
});

/** The brand's pages in the account, by kind: the report, the history and each view, for one brand and market. */
function accountSiblings(brandId: number, market: string): ViewLinks['siblings'] {
  return {
    weekly: scopeUrl(ACCOUNT_PATHS.report, brandId, market),
    history: scopeUrl(ACCOUNT_PATHS.history, brandId, market),
    ...Object.fromEntries(VIEW_KINDS.map((kind) => [kind, scopeUrl(`${ACCOUNT_PATHS.views}/${kind}`, brandId, market)])),
  };
}

/** The account's frame of a page of one brand and market: its navigation, the brand and market switch, and the brand's other pages. */
function framed(who: SignedIn, path: string, current: { brandId: number; market: string } | undefined, kind: ViewKind | 'weekly' | 'history') {
  const frame = accountFrame(who.session.csrf, { brands: who.brands, path, current });
  return current ? { ...frame, nav: html`${frame.nav}${siblingsNav(accountSiblings(current.brandId, current.market), kind)}` } : frame;
}

/** A view of `GET /reports/views/{view}`, read with the session's key, in the account's frame; its form's POST answers it with its CSV links made. */
const showView = answering(async (request: Request, deps: Deps, url: URL, name: string) => {
  const posted = request.method === 'POST';
  // A POST makes links: from this site, with the session's token, the key confirmed now (signedInForm).
  const who = posted ? await signedInForm(request, deps) : await signedIn(request, deps);
  if (!isViewKind(name)) throw new ApiError('not_found', `No such page: the views are ${VIEW_KINDS.join(', ')}.`);
  const path = `${ACCOUNT_PATHS.views}/${name}`;
  const csvForm = { action: `${path}${url.search}`, fields: { csrf: who.session.csrf } };
  return viewAs(deps, who.caller, name, url.searchParams, (view) => ({ frame: framed(who, path, { brandId: view.brand.id, market: view.market.code }, name), csvForm }), {
    makeCsv: posted,
    keyConfirmed: posted,
  });
});

// ---------------------------------------------------------------- CSV links

/** The tables a CSV link may read, from the contract's table (and the kept history, and the week's plan). */
const SCOPE_LABELS: Record<string, string> = { history: 'The kept weekly history', plan: 'The week’s plan, one row per question' };
const OPERATIONS = EXPORT_KINDS.map((id) => {
  const op = tableOperation(id);
  return { id, label: op ? op.summary : (SCOPE_LABELS[id] ?? id) };
});

/** How a person reads a parameter's name on the CSV screen; any other name is written out as it is. */
const PARAM_WORDS: Record<string, string> = {
  days: 'Days, counted back from the day the sheet reads it',
  from: 'From (a day)',
  to: 'To (a day)',
  engine: 'Engine',
  limit: 'At most this many rows',
  layer: 'Layer',
  status: 'Status',
  category: 'Category',
  dimension: 'Rows by',
  prompt: 'The question, word for word',
  name: 'The rival, as AI writes it',
  id: 'Its id',
};

/** The link screens' labels by the API's names their messages use: the brand and market, the term, the table, what a link opens, and each table's parameters. */
const LINK_LABELS: Record<string, string> = {
  brand_id: 'Brand and market',
  market: 'Brand and market',
  expires_in_days: 'Expires after (days)',
  operation: 'Table',
  kind: 'What it opens',
  ...PARAM_WORDS,
};

/** The parameters of a table as fields, besides the brand and market (the history and the plan take none). */
export function paramFields(operation: string): ParamField[] {
  const op = tableOperation(operation);
  if (!op) return [];
  const declared = { ...op.params.path, ...op.params.query } as Record<string, Param>;
  return Object.entries(declared)
    .filter(([name]) => name !== 'brand_id' && name !== 'market')
    .map(([name, param]) => ({
      name,
      label: `${PARAM_WORDS[name] ?? name.replaceAll('_', ' ')}${param.presence === 'required' ? ' (required)' : ''}`,
      hint: param.description,
      rule: param.rule,
    }));
}

async function csvView(deps: Deps, who: SignedIn, rest: Partial<CsvView> = {}): Promise<CsvView> {
  const links = newestFirst(await listExportLinks(deps, who.caller.key));
  // The one just made first, also when it was handed out again (one live link per export and parameters).
  const made = rest.made?.id;
  if (made) links.sort((a, b) => Number(b.id === made) - Number(a.id === made));
  const form = rest.form ?? EMPTY_LINK_FORM;
  return { csrf: who.session.csrf, brands: who.brands, links, operations: OPERATIONS, ...(who.inactive ? { inactive: who.inactive } : {}), ...rest, form, fields: paramFields(form.operation) };
}

/**
 * The body `POST /exports/links` would get for this form: the brand and market go to the tables that take them
 * (the kept history and the plan, and each operation by its declared parameters); the table's parameters as typed, one field each.
 */
export function exportBodyOf(form: LinkForm): Record<string, unknown> {
  const op = tableOperation(form.operation);
  const takes = op ? [...Object.keys(op.params.path), ...Object.keys(op.params.query)] : ['brand_id', 'market'];
  const scope = Object.entries(scopeOf(form.scope)).filter(([name]) => takes.includes(name));
  return { operation: form.operation, params: { ...Object.fromEntries(scope), ...form.params }, ...daysOf(form.days) };
}

const showCsv = answering(async (request: Request, deps: Deps, url: URL) => {
  const who = await signedIn(request, deps);
  // `?table=` (the screen's first form): that table's parameters as fields; an id of no table keeps the default.
  const table = url.searchParams.get('table');
  const form = table !== null && OPERATIONS.some((o) => o.id === table) ? { ...EMPTY_LINK_FORM, operation: table } : EMPTY_LINK_FORM;
  return csvPage(200, await csvView(deps, who, { ...doneOf(url), form }));
});

const makeCsv = answering(async (request: Request, deps: Deps) => {
  const who = await signedInForm(request, deps);
  const form = typed(who.form);
  const render = async (status: number, error: CsvView['error']) => csvPage(status, await csvView(deps, who, { form, ...(error ? { error } : {}) }));
  return acting(render, async () => {
    const link = await mintExportLinkAs(deps, who.caller, exportBodyOf(form));
    return csvPage(200, await csvView(deps, who, { made: { id: link.id }, form }));
  });
});

const revokeCsv = answering(async (request: Request, deps: Deps) => {
  const who = await signedInForm(request, deps);
  const render = async (status: number, error: CsvView['error']) => csvPage(status, await csvView(deps, who, error ? { error } : {}));
  return acting(render, async () => {
    if (!(await revokeExportLink(deps, who.caller.key, field(who.form, 'id')))) throw new ApiError('not_found', 'No such live export link for this key.');
    return seeOther(`${ACCOUNT_PATHS.exports}?done=revoked`);
  });
});

export const linkRoutes: Route<Deps>[] = [
  { path: ACCOUNT_PATHS.report, answers: 'page', methods: { GET: (request, _, deps, url) => showReport(request, deps, url), POST: (request, _, deps, url) => showReport(request, deps, url) } },
  { path: ACCOUNT_PATHS.history, answers: 'page', methods: { GET: (request, _, deps, url) => showHistory(request, deps, url), POST: (request, _, deps, url) => showHistory(request, deps, url) } },
  {
    path: `${ACCOUNT_PATHS.views}/{view}`,
    answers: 'page',
    methods: { GET: (request, params, deps, url) => showView(request, deps, url, params.view!), POST: (request, params, deps, url) => showView(request, deps, url, params.view!) },
  },
  { path: ACCOUNT_PATHS.links, answers: 'page', methods: { GET: (request, _, deps, url) => showShare(request, deps, url), POST: (request, _, deps) => makeShare(request, deps) } },
  { path: `${ACCOUNT_PATHS.links}/revoke`, answers: 'page', methods: { POST: (request, _, deps) => revokeShare(request, deps) } },
  { path: ACCOUNT_PATHS.exports, answers: 'page', methods: { GET: (request, _, deps, url) => showCsv(request, deps, url), POST: (request, _, deps) => makeCsv(request, deps) } },
  { path: `${ACCOUNT_PATHS.exports}/revoke`, answers: 'page', methods: { POST: (request, _, deps) => revokeCsv(request, deps) } },
];
