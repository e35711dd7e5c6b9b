/**
 * The weekly report as a web page: the same `Report` the digest email renders
 * (src/reports/model.ts), laid out for the browser, with an SVG chart of the
 * 12 weeks (the email has table bars, since mail clients drop SVG).
 *
 * No script, no external resource: one HTML document with inline CSS and SVG,
 * served under a CSP that allows nothing else. Accessible: `lang`, one `h1`
 * and a heading per section, the chart as `role="img"` with a title and a
 * description plus the same figures as a table, colours from the emails' theme
 * (WCAG AA on white), and a single column that works from 320 px up.
 */
import { color } from '../../emails/_components/theme';
import { escapeHtml } from '../lib/html';
import type { ReportSource } from '../weekly-report/read';
import { type ChartBar, formatChange, formatScore, type QuestionMove, type Report, shortDay, stateWord, type Trend } from '../weekly-report/model';

/** Security headers of every report page: tokens must not leak, nothing may load or frame it. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'private, no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'x-robots-tag': 'noindex',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
};


/** `2026-11-22` as `22 Nov 2026`. */
const longDay = (day: string) => `${shortDay(day)} ${day.slice(0, 4)}`;
/** An ISO timestamp as `22 Nov 2026, 01:12 UTC`. */
const stamp = (iso: string) => `${longDay(iso.slice(0, 10))}, ${iso.slice(11, 16)} UTC`;

const trendClass = (trend: Trend) => (trend === 'up' ? 'up' : trend === 'down' ? 'down' : 'flat');

const STYLE = `
*{box-sizing:border-box}
body{margin:0;background:${color.panel};color:${color.ink};font:16px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;-webkit-text-size-adjust:100%}
main{max-width:760px;margin:0 auto;padding:24px;background:${color.page};min-height:100vh}
@media (min-width:800px){body{padding:24px 0}main{min-height:0;border:1px solid ${color.rule}}}
.kicker{font-size:13px;letter-spacing:.06em;text-transform:uppercase;color:${color.muted};margin:0 0 4px}
h1{font-size:26px;line-height:1.25;margin:0 0 8px}
h2{font-size:20px;margin:32px 0 8px;padding-top:16px;border-top:1px solid ${color.rule}}
h3{font-size:17px;margin:20px 0 8px}
.meta,.small{font-size:14px;color:${color.muted};margin:0 0 8px}
.lead{background:${color.panel};border-left:4px solid ${color.barLatest};padding:12px 16px;font-weight:600;margin:16px 0}
.score{font-size:40px;font-weight:700;line-height:1.1;margin:4px 0}
.score .chg{font-size:20px;font-weight:600}
.up{color:${color.good}}.down{color:${color.bad}}.flat{color:${color.muted}}
.counts{display:flex;gap:8px;flex-wrap:wrap;list-style:none;padding:0;margin:8px 0}
.counts li{border:1px solid ${color.rule};padding:8px 14px;font-size:15px}
.counts strong{font-size:22px;display:block}
figure{margin:16px 0}
.chart{width:100%;height:auto;display:block}
.chart text{font-family:inherit;font-size:13px;fill:${color.muted}}
.chart .xl{font-size:12px}
.chart .val{fill:${color.ink}}
.chart .val.latest{font-weight:700}
.chart .grid{stroke:${color.rule};stroke-width:1}
figcaption{font-size:14px;color:${color.muted}}
details{margin:8px 0 0;font-size:14px}
summary{cursor:pointer;color:${color.link}}
table{border-collapse:collapse;margin-top:8px;width:100%;max-width:420px}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid ${color.rule}}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
ul.topics{padding-left:20px}
ol.questions{list-style:none;padding:0;margin:0}
ol.questions>li{border-left:3px solid ${color.rule};padding:4px 0 4px 12px;margin:0 0 14px}
ol.questions.lost>li{border-left-color:${color.bad}}
ol.questions.won>li{border-left-color:${color.good}}
.q{font-weight:600;margin:0 0 2px;overflow-wrap:anywhere}
ul.engines{list-style:none;padding:0;margin:2px 0 0;font-size:14px;color:${color.muted}}
.arrow{font-weight:700}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
a{color:${color.link}}
a:focus,summary:focus{outline:3px solid #93c5fd;outline-offset:2px}
footer{margin-top:32px;padding-top:12px;border-top:1px solid ${color.rule};font-size:14px;color:${color.muted}}
@media (max-width:520px){
main{padding:16px}
h1{font-size:22px}
.score{font-size:34px}
.chart text,.chart .xl{font-size:18px}
.chart .val{font-size:16px}
.chart .xl.odd{display:none}
}
`;

function htmlDocument(title: string, body: string): string {
  return `<!doctype html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="color-scheme" content="light">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

/** Chart geometry, in viewBox units; the SVG scales to its container. */
const CHART = { width: 640, height: 260, left: 54, right: 10, top: 28, bottom: 36 } as const;

/** The 12-week chart: bars from zero (so heights compare honestly), gridlines, every figure written out. */
export function chartSvg(bars: ChartBar[], brand: string): string {
  const plotW = CHART.width - CHART.left - CHART.right;
  const plotH = CHART.height - CHART.top - CHART.bottom;
  const tallest = Math.max(1, ...bars.map((b) => b.score ?? 0));
  const top = Math.min(100, Math.max(10, Math.ceil(tallest / 10) * 10));
  const slot = plotW / Math.max(1, bars.length);
  const barW = slot * 0.64;
  const y = (v: number) => CHART.top + plotH - (v / top) * plotH;
  const grid = [0, top / 2, top]
    .map((v) => `<line class="grid" x1="${CHART.left}" x2="${CHART.width - CHART.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/><text x="${CHART.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${v}%</text>`)
    .join('');
  const items = bars
    .map((bar, i) => {
      const latest = i === bars.length - 1;
      const cx = CHART.left + slot * i + slot / 2;
      const x = (cx - barW / 2).toFixed(1);
      const measured = bar.score !== null;
      const h = measured ? Math.max(1, (bar.score! / top) * plotH) : 2;
      const fill = !measured ? color.barEmpty : latest ? color.barLatest : color.bar;
      const label = measured ? bar.score!.toFixed(1) : '–';
      return (
        `<g class="bar" data-week="${bar.week_start}" data-score="${measured ? bar.score!.toFixed(1) : ''}">` +
        `<rect x="${x}" y="${(CHART.top + plotH - h).toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${fill}"/>` +
        `<text class="val${latest ? ' latest' : ''}" x="${cx.toFixed(1)}" y="${(CHART.top + plotH - h - 6).toFixed(1)}" text-anchor="middle">${label}</text>` +
        `<text class="xl${i % 2 === (bars.length - 1) % 2 ? '' : ' odd'}" x="${cx.toFixed(1)}" y="${CHART.height - 12}" text-anchor="middle">${escapeHtml(bar.label)}</text>` +
        `</g>`
      );
    })
    .join('');
  const measured = bars.filter((b) => b.score !== null);
  const first = bars[0];
  const last = bars.at(-1);
  const desc =
    measured.length === 0
      ? 'No week was measured.'
      : `From ${first ? escapeHtml(first.label) : ''} to ${last ? escapeHtml(last.label) : ''}: lowest ${Math.min(...measured.map((b) => b.score!)).toFixed(1)}%, highest ${Math.max(...measured.map((b) => b.score!)).toFixed(1)}%, latest ${last?.score === null || !last ? 'not measured' : `${last.score.toFixed(1)}%`}. The table below lists every week.`;
  return `<svg class="chart" viewBox="0 0 ${CHART.width} ${CHART.height}" role="img" aria-labelledby="chart-title chart-desc" data-testid="chart">
<title id="chart-title">${escapeHtml(brand)}: AI visibility by week, last ${bars.length} weeks</title>
<desc id="chart-desc">${desc}</desc>
${grid}${items}
</svg>`;
}

function chartTable(bars: ChartBar[]): string {
  const rows = bars
    .map((b) => `<tr><td>${escapeHtml(longDay(b.week_start))} – ${escapeHtml(shortDay(b.week_end))}</td><td class="num">${formatScore(b.score)}</td><td class="num">${b.answered_runs}</td></tr>`)
    .join('');
  return `<details><summary>The chart's figures as a table</summary><table><caption class="small">Score by week, oldest first</caption><thead><tr><th scope="col">Week</th><th scope="col" class="num">Score</th><th scope="col" class="num">Answers</th></tr></thead><tbody>${rows}</tbody></table></details>`;
}

function questionList(questions: QuestionMove[], outcome: 'won' | 'lost'): string {
  if (questions.length === 0) return `<p class="small">${outcome === 'won' ? 'No question won this week.' : 'No question lost this week.'}</p>`;
  const items = questions
    .map((q) => {
      const engines = q.engines
        .map(
          (e) =>
            `<li data-engine="${e.engine}" data-direction="${e.direction}"><span class="arrow ${e.direction === 'gained' ? 'up' : 'down'}" aria-hidden="true">${e.direction === 'gained' ? '▲' : '▼'}</span> ` +
            `<span class="sr">${e.direction === 'gained' ? 'Gained on' : 'Lost on'}</span> ${escapeHtml(e.engine_label)}: ${escapeHtml(stateWord(e.before))} → ${escapeHtml(stateWord(e.now))}` +
            `${e.top_rival ? ` (rival named most: ${escapeHtml(e.top_rival)})` : ''}</li>`,
        )
        .join('');
      return (
        `<li data-question-id="${q.question_id}"><p class="q">“${escapeHtml(q.text)}”</p>` +
        `<p class="small">${q.topic ? `${escapeHtml(q.topic)} · ` : ''}named by ${q.engines_naming_now} of the engines, was ${q.engines_naming_before}</p>` +
        `<ul class="engines">${engines}</ul></li>`
      );
    })
    .join('');
  return `<ol class="questions ${outcome}" data-testid="${outcome}-list">${items}</ol>`;
}

function sourceLine(report: Report, source: ReportSource): string {
  const where =
    source.from_cache === 'all'
      ? `served from the edge cache${source.max_age_seconds !== null ? ` (stored ${ago(source.max_age_seconds)})` : ''}`
      : source.from_cache === 'none'
        ? 'read fresh from the API (not from the cache)'
        : `partly from the edge cache${source.max_age_seconds !== null ? ` (oldest stored ${ago(source.max_age_seconds)})` : ''}, partly fresh from the API`;
  return `Figures computed ${escapeHtml(stamp(report.generated_at))}; read ${escapeHtml(stamp(source.read_at))}, ${where}.`;
}

const ago = (seconds: number) => (seconds < 90 ? `${seconds} s ago` : seconds < 5400 ? `${Math.round(seconds / 60)} min ago` : `${(seconds / 3600).toFixed(1)} h ago`);

export interface PageLinks {
  /** Alternate formats of this same report (only for signed links: a keyed URL needs its header). */
  json?: string;
  text?: string;
  /** When the signed link stops working. */
  expiresAt?: string;
}

/** The report page. */
export function reportPage(report: Report, source: ReportSource, links: PageLinks = {}): string {
  const { visibility: vis, won_lost: wl } = report;
  const market = report.market.code.toUpperCase();
  const period = vis?.period ?? wl?.period;
  const parts: string[] = [];
  parts.push(`<p class="kicker">Brand AI-Visibility · weekly report</p>`);
  parts.push(`<h1>${escapeHtml(report.brand.name)} in AI answers, week of ${escapeHtml(report.week.label)}</h1>`);
  parts.push(
    `<p class="meta" data-testid="period">Market ${escapeHtml(market)} · ISO week ${escapeHtml(report.week.iso)}${period ? ` · covers ${escapeHtml(longDay(period.from))} to ${escapeHtml(longDay(period.to))}` : ''}</p>`,
  );
  parts.push(`<p class="meta" data-testid="source" data-from-cache="${source.from_cache}">${sourceLine(report, source)}</p>`);
  parts.push(`<p class="lead" data-testid="lead">${escapeHtml(report.lead.headline)}</p>`);
  if (report.empty === 'nothing_measured') parts.push(`<p>Nothing was measured for this brand and market in the last two weeks, so there are no figures to report.</p>`);
  else if (report.empty === 'nothing_changed') parts.push(`<p class="small">A quiet week: every change below is within its sampling noise.</p>`);

  if (vis) {
    parts.push(`<section aria-labelledby="h-vis"><h2 id="h-vis">Visibility</h2>`);
    parts.push(
      `<p class="score" data-testid="score" data-score="${vis.score === null ? '' : vis.score.toFixed(1)}">${formatScore(vis.score)} <span class="chg ${trendClass(vis.trend)}">(${escapeHtml(formatChange(vis.change, vis.trend))})</span></p>`,
    );
    parts.push(
      `<p class="small">${
        vis.score === null
          ? 'No answered run in the last 7 days.'
          : `${vis.naming_runs} of ${vis.answered_runs} answers named ${escapeHtml(report.brand.name)}, ${escapeHtml(shortDay(vis.period.from))} to ${escapeHtml(shortDay(vis.period.to))}. ` +
            (vis.previous === null ? 'The week before was not measured.' : `Week before: ${formatScore(vis.previous)}.`) +
            (vis.noise !== null ? ` Changes under ${vis.noise.toFixed(1)} points are within sampling noise and shown as steady.` : '')
      }</p>`,
    );
    parts.push(`<figure>${chartSvg(vis.history, report.brand.name)}<figcaption>Score by week, last ${vis.history.length} weeks, oldest first; the darkest bar is the latest.</figcaption>${chartTable(vis.history)}</figure>`);
    parts.push(`<h3>Topics that moved most</h3>`);
    if (report.topics.length === 0) parts.push(`<p class="small">No topic has a comparison this week.</p>`);
    else
      parts.push(
        `<ul class="topics" data-testid="topics">${report.topics
          .map(
            (t) =>
              `<li>${escapeHtml(t.name)}: ${formatScore(t.score)} <span class="${trendClass(t.trend)}"><strong>(${escapeHtml(formatChange(t.change, t.trend))})</strong></span>${t.top_rival ? ` <span class="small">· rival named most: ${escapeHtml(t.top_rival)}</span>` : ''}</li>`,
          )
          .join('')}</ul>`,
      );
    parts.push(`</section>`);
  }

  if (wl) {
    parts.push(`<section aria-labelledby="h-wl"><h2 id="h-wl">Won and lost questions</h2>`);
    parts.push(
      `<ul class="counts" data-testid="counts"><li class="up"><strong data-count="won">${wl.counts.won}</strong>won</li><li class="down"><strong data-count="lost">${wl.counts.lost}</strong>lost</li><li><strong data-count="held">${wl.counts.held}</strong>held</li></ul>`,
    );
    parts.push(
      `<p class="small">Engines naming ${escapeHtml(report.brand.name)}, ${escapeHtml(shortDay(wl.period.from))}–${escapeHtml(shortDay(wl.period.to))} against ${escapeHtml(shortDay(wl.previous_period.from))}–${escapeHtml(shortDay(wl.previous_period.to))}.</p>`,
    );
    parts.push(`<h3 class="down">Lost (${wl.counts.lost})</h3>${questionList(wl.lost, 'lost')}`);
    parts.push(`<h3 class="up">Won (${wl.counts.won})</h3>${questionList(wl.won, 'won')}`);
    parts.push(`</section>`);
  }

  const footer: string[] = [];
  if (links.json || links.text)
    footer.push(
      `This report as ${[links.json ? `<a href="${escapeHtml(links.json)}">JSON</a>` : '', links.text ? `<a href="${escapeHtml(links.text)}">plain text</a>` : ''].filter(Boolean).join(' or ')}.`,
    );
  if (links.expiresAt) footer.push(`This link works until ${escapeHtml(stamp(links.expiresAt))}.`);
  footer.push('Scores are the share of AI answers that name the brand; a change smaller than its sampling noise is shown as steady.');
  parts.push(`<footer>${footer.map((f) => `<p>${f}</p>`).join('')}</footer>`);
  return htmlDocument(report.subject, parts.join('\n'));
}

/** A page for a person who followed a link or opened the report: what went wrong and what to do. */
export function messagePage(status: number, title: string, paragraphs: string[]): Response {
  const body = `<p class="kicker">Brand AI-Visibility · weekly report</p><h1>${escapeHtml(title)}</h1>${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}`;
  return new Response(htmlDocument(title, body), { status, headers: PAGE_HEADERS });
}
