/**
 * The MCP tools, generated from the contract table: one per operation (a new
 * operation in src/contract/operations.ts is a new tool, with no edit here),
 * plus `weekly_report` (weekly.ts). A tool's name is its operation id in
 * snake_case (`getAiCrawlers` -> `get_ai_crawlers`) and its title the
 * operation's summary. Everything a tool says travels in `tools/list`, which
 * must stay under `TOOLS_LIST_MAX_BYTES` for all of them together, so each
 * part is short:
 *
 * - the description says when to use the tool (`USE`, or the first sentence
 *   of the operation's description), then its window and plan needs;
 * - the input schema is the operation's path and query parameters as JSON
 *   Schema (`paramJsonSchema`, as the OpenAPI document gives them: numbers
 *   are integers with their bounds, not the decimal text they are on the
 *   wire), with `offset` for a tool whose result is a list (pages.ts). The
 *   parameters every operation shares (`brand_id`, `market`, the window's
 *   `days`, `from`, `to`) are described once, in the server's instructions;
 * - the output schema is the outline of the operation's response (schemas.ts).
 */
import { fromJsonSchema, type StandardSchemaWithJSON, type ToolAnnotations } from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import type { JsonObject } from '../contract/openapi';
import { type AnyOperation, type OperationId, operationList } from '../contract/operations';
import { paramJsonSchema } from '../contract/param-json-schema';
import { BRAND_MARKET_PARAMS, type Params } from '../contract/params';
import { windowParams } from '../contract/window';
import { OFFSET_ARG, OFFSET_INPUT } from './pages';
import { outputSchemaOf } from './schemas';

/** The most `tools/list` may weigh, in bytes of its JSON (DESIGN section 9): what a client puts in the model's context before any question. */
export const TOOLS_LIST_MAX_BYTES = 20 * 1024;

/**
 * Every tool only reads, and the same call answers the same until the data
 * changes; nothing outside the key's account is reached. (`destructiveHint`
 * means nothing beside `readOnlyHint: true`, and `tools/list` has no byte to spare.)
 */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** The JSON Schema clients see in `tools/list`. */
  inputJson: JsonObject;
  /** The same schema as the SDK validates arguments with (`@cfworker/json-schema`: ajv generates code, which workerd forbids). */
  input: StandardSchemaWithJSON<Record<string, unknown>>;
  /** The JSON Schema of `structuredContent`, which the SDK checks every result against. */
  outputJson: JsonObject;
  output: StandardSchemaWithJSON<Record<string, unknown>>;
}

export interface OperationTool extends ToolDefinition {
  operation: OperationId;
  /** The dotted path of the result's list (`csv.rows` of the table), paged with `offset`. */
  rows?: string;
}

/** `getAiCrawlers` -> `get_ai_crawlers`. */
export const toolName = (operationId: OperationId | string): string => operationId.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * When to use each tool, in a sentence: what an assistant needs to choose it
 * (the operation's own description, in the OpenAPI document, says every
 * rule). An operation without one is described by its description's first
 * sentence.
 */
const USE: Partial<Record<OperationId, string>> = {
  listBrands: "The key's brands and markets: first when the key has several brands.",
  listMarkets: "A brand's markets: codes, languages, the primary one.",
  listAnswers: 'The tracked questions: the exact `prompt` of get_answer_runs.',
  getOverview: 'The home view: visibility, share of voice against the top rivals, perception, cited pages, weakest topics, traffic, open tasks.',
  getVisibility: 'The visibility score, its change and 12 weekly points: the trend.',
  listTopics: 'Visibility per topic with its rank and the rivals AI names: weak topics, rivals.',
  getTopic: "One topic: each question's latest answer per engine, head-to-heads, sources.",
  getPromptMatrix: "Each question's answer state per engine: to compare engines.",
  getAnswerRuns: 'Every answer to one question, in full: to quote what AI says.',
  getAnswerHistory: 'Questions won, lost or held against the week before.',
  getContentGaps: "Per question: the brand's page, whether AI cites it, and write, improve or leave.",
  listSources: 'The domains AI cites: own, competitor or third party.',
  listPages: "The brand's pages AI cites, and what it cites instead.",
  getCompetitor: 'One rival (named in list_topics): the topics and questions it wins, what AI said.',
  listActivity: 'Recent events, newest first.',
  listTasks: 'What to do next, best first.',
  getTask: "One task's brief: why, steps, evidence.",
  getBrandPerception: 'Per engine: does AI know and recommend the brand, and what it gets wrong.',
  getPerceptionTranscript: "The perception questions and each engine's answers in full.",
  getForumSignals: 'Forum threads AI cites, per topic.',
  getSearchPerformance: 'Search clicks, impressions and position, joined to AI citations.',
  getAiCrawlers: 'AI crawler hits on the site, per bot and page.',
  getAiVisitors: 'Visits referred by AI assistants, per assistant and page.',
};

const firstSentence = (text = '') => /^.*?\.(?=\s|$)/s.exec(text)?.[0] ?? text;

/** Window and plan needs, in the fewest words (the OpenAPI document says them in full: `operationNotes`). */
function needs(op: Pick<AnyOperation, 'window' | 'plan' | 'integration'>): string[] {
  return [
    op.window.kind === 'fixed' ? `The last ${op.window.days} days.` : '',
    op.plan === 'pro_or_growth' ? 'Pro and Growth plans.' : '',
    op.integration ? `Needs the ${op.integration.replace('_', ' ')} integration.` : '',
  ].filter(Boolean);
}

/** The parameters every operation shares: described once, in the server's instructions (server.ts), not on each tool. */
const SHARED_PARAMS: ReadonlySet<string> = new Set([...Object.keys(BRAND_MARKET_PARAMS), ...Object.keys(windowParams({ kind: 'dated', defaultDays: 7 }))]);

/** A bound that only keeps ids in SQLite's range says nothing to an assistant. */
const ID_MAX = 2_147_483_647;

/**
 * The JSON Schema of an object of parameters: each parameter's own schema,
 * required when the parameter may not be absent, and no other property. The
 * shared parameters keep their schema and lose their description; a pattern
 * the API checks anyway (`market`, dates) is left to it.
 */
export function inputSchemaOf(...sets: Params[]): JsonObject {
  const properties: Record<string, JsonObject> = {};
  const required: string[] = [];
  for (const params of sets) {
    for (const [name, param] of Object.entries(params)) {
      const { pattern: _, ...checked } = paramJsonSchema(param);
      if (checked.maximum === ID_MAX) delete checked.maximum;
      properties[name] = SHARED_PARAMS.has(name) ? checked : { ...checked, description: param.description };
      if (param.presence === 'required') required.push(name);
    }
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

const validator = new CfWorkerJsonSchemaValidator();

/** A tool's definition from its JSON Schemas. */
export function toolDefinition(o: { name: string; title: string; description: string; inputJson: JsonObject; outputJson: JsonObject }): ToolDefinition {
  return { ...o, input: fromJsonSchema<Record<string, unknown>>(o.inputJson, validator), output: fromJsonSchema<Record<string, unknown>>(o.outputJson, validator) };
}

function operationTool(op: AnyOperation & { id: OperationId }): OperationTool {
  const rows = op.csv?.rows;
  const inputJson = inputSchemaOf(op.params.path, op.params.query);
  if (rows) {
    const properties = inputJson.properties as Record<string, JsonObject>;
    if (properties[OFFSET_ARG]) throw new Error(`${op.id} has a parameter \`${OFFSET_ARG}\`, which the MCP tools use for pages`);
    properties[OFFSET_ARG] = OFFSET_INPUT;
  }
  return {
    operation: op.id,
    ...(rows ? { rows } : {}),
    ...toolDefinition({
      name: toolName(op.id),
      title: op.summary,
      description: [USE[op.id] ?? firstSentence(op.description ?? op.summary), ...needs(op)].join(' '),
      inputJson,
      outputJson: outputSchemaOf(op),
    }),
  };
}

let operationTools: readonly OperationTool[] | undefined;

/** One tool per operation of the contract table, built once per isolate. */
export function toolsOfOperations(): readonly OperationTool[] {
  operationTools ??= operationList.map(operationTool);
  return operationTools;
}
