/**
 * The kept weekly history as a page, `GET /reports/history?brand_id=&market=`
 * (API key): up to 2 years of the weeks kept in D1 (src/weekly-report/
 * history.ts) as a chart and a table, with its CSV link (`/x/<token>.csv` of
 * kind `history`). And the CSV links the report page offers for its tables.
 *
 * A GET writes nothing: a page offers its CSV links by a form, and its POST
 * (`POST /reports/history`, `/r/<token>/history/csv`, the account's) answers
 * the page with them, made after the upstream confirms the key now
 * (`confirmKeyNow`), server-side, with the key the page reads with: the API key of a keyed reader, or the
 * sealed key of a signed report link. A signed reader gets links only to the
 * tables the page already shows them (the same brand, market and key), that
 * expire no later than their report link; `exportLinkFor` hands out the same
 * link on every view instead of minting one per view, so a page costs at
 * most one link per table. A keyed page's links are the key's own, against
 * its cap of 100 (at the cap, the buttons are left out and the page still
 * renders), listed in `GET /exports/links` and revoked there. A signed page's
 * links record their parent, the report link or the subscription's cycle the
 * page reads through, and end with it (src/links/link-store.ts): they are not
 * the key's to list, and do not count against its cap.
 */
import { requireKey } from '../contract/access';
import { BRAND_MARKET_PARAMS, queryObject, readParams } from '../contract/params';
import { html, type Markup, trusted } from '../lib/html';
import { exportLinkFor, type ExportTarget, HISTORY_KIND, SCOPE_KINDS } from '../links/export-links';
import type { LinkParent } from '../links/link-store';
import { LINK_DAYS, readFailure } from '../links/keyed-routes';
import { DAY_MS } from '../lib/time';
import { clientAddressOf, confirmKeyNow } from '../proxy';
import { formatDay, formatRange, formatScore, HISTORY_WEEKS, type HistoryWeek, readHistory, readScopeKept, shortDay, type WeeklyInputs } from '../weekly-report';
import { chartSvg } from '../weekly-report/chart';
import type { Caller } from '../subscriptions';
import type { ReportDeps } from './deps';
import { CSV_TABLE_PARTS, CSV_TABLES, type CsvAsk, type CsvForm, type CsvTable, csvFormSection, csvRow, type PageFrame, reportDocument, STYLE } from './page';

/** The history page's query parameters (their schema: the product's OpenAPI document). */
export const HISTORY_QUERY = BRAND_MARKET_PARAMS;

type Deps = Pick<ReportDeps, 'db' | 'encryptionKey' | 'signingSecret' | 'publicUrl' | 'now'>;

/** The CSV links of the report page's tables, read with `apiKey`, none outliving `notAfter`, ending with `parent` (a signed page's record); none for a part the Read API does not provide. */
export async function pageCsvLinks(
  deps: Deps,
  apiKey: string,
  inputs: Pick<WeeklyInputs, 'brand' | 'market' | 'not_provided'>,
  notAfter: Date,
  parent: LinkParent | null,
): Promise<Partial<Record<CsvTable, string>>> {
  const scope = { brandId: inputs.brand.id, market: { id: inputs.market.id, code: inputs.market.code.toLowerCase() } };
  const brandMarket = { brand_id: String(inputs.brand.id), market: inputs.market.code.toLowerCase() };
  const links: Partial<Record<CsvTable, string>> = {};
  // One after another: each may mint, and the cap is counted per mint.
  for (const [table, kind] of Object.entries(CSV_TABLES) as [CsvTable, string][]) {
    const part = CSV_TABLE_PARTS[table];
    if (part && inputs.not_provided.includes(part)) continue;
    // The share of voice of the page's week: a relative 7 days, like the page.
    const params = SCOPE_KINDS.includes(kind) ? {} : kind === 'getOverview' ? { ...brandMarket, days: '7' } : brandMarket;
    const target: ExportTarget = { kind, params, ...scope };
    const outcome = await exportLinkFor(deps, apiKey, target, notAfter, parent);
    if (!outcome.ok) break;
    links[table] = outcome.link.url;
  }
  return links;
}

const count = (n: number) => n.toLocaleString('en-US');

function historyTable(weeks: HistoryWeek[]): Markup {
  const rows = weeks
    .map(
      (w) =>
        html`<tr data-week="${w.iso_week}"><td class="nowrap" title="ISO week ${w.iso_week}: ${formatRange({ from: w.period_from, to: w.period_to })}">${formatDay(w.week_monday)}</td><td class="num">${formatScore(w.score)}</td><td class="num">${count(w.answered_runs)}</td><td class="num">${w.won ?? '–'}</td><td class="num">${w.lost ?? '–'}</td><td class="num">${w.held ?? '–'}</td></tr>`,
    )
    .reverse();
  return html`<p class="small">Every kept week, newest first: the score, the answers it counts, and the questions won, lost and held.</p><div class="table-scroll"><table class="weeks history" data-testid="history-table"><thead><tr><th scope="col">Week of</th><th scope="col" class="num">Score</th><th scope="col" class="num">Answers</th><th scope="col" class="num">Won</th><th scope="col" class="num">Lost</th><th scope="col" class="num">Held</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

const HISTORY_STYLE = `${STYLE}
.table-scroll{overflow-x:auto}
.nowrap{white-space:nowrap}
table.history{max-width:560px}
@media (max-width:420px){table.history th,table.history td{padding:6px 3px;font-size:14px}}`;

/** The history page: chart, table, CSV link (or the form that makes it). */
export function historyPage(o: { brand: string; market: string; weeks: HistoryWeek[]; csvUrl: string | undefined; csvForm?: CsvForm | undefined; reportUrl: string; frame?: PageFrame | undefined }): {
  html: string;
  headers: Record<string, string>;
} {
  const parts: Markup[] = [html`<h1>${o.brand} in AI answers: the kept history</h1>`, html`<p class="period">Market ${o.market.toUpperCase()} · up to ${HISTORY_WEEKS} weeks (2 years)</p>`];
  if (o.weeks.length === 0) {
    parts.push(html`<p>No week is kept yet. A week is kept when its digest is read, and at least weekly for every brand and market with a subscription or an export link.</p>`);
  } else {
    const bars = o.weeks.map((w) => ({ week_start: w.period_from, week_end: w.period_to, label: shortDay(w.week_monday), score: w.score, answered_runs: w.answered_runs }));
    const first = o.weeks[0]!;
    parts.push(
      html`<p class="small">${o.weeks.length} ${o.weeks.length === 1 ? 'week' : 'weeks'} kept, from ${first.iso_week} to ${o.weeks.at(-1)!.iso_week}. Each week's figures are those first read for it, and never change afterwards; a week kept from the API's 12 weeks has its score alone (– for the rest) until its digest or the weekly read completes it.</p>`,
    );
    parts.push(html`<figure>${chartSvg(bars, o.brand)}<figcaption>Visibility score by kept week, oldest first.</figcaption></figure>`);
    parts.push(csvRow(o.csvUrl, 'the kept history'));
    parts.push(historyTable(o.weeks));
    if (o.csvForm) parts.push(csvFormSection(o.csvForm));
  }
  parts.push(html`<footer class="page-foot"><p><a href="${o.reportUrl}">This week's report</a>.</p></footer>`);
  return reportDocument({
    title: `${o.brand}: visibility history (${o.market.toUpperCase()})`,
    section: 'history',
    parts,
    style: trusted(HISTORY_STYLE),
    copyButtons: Boolean(o.csvUrl),
    frame: o.frame,
    forms: Boolean(o.csvForm),
  });
}

/**
 * The history page of a brand and market, read with `apiKey`: the key must read them (a cached read), then the page
 * shows what D1 keeps; with `makeCsv`, a CSV link that expires no later than `notAfter`, once the key is confirmed now.
 */
async function historyAnswer(
  deps: ReportDeps,
  caller: Caller,
  target: { brand_id?: number | undefined; market?: string | undefined },
  o: CsvAsk & { reportUrl: (brandId: number, market: string) => string; notAfter: Date; parent: LinkParent | null; frame?: PageFrame | undefined },
): Promise<Response> {
  const apiKey = caller.key;
  const client = deps.api(apiKey, caller.clientAddress);
  let brand: { id: number; name: string };
  let market: { id: number; code: string };
  try {
    // A link is a write: made only when asked for, with the key's word now, not a stored answer.
    if (o.makeCsv && !o.keyConfirmed) await confirmKeyNow(client);
    const visibility = await readScopeKept(client, target, { db: deps.db, now: deps.now() });
    const { brands } = await client.listBrands();
    brand = { id: visibility.brand_id, name: brands.find((b) => b.id === visibility.brand_id)?.name ?? `Brand ${visibility.brand_id}` };
    market = { id: visibility.market.id, code: visibility.market.code.toLowerCase() };
  } catch (error) {
    throw readFailure(error);
  }
  const weeks = await readHistory(deps.db, brand.id, market.id);
  const csv = o.makeCsv ? await exportLinkFor(deps, apiKey, { kind: HISTORY_KIND, params: {}, brandId: brand.id, market }, o.notAfter, o.parent) : undefined;
  const page = historyPage({
    brand: brand.name,
    market: market.code,
    weeks,
    csvUrl: csv?.ok ? csv.link.url : undefined,
    csvForm: o.makeCsv ? undefined : o.csvForm,
    reportUrl: o.reportUrl(brand.id, market.code),
    frame: o.frame,
  });
  return new Response(page.html, { headers: page.headers });
}

/**
 * The history page of `GET /reports/history?<query>` for the caller's key; `reportUrl` is where its "this week's
 * report" goes. The pages for people (src/account) show it through this too, in their `frame`.
 */
export function historyAs(
  deps: ReportDeps,
  caller: Caller,
  searchParams: URLSearchParams,
  reportUrl: (brandId: number, market: string) => string,
  frame?: PageFrame,
  csv: CsvAsk = {},
): Promise<Response> {
  const query = readParams(HISTORY_QUERY, queryObject(searchParams));
  return historyAnswer(deps, caller, query, { reportUrl, notAfter: new Date(deps.now().getTime() + LINK_DAYS.max * DAY_MS), parent: null, frame, ...csv });
}

/** `GET /reports/history` with the API key; `POST` answers the page with its CSV link made. */
export async function historyRoute(request: Request, url: URL, deps: ReportDeps, reportsBase: string): Promise<Response> {
  const key = requireKey(request);
  const reportUrl = (brandId: number, market: string) => `${reportsBase}/weekly?${new URLSearchParams({ brand_id: String(brandId), market })}`;
  const csv = { csvForm: { action: `${url.pathname}${url.search}` }, makeCsv: request.method === 'POST' };
  const response = await historyAs(deps, { key, clientAddress: clientAddressOf(request) }, url.searchParams, reportUrl, undefined, csv);
  response.headers.set('vary', 'Authorization');
  return response;
}

/**
 * `GET /r/<token>/history`: the same page for a signed report link's holder, read with the link's key; with `makeCsv`
 * (its form, posted to `/r/<token>/history/csv`) its CSV link too, expiring with the report link.
 */
export function linkHistoryAnswer(
  deps: ReportDeps,
  request: Request,
  link: { apiKey: string; brandId: number; market: string; expiresAt: string; parent: LinkParent },
  reportUrl: string,
  makeCsv = false,
): Promise<Response> {
  return historyAnswer(
    deps,
    { key: link.apiKey, clientAddress: clientAddressOf(request) },
    { brand_id: link.brandId, market: link.market },
    { reportUrl: () => reportUrl, notAfter: new Date(link.expiresAt), parent: link.parent, csvForm: { action: `${reportUrl}/history/csv` }, makeCsv },
  );
}
