/**
 * The weekly score chart of the report page, the kept history's page
 * (src/reports) and the MCP App's view (src/mcp/app): an inline SVG line with
 * every week's score written beside its point. The scale fits the scores
 * instead of starting at zero, so a move of 3 points is plainly visible; the
 * caption says where the scale starts and ends, and on the pages the table
 * under the chart lists every figure. A pure function of the weeks with no
 * import beyond the `html` template, so the view's browser bundle can carry it.
 */
import { html, type Markup } from '../lib/markup';
import type { ChartBar } from './model';

/** The vertical scale: `lo` to `hi` percent, gridlines every `step`. */
export interface ChartScale {
  lo: number;
  hi: number;
  step: number;
}

/** The narrowest scale a chart gets, in points: a flat history does not turn noise into cliffs. */
export const MIN_SCALE_POINTS = 6;
const STEPS = [1, 2, 5, 10, 20, 25, 50];

/**
 * A scale around the measured scores: at most 4 steps across their spread
 * (at least `MIN_SCALE_POINTS`), half a step of room above and below, widened
 * to `MIN_SCALE_POINTS`, within 0 to 100.
 */
export function chartScale(scores: number[]): ChartScale {
  if (scores.length === 0) return { lo: 0, hi: 100, step: 25 };
  const min = Math.min(...scores);
  const max = Math.max(...scores);
  const spread = Math.max(max - min, MIN_SCALE_POINTS);
  const step = STEPS.find((s) => spread / s <= 4) ?? 50;
  let lo = Math.max(0, Math.floor((min - step / 2) / step) * step);
  let hi = Math.min(100, Math.ceil((max + step / 2) / step) * step);
  while (hi - lo < MIN_SCALE_POINTS) {
    if (lo > 0) lo = Math.max(0, lo - step);
    if (hi - lo < MIN_SCALE_POINTS && hi < 100) hi = Math.min(100, hi + step);
  }
  return { lo, hi, step };
}

/** Geometry, in viewBox units; the SVG scales to its container. */
export const CHART = { width: 640, height: 280, left: 56, right: 16, top: 30, bottom: 40 } as const;

const fixed = (n: number) => n.toFixed(1);

/** The chart of `weeks` (oldest first); `brand` names it for screen readers; `tableBelow`: a table under it lists every week. */
export function chartSvg(weeks: ChartBar[], brand: string, { tableBelow = true } = {}): Markup {
  const measured = weeks.filter((w): w is ChartBar & { score: number } => w.score !== null);
  const scale = chartScale(measured.map((w) => w.score));
  const plotW = CHART.width - CHART.left - CHART.right;
  const plotH = CHART.height - CHART.top - CHART.bottom;
  const bottom = CHART.top + plotH;
  const slot = plotW / Math.max(1, weeks.length);
  const x = (i: number) => CHART.left + slot * i + slot / 2;
  const y = (v: number) => bottom - ((v - scale.lo) / (scale.hi - scale.lo)) * plotH;

  const grid: Markup[] = [];
  for (let v = scale.lo; v <= scale.hi + 1e-9; v += scale.step) {
    grid.push(
      html`<line class="grid" x1="${CHART.left}" x2="${CHART.width - CHART.right}" y1="${fixed(y(v))}" y2="${fixed(y(v))}"/><text class="yl" x="${CHART.left - 8}" y="${fixed(y(v) + 5)}" text-anchor="end">${v}%</text>`,
    );
  }

  // The line breaks where a week was not measured.
  const runs: string[][] = [];
  let run: string[] = [];
  weeks.forEach((w, i) => {
    if (w.score === null) {
      if (run.length > 0) runs.push(run);
      run = [];
    } else run.push(`${fixed(x(i))},${fixed(y(w.score))}`);
  });
  if (run.length > 0) runs.push(run);
  const lines = runs.map((points) => (points.length > 1 ? html`<polyline class="line" points="${points.join(' ')}"/>` : null));

  const last = weeks.length - 1;
  // Up to 12 weeks every point is labelled; a longer history (the kept history, up to 2 years) labels every n-th, counted from the latest.
  const every = Math.ceil(weeks.length / 12);
  const points = weeks.map((w, i) => {
    const latest = i === last;
    const labelled = (last - i) % every === 0;
    const cx = fixed(x(i));
    const xLabel = labelled ? html`<text class="${((last - i) / every) % 2 === 1 ? 'xl odd' : 'xl'}" x="${cx}" y="${CHART.height - 12}" text-anchor="middle">${w.label}</text>` : null;
    if (w.score === null) {
      return html`<g class="point" data-week="${w.week_start}" data-score="">${labelled ? html`<text class="val none" x="${cx}" y="${fixed(bottom - 8)}" text-anchor="middle">–</text>` : null}${xLabel}</g>`;
    }
    const cy = y(w.score);
    // The label sits above its point, or below it when the point is at the top of the scale.
    const labelY = cy - CHART.top < 20 ? cy + 24 : cy - 12;
    const value = labelled ? html`<text class="${latest ? 'val latest' : 'val'}" x="${cx}" y="${fixed(labelY)}" text-anchor="middle">${w.score.toFixed(1)}</text>` : null;
    return html`<g class="${latest ? 'point latest' : 'point'}" data-week="${w.week_start}" data-score="${w.score.toFixed(1)}"><circle cx="${cx}" cy="${fixed(cy)}" r="${latest ? 7 : every > 1 ? 3 : 5}"/>${value}${xLabel}</g>`;
  });

  const first = weeks[0];
  const latest = weeks[last];
  const desc =
    measured.length === 0
      ? 'No week was measured.'
      : `Weeks of ${first ? first.label : ''} to ${latest ? latest.label : ''}, on a scale from ${scale.lo}% to ${scale.hi}%: lowest ${Math.min(...measured.map((w) => w.score)).toFixed(1)}%, highest ${Math.max(...measured.map((w) => w.score)).toFixed(1)}%, latest ${latest?.score == null ? 'not measured' : `${latest.score.toFixed(1)}%`}.${tableBelow ? ' The table below lists every week.' : ''}`;
  return html`<svg class="chart" viewBox="0 0 ${CHART.width} ${CHART.height}" role="img" aria-labelledby="chart-title chart-desc" data-testid="chart" data-scale-lo="${scale.lo}" data-scale-hi="${scale.hi}">
<title id="chart-title">${brand}: AI visibility by week, last ${weeks.length} weeks</title>
<desc id="chart-desc">${desc}</desc>
${grid}${lines}${points}
</svg>`;
}

/** The chart's CSS (colours from the page's custom properties). */
export const CHART_STYLE = `
.chart{width:100%;height:auto;display:block}
.chart text{font-family:inherit;font-size:13px;fill:var(--muted)}
.chart .xl{font-size:12px}
.chart .val{fill:var(--ink)}
.chart .val.latest{font-weight:700}
.chart .grid{stroke:var(--rule);stroke-width:1}
.chart .line{fill:none;stroke:var(--accent);stroke-width:3;stroke-linejoin:round}
.chart circle{fill:var(--accent);stroke:var(--page);stroke-width:2}
.chart .latest circle{fill:var(--accent-strong)}
@media (max-width:520px){
.chart text,.chart .xl{font-size:19px}
.chart .val{font-size:18px}
.chart .xl.odd{display:none}
}
`;

/**
 * The 12 weeks in a glance (the account's overview): a small line on the chart's scale, the latest week a dot; the
 * figures are in its label for a screen reader, and in the report one click away.
 */
export function sparklineSvg(bars: readonly ChartBar[], label: string): Markup {
  const points = bars.flatMap((bar, i) => (bar.score === null ? [] : [{ i, score: bar.score }]));
  if (points.length < 2) return html``;
  const scale = chartScale(points.map((p) => p.score));
  const [width, height] = [120, 28];
  const x = (i: number) => ((i / Math.max(1, bars.length - 1)) * (width - 6) + 3).toFixed(1);
  const y = (score: number) => (height - 3 - ((score - scale.lo) / (scale.hi - scale.lo)) * (height - 6)).toFixed(1);
  const last = points.at(-1)!;
  const words = `${label}: ${points.map((p) => `${p.score.toFixed(1)}%`).join(', ')}`;
  return html`<svg class="spark" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${words}"><polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${points.map((p) => `${x(p.i)},${y(p.score)}`).join(' ')}"/><circle cx="${x(last.i)}" cy="${y(last.score)}" r="2.5" fill="currentColor"/></svg>`;
}
