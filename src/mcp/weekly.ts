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
import {
  countOf,
  formatPercent,
  formatRange,
  formatSigned,
  formatTrend,
  implausibleWarning,
  type PlanItem,
  type PlanSection,
  planLines,
  readWeek,
  type Report,
  reportOf,
  type ReportSource,
  type WonLostSection,
} from '../weekly-report';
import { bodyResult, failureResult } from './results';
import { nullable } from './schemas';
import { inputSchemaOf, toolDefinition } from './tools';

const OBJECT = { type: 'object' };
const ARRAY = { type: 'array' };
const STRING = { type: 'string' };

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
  empty: nullable(STRING),
  lead: { type: 'object', properties: { headline: STRING } },
  visibility: nullable(OBJECT),
  topics: ARRAY,
  won_lost: nullable(OBJECT),
  plan: nullable(OBJECT),
  engines: ARRAY,
  subject: STRING,
  not_provided: ARRAY,
  implausible: ARRAY,
} satisfies Record<keyof ToolReport, JsonObject>;

export const weeklyReportTool = toolDefinition({
  name: 'weekly_report',
  title: 'Get the weekly report',
  description:
    "The week as the digest email says it: the lead, the score and whether its change is beyond the noise, each engine, topics that moved, questions won and lost, and the plan: per lost question the rival that took it, the brand's page and what to do with it, the domains AI cites instead and the task that would win it back, best first (the text says the whole plan; `report.plan.items` holds its first items, `more_items` the rest's count; `get_answer_history` lists every question won and lost). The last 7 days. When `report.implausible` is not empty the figures break a rule the Read API keeps and some are wrong: say so before quoting any.",
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

/** The plan's items the structured content holds, best first; the text names every one. */
export const PLAN_ITEMS_HELD = 3;
/** The structured content's bound, checked by test/mcp.test.ts on the demo data (its size: docs/mcp.md). */
export const WEEKLY_STRUCTURED_MAX_BYTES = 9 * 1024;

/** The report as `weekly_report` holds it (`toolReport`). */
export type ToolReport = Omit<Report, 'won_lost' | 'plan'> & {
  won_lost: Omit<WonLostSection, 'won' | 'lost'> | null;
  plan: (Omit<PlanSection, 'items'> & { items: HeldPlanItem[]; more_items: number }) | null;
};

/** A plan item as the structured content holds it: what to do and the ids to act on; the text says why and its steps. */
export type HeldPlanItem = Omit<PlanItem, 'questions' | 'why' | 'steps' | 'task'> & {
  task: Omit<NonNullable<PlanItem['task']>, 'title'> | null;
  question_ids: number[];
};

/**
 * What `weekly_report` puts in `structuredContent`: what the MCP App shows and an assistant acts on, within a few
 * KB (docs/mcp.md; the whole report is about 30 KB, and a client puts it all in the model's context). The won and
 * lost questions the digest lists (`top_lost`, `top_won`) with the counts, not every question (`get_answer_history`
 * has them); the plan's first items, what to do with the task and the questions by id (the app shows no plan; why
 * and the page work, which quote the questions, are the text's). The text is the summary, the plan whole.
 */
export function toolReport(report: Report): ToolReport {
  const { won_lost: wonLost, plan } = report;
  return {
    ...report,
    won_lost: wonLost && { counts: wonLost.counts, period: wonLost.period, previous_period: wonLost.previous_period, top_lost: wonLost.top_lost, top_won: wonLost.top_won },
    plan: plan && {
      ...plan,
      items: plan.items.slice(0, PLAN_ITEMS_HELD).map(({ questions, why: _why, steps: _steps, task, ...item }) => ({
        ...item,
        task: task && { id: task.id, expected_gain: task.expected_gain, effort: task.effort },
        question_ids: questions.map((q) => q.question_id),
      })),
      more_items: Math.max(0, plan.items.length - PLAN_ITEMS_HELD),
    },
  };
}

/** The tool's call: `{ report, source }`, the report as `toolReport` holds it and how fresh it is, and the text that summarises it whole. */
export async function weeklyReport(client: ApiClient, args: { brand_id?: number; market?: string }, now: Date) {
  try {
    const { inputs, source } = await readWeek(client, { brand_id: args.brand_id, market: args.market }, now);
    const report = reportOf(inputs);
    // How fresh the figures are; not each read's (the report page's JSON has them), which no one acts on.
    const { reads: _reads, ...freshness } = source satisfies ReportSource;
    return bodyResult({ report: toolReport(report), source: freshness }, reportText(report));
  } catch (error) {
    return failureResult(error, weeklyReportTool.name);
  }
}
