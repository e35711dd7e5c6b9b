/** The enumerations of src/contract/enums.ts as zod schemas, for the response schemas: built at their first use. */
import * as z from 'zod';
import { once } from '../../lib/lazy';
import { ACTIVITY_CATEGORIES, CONTENT_ACTIONS, ENGINES, OUTCOMES, PLANS, SOURCE_CLASSES, STATES, TASK_LAYERS, TASK_STATUSES } from '../enums';

/**
 * A value of an enumeration the spec leaves open ("Allowed values of `layer`,
 * `status`, `category` and `engine`: not shown"), as a response body carries
 * it: one of ours, or another implementation's own value, carried under its
 * own name and shown as such, never refused.
 */
const openValue = <T extends readonly [string, ...string[]]>(values: T) =>
  z.union([z.enum(values), z.string().min(1).max(80)]).meta({ description: `One of ${values.map((v) => `\`${v}\``).join(', ')}, or another implementation's own value.` });

export const enumSchemas = once(() => ({
  Engine: z.enum(ENGINES),
  /** An engine as a body names it: ours, or another implementation's. */
  EngineValue: openValue(ENGINES),
  AnswerState: z.enum(STATES),
  TaskLayerValue: openValue(TASK_LAYERS),
  TaskStatusValue: openValue(TASK_STATUSES),
  ActivityCategoryValue: openValue(ACTIVITY_CATEGORIES),
  SourceClass: z.enum(SOURCE_CLASSES),
  ContentAction: z.enum(CONTENT_ACTIONS),
  Outcome: z.enum(OUTCOMES),
  Plan: z.enum(PLANS),
}));
