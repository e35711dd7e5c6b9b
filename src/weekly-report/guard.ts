/**
 * The guard on what is sent (DESIGN section 13): a digest or an alert whose
 * figures break a rule of the contract's table (src/contract/plausibility.ts)
 * is not sent. The digest records why on its send record (`digest_sends.reason`),
 * an alert on a skipped delivery record (`alert_deliveries.reason`); each is
 * logged once, with the rules and fields, never a key.
 *
 * ```ts
 * const broken = figuresViolations({ visibility, history, topics, matrix }, report.engines);
 * if (broken.length > 0) await mark(rows, 'skipped', implausibleReason(broken));
 * ```
 */
import type { OperationId, ResponseOf } from '../contract/operations';
import { type Violation, violationsOf, viewViolations } from '../contract/plausibility';

/** The bodies a digest or an alert is built from; any may be absent (a part the service does not provide). */
export interface SentBodies {
  visibility?: ResponseOf<'getVisibility'> | null;
  history?: ResponseOf<'getAnswerHistory'> | null;
  topics?: ResponseOf<'listTopics'> | null;
  matrix?: ResponseOf<'getPromptMatrix'> | null;
  /** The plan's bodies (plan.ts). */
  gaps?: ResponseOf<'getContentGaps'> | null;
  tasks?: ResponseOf<'listTasks'> | null;
  pages?: ResponseOf<'listPages'> | null;
  /** The day they were read for (`YYYY-MM-DD`, from the clock seam): the fixed windows end on it. Without it they are judged by length alone. */
  today?: string | undefined;
}

const OPERATION_OF: Record<Exclude<keyof SentBodies, 'today'>, OperationId> = {
  visibility: 'getVisibility',
  history: 'getAnswerHistory',
  topics: 'listTopics',
  matrix: 'getPromptMatrix',
  gaps: 'getContentGaps',
  tasks: 'listTasks',
  pages: 'listPages',
};

/** Every rule the bodies break, and, given the engines a view lists and counts, `engines_answered`. */
export function figuresViolations(bodies: SentBodies, engines?: readonly { engine: string; runs: number | null }[]): Violation[] {
  const found = (Object.keys(OPERATION_OF) as (keyof typeof OPERATION_OF)[]).flatMap((name) => violationsOf(OPERATION_OF[name], bodies[name], { today: bodies.today }));
  return engines ? [...found, ...viewViolations(engines)] : found;
}

/** The reason kept on the record: the first violation in words, then how many more (a record's reason is at most 500 characters). */
/** How a digest record held for implausible figures begins: the planner plans such a record again while its week is due. */
export const HELD_PREFIX = "not sent: the Read API's figures are implausible";

export function implausibleReason(violations: readonly Violation[], outcome: 'not sent' | 'not kept' = 'not sent'): string {
  const [first] = violations;
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
  return `${outcome}: the Read API's figures are implausible: ${first ? `${first.operation ?? 'the engines'} ${first.rule}: ${first.message}` : ''}${more}`.slice(0, 500);
}

/** One log line for a guarded send: what was not sent, for which group, and the rules and fields (no key, no figures of the brand). */
export function logImplausible(what: 'digest' | 'alert', group: string, violations: readonly Violation[]): void {
  console.warn(JSON.stringify({ msg: `${what} not sent: implausible figures`, group, rules: violations.map((v) => ({ rule: v.rule, operation: v.operation, fields: v.fields })) }));
}

/**
 * What a report whose figures break a rule says where it shows (the page, its JSON and text forms, MCP
 * `weekly_report`): one sentence, then each rule's message. Undefined when they keep every rule.
 */
export function implausibleWarning(violations: readonly Violation[]): { headline: string; lines: string[] } | undefined {
  if (violations.length === 0) return undefined;
  const rules = violations.length === 1 ? 'a rule' : `${violations.length} rules`;
  return {
    headline: `Warning: these figures break ${rules} the Read API’s answers keep, so some of them are wrong (the upstream map most likely reads a field from the wrong place or in the wrong unit). The digest is not sent while they do; the compatibility check (POST /admin/upstream/check) names the fields.`,
    lines: violations.map((v) => `${v.operation ?? 'the engines'} ${v.rule}: ${v.message}`),
  };
}
