/**
 * How the weekly report writes its figures, in one place, so the subject, the
 * lead, the email and the page say them the same way: one date format
 * (`16 Nov 2026`, ranges `16–22 Nov 2026`), numbers with separators
 * (`1,719`), changes with their unit (`+2.1 pts`, `−3.3 pts`), and `steady`
 * for a change within the sampling noise, and how a question's engines moved
 * (`movedLine`). Pure functions with no import, so the MCP App's browser
 * bundle (src/mcp/app) writes the figures as the email does.
 */

export type Trend = 'up' | 'down' | 'steady' | 'unknown';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The real minus sign: screen readers say "minus", and it lines up with `+`. */
export const MINUS = '\u2212';

const parts = (day: string) => {
  const [year, month, date] = day.split('-');
  return { year: Number(year), month: MONTHS[Number(month) - 1]!, date: Number(date) };
};

/** `2026-11-16` as `16 Nov` (the page's and the chart's short form; the email writes `formatDay`). */
export function shortDay(day: string): string {
  const { month, date } = parts(day);
  return `${date} ${month}`;
}

/** `2026-11-16` as `16 Nov 2026`: the one date format of the email. */
export function formatDay(day: string): string {
  const { year, month, date } = parts(day);
  return `${date} ${month} ${year}`;
}

/** A period as `16–22 Nov 2026`, `30 Nov–6 Dec 2026` across months, `28 Dec 2026–3 Jan 2027` across years. */
export function formatRange(period: { from: string; to: string }): string {
  const a = parts(period.from);
  const b = parts(period.to);
  if (a.year !== b.year) return `${formatDay(period.from)}–${formatDay(period.to)}`;
  if (a.month !== b.month) return `${a.date} ${a.month}–${formatDay(period.to)}`;
  return `${a.date}–${formatDay(period.to)}`;
}

/** An ISO timestamp as `23 Nov 2026, 16:12 UTC`. */
export function formatStamp(iso: string): string {
  return `${formatDay(iso.slice(0, 10))}, ${iso.slice(11, 16)} UTC`;
}

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** `1719` as `1,719`. */
export const formatCount = (n: number): string => COUNT.format(n);

/** `3 questions`, `1 question`, with separators. */
export const countOf = (n: number, noun: string, nouns = `${noun}s`): string => `${formatCount(n)} ${n === 1 ? noun : nouns}`;

/** `56.8%`, or `not measured`. */
export const formatPercent = (score: number | null): string => (score === null ? 'not measured' : `${score.toFixed(1)}%`);

/** A change in points with its unit and sign: `+2.1 pts`, `−3.3 pts`. */
export function formatPoints(change: number): string {
  const size = Math.abs(change).toFixed(1);
  if (size === '0.0') return '0.0 pts';
  return `${change > 0 ? '+' : MINUS}${size} pts`;
}

/** A change as the reader should take it: `+2.1 pts`, `−3.3 pts`, `steady` within the noise, `no comparison` without a week before. */
export function formatTrend(change: number | null, trend: Trend): string {
  if (change === null || trend === 'unknown') return 'no comparison';
  if (trend === 'steady') return 'steady';
  return formatPoints(change);
}

/** A signed count: `+2`, `−1`, `0`. */
export function formatSigned(n: number): string {
  if (n === 0) return '0';
  return `${n > 0 ? '+' : MINUS}${formatCount(Math.abs(n))}`;
}

/** `A`, `A and B`, `A, B and C`. */
export const joinNames = (names: readonly string[]): string => (names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/** `“text”`: a question as quoted in a sentence. */
export const quoted = (text: string): string => `“${text}”`;

/** Ends a sentence with a full stop unless it already ends with one (a quoted question ends with `?”`). */
export const sentence = (text: string): string => (/[.?!][”"]?$/.test(text) ? text : `${text}.`);

/** `Brightdesk's`. */
export const possessive = (name: string): string => `${name}’s`;

/** What `movedLine` reads of a question's move; model.ts's `QuestionMove` extends it (declared here, so this module imports nothing). */
export interface MoveWords {
  outcome: 'won' | 'lost';
  engines_naming_now: number;
  engines_naming_before: number;
  engines: readonly { engine_label: string; direction: 'gained' | 'lost'; top_rival: string | null }[];
}

/** How the engines of a question moved, in words: `No longer named by Claude and Gemini (now 2 of 6 engines); Helpwave is named instead.` */
export function movedLine(q: MoveWords, engineCount: number): string {
  const way = q.outcome === 'won' ? 'gained' : 'lost';
  const main = q.engines.filter((e) => e.direction === way).map((e) => e.engine_label);
  const other = q.engines.filter((e) => e.direction !== way).map((e) => e.engine_label);
  const of = `${q.engines_naming_now} of ${engineCount} engines`;
  // A service that does not say which engines moved: only how many name the brand.
  if (q.engines.length === 0) return `Named by ${of} now, ${q.engines_naming_before} the week before.`;
  if (q.outcome === 'won') return `Now named by ${joinNames(main)} (${of})${other.length > 0 ? `; no longer by ${joinNames(other)}` : ''}.`;
  const rivals = [...new Set(q.engines.filter((e) => e.direction === way && e.top_rival).map((e) => e.top_rival!))];
  return `No longer named by ${joinNames(main)} (now ${of})${other.length > 0 ? `; now named by ${joinNames(other)}` : ''}${rivals.length > 0 ? `; ${joinNames(rivals)} ${rivals.length === 1 ? 'is' : 'are'} named instead` : ''}.`;
}

/** What `scoreNote` reads of the visibility section; model.ts's `VisibilitySection` extends it. */
export interface ScoreWords {
  score: number | null;
  previous: number | null;
  change: number | null;
  /** One standard error of the change, in points (model.ts's module comment); null when either week is unmeasured. */
  noise: number | null;
  trend: Trend;
  answered_runs: number;
  naming_runs: number;
}

/** The line under the score: against the week before, the noise, and the answers behind it. */
export function scoreNote(vis: ScoreWords, brand: string, periodLabel: string): string {
  if (vis.score === null) return `No AI answer came back in ${periodLabel}.`;
  const answers = `${formatCount(vis.naming_runs)} of ${countOf(vis.answered_runs, 'AI answer')} named ${brand}.`;
  if (vis.previous === null || vis.change === null) return `The week before was not measured. ${answers}`;
  const noise = vis.noise === null ? null : `±${vis.noise.toFixed(1)} pts`;
  if (vis.trend === 'steady') return `${formatPoints(vis.change)} on ${formatPercent(vis.previous)} the week before: within sampling noise${noise ? ` (${noise})` : ''}, so steady. ${answers}`;
  return `${vis.trend === 'up' ? 'Up' : 'Down'} from ${formatPercent(vis.previous)} the week before${noise ? `; sampling noise is ${noise}` : ''}. ${answers}`;
}
