/**
 * The prompts: a weekly review, a competitor radar, an engine scorecard and a
 * content plan, each a message that tells the assistant which tools to call,
 * with which arguments, and how to present what they answer. Their
 * arguments are strings (MCP prompts take no other): `brand` (a name or an
 * id), `market` (a code) and, for the radar, `competitor`; each is one of
 * the SDK's `completable` arguments, so the SDK answers `completion/complete`
 * (its answers, its errors) with our completers (completions.ts), which read
 * with the request's key. The brand is resolved when
 * the prompt is got, with one cached read of `GET /brands`, so the message
 * gives the tools `brand_id` itself.
 */
import { completable, type GetPromptResult, type McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { type ApiClient, ApiClientError, toApiError } from '../client';
import type { TaskLayer } from '../contract/enums';
import type { OperationId } from '../contract/operations';
import { type Brand, brandNamed, type Completers, completers } from './completions';
import { OFFSET_ARG, PAGE_FIELD } from './pages';
import { toolName } from './tools';
import { weeklyReportTool } from './weekly';

/** What a prompt's message is written for: the brand resolved (none when the key has several and none was named), the market and rival as given. */
interface Target {
  brand?: Brand;
  market?: string;
  competitor?: string;
}

interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  /** Whether it takes `competitor`. */
  competitor?: boolean;
  text: (target: Target) => string;
}

/** A tool of the contract table by its operation id: a renamed operation fails the typecheck here. */
const tool = (id: OperationId) => `\`${toolName(id)}\``;

/** The arguments a message passes to every tool: `brand_id` and `market` when chosen. */
function scopeArgs({ brand, market }: Target, extra: Record<string, string | number> = {}): string {
  return JSON.stringify({ ...(brand ? { brand_id: brand.id } : {}), ...(market ? { market } : {}), ...extra });
}

function who({ brand, market }: Target): string {
  const where = market ? `in the market \`${market}\`` : 'in its primary market';
  if (brand) return `${brand.name} (brand_id ${brand.id}) ${where}`;
  return `the brand the user means ${where} (this key reads several: call ${tool('listBrands')}, ask which one, and pass its \`brand_id\` to every tool)`;
}

const EVERY_PAGE = `read every page: while \`${PAGE_FIELD}.next_offset\` is a number, call again with \`${OFFSET_ARG}\` set to it`;

export const PROMPTS: readonly PromptDefinition[] = [
  {
    name: 'weekly_review',
    title: 'Weekly review',
    description: "How AI answer engines treated the brand this week: the lead, the score against the noise, each engine, the questions won and lost, and the week's plan to win them back.",
    text: (t) =>
      [
        `Review how AI answer engines treated ${who(t)} this week.`,
        `1. Call \`${weeklyReportTool.name}\` with ${scopeArgs(t)}.`,
        `2. Call ${tool('getAnswerHistory')} with ${scopeArgs(t)} for the questions won and lost (${EVERY_PAGE}).`,
        'Then write the review:',
        '- Open with `report.lead.headline`.',
        '- The visibility score and its change in points against the week before. Say whether the change is beyond the sampling noise (`report.visibility.trend`); never call a steady change a rise or a fall.',
        '- A table with one row per engine: questions naming the brand now and a week before, gained, lost.',
        '- The questions lost, then won (at most 5 each), each with the engines that moved and the rival named instead (`moved[].top_rival`).',
        '- If `report.not_provided` is not empty, say in one line what the service does not provide.',
        "- End with the plan: its first three items in its order, as the result's text gives them, each with what to do, why (the questions lost and the rivals that took them), the task with its expected gain and effort where there is one, and the page work; say how they are ranked (`report.plan.ranking`) and each line of `report.plan.lines`. `report.plan.items` holds their ids to act on: `task.id` for the task, `question_ids` for the questions.",
      ].join('\n'),
  },
  {
    name: 'competitor_radar',
    title: 'Competitor radar',
    description: 'Where one rival beats the brand in AI answers: the topics and questions it wins, what AI says about it, the pages AI cites for it.',
    competitor: true,
    text: (t) =>
      [
        `Build a competitor radar for ${who(t)} against ${t.competitor ? `the rival ${t.competitor}` : 'its strongest rival'}.`,
        `1. Call ${tool('listTopics')} with ${scopeArgs(t)}: each topic's score, the brand's rank and the rivals AI names, with their share.`,
        ...(t.competitor ? [] : ['   Take the rival named in the most topics with the highest share, and say which one you took.']),
        `2. Call ${tool('getCompetitor')} with ${scopeArgs(t, { name: t.competitor ?? '<that rival>' })}: the topics it wins and by how many points, the questions it wins with what AI said, and its pages AI cites.`,
        'Then present:',
        "- A table of the topics: the brand's share against the rival's, and who leads.",
        '- The questions the rival wins, each with the engines that named it and a short quote of what AI said.',
        "- The rival's pages AI cites, and what the brand would have to publish to be cited instead.",
        '- Three moves to win back the topics that matter most.',
      ].join('\n'),
  },
  {
    name: 'engine_scorecard',
    title: 'Engine scorecard',
    description: 'One row per AI engine: how often it recommends, mentions or leaves out the brand, and where it ranks it; the best and the weakest engine.',
    text: (t) =>
      [
        `Make an engine scorecard for ${who(t)} over the last 7 days.`,
        `1. Call ${tool('getPromptMatrix')} with ${scopeArgs(t)} (${EVERY_PAGE}).`,
        `2. Call ${tool('getBrandPerception')} with ${scopeArgs(t)}. It needs the Pro or Growth plan: on \`feature_not_in_plan\`, go on without it.`,
        "Then present one table with a row per engine: of the questions, how many it recommends the brand in, mentions it in, leaves it out of, and does not answer (the `state` of each question's cell for that engine); the share that names the brand; and the mean position where named. Add whether the engine knows and would recommend the brand, and its sentiment, when perception was read.",
        'Name the best and the weakest engine, and list up to 5 questions where the weakest one never names the brand.',
      ].join('\n'),
  },
  {
    name: 'content_plan',
    title: 'Content plan',
    description: "Pages to write or improve so AI cites the brand, from the questions it answers without the brand's pages, with the matching tasks.",
    text: (t) =>
      [
        `Draft a content plan for ${who(t)}: the pages to write or improve so that AI answers cite the brand.`,
        `1. Call ${tool('getContentGaps')} with ${scopeArgs(t)} (${EVERY_PAGE}).`,
        `2. Call ${tool('listTasks')} with ${scopeArgs(t, { layer: 'content' satisfies TaskLayer })}. It needs the Pro or Growth plan: on \`feature_not_in_plan\`, go on without tasks.`,
        "Then present the plan, grouped by topic, most valuable first, at most 10 items: each question whose action is `write` (no page) or `improve` (a page AI does not cite), the brand's visibility on it, and what the page must answer; with the content tasks that match, their expected gain and effort.",
        'End with one line on the questions to `leave` as they are (pages AI already cites).',
      ].join('\n'),
  },
];

/** What each argument says (in `prompts/list`). */
const DESCRIPTIONS = {
  brand: "The brand's name or id (default: the key's only brand).",
  market: 'A market code such as `us` or `de` (default: the primary market).',
  competitor: "A rival's name as AI writes it (default: the strongest rival).",
};
type ArgumentName = keyof typeof DESCRIPTIONS;

/**
 * The prompts' argument schemas for one server, all optional, each argument completed by `complete` (the
 * request's completers). Built for each server, as `completable` marks the schema it is given with its
 * completer; each argument's schema once, and each set of arguments once (three prompts share one).
 */
function argsSchemasOf(complete: Completers) {
  const argument = (name: ArgumentName, completer: (typed: string, context?: { arguments?: Record<string, string> }) => Promise<string[]>) =>
    completable(z.string().describe(DESCRIPTIONS[name]), completer).optional();
  const brand = argument('brand', (typed) => complete.brand(typed));
  const market = argument('market', (typed, context) => complete.market(typed, context?.arguments));
  const competitor = argument('competitor', (typed, context) => complete.competitor(typed, context?.arguments));
  const withoutCompetitor = z.object({ brand, market });
  const withCompetitor = z.object({ brand, market, competitor });
  return (prompt: PromptDefinition) => (prompt.competitor ? withCompetitor : withoutCompetitor);
}

/**
 * The brand `value` names, or none when it names none and the key has several.
 * A name the key does not read, or a key the API refuses, is an error of the
 * request: there is no result to carry it, as a tool's has.
 */
async function brandOf(complete: Completers, value: string | undefined): Promise<Brand | undefined> {
  let brands: Brand[];
  try {
    brands = await complete.brands();
  } catch (error) {
    if (!(error instanceof ApiClientError)) throw error;
    const refusal = toApiError(error);
    throw new ProtocolError(ProtocolErrorCode.InternalError, `${refusal.status} ${refusal.code}: ${refusal.message}`);
  }
  const brand = brandNamed(brands, value);
  if (value?.trim() && !brand) {
    const names = brands
      .slice(0, 10)
      .map((b) => b.name)
      .join(', ');
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `This key reads no brand "${value.trim()}": it reads ${names}${brands.length > 10 ? ', ...' : ''}.`);
  }
  return brand;
}

/**
 * Every prompt on a request's server, resolving and completing with the request's key (`client`). The SDK
 * declares `completions` and answers `completion/complete` from the arguments' completers.
 */
export function registerPrompts(server: McpServer, client: ApiClient): void {
  const complete = completers(client);
  const argsSchemaOf = argsSchemasOf(complete);
  for (const prompt of PROMPTS) {
    server.registerPrompt(
      prompt.name,
      { title: prompt.title, description: prompt.description, argsSchema: argsSchemaOf(prompt) },
      async (args: { brand?: string; market?: string; competitor?: string }): Promise<GetPromptResult> => {
        const brand = await brandOf(complete, args.brand);
        const target: Target = {
          ...(brand ? { brand } : {}),
          ...(args.market?.trim() ? { market: args.market.trim().toLowerCase() } : {}),
          ...(args.competitor?.trim() ? { competitor: args.competitor.trim() } : {}),
        };
        return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text: prompt.text(target) } }] };
      },
    );
  }
}
