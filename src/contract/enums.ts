/**
 * The enumerations the spec leaves open, decided once here. Every schema,
 * the demo generator and the OpenAPI document take their values from these
 * arrays, so adding a value is a one-line change.
 */
import * as z from 'zod';

/**
 * A value of an enumeration the spec leaves open ("Allowed values of `layer`,
 * `status`, `category` and `engine`: not shown"), as a response body carries
 * it: one of ours, or another implementation's own value, carried under its
 * own name and shown as such, never refused.
 */
export const openValue = <T extends readonly [string, ...string[]]>(values: T) =>
  z.union([z.enum(values), z.string().min(1).max(80)]).meta({ description: `One of ${values.map((v) => `\`${v}\``).join(', ')}, or another implementation's own value.` });

/** AI answer engines tracked for every question. */
export const ENGINES = ['chatgpt', 'perplexity', 'gemini', 'claude', 'copilot', 'google_ai_overviews'] as const;
export const Engine = z.enum(ENGINES);
export type Engine = z.infer<typeof Engine>;
/** An engine as a body names it: ours, or another implementation's. */
export const EngineValue = openValue(ENGINES);

/**
 * The state of one answer run, best first (DESIGN section 4). The order is the
 * tie-break order of the dominant state.
 */
export const STATES = ['recommended', 'mentioned', 'absent', 'open', 'no_answer'] as const;
export const AnswerState = z.enum(STATES);
export type AnswerState = z.infer<typeof AnswerState>;

/** States in which the answer names the brand. */
export const NAMING_STATES: readonly AnswerState[] = ['recommended', 'mentioned'];

/** Where a task acts: on the brand's own pages, its site, other sites, or its story. */
export const TASK_LAYERS = ['content', 'technical', 'authority', 'brand'] as const;
export const TaskLayer = z.enum(TASK_LAYERS);
export type TaskLayer = z.infer<typeof TaskLayer>;
export const TaskLayerValue = openValue(TASK_LAYERS);

export const TASK_STATUSES = ['open', 'in_progress', 'done', 'dismissed'] as const;
export const TaskStatus = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof TaskStatus>;
export const TaskStatusValue = openValue(TASK_STATUSES);

export const ACTIVITY_CATEGORIES = ['visibility', 'citation', 'competitor', 'content', 'task', 'integration'] as const;
export const ActivityCategory = z.enum(ACTIVITY_CATEGORIES);
export type ActivityCategory = z.infer<typeof ActivityCategory>;
export const ActivityCategoryValue = openValue(ACTIVITY_CATEGORIES);

/** `/search-performance` rows are keyed by search query or by landing page. */
export const SEARCH_DIMENSIONS = ['query', 'page'] as const;
export const SearchDimension = z.enum(SEARCH_DIMENSIONS);

export const SOURCE_CLASSES = ['own', 'competitor', 'third_party'] as const;
export const SourceClass = z.enum(SOURCE_CLASSES);

export const CONTENT_ACTIONS = ['write', 'improve', 'leave'] as const;
export const ContentAction = z.enum(CONTENT_ACTIONS);

export const OUTCOMES = ['won', 'lost', 'held'] as const;
export const Outcome = z.enum(OUTCOMES);
export type Outcome = z.infer<typeof Outcome>;

export const PLANS = ['starter', 'pro', 'growth'] as const;
export const Plan = z.enum(PLANS);
export type Plan = z.infer<typeof Plan>;

/** Integrations a brand can connect. */
export const INTEGRATIONS = ['search_performance', 'edge_network', 'tracking_script'] as const;
export const Integration = z.enum(INTEGRATIONS);
export type Integration = z.infer<typeof Integration>;

/** AI crawlers seen in server logs or by the edge-network integration. */
export const AI_BOTS = ['GPTBot', 'OAI-SearchBot', 'ChatGPT-User', 'PerplexityBot', 'ClaudeBot', 'Google-Extended', 'Bingbot'] as const;

/** Assistants that send visitors (from the referrer). */
export const AI_ASSISTANTS = ['chatgpt', 'perplexity', 'gemini', 'claude', 'copilot'] as const;
