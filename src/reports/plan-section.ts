/**
 * The week's plan on the report page (`Report.plan`, src/weekly-report/plan.ts):
 * every item, best first, each with what to do, why, the task's expected gain
 * and effort, the pages to work on, and the questions it answers with the
 * rival that took each and the brand's page. Right after the score (after
 * the lead when the report has no score): what happened, how much, then what
 * to do about it.
 */
import { EMPTY, html, type Markup } from '../lib/html';
import { type PlanItem, type PlanQuestion, type Report, taskWords } from '../weekly-report/model';

const PLAN_STYLE = `
ol.plan{padding-left:0;list-style:none;margin:8px 0 0;counter-reset:plan}
ol.plan>li{border:1px solid var(--rule);border-radius:6px;padding:10px 14px;margin:0 0 12px;counter-increment:plan}
ol.plan>li>.what{font-weight:700;margin:0 0 4px;overflow-wrap:anywhere}
ol.plan>li>.what::before{content:counter(plan) ". "}
ol.plan ul.steps{margin:6px 0 0;padding-left:20px;font-size:15px}
ol.plan details{margin:6px 0 0;font-size:14px}
ol.plan details ul{padding-left:20px;margin:4px 0 0}
ol.plan .task{font-size:14px;margin:2px 0 0}
`;
export { PLAN_STYLE };

const actionWords: Record<NonNullable<PlanQuestion['action']>, string> = { write: 'no page: write one', improve: 'page not cited: improve it', leave: 'page cited: leave it' };

function questionLine(q: PlanQuestion): Markup {
  const how = q.outcome === 'lost' ? `lost${q.engines.length > 0 ? ` on ${q.engines.join(', ')}` : ''}${q.rivals.length > 0 ? `, to ${q.rivals.join(', ')}` : ''}` : 'won back, still weak';
  const page = q.page ? html` · <a href="${q.page.url}">${q.page.title || q.page.url}</a>` : EMPTY;
  const action = q.action ? ` · ${actionWords[q.action]}` : '';
  return html`<li data-question-id="${q.question_id}">“${q.text}” <span class="small">(${how}${action})</span>${page}</li>`;
}

function itemMarkup(item: PlanItem): Markup {
  const steps = item.steps.length > 0 ? html`<ul class="steps">${item.steps.map((step) => html`<li>${step}</li>`)}</ul>` : EMPTY;
  const task = item.task ? html`<p class="task small" data-task-id="${item.task.id}">Task: ${taskWords(item.task)}</p>` : EMPTY;
  const questions = item.questions.length === 1 ? 'the question' : `the ${item.questions.length} questions`;
  return html`<li data-plan-item="${item.key}"><p class="what">${item.headline}</p><p class="small">${item.why}</p>${task}${steps}<details><summary>${questions}</summary><ul>${item.questions.map(questionLine)}</ul></details></li>`;
}

/** The section, or nothing when the report has no plan (no won and lost questions, or a week with nothing measured). */
export function planSection(report: Report): Markup {
  const plan = report.plan;
  if (!plan) return EMPTY;
  const lines = plan.lines.map((line) => html`<p class="small" data-testid="plan-line">${line}</p>`);
  const body =
    plan.items.length === 0
      ? html`<p>No question was lost this week, and none won is still weak: nothing to win back.</p>`
      : html`<p class="small">${plan.ranking}</p><ol class="plan" data-testid="plan">${plan.items.map(itemMarkup)}</ol>`;
  return html`<section aria-labelledby="h-plan" data-testid="plan-section"><h2 id="h-plan">This week’s plan</h2>${body}${lines}</section>`;
}
