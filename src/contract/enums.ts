/**
 * The enumerations the spec leaves open, decided once here. Every schema,
 * the demo generator and the OpenAPI document take their values from these
 * arrays, so adding a value is a one-line change. Their zod schemas are in
 * schemas/enums.ts: only the response schemas read them.
 */
/** AI answer engines tracked for every question. */
export const ENGINES = ['chatgpt', 'perplexity', 'gemini', 'claude', 'copilot', 'google_ai_overviews'] as const;
export type Engine = (typeof ENGINES)[number];

/**
 * The state of one answer run, best first (DESIGN section 4). The order is the
 * tie-break order of the dominant state.
 */
export const STATES = ['recommended', 'mentioned', 'absent', 'open', 'no_answer'] as const;
export type AnswerState = (typeof STATES)[number];

/** States in which the answer names the brand. */
export const NAMING_STATES: readonly AnswerState[] = ['recommended', 'mentioned'];

/** Where a task acts: on the brand's own pages, its site, other sites, or its story. */
export const TASK_LAYERS = ['content', 'technical', 'authority', 'brand'] as const;
export type TaskLayer = (typeof TASK_LAYERS)[number];

export const TASK_STATUSES = ['open', 'in_progress', 'done', 'dismissed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const ACTIVITY_CATEGORIES = ['visibility', 'citation', 'competitor', 'content', 'task', 'integration'] as const;
export type ActivityCategory = (typeof ACTIVITY_CATEGORIES)[number];

/** `/search-performance` rows are keyed by search query or by landing page. */
export const SEARCH_DIMENSIONS = ['query', 'page'] as const;

export const SOURCE_CLASSES = ['own', 'competitor', 'third_party'] as const;

export const CONTENT_ACTIONS = ['write', 'improve', 'leave'] as const;

export const OUTCOMES = ['won', 'lost', 'held'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const PLANS = ['starter', 'pro', 'growth'] as const;
export type Plan = (typeof PLANS)[number];

/** Integrations a brand can connect. */
export const INTEGRATIONS = ['search_performance', 'edge_network', 'tracking_script'] as const;
export type Integration = (typeof INTEGRATIONS)[number];

/** AI crawlers seen in server logs or by the edge-network integration. */
export const AI_BOTS = ['GPTBot', 'OAI-SearchBot', 'ChatGPT-User', 'PerplexityBot', 'ClaudeBot', 'Google-Extended', 'Bingbot'] as const;

/** Assistants that send visitors (from the referrer). */
export const AI_ASSISTANTS = ['chatgpt', 'perplexity', 'gemini', 'claude', 'copilot'] as const;
