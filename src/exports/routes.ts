/**
 * HTTP routes of the CSV export links (DESIGN section 11):
 *
 *   POST   /exports/links        mint a link (API key; JSON body `{operation, params?, expires_in_days?}`) -> 201; 409 at the cap
 *   GET    /exports/links        the key's live export links, with their URLs (API key)
 *   DELETE /exports/links/{id}   revoke one of the key's links (API key) -> 204
 *   GET    /x/<token>.csv        the rows as RFC 4180 CSV, no key (what `=IMPORTDATA(url)` reads)
 *   GET    /x/<token>.json       the same rows as a JSON array of flat objects
 *
 * A link reads through `deps.api` (`apiFor`: the edge cache, the minting
 * key's budget) each time it is opened, with the parameters it was minted
 * with: `days=7` is the last 7 days of the day it is read. The keyed routes
 * answer errors in the API's shape; `/x/` answers plain text, for the sheet or
 * the person who sees it: a bad token by TOKEN_FAILURE_STATUS (garbled 400,
 * forged 403, expired 410), a revoked link 410, a key that no longer reads
 * (the API's 401 or 403) 403, an outage 502, an answer without the table's
 * rows 502 saying so. A column the Read API does not provide is empty. A
 * link from a page ends with that page's record or its key: 410, saying
 * which (src/links/export-links.ts).
 */
import * as z from 'zod';
import { type ApiClient, ApiClientError } from '../client';
import { requireKey } from '../contract/access';
import { ApiError } from '../contract/errors';
import { parseJsonObject, readJsonBody } from '../contract/json-body';
import { toDay } from '../contract/window';
import { zodSide } from '../contract/zod-side';
import { json, plainText } from '../lib/http';
import type { Route } from '../lib/router';
import { TOKEN_FAILURE_STATUS } from '../lib/signing';
import {
  EXPORT_FORMATS,
  EXPORT_LINK_BASE,
  EXPORTS_BASE,
  type ExportFormat,
  type ExportLink,
  type ExportProblem,
  type ExportTarget,
  listExportLinks,
  mintExportLink,
  openExportLink,
  revokeExportLink,
  SCOPE_KINDS,
  PLAN_KIND,
} from '../links/export-links';
import { expiresInDays, linkOwnerKey, noQuery, readFailure, tooManyLinks } from '../links/keyed-routes';
import { MAX_LIVE_LINKS } from '../links/link-store';
import { clientAddressOf, confirmedCaller } from '../proxy';
import { HISTORY_COLUMNS, historyRecord, PLAN_COLUMNS, planRecords, readHistory, readScopeKept, readTableBody, readWeek, reportOf } from '../weekly-report';
import type { ExportDeps } from './deps';
import type { Caller } from '../subscriptions';
import { CSV_CONTENT_TYPE, csvColumns, spreadLists, tableRows, toCsv } from './table';
import { checkTarget, ParamsField, type TableOperation, tableOperation } from './target';

/** A mint request is a few hundred bytes (a prompt text at most 1,000 characters); anything past this is refused unread. */
export const MAX_BODY_BYTES = 4096;

export const MintBody = z.strictObject({
  operation: z.string({ error: '`operation` is required: an operation id such as `listTopics`, `history` or `plan`.' }).max(64),
  params: ParamsField,
  expires_in_days: expiresInDays,
});

/** What a body names of its brand and market (absent for account-wide and brand-wide operations). */
function scopeOf(body: unknown): Pick<ExportTarget, 'brandId' | 'market'> {
  const b = body as { brand_id?: unknown; market?: { id?: unknown; code?: unknown } };
  const market = typeof b.market?.id === 'number' && typeof b.market.code === 'string' ? { id: b.market.id, code: b.market.code } : { id: 0, code: '' };
  return { brandId: typeof b.brand_id === 'number' ? b.brand_id : 0, market };
}

/**
 * Mints an export link for the caller's key: `raw` is the body of `POST /exports/links`, checked here; the key
 * must make the read the link will make (plan, integration, brand: its error is the one shown); 409 at the cap.
 * The account pages call it too.
 */
export async function mintExportLinkAs(deps: ExportDeps, caller: Caller, raw: unknown): Promise<ExportLink> {
  const body = parseJsonObject(MintBody, raw);
  const { op, params } = checkTarget(body.operation, body.params, deps.now());
  let scope: Pick<ExportTarget, 'brandId' | 'market'>;
  try {
    // The read the link will make: the key must be able to make it (plan, integration, brand), and its error is the one to show.
    const client = deps.api(caller.key, caller.clientAddress);
    scope = scopeOf(
      op
        ? (await readTableBody(client, op.id, op.csv, params)).data
        : await readScopeKept(client, { brand_id: params.brand_id === undefined ? undefined : Number(params.brand_id), market: params.market }, { db: deps.db, now: deps.now() }),
    );
  } catch (error) {
    throw readFailure(error);
  }
  const minted = await mintExportLink(deps, caller.key, { kind: body.operation, params, ...scope }, body.expires_in_days);
  if (!minted.ok) throw tooManyLinks(minted, 'export', EXPORTS_BASE);
  return minted.link;
}

async function mint(request: Request, url: URL, deps: ExportDeps): Promise<Response> {
  requireKey(request);
  noQuery(url, 'This endpoint takes its fields in the JSON body, not the query string.');
  const link = await mintExportLinkAs(deps, await confirmedCaller(request, deps.api), await readJsonBody(request, MAX_BODY_BYTES));
  return json({ link }, 201, { location: link.url });
}

async function list(request: Request, url: URL, deps: ExportDeps): Promise<Response> {
  const key = await linkOwnerKey(request, url, deps.api);
  return json({ links: await listExportLinks(deps, key), max_live: MAX_LIVE_LINKS }, 200);
}

async function revoke(request: Request, url: URL, id: string, deps: ExportDeps): Promise<Response> {
  const key = await linkOwnerKey(request, url, deps.api, { writes: true });
  if (!(await revokeExportLink(deps, key, id))) throw new ApiError('not_found', 'No such live export link for this key.');
  return new Response(null, { status: 204 });
}

/** A link from a page whose record ended, or whose key was revoked: gone for good, and why. */
const endedText = (why: string) => plainText(410, `This CSV link has ended with the report page it came from. ${why} Ask for a new link.`);

function problemText(problem: ExportProblem): Response {
  if (problem.kind === 'gone') return plainText(410, 'This export link was revoked. Ask for a new link.');
  if (problem.kind === 'ended') return endedText(problem.why);
  if (problem.kind === 'invalid') return plainText(403, 'This export link is not valid. Use the link exactly as it was given, or ask for a new one.');
  const status = TOKEN_FAILURE_STATUS[problem.reason];
  if (problem.reason === 'expired') return plainText(status, 'This export link has expired. Export links work for 30 days unless chosen otherwise (at most 90); ask for a new one.');
  if (problem.reason === 'malformed') return plainText(status, 'This export link is incomplete or was changed. Use it exactly as it was given.');
  return plainText(status, 'This export link is not valid: it was not issued here or has been changed.');
}

/** A failed read of the API, said in plain text. */
function readProblemText(error: ApiClientError): Response {
  if (error.status === 401 || error.status === 403) return plainText(403, `The API key behind this link can no longer read this data (${error.code}). Ask for a new link.`);
  if (error.status === 404) return plainText(404, `The API found nothing for this link's parameters (${error.code}): the brand, market or item may be gone.`);
  if (error.status === 429)
    return plainText(429, `The API key behind this link is over its limit (${error.code}). Try again later.`, error.retryAfter !== undefined ? { 'retry-after': String(error.retryAfter) } : {});
  if (error.status === 400) return plainText(400, `The API refused this link's parameters (${error.code}): ${error.message}`);
  // Only the rows are required of a table's body (`readTableBody`): without them there is nothing to export, and retrying will not change that.
  if (error.kind === 'parse')
    return plainText(
      502,
      `The Read API behind this link does not provide the rows of this table: its answer to ${error.operation} has no readable ${error.field ? `\`${error.field}\`` : 'JSON body'}. The upstream map (docs/upstream.md) can say where the service keeps them.`,
    );
  console.error(JSON.stringify({ msg: 'export read failed upstream', operation: error.operation, kind: error.kind, status: error.status, code: error.code }));
  return plainText(502, 'The Read API behind this link did not answer. Try again in a few minutes.');
}

/**
 * The table a link reads: the operation's rows, the week's plan (one row per question, read now as the report reads
 * it), or the kept history once the key is seen to read the brand and market.
 */
async function readTable(client: ApiClient, db: D1Database, target: ExportTarget, op: TableOperation | undefined, now: Date): Promise<{ columns: readonly string[]; rows: Record<string, unknown>[] }> {
  if (target.kind === PLAN_KIND) {
    const { inputs } = await readWeek(client, { brand_id: target.brandId, market: target.market.code }, now);
    const plan = reportOf(inputs).plan;
    return { columns: PLAN_COLUMNS, rows: plan ? planRecords(plan) : [] };
  }
  if (!op) {
    // The history is kept in D1, but only the key's own brands are shown: the API says which (a cached read).
    const { brands } = await client.listBrands();
    const readable = brands.some((brand) => brand.id === target.brandId && brand.markets.some((market) => market.id === target.market.id));
    if (!readable) throw new ApiClientError({ kind: 'http', code: 'brand_not_found', status: 404, operation: 'listBrands', message: "The brand or market is no longer the key's." });
    return { columns: HISTORY_COLUMNS, rows: (await readHistory(db, target.brandId, target.market.id)).map(historyRecord) };
  }
  const columns = csvColumns(await zodSide(), op);
  return spreadLists(columns, tableRows(op.csv, columns, (await readTableBody(client, op.id, op.csv, target.params)).data));
}

async function read(request: Request, file: string, deps: ExportDeps): Promise<Response> {
  const named = /^(.+)\.([a-z]+)$/.exec(file);
  const format = named?.[2] as ExportFormat | undefined;
  if (!named || !format || !(EXPORT_FORMATS as readonly string[]).includes(format)) return plainText(404, 'An export link ends in .csv or .json.');
  const opened = await openExportLink(deps, named[1]!);
  if (!opened.ok) return problemText(opened.problem);
  const { target, apiKey, parent } = opened.link;
  const op = SCOPE_KINDS.includes(target.kind) ? undefined : tableOperation(target.kind);
  if (!op && !SCOPE_KINDS.includes(target.kind)) return plainText(410, 'This export link names an operation this service no longer exports. Ask for a new link.');
  let table: Awaited<ReturnType<typeof readTable>>;
  try {
    table = await readTable(deps.api(apiKey, clientAddressOf(request)), deps.db, target, op, deps.now());
  } catch (error) {
    if (error instanceof ApiClientError) return parent && error.status === 401 ? endedText('The API key it read with was revoked.') : readProblemText(error);
    throw error;
  }
  const filename = `${[target.kind, target.market.code, toDay(deps.now())].filter(Boolean).join('-')}.${format}`;
  const headers = { 'cache-control': 'no-store', 'content-disposition': `inline; filename="${filename}"`, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
  if (format === 'json') return json(table.rows, 200, headers);
  return new Response(toCsv(table.columns, table.rows), { headers: { 'content-type': CSV_CONTENT_TYPE, ...headers } });
}

export const exportRoutes: Route<ExportDeps>[] = [
  { path: `${EXPORTS_BASE}/links`, answers: 'json', methods: { POST: (request, _, deps, url) => mint(request, url, deps), GET: (request, _, deps, url) => list(request, url, deps) } },
  { path: `${EXPORTS_BASE}/links/{id}`, answers: 'json', methods: { DELETE: (request, params, deps, url) => revoke(request, url, params.id!, deps) } },
  {
    path: `${EXPORT_LINK_BASE}/{file}`,
    answers: 'text',
    methods: { GET: (request, params, deps) => read(request, params.file!, deps) },
    badEncoding: () => problemText({ kind: 'token', reason: 'malformed' }),
  },
];
