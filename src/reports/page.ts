/**
 * The weekly report as a web page: the same `Report` the digest email renders
 * (src/weekly-report/model.ts), plus what a page can hold and the email
 * cannot: the 12 weeks as a chart (src/weekly-report/chart.ts) and a table, answers per engine
 * (`/prompts`), share of voice against the top rivals (`/overview`), the
 * week's plan in full (plan-section.ts), every won and lost question, the brand's other markets, and a link to share. A
 * part the Read API does not provide leaves its section out, with one line
 * saying so in its place (`Report.not_provided`).
 *
 * One HTML document in the look of every page (src/lib/html.ts): inline CSS
 * and SVG, and on a signed link's page one inline script, the copy button's,
 * allowed by a nonce of this response alone. Accessible: `lang`, one `h1` and
 * a heading per section, the chart as `role="img"` with a description and the
 * same figures as a table, one column that works from 320 px up.
 */
import { EMPTY, html, htmlDocument, joinMarkup, type Markup, newNonce, page, pageHeaders, trusted } from '../lib/html';
import type { PageExtras, ReportSource } from '../weekly-report/read';
import {
  type ChartBar,
  changeNoise,
  engineOrder,
  formatChange,
  formatDay,
  formatPeriod,
  formatRange,
  formatScore,
  formatStamp,
  notProvidedIn,
  type QuestionMove,
  type Report,
  stateWord,
  type Trend,
  trendOf,
} from '../weekly-report/model';
import type { PartId } from '../weekly-report/parts';
import { CHART_STYLE, chartScale, chartSvg } from '../weekly-report/chart';
import { implausibleWarning } from '../weekly-report/guard';
import { PLAN_STYLE, planSection } from './plan-section';

const SECTION = 'weekly report';

/** An age in words: `less than a minute`, `4 minutes`, `2 hours`. */
function ageWords(seconds: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (seconds < 60) return 'less than a minute';
  if (seconds < 90 * 60) return plural(Math.round(seconds / 60), 'minute');
  return plural(Math.round(seconds / 3600), 'hour');
}

const trendClass = (trend: Trend) => (trend === 'up' ? 'up' : trend === 'down' ? 'down' : 'flat');
const pct = (n: number | null) => (n === null ? '–' : `${n.toFixed(1)}%`);
const count = (n: number) => n.toLocaleString('en-US');

export const STYLE = `
.period{font-size:15px;color:var(--muted);margin:0 0 8px}
.markets{display:flex;flex-wrap:wrap;gap:6px;align-items:center;list-style:none;padding:0;margin:4px 0 10px;font-size:14px}
.markets a,.markets span.here{display:inline-block;padding:3px 10px;border:1px solid var(--rule);border-radius:999px;text-decoration:none}
.markets span.here{background:var(--ink);color:var(--page);border-color:var(--ink);font-weight:600}
.warning{border:2px solid var(--bad);border-radius:6px;padding:10px 14px;margin:16px 0}
.warning ul{margin:6px 0 0;padding-left:20px}
.lead{background:var(--panel);border-left:4px solid var(--accent-strong);padding:12px 16px;font-weight:600;margin:16px 0}
.score{font-size:40px;font-weight:700;line-height:1.1;margin:4px 0 8px}
.score .chg{font-size:20px;font-weight:600}
.up{color:var(--good)}.down{color:var(--bad)}.flat{color:var(--muted)}
.counts{display:flex;gap:8px;flex-wrap:wrap;list-style:none;padding:0;margin:8px 0}
.counts li{border:1px solid var(--rule);border-radius:6px;padding:8px 14px;font-size:15px}
.counts strong{font-size:22px;display:block}
figure{margin:16px 0}
figcaption{font-size:14px;color:var(--muted);margin-top:4px}
table caption{text-align:left;font-size:14px;color:var(--muted);padding:4px 0}
table.weeks{max-width:480px}
table.weeks tr.latest td{font-weight:700}
.meter{display:block;height:8px;background:var(--panel);border:1px solid var(--rule);border-radius:4px;margin:4px 0}
table.engines th[scope=row],table.sov th[scope=row]{width:38%}
table.engines .small{display:block}
.meter span{display:block;height:100%;background:var(--accent);border-radius:3px}
tr.brand td{font-weight:700}
ul.topics{padding-left:20px}
ol.questions{list-style:none;padding:0;margin:0}
ol.questions>li{border-left:3px solid var(--rule);padding:4px 0 4px 12px;margin:0 0 14px}
ol.questions.lost>li{border-left-color:var(--bad)}
ol.questions.won>li{border-left-color:var(--good)}
.q{font-weight:600;margin:0 0 2px;overflow-wrap:anywhere}
.q+.small{margin:0 0 2px}
ul.engines{list-style:none;padding:0;margin:2px 0 0;font-size:14px;color:var(--muted)}
.arrow{font-weight:700}
.csv-row{display:flex;gap:8px;flex-wrap:wrap;align-items:center;margin:6px 0 14px;font-size:14px}
.csv-row button{font-size:14px;padding:6px 10px}
.share-row{display:flex;gap:8px;flex-wrap:wrap;margin:8px 0}
.share-row input{flex:1 1 220px;min-width:0;font:14px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;padding:9px 10px;border:1px solid var(--rule);border-radius:6px;background:var(--panel);color:var(--ink)}
#copy-status{min-height:1.5em}
${PLAN_STYLE}
@media (max-width:520px){
.score{font-size:34px}
th,td{padding:6px 4px}
}
${CHART_STYLE}`;

/**
 * The copy buttons' script: shows the buttons (hidden without scripts), copies the link, says so. The "Copy CSV link"
 * buttons carry their link in `data-url` (a plain "CSV" link beside each works without scripts).
 */
export const COPY_SCRIPT = `(function(){document.querySelectorAll('button.copy-csv').forEach(function(c){c.hidden=false;c.addEventListener('click',function(){var done=function(t){c.textContent=t;};if(!navigator.clipboard){window.prompt('Copy the CSV link:',c.getAttribute('data-url'));return;}navigator.clipboard.writeText(c.getAttribute('data-url')).then(function(){done('CSV link copied');},function(){window.prompt('Copy the CSV link:',c.getAttribute('data-url'));});});});})();(function(){var b=document.getElementById('copy-link'),i=document.getElementById('share-url'),s=document.getElementById('copy-status');if(!b||!i||!s)return;b.hidden=false;b.addEventListener('click',function(){var fallback=function(){i.focus();i.select();s.textContent='Press Ctrl+C (on a Mac, Cmd+C) to copy the selected link.';};if(!navigator.clipboard){fallback();return;}navigator.clipboard.writeText(i.value).then(function(){s.textContent='Link copied.';},fallback);});})();`;

/** Where the figures came from and when, in plain words. */
function sourceLine(report: Report, source: ReportSource): string {
  const age = ageWords(source.max_age_seconds ?? 0);
  const when = source.from_cache === 'all' ? `cached ${age} ago` : source.from_cache === 'none' ? 'just read' : `partly cached, at most ${age} old`;
  return `Figures from ${formatStamp(report.generated_at)} (${when}).`;
}

function marketsNav(report: Report, extras: PageExtras, marketUrl?: (code: string) => string): Markup {
  const here = report.market.code.toLowerCase();
  const markets = extras.markets?.markets ?? [];
  if (!marketUrl || markets.length < 2) return EMPTY;
  const items = markets.map((m) => {
    const code = m.code.toLowerCase();
    const label = `${m.name} (${m.code.toUpperCase()})`;
    return code === here ? html`<li><span class="here" aria-current="page">${label}</span></li>` : html`<li><a href="${marketUrl(code)}" data-market="${code}">${label}</a></li>`;
  });
  return html`<nav aria-label="Markets"><ul class="markets" data-testid="markets"><li class="small">Markets:</li>${items}</ul></nav>`;
}

/** The 12 weeks, newest first, with plain dates and each week's change (steady within its noise). */
function weeksTable(weeks: ChartBar[]): Markup {
  const rows = weeks
    .map((w, i) => {
      const before = weeks[i - 1];
      let change: Markup | string = '–';
      if (before && w.score !== null && before.score !== null) {
        const delta = w.score - before.score;
        const trend = trendOf(delta, changeNoise(w.score, w.answered_runs, before.score, before.answered_runs));
        change = html`<span class="${trendClass(trend)}">${formatChange(delta, trend)}</span>`;
      }
      return html`<tr${i === weeks.length - 1 ? html` class="latest"` : null} data-week="${w.week_start}"><td>${formatDay(w.week_start)}</td><td class="num">${formatScore(w.score)}</td><td class="num">${change}</td><td class="num">${count(w.answered_runs)}</td></tr>`;
    })
    .reverse();
  return html`<table class="weeks" data-testid="weeks"><caption>The last ${weeks.length} weeks, newest first. Change in points against the week before.</caption><thead><tr><th scope="col">Week of</th><th scope="col" class="num">Score</th><th scope="col" class="num">Change</th><th scope="col" class="num">Answers</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** Per engine (the report's `engines`, from `/prompts`, which leaves out those not run): of the questions it answered, how many its usual answer named the brand in, best first. */
function engineShares(report: Report) {
  return report.engines
    .flatMap((e) => (e.naming === null || e.answered === null ? [] : [{ ...e, share: e.answered > 0 ? (100 * e.naming) / e.answered : null }]))
    .sort((a, b) => (b.share ?? -1) - (a.share ?? -1) || engineOrder(a.engine) - engineOrder(b.engine));
}

const meter = (share: number | null) => html`<span class="meter" aria-hidden="true"><span style="width:${share === null ? 0 : Number(Math.min(100, Math.max(0, share)).toFixed(1))}%"></span></span>`;

function enginesSection(report: Report, extras: PageExtras): Markup {
  const brand = report.brand.name;
  const section = (inside: Markup) => html`<section aria-labelledby="h-engines" data-testid="engines"><h2 id="h-engines">Per engine</h2>${inside}</section>`;
  const without = notProvidedIn(report, 'per_engine');
  if (without) return section(notProvidedParagraph(without));
  if (!extras.prompts) return section(html`<p class="small">The answers per engine could not be read just now.</p>`);
  const engines = engineShares(report);
  if (engines.length === 0) return section(html`<p class="small">No engine was run in these 7 days.</p>`);
  const rows = engines.map(
    (e) =>
      html`<tr data-engine="${e.engine}" data-share="${e.share === null ? '' : e.share.toFixed(1)}"><th scope="row">${e.engine_label}</th><td><strong>${pct(e.share)}</strong>${meter(e.share)}<span class="small">${e.naming} of ${e.answered} questions; recommends it in ${e.recommended}</span></td></tr>`,
  );
  return section(
    html`<p class="small">Of the questions each engine answered in ${formatRange(report.period)}, the share whose usual answer named ${brand}, and in how many it recommended ${brand}.</p><table class="engines"><thead><tr><th scope="col">Engine</th><th scope="col">Names ${brand}</th></tr></thead><tbody>${rows}</tbody></table>`,
  );
}

function shareOfVoiceSection(report: Report, extras: PageExtras): Markup {
  const brand = report.brand.name;
  const section = (inside: Markup) => html`<section aria-labelledby="h-sov" data-testid="share-of-voice"><h2 id="h-sov">Share of voice</h2>${inside}</section>`;
  const overview = extras.overview;
  if (!overview) return section(html`<p class="small">Share of voice could not be read just now.</p>`);
  const sov = overview.share_of_voice;
  const mentions = sov.brand_mentions + sov.rival_mentions;
  if (sov.share === null || mentions === 0) return section(html`<p class="small">No answer named ${brand} or a rival in ${formatRange(overview.period)}.</p>`);
  const previous = sov.change === null ? null : Math.min(100, Math.max(0, sov.share - sov.change));
  const trend = trendOf(sov.change, changeNoise(sov.share, mentions, previous, mentions));
  const standings = [{ ...overview.competition.brand, brand: true }, ...overview.competition.rivals.map((r) => ({ ...r, brand: false }))];
  const rows = standings.map(
    (s) =>
      html`<tr${s.brand ? html` class="brand"` : null} data-name="${s.name}" data-share="${s.share_of_voice === null ? '' : s.share_of_voice.toFixed(1)}"><th scope="row">${s.name}</th><td>${pct(s.share_of_voice)}${meter(s.share_of_voice)}</td><td class="num">${pct(s.visibility)}</td></tr>`,
  );
  const rivals = overview.competition.rivals.length === 1 ? 'rival' : `${overview.competition.rivals.length} rivals`;
  return section(
    html`<p><strong>${pct(sov.share)}</strong> of the brand mentions in AI answers were ${brand}’s <span class="${trendClass(trend)}">(${formatChange(sov.change, trend)})</span>: ${count(sov.brand_mentions)} of ${count(mentions)}, ${formatRange(overview.period)}.</p>
<table class="sov"><caption>${brand} against the ${rivals} AI named most.</caption><thead><tr><th scope="col">Brand</th><th scope="col">Share of voice</th><th scope="col" class="num">Visibility</th></tr></thead><tbody>${rows}</tbody></table>`,
  );
}

/** Where a section is left out: the line that says the Read API does not provide it. */
const notProvidedParagraph = (line: string) => html`<p class="small" data-testid="not-provided">${line}</p>`;

function questionList(questions: QuestionMove[], outcome: 'won' | 'lost'): Markup {
  if (questions.length === 0) return html`<p class="small">${outcome === 'won' ? 'No question won this week.' : 'No question lost this week.'}</p>`;
  const items = questions.map((q) => {
    const engines = q.engines.map((e) => {
      const gained = e.direction === 'gained';
      return html`<li data-engine="${e.engine}" data-direction="${e.direction}"><span class="arrow ${gained ? 'up' : 'down'}" aria-hidden="true">${gained ? '▲' : '▼'}</span> <span class="sr">${gained ? 'Gained on' : 'Lost on'}</span> ${e.engine_label}: ${stateWord(e.before)} → ${stateWord(e.now)}${e.top_rival ? ` (rival named most: ${e.top_rival})` : ''}</li>`;
    });
    return html`<li data-question-id="${q.question_id}"><p class="q">“${q.text}”</p><p class="small">${q.topic ? `${q.topic} · ` : ''}named by ${q.engines_naming_now} of the engines, was ${q.engines_naming_before}</p>${engines.length > 0 ? html`<ul class="engines">${engines}</ul>` : EMPTY}</li>`;
  });
  return html`<ol class="questions ${outcome}" data-testid="${outcome}-list">${items}</ol>`;
}

export interface PageLinks {
  /** Alternate formats of this same report (only for signed links: a keyed URL needs its header). */
  json?: string;
  text?: string;
  /** When the signed link stops working. */
  expiresAt?: string;
  /** The page's own signed URL, offered with a copy button. */
  share?: string;
  /** Where a reader with the API key mints a signed link (`POST /reports/links`), said in one line. */
  mint?: { url: string; body: string };
  /** The same report for another of the brand's markets; absent where a page is bound to its market (a signed link). */
  marketUrl?: (code: string) => string;
  /** CSV export links (`/x/<token>.csv`) of the page's tables, made when the page's form asked for them; a table without one has no button. */
  csv?: Partial<Record<CsvTable, string>>;
  /** Where the page's form posts to have its CSV links made; absent once they are. */
  csvForm?: CsvForm | undefined;
  /** The kept history of this brand and market: `GET /reports/history` with the key, `/r/<token>/history` on a signed link. */
  history?: string;
  /** Inside the account (src/account): its navigation at the top, its style and its form headers. */
  frame?: PageFrame;
}

/** What a page wears inside another feature's screens: markup before its own, more CSS, and headers that let its forms post. */
export interface PageFrame {
  nav: Markup;
  style: Markup;
  headers: Record<string, string>;
}

/** The page's tables that offer a CSV link, and the operation each one is read from. */
export const CSV_TABLES = { plan: 'plan', weeks: 'getVisibility', engines: 'getPromptMatrix', share_of_voice: 'getOverview', won_lost: 'getAnswerHistory', history: 'history' } as const;
export type CsvTable = keyof typeof CSV_TABLES;
/** Tables whose rows are a part the Read API may not provide (src/weekly-report/parts.ts): without it, no table and no link. */
export const CSV_TABLE_PARTS: Partial<Record<CsvTable, PartId>> = { weeks: 'history', engines: 'per_engine' };

/** Where a page's form posts to have its CSV links made (a GET makes none), with its hidden fields (the account's token). */
export interface CsvForm {
  action: string;
  fields?: Record<string, string>;
}

/** How a page offers its CSV links: `csvForm`, where its form posts; `makeCsv`, the POST that makes them (`keyConfirmed`: its caller confirmed the key now already). */
export interface CsvAsk {
  csvForm?: CsvForm;
  makeCsv?: boolean;
  keyConfirmed?: boolean;
}

/** The form that makes the page's CSV links: a link is a stored row, so it is made when asked for, never by showing the page. */
export function csvFormSection(form: CsvForm): Markup {
  const hidden = Object.entries(form.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<section aria-labelledby="h-csv" data-testid="csv-form"><h2 id="h-csv">CSV links</h2><form method="post" action="${form.action}">${hidden}<p class="small">A CSV link of each table above, for a spreadsheet (<code>=IMPORTDATA(…)</code>): made when you ask.</p><button type="submit">Make CSV links</button></form></section>`;
}

/** A table's CSV link: a plain link (works without scripts) and a copy button. */
export function csvRow(url: string | undefined, what: string): Markup {
  if (!url) return EMPTY;
  return html`<p class="csv-row" data-testid="csv-link"><a href="${url}">CSV of ${what}</a> <button type="button" class="copy-csv" data-url="${url}" hidden>Copy CSV link</button></p>`;
}

function shareSection(links: PageLinks): Markup {
  const section = (inside: Markup) => html`<section aria-labelledby="h-share" data-testid="share"><h2 id="h-share">Share this report</h2>${inside}</section>`;
  if (links.share) {
    return section(
      html`<p class="small">Anyone with this link can read this report${links.expiresAt ? ` until ${formatStamp(links.expiresAt)}` : ''}, without an API key.</p><div class="share-row"><label class="sr" for="share-url">Link to this report</label><input id="share-url" type="text" readonly value="${links.share}"><button type="button" id="copy-link" hidden>Copy link</button></div><p id="copy-status" class="small" role="status" aria-live="polite"></p>`,
    );
  }
  if (links.mint) {
    return section(
      html`<p class="small">This page was opened with your API key. For a link that works without it (30 days unless you choose), POST <code>${links.mint.body}</code> to <code>${links.mint.url}</code> with your key.</p>`,
    );
  }
  return EMPTY;
}

export interface RenderedPage {
  html: string;
  headers: Record<string, string>;
}

/** The report page and the headers it must be served with (its CSP allows its one script, if it has one). */
export function reportPage(report: Report, source: ReportSource, extras: PageExtras, links: PageLinks = {}): RenderedPage {
  const { visibility: vis, won_lost: wl } = report;
  const brand = report.brand.name;
  const market = extras.markets?.markets.find((m) => m.code.toLowerCase() === report.market.code.toLowerCase());
  const marketName = market ? `${market.name} (${report.market.code.toUpperCase()})` : `Market ${report.market.code.toUpperCase()}`;
  const parts: Markup[] = [];
  parts.push(html`<h1>${brand} in AI answers, week of ${formatDay(report.period.from)}</h1>`);
  parts.push(html`<p class="period" data-testid="period">${formatRange(report.period)} · ${marketName}</p>`);
  parts.push(marketsNav(report, extras, links.marketUrl));
  parts.push(html`<p class="meta" data-testid="source" data-from-cache="${source.from_cache}">${sourceLine(report, source)}</p>`);
  const warning = implausibleWarning(report.implausible);
  if (warning)
    parts.push(
      html`<section class="warning" role="alert" data-testid="implausible"><p><strong>${warning.headline}</strong></p><ul>${warning.lines.map((line, i) => html`<li data-rule="${report.implausible[i]!.rule}">${line}</li>`)}</ul></section>`,
    );
  parts.push(html`<p class="lead" data-testid="lead">${report.lead.headline}</p>`);
  if (report.empty === 'nothing_measured') parts.push(html`<p>Nothing was measured for this brand and market in the last two weeks, so there are no figures to report.</p>`);
  else if (report.empty === 'nothing_changed') parts.push(html`<p class="small">A quiet week: every change below is within its sampling noise.</p>`);
  // The plan right after the score, as in the digest: what happened, how much, then what to do.
  const plan = [planSection(report), csvRow(report.plan && report.plan.items.length > 0 ? links.csv?.plan : undefined, 'the plan, one row per question')];
  if (!vis) parts.push(...plan);

  if (vis) {
    const scale = chartScale(vis.history.flatMap((w) => (w.score === null ? [] : [w.score])));
    const withoutHistory = notProvidedIn(report, 'history');
    const withoutTopics = notProvidedIn(report, 'topics');
    const withoutRivals = notProvidedIn(report, 'rivals');
    parts.push(html`<section aria-labelledby="h-vis"><h2 id="h-vis">Visibility</h2>`);
    parts.push(
      html`<p class="score" data-testid="score" data-score="${vis.score === null ? '' : vis.score.toFixed(1)}">${formatScore(vis.score)} <span class="chg ${trendClass(vis.trend)}">(${formatChange(vis.change, vis.trend)})</span></p>`,
    );
    const scoreNote =
      vis.score === null
        ? 'No answered run in the last 7 days.'
        : `${count(vis.naming_runs)} of ${count(vis.answered_runs)} AI answers named ${brand}, ${formatRange(vis.period)}. ` +
          (vis.previous === null ? 'The week before was not measured.' : `Week before: ${formatScore(vis.previous)}.`) +
          (vis.noise !== null ? ` Changes under ${vis.noise.toFixed(1)} points are within sampling noise and shown as steady.` : '');
    parts.push(html`<p class="small">${scoreNote}</p>`);
    parts.push(html`</section>`);
    parts.push(...plan);
    parts.push(html`<section aria-labelledby="h-weeks"><h2 id="h-weeks">By week and topic</h2>`);
    if (withoutHistory) parts.push(notProvidedParagraph(withoutHistory));
    else {
      const fromZero = scale.lo > 0 ? ', not from zero, so that moves of a few points show' : '';
      parts.push(
        html`<figure>${chartSvg(vis.history, report.brand.name)}<figcaption>Score by week, oldest first; the larger dot is the latest week. The scale runs from ${scale.lo}% to ${scale.hi}%${fromZero}.</figcaption></figure>`,
      );
      parts.push(weeksTable(vis.history));
      parts.push(csvRow(links.csv?.weeks, 'the 12 weeks'));
    }
    if (links.csv?.history || links.history) {
      const kept = links.history ? html`<a href="${links.history}">the kept history</a> (up to 2 years)` : 'the kept history (up to 2 years)';
      const asCsv = links.csv?.history ? html`, <a href="${links.csv.history}">as CSV</a>` : EMPTY;
      parts.push(html`<p class="small" data-testid="history-link">Older weeks: ${kept}${asCsv}.</p>`);
    }
    parts.push(html`<h3>Topics that moved most</h3>`);
    if (withoutTopics) parts.push(notProvidedParagraph(withoutTopics));
    else if (report.topics.length === 0) parts.push(html`<p class="small">No topic has a comparison this week.</p>`);
    else
      parts.push(
        html`<ul class="topics" data-testid="topics">${report.topics.map(
          (t) =>
            html`<li>${t.name}: ${formatScore(t.score)} <span class="${trendClass(t.trend)}"><strong>(${formatChange(t.change, t.trend)})</strong></span>${t.top_rival ? html` <span class="small">· rival named most: ${t.top_rival}</span>` : EMPTY}</li>`,
        )}</ul>`,
      );
    if (withoutRivals && !withoutTopics) parts.push(notProvidedParagraph(withoutRivals));
    parts.push(html`</section>`);
    parts.push(enginesSection(report, extras));
    parts.push(csvRow(links.csv?.engines, 'each question on each engine'));
    parts.push(shareOfVoiceSection(report, extras));
    parts.push(csvRow(links.csv?.share_of_voice, 'the brand and its rivals, per day'));
  }

  if (wl) {
    parts.push(html`<section aria-labelledby="h-wl"><h2 id="h-wl">Won and lost questions</h2>`);
    parts.push(
      html`<ul class="counts" data-testid="counts"><li class="up"><strong data-count="won">${wl.counts.won}</strong>won</li><li class="down"><strong data-count="lost">${wl.counts.lost}</strong>lost</li><li><strong data-count="held">${wl.counts.held}</strong>held</li></ul>`,
    );
    parts.push(
      html`<p class="small" data-testid="legend">Won: more engines name ${brand} for the question than the week before. Lost: fewer do. Held: as many as before. Engines naming ${brand}, ${formatPeriod(wl.period)} against ${formatPeriod(wl.previous_period)}.</p>`,
    );
    const withoutMoves = notProvidedIn(report, 'moved');
    if (withoutMoves) parts.push(notProvidedParagraph(withoutMoves));
    parts.push(html`<h3 class="down">Lost (${wl.counts.lost})</h3>${questionList(wl.lost, 'lost')}`);
    parts.push(html`<h3 class="up">Won (${wl.counts.won})</h3>${questionList(wl.won, 'won')}`);
    parts.push(csvRow(links.csv?.won_lost, 'every question, won, lost or held'));
    parts.push(html`</section>`);
  }

  if (links.csvForm) parts.push(csvFormSection(links.csvForm));
  parts.push(shareSection(links));

  const footer: Markup[] = [];
  if (links.json || links.text) {
    const formats = [links.json ? html`<a href="${links.json}">JSON</a>` : null, links.text ? html`<a href="${links.text}">plain text</a>` : null].filter((f) => f !== null);
    footer.push(html`This report as ${joinMarkup(formats, ' or ')}.`);
  }
  footer.push(html`Scores are the share of AI answers that name the brand; a change smaller than its sampling noise is shown as steady.`);
  parts.push(html`<footer class="page-foot">${footer.map((f) => html`<p>${f}</p>`)}</footer>`);

  return reportDocument({
    title: report.subject,
    section: SECTION,
    parts,
    style: trusted(STYLE),
    copyButtons: Boolean(links.share) || Object.keys(links.csv ?? {}).length > 0,
    frame: links.frame,
    forms: Boolean(links.csvForm),
  });
}

/**
 * A page of the reports (this one, the kept history's): its parts one per line, and with `copyButtons` the
 * copy buttons' script, allowed by a nonce of this response alone; with `forms` (its CSV form) or a frame, its forms may post to this site.
 */
export function reportDocument(o: { title: string; section: string; parts: Markup[]; style: Markup; copyButtons: boolean; frame?: PageFrame | undefined; forms?: boolean }): RenderedPage {
  const nonce = o.copyButtons ? newNonce() : undefined;
  const parts = o.frame ? [o.frame.nav, ...o.parts] : o.parts;
  const document = htmlDocument({
    title: o.title,
    section: o.section,
    body: joinMarkup(
      parts.filter((part) => part.html !== ''),
      '\n',
    ),
    style: o.frame ? html`${o.style}${o.frame.style}` : o.style,
    ...(nonce ? { script: { nonce, code: trusted(COPY_SCRIPT) } } : {}),
  });
  return { html: document.html, headers: { ...pageHeaders({ ...(nonce ? { scriptNonce: nonce } : {}), ...(o.frame || o.forms ? { formAction: 'self' as const } : {}) }), ...o.frame?.headers } };
}

/** A page for a person who followed a link or opened the report: what went wrong and what to do. */
export function messagePage(status: number, title: string, paragraphs: string[]): Response {
  return page(status, title, paragraphs, EMPTY, { section: SECTION, headers: pageHeaders() });
}
