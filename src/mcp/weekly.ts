/**
 * `weekly_report`: the weekly report of one brand in one market, the model
 * the digest email and the report page are built from (src/weekly-report):
 * the lead, the visibility score and its change against the sampling noise,
 * each engine's figures, the topics that moved, and the questions won and
 * lost, and the week's plan. Read as the report page reads it (`readWeek`,
 * then `reportOf`): seven reads through the key's cache, for the same 7 days. A part the Read API
 * does not provide is left out and said in one line (`report.not_provided`).
 */
import type { ApiClient } from '../client';
import type { JsonObject } from '../contract/openapi';
import { BRAND_MARKET_PARAMS } from '../contract/params';
import { countOf, formatPercent, formatRange, formatSigned, formatTrend, implausibleWarning, planLines, readWeek, type Report, reportOf, type ReportSource } from '../weekly-report';
import { bodyResult, failureResult } from './results';
import { inputSchemaOf, toolDefinition } from './tools';

const OBJECT = { type: 'object' };
const ARRAY = { type: 'array' };
const STRING = { type: 'string' };
const orNull = (schema: JsonObject) => ({ ...schema, type: [schema.type, 'null'] });

/**
 * The outline of `report` (schemas.ts says why an outline): its fields, each
 * typed; `lead.headline` is the sentence to quote. Typed against `Report`, so
 * a field added to the model and not here fails the typecheck.
 */
const REPORT_FIELDS = {
  brand: OBJECT,
  market: OBJECT,
  kinds: ARRAY,
  week: OBJECT,
  period: OBJECT,
  period_label: STRING,
  generated_at: STRING,
  empty: orNull(STRING),
  lead: { type: 'object', properties: { headline: STRING } },
  visibility: orNull(OBJECT),
  topics: ARRAY,
  won_lost: orNull(OBJECT),
  plan: orNull(OBJECT),
  engines: ARRAY,
  subject: STRING,
  not_provided: ARRAY,
  implausible: ARRAY,
} satisfies Record<keyof Report, JsonObject>;

export const weeklyReportTool = toolDefinition({
  name: 'weekly_report',
  title: 'Get the weekly report',
  description:
    "The week as the digest email says it: the lead, the score and whether its change is beyond the noise, each engine, topics that moved, questions won and lost, and the plan: per lost question the rival that took it, the brand's page and what to do with it, the domains AI cites instead and the task that would win it back, best first (`report.plan.items`). The last 7 days. When `report.implausible` is not empty the figures break a rule the Read API keeps and some are wrong: say so before quoting any.",
  inputJson: inputSchemaOf(BRAND_MARKET_PARAMS),
  outputJson: { type: 'object', properties: { report: { type: 'object', properties: REPORT_FIELDS }, source: OBJECT } },
});

/** The report in a few lines: what an assistant quotes. */
export function reportText(report: Report): string {
  const warning = implausibleWarning(report.implausible);
  const lines = [
    ...(warning ? [warning.headline, ...warning.lines.map((line) => `- ${line}`)] : []),
    `${report.brand.name}, market ${report.market.code}, ${formatRange(report.period)}.`,
    report.lead.headline,
  ];
  const { visibility, won_lost: wonLost } = report;
  if (visibility)
    lines.push(`Visibility ${formatPercent(visibility.score)} (${formatTrend(visibility.change, visibility.trend)} against the week before, ${countOf(visibility.answered_runs, 'answered run')}).`);
  const engines = report.engines.filter((e) => e.naming !== null && e.answered !== null);
  if (engines.length > 0)
    lines.push(`Per engine, questions naming the brand: ${engines.map((e) => `${e.engine_label} ${e.naming} of ${e.answered}${e.change === null ? '' : ` (${formatSigned(e.change)})`}`).join(', ')}.`);
  if (wonLost) lines.push(`Questions won ${wonLost.counts.won}, lost ${wonLost.counts.lost}, held ${wonLost.counts.held}.`);
  if (report.plan) lines.push(...planLines(report.plan));
  // The plan says its own parts' lines.
  lines.push(...report.not_provided.filter((p) => !report.plan?.lines.includes(p.line)).map((p) => p.line));
  return lines.join('\n');
}

/** The tool's call: `{ report, source }`, as `GET /reports/weekly?format=json` answers it. */
export async function weeklyReport(client: ApiClient, args: { brand_id?: number; market?: string }, now: Date) {
  try {
    const { inputs, source } = await readWeek(client, { brand_id: args.brand_id, market: args.market }, now);
    const report = reportOf(inputs);
    return bodyResult({ report, source: source satisfies ReportSource }, reportText(report));
  } catch (error) {
    return failureResult(error, weeklyReportTool.name);
  }
}
