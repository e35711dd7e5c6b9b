/**
 * The contract: every operation of the Read API v1, once. The origin's router,
 * the proxy, the typed client, the OpenAPI document, the tests, the fuzzing
 * and the benchmarks all read this table; adding an operation means adding
 * one entry here, with its example request. What an entry's fields mean, and
 * how generic code reads one: entry.ts.
 */
import type * as z from 'zod';
import { ACTIVITY_CATEGORIES, ENGINES, SEARCH_DIMENSIONS, TASK_LAYERS, TASK_STATUSES } from './enums';
import { type AnyOperation, operation, type ParamSource } from './entry';
import { enumParam, idParam, limitParam, type ParsedParams, textParam } from './params';
import type { WindowKind } from './window';

export { type AnyOperation, type CsvRows, documentedErrors, examplePath, type ExampleRequest, type IntegrationNeed, type OperationExample, type ParamSource, type PlanNeed, type Scope } from './entry';

const MINUTE = 60;
const HOUR = 60 * MINUTE;
/** Cache freshness (DESIGN section 6): windowed reads change as runs land; fixed windows are recomputed rarely. */
export const TTL = { windowed: 5 * MINUTE, fixed: HOUR, lists: HOUR } as const;

/** `brand_id`, required of a key with several brands: the first brand the account lists. */
export const BRAND_ID_FROM: ParamSource = { operation: 'listBrands', path: 'brands[].id' };

const fixed7 = { kind: 'fixed', days: 7 } as const satisfies WindowKind;
const dated7 = { kind: 'dated', defaultDays: 7 } as const satisfies WindowKind;
const none = { kind: 'none' } as const satisfies WindowKind;

export const operations = {
  listBrands: operation({
    tag: 'Account',
    summary: 'List the brands of the account',
    description: 'Every brand the key can read, with its markets. Takes no parameters; use it to find `brand_id` values.',
    path: '/brands',
    example: {},
    response: (zod) => zod.coreSchemas().BrandList,
    window: none,
    scope: 'account',
    ttl: TTL.lists,
    csv: { rows: 'brands', each: 'markets' },
  }),
  listMarkets: operation({
    tag: 'Account',
    summary: 'List the markets of a brand',
    path: '/markets',
    example: {},
    response: (zod) => zod.coreSchemas().MarketList,
    window: none,
    scope: 'brand_only',
    ttl: TTL.lists,
    csv: { rows: 'markets' },
  }),
  listAnswers: operation({
    tag: 'Answers',
    summary: 'List the tracked buyer questions',
    description: 'The questions tracked in the market; their exact `text` is the `prompt` of `GET /answers/runs`.',
    path: '/answers',
    query: { topic_id: idParam('Only the questions of this topic.').optional() },
    example: {},
    response: (zod) => zod.coreSchemas().QuestionList,
    window: none,
    ttl: TTL.lists,
    csv: { rows: 'questions' },
  }),
  getOverview: operation({
    tag: 'Overview',
    summary: 'Get the overview',
    description:
      'Everything on the home view for the period. Visibility (share of answered runs naming the brand) and share of voice (brand mentions / (brand + all rival mentions) x 100), each with the change in points against the preceding period of the same length (`previous_period`). The brand against its 3 most mentioned rivals (visibility, share of voice, mean position, citations of their domains), over the period and per day. Brand perception per engine, the 5 most cited own pages with their change, topics weakest first (lowest score first, unmeasured topics last), AI traffic (assistant visits; crawler hits, null without the edge-network integration or the tracking script), the AI readiness score and open tasks per layer.\n\nAI readiness score = 100 x sum(weight x value) / sum(weight) over the market\'s stored readiness signals (each value 0 to 1, stored with its weight), one decimal; null when no signal is stored. The signals are listed with their values as percentages.\n\nPlans: perception, AI traffic and tasks are Pro and Growth data. On Starter the overview still answers 200, and each of those three parts is `{"included": false, "reason": "not_in_plan", "message": ...}` instead of its figures; every other part is whole.',
    path: '/overview',
    example: {},
    response: (zod) => zod.insightSchemas().Overview,
    window: dated7,
    ttl: TTL.windowed,
    csv: { rows: 'competition.daily' },
  }),
  getVisibility: operation({
    tag: 'Visibility',
    summary: 'Get the visibility score',
    description: 'Share of answers naming the brand across all tracked questions and engines over the trailing 7 days, with 12 weekly points, oldest first. Fixed window: date parameters are refused.',
    path: '/visibility',
    example: {},
    response: (zod) => zod.coreSchemas().Visibility,
    window: fixed7,
    ttl: TTL.fixed,
    csv: { rows: 'history' },
  }),
  listTopics: operation({
    tag: 'Topics',
    summary: 'List topics',
    description: "Every tracked topic with the brand's visibility in it, the change against the preceding period of the same length, its rank among its rivals, and the rivals AI names.",
    path: '/topics',
    example: {},
    response: (zod) => zod.coreSchemas().TopicList,
    window: dated7,
    ttl: TTL.windowed,
    csv: { rows: 'topics' },
  }),
  getTopic: operation({
    tag: 'Topics',
    summary: 'Get a topic',
    description:
      "One topic in full over the trailing 7 days: score and rivals, every question with each engine's latest answer, head-to-heads, top cited sources, 12 weeks of score history and the content analysis.",
    path: '/topics/{id}',
    pathParams: { id: idParam('Topic id, from `GET /topics`.') },
    paramsFrom: { id: { operation: 'listTopics', path: 'topics[].id' } },
    example: { path: { id: 1101 } },
    response: (zod) => zod.coreSchemas().TopicDetail,
    window: fixed7,
    ttl: TTL.fixed,
    csv: { rows: 'questions', each: 'engines' },
  }),
  getPromptMatrix: operation({
    tag: 'Answers',
    summary: 'Get the prompt-by-engine matrix',
    description:
      "Per question and engine over the trailing 7 days: the dominant state (ties go to the better state), the share of runs in it, and the brand's mean position where named. Fixed window.",
    path: '/prompts',
    example: {},
    response: (zod) => zod.coreSchemas().PromptMatrix,
    window: fixed7,
    ttl: TTL.fixed,
    csv: { rows: 'prompts', each: 'engines' },
  }),
  getAnswerRuns: operation({
    tag: 'Answers',
    summary: 'Get answers for one question',
    description:
      'Every run of the question in the rolling window (the trailing 7 days), newest first, with the exact answer text and whether it named the brand. An unknown `prompt` is 404 `not_found`.',
    path: '/answers/runs',
    query: { prompt: textParam({ max: 1000, description: 'Exact question text, as returned by `GET /answers`.' }) },
    paramsFrom: { prompt: { operation: 'listAnswers', path: 'questions[].text' } },
    example: { query: { prompt: 'What is the best help desk software this year?' } },
    response: (zod) => zod.coreSchemas().AnswerRuns,
    window: fixed7,
    ttl: TTL.fixed,
    csv: { rows: 'runs' },
  }),
  getAnswerHistory: operation({
    tag: 'Answers',
    summary: 'Get won and lost questions',
    description: 'Per question: won, lost or held, counting the engines whose dominant state names the brand in the latest 7 days against the 7 days before. Fixed window.',
    path: '/answers/history',
    example: {},
    response: (zod) => zod.coreSchemas().AnswerHistory,
    window: fixed7,
    ttl: TTL.fixed,
    csv: { rows: 'questions' },
  }),
  getContentGaps: operation({
    tag: 'Insights',
    summary: 'Get content coverage',
    description:
      "Per tracked question over the trailing 7 days: the brand's own page answering it (if any), how many runs of the question cited that page, the brand's visibility on the question, and the recommended action. Rule: no own page: `write`; a page that no run of the question cited in the window: `improve`; a cited page: `leave`. Listed `write`, then `improve`, then `leave`, each by question id.",
    path: '/content-gaps',
    example: {},
    response: (zod) => zod.insightSchemas().ContentGaps,
    window: fixed7,
    ttl: TTL.fixed,
    csv: { rows: 'questions' },
  }),
  listSources: operation({
    tag: 'Insights',
    summary: 'List cited sources',
    description:
      "Domains cited by the market's answers over the trailing 7 days (every tracked question is in the brand's category), most cited first, with counts, share of all citations and a classification: `own` for the brand's domain and its subdomains, `competitor` for a tracked rival's domain and its subdomains (the rival is named), `third_party` for any other. `total_citations` and `by_class` cover every domain, not only the `limit` listed.",
    path: '/sources',
    query: { limit: limitParam(15, 100, 'domains', 'sources') },
    example: {},
    response: (zod) => zod.insightSchemas().SourceList,
    window: fixed7,
    ttl: TTL.fixed,
    csv: { rows: 'sources' },
  }),
  listPages: operation({
    tag: 'Insights',
    summary: 'List cited pages',
    description:
      "The brand's own URLs (its domain and subdomains) cited in the period or in the previous period of the same length (`previous_period`: as many days, ending the day before `from`), with the citations in each, the change, and both split by engine and by topic (the topic of the question whose answer cited the page); most cited first. `uncited`: the brand's topic and question pages that no answer cited in the period, each with the 3 other URLs most cited by answers of its topic in the period: what AI cites instead.",
    path: '/pages',
    example: {},
    response: (zod) => zod.insightSchemas().PageList,
    window: dated7,
    ttl: TTL.windowed,
    csv: { rows: 'pages' },
  }),
  getCompetitor: operation({
    tag: 'Insights',
    summary: 'Get one competitor',
    description:
      "One rival. `name` is matched case-insensitively after URL-decoding (`clearbooks%20pro` finds `Clearbooks Pro`); a name that is not one of the brand's tracked rivals is 404 `not_found`. Over the trailing 7 days: shares of answered runs naming the rival and the brand; the topics it wins (its share above the brand's) with the margin in points, largest first; the questions it wins (more runs name the rival than the brand), largest lead first, with the engines that named it and never the brand and the latest answer naming it but not the brand (what AI said); the rival's pages AI cites, most cited first.",
    path: '/competitors/{name}',
    pathParams: { name: textParam({ max: 200, description: "The competitor's name as AI writes it (in a URL path, percent-encoded); matched case-insensitively." }) },
    paramsFrom: { name: { operation: 'listTopics', path: 'topics[].rivals[].name' } },
    example: { path: { name: 'Helpwave' } },
    response: (zod) => zod.insightSchemas().CompetitorDetail,
    window: fixed7,
    ttl: TTL.fixed,
    csv: { rows: 'questions_won' },
  }),
  listActivity: operation({
    tag: 'Insights',
    summary: 'List recent activity',
    description: 'Recent events on the brand in the market, newest first (by `occurred_at`, then id); `category` keeps one category.',
    path: '/activity',
    query: {
      limit: limitParam(20, 200, 'entries', 'entries'),
      category: enumParam(ACTIVITY_CATEGORIES, 'Only entries of this category.').optional(),
    },
    example: {},
    response: (zod) => zod.insightSchemas().ActivityList,
    window: none,
    ttl: TTL.windowed,
    csv: { rows: 'entries' },
  }),
  listTasks: operation({
    tag: 'Tasks',
    summary: 'List tasks',
    description:
      'Tasks of the brand in the market in one status (default `open`) and optionally one layer, best first: the largest expected gain in visibility points first, then the lower effort (low, medium, high), then the older task (lower id). `open_counts` gives the open tasks of every layer whatever the filter; `matching` counts the filtered tasks before `limit`.',
    path: '/tasks',
    query: {
      layer: enumParam(TASK_LAYERS, 'Only tasks of this layer.').optional(),
      status: enumParam(TASK_STATUSES, 'Only tasks in this status (default `open`).').default('open'),
      limit: limitParam(30, 100, 'tasks', 'tasks'),
    },
    example: {},
    response: (zod) => zod.insightSchemas().TaskList,
    window: none,
    plan: 'pro_or_growth',
    ttl: TTL.windowed,
    csv: { rows: 'tasks' },
  }),
  getTask: operation({
    tag: 'Tasks',
    summary: 'Get a task',
    description:
      "The full brief of one task: why it matters, the steps, the evidence, the topics it moves (with the brand's visibility in each over the trailing 7 days), its layer and status. A task of another brand or another market is 404 `not_found`.",
    path: '/tasks/{id}',
    pathParams: { id: idParam('Task id, from `GET /tasks`.') },
    paramsFrom: { id: { operation: 'listTasks', path: 'tasks[].id' } },
    example: { path: { id: 1 } },
    response: (zod) => zod.insightSchemas().TaskDetail,
    window: none,
    plan: 'pro_or_growth',
    ttl: TTL.windowed,
  }),
  getBrandPerception: operation({
    tag: 'Perception',
    summary: 'Get brand perception',
    description:
      'Per engine: whether AI knows the brand and would recommend it, its sentiment (-1 to 1) and what it gets right and wrong, from the latest weekly perception verdict overlapping the period; all null or empty when no week overlaps it (not measured). History: up to 12 weekly verdicts starting on or before `to`, oldest first. The summary counts the measured, knowing and recommending engines; `recommend_rate` is recommending / measured.',
    path: '/brand-perception',
    example: {},
    response: (zod) => zod.insightSchemas().BrandPerception,
    window: dated7,
    plan: 'pro_or_growth',
    ttl: TTL.windowed,
    csv: { rows: 'engines' },
  }),
  getPerceptionTranscript: operation({
    tag: 'Perception',
    summary: 'Get brand perception transcripts',
    description: 'The perception prompts put to each engine and its answers, in full and untruncated, newest first; `engine` keeps one engine.',
    path: '/brand-perception/transcript',
    query: { engine: enumParam(ENGINES, 'Only this engine; omit for all.').optional() },
    example: {},
    response: (zod) => zod.insightSchemas().PerceptionTranscript,
    window: none,
    plan: 'pro_or_growth',
    ttl: TTL.windowed,
    csv: { rows: 'transcripts' },
  }),
  getForumSignals: operation({
    tag: 'Perception',
    summary: 'Get forum signals',
    description:
      "Per topic: the forum threads of the period (posted in it, or posted earlier and cited by answers in it), most cited first then newest, at most `limit` per topic (`threads_total` counts them all), each with how many runs in the period cited it; and the topic's latest weekly summary starting on or before `to`.",
    path: '/forum',
    query: { limit: limitParam(20, 50, 'threads per topic', 'topics[].threads') },
    example: {},
    response: (zod) => zod.insightSchemas().ForumSignals,
    window: dated7,
    plan: 'pro_or_growth',
    ttl: TTL.windowed,
    csv: { rows: 'topics', each: 'threads' },
  }),
  getSearchPerformance: operation({
    tag: 'Traffic',
    summary: 'Get search performance',
    description:
      "Search-engine performance over the trailing `days` (default 28), by query or by landing page: clicks, impressions, CTR and the impression-weighted mean position, ordered by impressions. Joined to AI citations: `ai_citations` counts the answers of the same window citing the row's pages (a query's landing pages); `search_only` marks rows that rank in search (impressions > 0) while no answer cited their pages. `totals` cover every row, not only the `limit` listed.",
    path: '/search-performance',
    query: {
      dimension: enumParam(SEARCH_DIMENSIONS, '`query` for keywords or `page` for URLs (default `query`).').default('query'),
      limit: limitParam(25, 1000, 'rows, ordered by impressions', 'rows'),
    },
    example: {},
    response: (zod) => zod.insightSchemas().SearchPerformance,
    window: { kind: 'trailing', defaultDays: 28 } as const,
    integration: 'search_performance',
    ttl: TTL.windowed,
    csv: { rows: 'rows' },
  }),
  getAiCrawlers: operation({
    tag: 'Traffic',
    summary: 'Get AI crawler traffic',
    description:
      "Hits of AI crawlers on the brand's site in the period: per bot (hits, share, distinct pages, last day seen) and per page (hits by bot), largest first, with the total of the previous period of the same length. Crawler data is recorded per site, so the figures cover the brand's whole site whichever market is read.",
    path: '/ai-crawlers',
    example: {},
    response: (zod) => zod.insightSchemas().AiCrawlers,
    window: dated7,
    plan: 'pro_or_growth',
    integration: 'crawler_data',
    ttl: TTL.windowed,
    csv: { rows: 'bots' },
  }),
  getAiVisitors: operation({
    tag: 'Traffic',
    summary: 'Get AI visitor traffic',
    description:
      "Visits to the brand's site referred by AI assistants in the period, by assistant (visits, share, distinct pages) and by page, largest first, with the previous period's total and the change. Visits are recorded per site, so the figures cover the brand's whole site whichever market is read.",
    path: '/ai-visitors',
    example: {},
    response: (zod) => zod.insightSchemas().AiVisitors,
    window: dated7,
    plan: 'pro_or_growth',
    ttl: TTL.windowed,
    csv: { rows: 'assistants' },
  }),
} as const;

export type Operations = typeof operations;
export type OperationId = keyof Operations;

/** The table, seen structurally: plain data, no schema (the zod side has those: `zs.response(id)`). */
export const operationList: readonly (AnyOperation & { id: OperationId })[] = Object.entries(operations).map(([id, op]) => ({ id: id as OperationId, ...op }));
export const OPERATION_IDS = Object.keys(operations) as OperationId[];

/** The response body type of an operation. */
export type ResponseOf<Id extends OperationId> = z.output<ReturnType<Operations[Id]['buildResponse']>>;
/** Parsed query parameters of an operation. */
export type QueryOf<Id extends OperationId> = ParsedParams<Operations[Id]['params']['query']>;
/** Parsed path parameters of an operation. */
export type PathOf<Id extends OperationId> = ParsedParams<Operations[Id]['params']['path']>;

export const API_BASE = '/api/v1';
