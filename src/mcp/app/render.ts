/**
 * What the MCP App's view shows, as HTML, from a tool result's
 * `structuredContent` (the same object the assistant gets): a pure function,
 * run in the browser by view.ts and in the tests as it is.
 *
 * - `weekly_report` (`{ report, source }`): the digest's view of the week, in
 *   its words and order: the lead; the score, its change against the noise
 *   and the line under it; the 12 weeks as the report page's chart; each
 *   engine; the questions lost and won that the digest lists (3 to 5), with
 *   how many more changed; a line for each part the Read API does not provide.
 * - `get_visibility` (the `/visibility` body): the score, its change judged
 *   against the sampling noise as the report does (the last two weeks of the
 *   history), and the chart.
 * - A refusal (`isError`): the API's message. Anything else: a line saying
 *   that the assistant has the result as text.
 *
 * Every text from the result is escaped: the HTML is written with the `html` template (src/lib/markup.ts). It imports only modules without
 * runtime imports of their own (the chart, the words, the noise rule), so the
 * browser bundle holds none of the Worker's code beyond them.
 */
import type { ResponseOf } from '../../contract/operations';
import { EMPTY, html, type Markup } from '../../lib/markup';
import { chartScale, chartSvg } from '../../weekly-report/chart';
import type { ChartBar, EngineFigures, Report, Trend } from '../../weekly-report/model';
import { changeNoise, trendOf } from '../../weekly-report/noise';
import { countOf, formatCount, formatPercent, formatRange, formatSigned, formatStamp, formatTrend, movedLine, quoted, scoreNote, shortDay } from '../../weekly-report/words';

/** What the view reads of a tool result (`ui/notifications/tool-result`'s params). */
export interface ShownResult {
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
  isError?: boolean;
}

type Visibility = ResponseOf<'getVisibility'>;

const trendClass = (trend: Trend) => (trend === 'up' ? 'up' : trend === 'down' ? 'down' : 'flat');
const small = (text: string) => html`<p class="small">${text}</p>`;

/** The title and what it covers (the document's masthead names the product: document.ts). */
function header(title: string, subtitle: string): Markup {
  return html`<h1>${title}</h1><p class="small" data-testid="period">${subtitle}</p>`;
}

function scoreLine(score: number | null, change: number | null, trend: Trend): Markup {
  return html`<p class="score" data-testid="score" data-score="${score === null ? '' : score.toFixed(1)}">${formatPercent(score)} <span class="chg ${trendClass(trend)}">${formatTrend(change, trend)}</span></p>`;
}

function chart(weeks: ChartBar[], brand: string): Markup {
  const scale = chartScale(weeks.flatMap((w) => (w.score === null ? [] : [w.score])));
  return html`<figure>${chartSvg(weeks, brand, { tableBelow: false })}<figcaption>Score by week, last ${weeks.length} weeks; the larger dot is this week. Scale ${scale.lo}% to ${scale.hi}%.</figcaption></figure>`;
}

function enginesTable(engines: EngineFigures[], brand: string): Markup {
  const withCounts = engines.some((e) => e.naming !== null);
  const withChanges = engines.some((e) => e.change !== null);
  if (!withCounts && !withChanges) return EMPTY;
  const rows = engines.map((e) => {
    const change = e.change === null ? html`<td></td>` : html`<td class="num ${e.change > 0 ? 'up' : e.change < 0 ? 'down' : 'flat'}">${e.change === 0 ? 'no change' : formatSigned(e.change)}</td>`;
    const count = withCounts ? html`<td class="num">${e.naming === null ? '–' : `${formatCount(e.naming)} of ${formatCount(e.answered ?? 0)}`}</td>` : null;
    return html`<tr data-engine="${e.engine}"><th scope="row">${e.engine_label}</th>${count}${withChanges ? change : null}</tr>`;
  });
  const head = html`<tr><th scope="col">Engine</th>${withCounts ? html`<th scope="col" class="num">Questions</th>` : null}${withChanges ? html`<th scope="col" class="num">Change</th>` : null}</tr>`;
  const note = withCounts
    ? `Questions: those whose usual answer on the engine names ${brand}.${withChanges ? ' Change: against the week before.' : ''}`
    : `Change: questions the engine started naming ${brand} for, less those it stopped.`;
  return html`<table data-testid="engines"><thead>${head}</thead><tbody>${rows}</tbody></table>${small(note)}`;
}

function weeklyReport(report: Report): Markup {
  const { visibility: vis, won_lost: wl } = report;
  const brand = report.brand.name;
  const measured = report.empty !== 'nothing_measured';
  const missing = (part: string) => report.not_provided.find((p) => p.part === part)?.line;
  const parts = [header(`${brand} in AI answers`, `${report.period_label} · market ${report.market.code.toUpperCase()}`)];
  parts.push(html`<p class="lead" data-testid="lead">${report.lead.headline}</p>`);
  if (measured && vis) {
    const withoutHistory = missing('history');
    parts.push(
      html`<section aria-labelledby="h-vis"><h2 id="h-vis">AI visibility</h2>${scoreLine(vis.score, vis.change, vis.trend)}${small(scoreNote(vis, brand, report.period_label))}${withoutHistory ? small(withoutHistory) : chart(vis.history, brand)}</section>`,
    );
  }
  const engines = measured ? enginesTable(report.engines, brand) : EMPTY;
  const withoutEngines = missing('per_engine');
  if (engines.html || withoutEngines) parts.push(html`<section aria-labelledby="h-eng"><h2 id="h-eng">By engine</h2>${engines}${withoutEngines ? small(withoutEngines) : null}</section>`);
  if (measured && wl) {
    const inside: Markup[] = [];
    const changed = wl.counts.won + wl.counts.lost;
    if (changed === 0) inside.push(html`<p>All ${formatCount(wl.counts.held)} questions held: each is named by as many engines as the week before.</p>`);
    else {
      inside.push(
        html`<p class="counts" data-testid="counts"><span class="down">${formatCount(wl.counts.lost)} lost</span> · <span class="up">${formatCount(wl.counts.won)} won</span> · <span class="flat">${formatCount(wl.counts.held)} held</span></p>`,
      );
      const withoutMoves = missing('moved');
      if (withoutMoves) inside.push(small(withoutMoves));
      const shown = [...wl.top_lost, ...wl.top_won];
      const items = shown.map(
        (q) =>
          html`<li class="${q.outcome}" data-question-id="${q.question_id}"><strong>${quoted(q.text)}</strong><span class="small"><span aria-hidden="true" class="${q.outcome === 'lost' ? 'down' : 'up'}">${q.outcome === 'lost' ? '▼' : '▲'}</span> ${movedLine(q, report.engines.length)}</span></li>`,
      );
      inside.push(html`<ol class="questions" data-testid="questions">${items}</ol>`);
      if (changed > shown.length) inside.push(small(`${countOf(changed - shown.length, 'more question')} changed: ask the assistant for the full list.`));
    }
    parts.push(html`<section aria-labelledby="h-q"><h2 id="h-q">Questions lost and won</h2>${inside}</section>`);
  }
  for (const part of ['topics', 'rivals']) {
    const line = missing(part);
    if (line) parts.push(small(line));
  }
  parts.push(html`<footer class="small">Figures read ${formatStamp(report.generated_at)}. A change smaller than its sampling noise is shown as steady.</footer>`);
  return html`${parts}`;
}

function visibility(body: Visibility): Markup {
  const weeks: ChartBar[] = body.history.map((w) => ({ ...w, label: shortDay(w.week_start) }));
  const before = body.history.at(-2);
  const noise = before ? changeNoise(body.score, body.answered_runs, before.score, before.answered_runs) : null;
  const trend = trendOf(body.change, noise);
  const name = `Brand ${body.brand_id}`;
  const parts = [header('AI visibility', `${formatRange(body.period)} · market ${body.market.code.toUpperCase()}`)];
  parts.push(scoreLine(body.score, body.change, trend));
  parts.push(
    small(
      body.score === null
        ? 'No AI answer came back in these 7 days.'
        : `${formatCount(body.naming_runs)} of ${formatCount(body.answered_runs)} AI answers named the brand.${noise === null ? '' : ` Sampling noise is ±${noise.toFixed(1)} pts.`}`,
    ),
  );
  if (weeks.length > 0) parts.push(chart(weeks, name));
  parts.push(html`<footer class="small">Figures read ${formatStamp(body.generated_at)}.</footer>`);
  return html`${parts}`;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The view of a tool result; never throws (a result it cannot read is said in one line). */
export function renderResult(result: ShownResult): Markup {
  const content = result.structuredContent;
  const text = result.content?.find((c) => c.type === 'text')?.text;
  try {
    if (result.isError) {
      const error = isObject(content) && isObject(content.error) ? String(content.error.message) : (text ?? 'The call failed.');
      return html`<p class="lead" data-testid="error">${error}</p>`;
    }
    if (isObject(content) && isObject(content.report)) return weeklyReport(content.report as unknown as Report);
    if (isObject(content) && Array.isArray(content.history) && 'score' in content) return visibility(content as unknown as Visibility);
  } catch {
    // A result of another shape than the contract's: said below, and the assistant still has it.
  }
  return small('This result cannot be shown here; the assistant has it as text.');
}

/** While the tool runs. */
export const WAITING = small('Reading the figures…');
/** When the host cancelled the call. */
export const CANCELLED = small('The call was cancelled.');
