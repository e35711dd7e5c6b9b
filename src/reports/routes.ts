/**
 * HTTP routes of the on-demand reports:
 *
 *   GET    /reports/weekly?brand_id=&market=&format=   the report (API key): HTML page, `json` or `text`
 *   POST   /reports/links                              mint a signed link (API key; JSON body)  -> 201; 409 at the cap
 *   GET    /reports/links                              the key's live links (API key), without their URLs
 *   DELETE /reports/links/{id}                         revoke one of the key's links (API key)  -> 204
 *   GET    /r/<token>[?format=]                        the same report without a key (signed, expiring link)
 *   POST   /reports/weekly/send?brand_id=&market=      send the digest now to the confirmed subscribers -> 202 / 409
 *   GET    /reports/history?brand_id=&market=          the kept weekly history (API key): a page with a chart and its CSV link (history.ts)
 *   GET    /r/<token>/history                          the same history for a signed report link's holder
 *   POST   /reports/weekly, /reports/history, /r/<token>/csv, /r/<token>/history/csv: the page with its CSV links made (its form; a GET makes none)
 *
 * Keyed routes answer errors in the API's shape (`{error: {code, message, param?}}`),
 * the upstream's own 401/403/404/429 passed through; an upstream outage is a
 * 502, as a page when the report was asked for as a page. `/r/` answers pages:
 * a forged token 403, an expired or revoked one 410, never a 500.
 *
 * Links are the key's: at most `MAX_LIVE_LINKS` (100) live ones per key, a
 * mint past that a 409 `too_many_links` (a cap, not a rate: it lifts when a
 * link is revoked or expires, not by waiting a minute). Only the key that
 * minted a link lists or revokes it; another key's link is a 404, like an
 * unknown one.
 */
import * as z from 'zod';
import { BrandIdField, MarketField } from '../contract/scope-body';
import { type ApiClient, ApiClientError } from '../client';
import { requireKey } from '../contract/access';
import { ApiError, type ErrorCode, errorResponse, invalidParameter } from '../contract/errors';
import { parseJsonObject, readJsonBody } from '../contract/json-body';
import { BRAND_MARKET_PARAMS, enumParam, queryObject, readParams } from '../contract/params';
import { pageHeaders } from '../lib/html';
import { fromThisSite, json, readBodyUpTo } from '../lib/http';
import { errorText } from '../lib/log';
import { DAY_MS } from '../lib/time';
import type { Route } from '../lib/router';
import { renderDigest } from '../mail/render';
import { clientAddressOf, confirmedCaller, confirmKeyNow } from '../proxy';
import {
  type DigestKind,
  implausibleWarning,
  OperationMissing,
  WindowMismatch,
  readPageExtras,
  type Report,
  type ReportSource,
  formatStamp,
  keepApiWeeks,
  readScopeKept,
  readWeek,
  reportOf,
  summarizeReads,
  type WeeklyRead,
  type WeekTarget,
} from '../weekly-report';
import type { ReportDeps } from './deps';
import type { Caller } from '../subscriptions';
import { type LinkParent, MAX_LIVE_LINKS } from '../links/link-store';
import { expiresInDays, LINK_DAYS, linkOwnerKey, noQuery, readFailure, tooManyLinks } from '../links/keyed-routes';
import { linkProblemPage, listReportLinks, mintReportLink, type OpenedLink, openReportLink, REPORT_KINDS, type ReportKind, revokeReportLink } from './links';
import { historyRoute, linkHistoryAnswer, pageCsvLinks } from './history';
import { type CsvAsk, messagePage, type PageLinks, reportPage } from './page';
import { sendDigestNow } from './send';
import { isViewKind } from '../views';
import { linkViewAnswer, viewRoutes } from './view-routes';

export const REPORTS_BASE = '/reports';
export const LINK_BASE = '/r';

/** A link request is a few dozen bytes; anything past this is refused before parsing. */
export const MAX_BODY_BYTES = 1024;
/** Send-now takes no body: at most this much whitespace is tolerated, anything longer is refused unread. */
const SEND_BODY_BYTES = 16;

export const FORMATS = ['html', 'json', 'text'] as const;
type Format = (typeof FORMATS)[number];

const formatParam = enumParam(FORMATS, 'How to answer: `html` (a page, default), `json` (the report model) or `text` (the plain-text digest).').default('html');

/** The query parameters of the weekly report, send-now and an opened link (their schemas: the product's OpenAPI document). */
export const WEEKLY_QUERY = { ...BRAND_MARKET_PARAMS, format: formatParam };
export const SEND_QUERY = BRAND_MARKET_PARAMS;
export const LINK_QUERY = { format: formatParam };

export const LinkBody = z.strictObject({
  brand_id: BrandIdField,
  market: MarketField,
  kind: z.enum(REPORT_KINDS, { error: `\`kind\` must be one of ${REPORT_KINDS.join(', ')}.` }).default('weekly'),
  expires_in_days: expiresInDays,
});

/**
 * Reads the week with the caller's key through the proxy, for the client that asked:
 * the API's own 4xx pass through; an outage is 502 `upstream_error`, logged;
 * an operation the service lacks is 502 `operation_missing`, naming it.
 */
async function read(deps: ReportDeps, caller: Caller, target: WeekTarget): Promise<WeeklyRead> {
  return await readWeek(deps.api(caller.key, caller.clientAddress), target, deps.now()).catch((error: unknown) => {
    if (error instanceof OperationMissing) throw error.toApiError();
    if (error instanceof WindowMismatch) throw windowsProblem(error);
    if (error instanceof ApiClientError && error.kind === 'parse') throw unreadableProblem(error);
    throw readFailure(error);
  });
}

/** A read failure that is no outage: said on a page for a reader who asked for one, as the API's error otherwise. */
class ReadProblem extends ApiError {
  constructor(
    message: string,
    readonly title: string,
    readonly paragraphs: string[],
  ) {
    super('upstream_error', message);
  }
}

const FIX_WITH_CHECK =
  'Nothing is wrong with your link or key: whoever runs this service can see which field is read from where with the compatibility check (POST /admin/upstream/check), and fix it in the upstream map.';

/** The Read API answered, but with a body this product cannot read (a field missing or of another type, even through the upstream map). */
function unreadableProblem(error: ApiClientError): ReadProblem {
  const field = error.field ? ` (its field \`${error.field}\`)` : '';
  const message = `The Read API answered ${error.operation} with a body this product cannot read${field}, so there is no report: ${error.message}`;
  console.error(JSON.stringify({ msg: 'report read unreadable', operation: error.operation, field: error.field ?? null }));
  return new ReadProblem(message, `The Read API’s answer to ${error.operation} cannot be read`, [message, FIX_WITH_CHECK]);
}

/** The fixed windows disagreed twice alike: not a read across midnight, but a `period` read from the wrong field. */
function windowsProblem(error: WindowMismatch): ReadProblem {
  if (!error.persistent)
    return new ReadProblem("The week's reads fell on both sides of midnight UTC. Try again.", 'The report data is unavailable', [
      "The week's reads fell on both sides of midnight UTC, so their days differ.",
      'Try again in a minute.',
    ]);
  const message = `The Read API's fixed windows do not cover the same 7 days (${error.message}), so there is no report: a \`period\` is most likely read from the wrong field (the comparison window?).`;
  return new ReadProblem(message, 'The report’s figures do not cover the same week', [message, FIX_WITH_CHECK]);
}

/** The plain-text digest of this report: the email's own text part with the whole plan, without the subscription footer it does not have here. */
async function digestText(report: Report, viewUrl: string): Promise<string> {
  const UNSUBSCRIBE = 'https://placeholder.invalid/unsubscribe';
  const { text } = await renderDigest({ report, links: { viewInBrowser: viewUrl, unsubscribe: UNSUBSCRIBE }, planShown: Number.POSITIVE_INFINITY });
  // Figures that break a rule are said first: no digest of them is sent, and this form must not read as one.
  const warning = implausibleWarning(report.implausible);
  const warned = warning ? `${[warning.headline, ...warning.lines.map((line) => `- ${line}`)].join('\n')}\n\n${text}` : text;
  // The email's footer paragraphs name the unsubscribe link; an on-demand read has no subscription to leave.
  return warned
    .split(/\n{2,}/)
    .filter((paragraph) => !paragraph.includes(UNSUBSCRIBE))
    .join('\n\n')
    .trim()
    .concat('\n');
}

interface AnswerContext {
  deps: ReportDeps;
  /** The client the page's extra reads are made for. */
  clientAddress: string | null;
  apiKey: string;
  /** The report's address for the text form's "view in browser" line. */
  viewUrl: string;
  pageLinks?: PageLinks;
  headers?: Record<string, string>;
  /** The page's CSV links expire no later than this (a signed link's own expiry). */
  csvUntil: Date;
  /** A signed link's record: the page's CSV links end with it. Null for the key's own page. */
  parent: LinkParent | null;
  /** How the page offers its CSV links: made only by its form's POST. */
  csv?: CsvAsk;
}

async function answer(read: WeeklyRead, kinds: readonly DigestKind[], format: Format, o: AnswerContext): Promise<Response> {
  const report = reportOf(read.inputs, kinds);
  const headers = { ...o.headers };
  // Opened for a person or a link: the history starts full (history.ts), whatever form the report is read in.
  await keepApiWeeks(o.deps.db, read.inputs.visibility, o.deps.now());
  if (format === 'json') return json({ report, source: read.source satisfies ReportSource }, 200, headers);
  if (format === 'text') return new Response(await digestText(report, o.viewUrl), { headers: { ...pageHeaders(), 'content-type': 'text/plain; charset=utf-8', ...headers } });
  // The page shows more than the report: its extra reads are the page's alone, and count in its source line.
  const client = o.deps.api(o.apiKey, o.clientAddress);
  const { extras, reads } = await readPageExtras(client, read.inputs, { visibility: kinds.includes('visibility'), markets: true });
  if (extras.failed.length > 0) console.error(JSON.stringify({ msg: 'report page extra read failed', failed: extras.failed }));
  const source = summarizeReads([...read.source.reads, ...reads]);
  const made = o.csv?.makeCsv === true;
  const csv = made ? await pageCsvLinks(o.deps, o.apiKey, read.inputs, o.csvUntil, o.parent) : {};
  const rendered = reportPage(report, source, extras, { ...o.pageLinks, csv, csvForm: made ? undefined : o.csv?.csvForm });
  return new Response(rendered.html, { headers: { ...rendered.headers, ...headers } });
}

/** The page of an operation the service lacks (502): which one, and what the report needs it for (the error's message). */
function operationMissingPage(error: ApiError): Response {
  return messagePage(502, `This report needs ${error.options.operation}, which the Read API does not have`, [
    error.message,
    'So there is no report to show. Nothing is wrong with your link or key: whoever runs this service can see what its Read API provides with the compatibility check (POST /admin/upstream/check).',
  ]);
}

/** The outage page (502), for a reader who asked for a page. */
function unavailablePage(): Response {
  return messagePage(502, 'The report data is unavailable', [
    'The Read API behind this report did not answer, so there are no figures to show right now. Nothing is wrong with your link or key.',
    'Try again in a few minutes.',
  ]);
}

function keyedReportUrl(deps: ReportDeps, brandId: number, market: string): string {
  const view = new URL(`${deps.publicUrl}${REPORTS_BASE}/weekly`);
  view.searchParams.set('brand_id', String(brandId));
  view.searchParams.set('market', market);
  return view.toString();
}

/**
 * The weekly report of the caller's key, as a page, JSON or text: `links` gives the page's links for the brand
 * and market it shows (where the market switch and the history go, and how a share link is made). The keyed
 * route and the account's report page (src/account) both answer with it.
 */
export async function weeklyAs(
  deps: ReportDeps,
  caller: Caller,
  query: { brand_id?: number | undefined; market?: string | undefined; format: Format },
  links: (brandId: number, market: string) => PageLinks,
  o: { headers?: Record<string, string>; csv?: CsvAsk } = {},
): Promise<Response> {
  let week: WeeklyRead;
  try {
    // CSV links are a write: made only when asked for (a POST), and then with the key's word now, not a stored answer.
    if (o.csv?.makeCsv && !o.csv.keyConfirmed) await confirmKeyNow(deps.api(caller.key, caller.clientAddress));
    week = await read(deps, caller, { brand_id: query.brand_id, market: query.market });
  } catch (error) {
    if (error instanceof ReadProblem && query.format === 'html') return messagePage(error.status, error.title, error.paragraphs);
    if (error instanceof ApiError && error.code === 'upstream_error' && query.format === 'html') return unavailablePage();
    if (error instanceof ApiError && error.code === 'operation_missing' && query.format === 'html') return operationMissingPage(error);
    throw error;
  }
  const brandId = week.inputs.brand.id;
  const viewUrl = keyedReportUrl(deps, brandId, week.inputs.market.code);
  // A keyed reader's CSV links get the full term (exportLinkFor caps it at 30 days).
  const csvUntil = new Date(deps.now().getTime() + LINK_DAYS.max * DAY_MS);
  const pageLinks = links(brandId, week.inputs.market.code.toLowerCase());
  return answer(week, ['visibility', 'won_lost'], query.format, {
    deps,
    clientAddress: caller.clientAddress,
    apiKey: caller.key,
    viewUrl,
    pageLinks,
    headers: o.headers,
    csvUntil,
    parent: null,
    csv: o.csv,
  });
}

async function weekly(request: Request, url: URL, deps: ReportDeps): Promise<Response> {
  const key = requireKey(request);
  const query = readParams(WEEKLY_QUERY, queryObject(url.searchParams));
  const links = (brandId: number, market: string): PageLinks => ({
    mint: { url: `${deps.publicUrl}${REPORTS_BASE}/links`, body: JSON.stringify({ brand_id: brandId, market }) },
    // Relative: the switch keeps the reader on the host they came through.
    marketUrl: (code) => `${REPORTS_BASE}/weekly?${new URLSearchParams({ brand_id: String(brandId), market: code })}`,
    history: `${REPORTS_BASE}/history?${new URLSearchParams({ brand_id: String(brandId), market })}`,
  });
  const csv = { csvForm: { action: `${url.pathname}${url.search}` }, makeCsv: request.method === 'POST' };
  return weeklyAs(deps, { key, clientAddress: clientAddressOf(request) }, query, links, { headers: { vary: 'Authorization' }, csv });
}

/** A report link as minting answers it: its URL is shown this once. */
export interface MintedReportLink {
  id: string;
  url: string;
  brand_id: number;
  market: { id: number; code: string };
  kind: string;
  created_at: string;
  expires_at: string;
}

/**
 * Mints a report link for the caller's key: `raw` is the body of `POST /reports/links`, checked here; the key
 * must read the brand and market (its error is the one shown); 409 at the cap. The account pages call it too.
 */
export async function mintReportLinkAs(deps: ReportDeps, caller: Caller, raw: unknown): Promise<MintedReportLink> {
  const body = parseJsonObject(LinkBody, raw);
  let target: { brand_id: number; market: { id: number; code: string } };
  try {
    // The read the link will make: the key must be able to make it, and its error is the one to show.
    const client: ApiClient = deps.api(caller.key, caller.clientAddress);
    target = await readScopeKept(client, { brand_id: body.brand_id, market: body.market === undefined ? undefined : String(body.market) }, { db: deps.db, now: deps.now() });
  } catch (error) {
    throw readFailure(error);
  }
  const minted = await mintReportLink(deps, { apiKey: caller.key, brandId: target.brand_id, market: target.market, kind: body.kind, days: body.expires_in_days });
  if (!minted.ok) throw tooManyLinks(minted, 'report', REPORTS_BASE);
  const { link } = minted;
  return { id: link.id, url: link.url, brand_id: target.brand_id, market: target.market, kind: body.kind, created_at: link.created_at, expires_at: link.expires_at };
}

async function mintLink(request: Request, url: URL, deps: ReportDeps): Promise<Response> {
  noQuery(url, 'This endpoint takes its fields in the JSON body, not the query string.');
  const caller = await confirmedCaller(request, deps.api);
  const link = await mintReportLinkAs(deps, caller, await readJsonBody(request, MAX_BODY_BYTES));
  return json({ link }, 201, { location: link.url });
}

/** Said with every listing: what it cannot show. */
export const LISTING_NOTE = `A link's URL is shown once, when it is made (POST ${REPORTS_BASE}/links): its token is not stored, so it cannot be listed. Revoke a link with DELETE ${REPORTS_BASE}/links/{id}.`;

async function listLinks(request: Request, url: URL, deps: ReportDeps): Promise<Response> {
  const key = await linkOwnerKey(request, url, deps.api);
  const links = await listReportLinks(deps, key);
  return json({ links, max_live: MAX_LIVE_LINKS, note: LISTING_NOTE }, 200, { 'cache-control': 'no-store' });
}

async function revokeLink(request: Request, url: URL, id: string, deps: ReportDeps): Promise<Response> {
  const key = await linkOwnerKey(request, url, deps.api, { writes: true });
  // Another key's link is as invisible as a missing one (and an expired one is no longer the key's to revoke).
  if (!(await revokeReportLink(deps, key, id))) throw new ApiError('not_found', 'No such live report link for this key.');
  return new Response(null, { status: 204 });
}

/** A report link opened: its page, JSON or text; with `makeCsv` (the page's form, posted to `/r/<token>/csv`) its CSV links made, once the key behind it is confirmed now. */
async function viaLink(deps: ReportDeps, request: Request, url: URL, link: OpenedLink, self: string, makeCsv = false): Promise<Response> {
  let format: Format;
  try {
    format = readParams(LINK_QUERY, queryObject(url.searchParams)).format;
  } catch (error) {
    if (error instanceof ApiError) return messagePage(400, 'This report address has an unknown option', [`${error.message} Options: format=html, json or text.`]);
    throw error;
  }
  if (isViewKind(link.kind)) return linkViewAnswer(deps, request, { ...link, kind: link.kind }, self, format, makeCsv);
  let week: WeeklyRead;
  try {
    if (makeCsv) await confirmKeyNow(deps.api(link.apiKey, clientAddressOf(request)));
    week = await read(deps, { key: link.apiKey, clientAddress: clientAddressOf(request) }, { brand_id: link.brandId, market: link.market });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const apiError = error;
    if (apiError instanceof ReadProblem) return format === 'html' ? messagePage(apiError.status, apiError.title, apiError.paragraphs) : errorResponse(apiError);
    if (apiError.code === 'upstream_error') return format === 'html' ? unavailablePage() : errorResponse(apiError);
    if (apiError.code === 'operation_missing') return format === 'html' ? operationMissingPage(apiError) : errorResponse(apiError);
    if (format !== 'html') return errorResponse(apiError);
    if (apiError.status === 401) return messagePage(401, 'The access behind this link was revoked', ['The API key this link reads with is no longer valid. Ask for a new link.']);
    if (apiError.status === 403) return messagePage(403, 'This report is not available', [`The account behind this link cannot read it: ${apiError.message}`]);
    if (apiError.status === 404) return messagePage(404, 'This report was not found', ['The brand or market of this link no longer exists for the account behind it.']);
    // A limit of the API (429): the page says when to come back, and so does Retry-After, as the API's own answer did.
    const wait = apiError.options.retryAfter;
    const limited = messagePage(apiError.status, 'The report cannot be shown right now', [
      apiError.message,
      ...(wait !== undefined ? [`Try again in ${wait < 120 ? `${wait} seconds` : `${Math.ceil(wait / 60)} minutes`}.`] : []),
    ]);
    if (wait !== undefined) limited.headers.set('retry-after', String(wait));
    return limited;
  }
  return answer(week, link.kinds, format, {
    deps,
    clientAddress: clientAddressOf(request),
    apiKey: link.apiKey,
    viewUrl: self,
    pageLinks: { json: `${self}?format=json`, text: `${self}?format=text`, expiresAt: link.expiresAt, share: self, history: `${self}/history` },
    csvUntil: new Date(link.expiresAt),
    parent: link.parent,
    csv: { csvForm: { action: `${self}/csv` }, makeCsv },
  });
}

/** A page under `/r/<token>`: its method, the kinds of link it opens, and its answer for a link of one of them (`self`, the link's own address). */
interface LinkPage {
  method: 'GET' | 'POST';
  kinds: readonly ReportKind[];
  answer: (deps: ReportDeps, request: Request, url: URL, link: OpenedLink, self: string) => Promise<Response>;
}

/** A page's form, posted: from this site only (a CSV link is a stored row), else 403 and nothing made. */
const postedHere =
  (answer: LinkPage['answer']): LinkPage['answer'] =>
  (deps, request, url, link, self) =>
    fromThisSite(request)
      ? answer(deps, request, url, link, self)
      : Promise.resolve(messagePage(403, 'This form was refused', ['It was not sent from a page of this site. Open the link and use its button.']));

/**
 * Every page under `/r/<token>`, by its path after the token: the one table that says which kinds of link open it
 * (a link reads exactly what it names, SECURITY.md). Its routes are made from it.
 */
export const LINK_PAGES = {
  '': { method: 'GET', kinds: REPORT_KINDS, answer: viaLink },
  // The kept history is the weekly report's: a view's link does not open it.
  '/history': { method: 'GET', kinds: ['weekly'], answer: (deps, request, _url, link, self) => linkHistoryAnswer(deps, request, link, self) },
  // A GET writes nothing: each page's form posts here to have its CSV links made.
  '/csv': { method: 'POST', kinds: REPORT_KINDS, answer: postedHere((deps, request, _url, link, self) => viaLink(deps, request, new URL(self), link, self, true)) },
  '/history/csv': { method: 'POST', kinds: ['weekly'], answer: postedHere((deps, request, _url, link, self) => linkHistoryAnswer(deps, request, link, self, true)) },
} as const satisfies Record<string, LinkPage>;

/** Opens the token's link and answers the page at `suffix` only for a link of a kind that page opens (another kind: 404, as a page it has not). */
async function linkPageAt(suffix: keyof typeof LINK_PAGES, request: Request, url: URL, token: string, deps: ReportDeps): Promise<Response> {
  const opened = await openReportLink(deps, token);
  if (!opened.ok) return linkProblemPage(opened.problem);
  const page: LinkPage = LINK_PAGES[suffix];
  if (!(page.kinds as readonly string[]).includes(opened.link.kind))
    return messagePage(404, 'This link does not open this page', ['A report link opens only what it was made for. Open the link exactly as you received it.']);
  return page.answer(deps, request, url, opened.link, `${deps.publicUrl}${LINK_BASE}/${token}`);
}

/** What sending now answers: 202 with what went (or why nothing did), or 409 `recently_sent` with when it can go again. */
export interface SendNowAnswer {
  status: 202 | 409;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * Sends the digest of a brand and market now to its confirmed subscribers, for the caller's key (which must read
 * them: its error is the one shown). `checkFirst` runs once the key is checked, before anything is sent.
 */
export async function sendNowAs(deps: ReportDeps, caller: Caller, target: Pick<WeekTarget, 'brand_id' | 'market'>, checkFirst: () => Promise<void> = async () => {}): Promise<SendNowAnswer> {
  const week = await read(deps, caller, target);
  await checkFirst();
  const { brand, market } = week.inputs;
  const scope = { brand_id: brand.id, market };
  const outcome = await sendDigestNow(deps, { apiKey: caller.key, inputs: week.inputs });
  switch (outcome.kind) {
    case 'no_recipients':
      return { status: 202, body: { send: { ...scope, recipients: 0, sent: 0, failed: 0, note: 'No confirmed subscriber for this brand and market: nothing was sent.' } }, headers: {} };
    case 'nothing_measured':
      return {
        status: 202,
        body: { send: { ...scope, recipients: 0, sent: 0, failed: 0, note: 'Nothing was measured in the last two weeks: no digest is sent, as on the weekly run.' } },
        headers: {},
      };
    case 'implausible':
      return {
        status: 202,
        body: {
          send: {
            ...scope,
            recipients: 0,
            sent: 0,
            failed: 0,
            note: `The Read API's figures are implausible, so no digest is sent, as on the weekly run: ${outcome.violations[0]!.message}`,
            violations: outcome.violations,
          },
        },
        headers: {},
      };
    case 'too_soon':
      return {
        status: 409,
        body: {
          error: {
            code: 'recently_sent' satisfies ErrorCode,
            message: `The digest for this brand and market was sent ${formatStamp(outcome.last.sent_at)}; it can be sent again ${Math.ceil(outcome.retryAfter / 60)} min from now.`,
          },
          last_send: { id: outcome.last.id, sent_at: outcome.last.sent_at },
        },
        headers: { 'retry-after': String(outcome.retryAfter) },
      };
    case 'mail_failed':
      console.error(JSON.stringify({ msg: 'report send failed', send: outcome.result.id, reason: errorText(outcome.message) }));
      throw new ApiError('upstream_error', 'The mail service refused the send; nothing went out. Try again in a few minutes.');
    case 'sent':
      return { status: 202, body: { send: { ...scope, ...outcome.result } }, headers: {} };
  }
}

async function sendNow(request: Request, url: URL, deps: ReportDeps): Promise<Response> {
  requireKey(request);
  const query = readParams(SEND_QUERY, queryObject(url.searchParams));
  // Recipients are the confirmed subscribers, full stop: a body (a list of addresses, say) is refused, not ignored;
  // refused by its length unread, or after at most SEND_BODY_BYTES of it. The key is checked before the body is looked at.
  const noBody = () => invalidParameter('body', 'This endpoint takes no body: the digest goes to the confirmed subscribers of the brand and market.');
  const checkBody = async () => {
    if ((await readBodyUpTo(request, SEND_BODY_BYTES, noBody)).trim() !== '') throw noBody();
  };
  const answer = await sendNowAs(deps, await confirmedCaller(request, deps.api), { brand_id: query.brand_id, market: query.market }, checkBody);
  return json(answer.body, answer.status, answer.headers);
}

export const reportRoutes: Route<ReportDeps>[] = [
  ...viewRoutes,
  { path: `${REPORTS_BASE}/weekly`, answers: 'json', methods: { GET: (request, _, deps, url) => weekly(request, url, deps), POST: (request, _, deps, url) => weekly(request, url, deps) } },
  { path: `${REPORTS_BASE}/links`, answers: 'json', methods: { POST: (request, _, deps, url) => mintLink(request, url, deps), GET: (request, _, deps, url) => listLinks(request, url, deps) } },
  { path: `${REPORTS_BASE}/links/{id}`, answers: 'json', methods: { DELETE: (request, params, deps, url) => revokeLink(request, url, params.id!, deps) } },
  { path: `${REPORTS_BASE}/weekly/send`, answers: 'json', methods: { POST: (request, _, deps, url) => sendNow(request, url, deps) } },
  {
    path: `${REPORTS_BASE}/history`,
    answers: 'json',
    methods: { GET: (request, _, deps, url) => historyRoute(request, url, deps, REPORTS_BASE), POST: (request, _, deps, url) => historyRoute(request, url, deps, REPORTS_BASE) },
  },
  ...(Object.entries(LINK_PAGES) as [keyof typeof LINK_PAGES, LinkPage][]).map(
    ([suffix, page]): Route<ReportDeps> => ({
      path: `${LINK_BASE}/{token}${suffix}`,
      answers: 'page',
      methods: { [page.method]: (request: Request, params: Record<string, string>, deps: ReportDeps, url: URL) => linkPageAt(suffix, request, url, params.token!, deps) },
      // A token never holds a `%`: one that does not decode was cut or changed on the way.
      badEncoding: () => linkProblemPage({ kind: 'token', reason: 'malformed' }),
    }),
  ),
  // A link cut short before its token: a broken link, as a person who followed it should hear.
  ...[LINK_BASE, `${LINK_BASE}/`].map((path): Route<ReportDeps> => ({ path, answers: 'page', methods: { GET: () => linkProblemPage({ kind: 'token', reason: 'malformed' }) } })),
];
