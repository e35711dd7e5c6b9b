/**
 * `weekly_report`: the weekly report of one brand in one market, the model
 * the digest email and the report page are built from (src/weekly-report):
 * the lead, the visibility score and its change against the sampling noise,
 * each engine's figures, the topics that moved, and the questions won and
 * lost. Read as the report page reads it (`readWeek`, then `reportOf`): four
 * reads through the key's cache, for the same 7 days. A part the Read API
 * does not provide is left out and said in one line (`report.not_provided`).
 */
import type { ApiClient } from '../client';
import { brandIdParam, marketParam } from '../contract/params';
import { countOf, formatPercent, formatRange, formatSigned, formatTrend, readWeek, type Report, reportOf, type ReportSource } from '../weekly-report';
import { bodyResult, failureResult } from './results';
import { inputSchemaOf, toolDefinition } from './tools';

export const weeklyReportTool = toolDefinition({
  name: 'weekly_report',
  title: 'Get the weekly report',
  description: [
    'The weekly report of one brand in one market over the trailing 7 days, as the weekly digest email says it: `report.lead` (one sentence naming the change to act on), `report.visibility` (the score, its change in points against the 7 days before, and whether that change is beyond the sampling noise: `trend` up, down or steady), `report.engines` (per AI engine: questions whose answers name the brand now and a week ago, gained, lost), `report.topics` (the topics that moved most) and `report.won_lost` (the questions won and lost against the week before, counts and lists).',
    '`report.not_provided` lists the parts the Read API does not provide (the 12-week history, per-engine answers, topics...), each with the line that says what is left out. `source` says when the figures were read and whether from the edge cache. Every plan. Fixed window: no date parameters.',
  ].join('\n\n'),
  inputJson: inputSchemaOf({ brand_id: brandIdParam, market: marketParam }),
});

/** The report in a few lines: what an assistant quotes. */
export function reportText(report: Report): string {
  const lines = [`${report.brand.name}, market ${report.market.code}, ${formatRange(report.period)}.`, report.lead.headline];
  const { visibility, won_lost: wonLost } = report;
  if (visibility) lines.push(`Visibility ${formatPercent(visibility.score)} (${formatTrend(visibility.change, visibility.trend)} against the week before, ${countOf(visibility.answered_runs, 'answered run')}).`);
  const engines = report.engines.filter((e) => e.naming !== null && e.answered !== null);
  if (engines.length > 0)
    lines.push(`Per engine, questions naming the brand: ${engines.map((e) => `${e.engine_label} ${e.naming} of ${e.answered}${e.change === null ? '' : ` (${formatSigned(e.change)})`}`).join(', ')}.`);
  if (wonLost) lines.push(`Questions won ${wonLost.counts.won}, lost ${wonLost.counts.lost}, held ${wonLost.counts.held}.`);
  lines.push(...report.not_provided.map((p) => p.line));
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
