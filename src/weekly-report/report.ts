/**
 * The weekly report's shape: what `buildReport` (model.ts) returns, section
 * by section, and what it is built from. The digest email, the report page,
 * the MCP tool and the alerts all read this shape.
 */
import * as z from 'zod';
import type { ResponseOf } from '../contract/operations';
import type { AnswerState } from '../contract/enums';
import type { MapMisses, PartId } from './parts';
import type { Violation } from '../contract/plausibility';
import type { MoveWords, ScoreWords, Trend } from './words';
import type { PlanInputs, PlanSection } from './plan';

export const DIGEST_KINDS = ['visibility', 'won_lost'] as const;
export const DigestKind = z.enum(DIGEST_KINDS);
export type DigestKind = z.infer<typeof DigestKind>;

export interface ChartBar {
  week_start: string;
  week_end: string;
  /** Short label, e.g. `16 Nov`. */
  label: string;
  score: number | null;
  answered_runs: number;
}

/** The score's figures (`ScoreWords`: what its line says), its week, the chart's bars and scale. */
export interface VisibilitySection extends ScoreWords {
  period: { from: string; to: string };
  history: ChartBar[];
  /**
   * The chart's scale in percent (`chartScale`): near the data, at least 10
   * points tall, so a 3-point move is a third of the chart and a change
   * within the noise looks flat.
   */
  scale: { floor: number; top: number };
}

export interface TopicMove {
  id: number;
  name: string;
  score: number | null;
  change: number | null;
  noise: number | null;
  trend: Trend;
  rank: number | null;
  top_rival: string | null;
}

export interface EngineMove {
  /** One of ours, or another implementation's own value. */
  engine: string;
  engine_label: string;
  before: AnswerState | null;
  now: AnswerState | null;
  direction: 'gained' | 'lost';
  top_rival: string | null;
}

/** A question won or lost: how its engines moved (`MoveWords`: what its line says), and which question. */
export interface QuestionMove extends MoveWords {
  question_id: number;
  text: string;
  topic: string | null;
  engines: EngineMove[];
}

export interface WonLostSection {
  counts: { won: number; lost: number; held: number };
  period: { from: string; to: string };
  previous_period: { from: string; to: string };
  won: QuestionMove[];
  lost: QuestionMove[];
  /** The few the digest lists (`topQuestions`): 3 to 5 in all, losses first. */
  top_lost: QuestionMove[];
  top_won: QuestionMove[];
}

/** One engine's figures for the week (see "Per engine" in the module comment of model.ts). */
export interface EngineFigures {
  /** One of ours, or another implementation's own value. */
  engine: string;
  engine_label: string;
  /** Questions whose dominant answer on this engine names the brand this week; null without `/prompts`. */
  naming: number | null;
  /** Questions this engine answered this week (a dominant state other than no answer); null without `/prompts`. */
  answered: number | null;
  /** `naming - gained + lost`: the same count for the week before; null without `/prompts`. */
  naming_before: number | null;
  /** Of `naming`, the questions whose dominant answer recommends the brand; null without `/prompts`. */
  recommended: number | null;
  /** Runs of this engine over the week, all questions; null without `/prompts`. */
  runs: number | null;
  /** Questions this engine started naming the brand for, and stopped; null when the service does not say which engines moved. */
  gained: number | null;
  lost: number | null;
  /** `gained - lost`. */
  change: number | null;
}

/** A part of the report the service does not provide, and the line said where its section is left out. */
export interface NotProvided {
  part: PartId;
  operation: string;
  fields: readonly string[];
  words: string;
  line: string;
}

export interface Lead {
  kind: 'loss' | 'gain' | 'visibility_up' | 'visibility_down' | 'topic' | 'steady' | 'nothing_measured';
  /** One sentence that names the brand and the change to act on. */
  headline: string;
  question?: string;
  engines?: string[];
  rival?: string | null;
}

export interface Report {
  brand: { id: number; name: string };
  market: { id: number; code: string };
  kinds: DigestKind[];
  /**
   * The ISO week the report was planned for (`iso`, `monday`), and `label`, the
   * first day of `period` (`16 Nov`).
   */
  week: { iso: string; monday: string; label: string };
  /** The 7 days every figure covers: the fixed window of the reads (see the module comment of model.ts). */
  period: { from: string; to: string };
  /** `period` as the email writes it: `17–23 Nov 2026`. */
  period_label: string;
  generated_at: string;
  /** `nothing_measured`: no answered run in either week, no digest is sent. `nothing_changed`: a quiet week, said in one line. */
  empty: 'nothing_measured' | 'nothing_changed' | null;
  lead: Lead;
  visibility: VisibilitySection | null;
  topics: TopicMove[];
  won_lost: WonLostSection | null;
  /**
   * What to do about the questions lost (plan.ts): with the won and lost questions (`won_lost`), null without them,
   * in a week with nothing measured, or when the plan's bodies were not read (a snapshot kept before the plan).
   */
  plan: PlanSection | null;
  /** Every engine, in the order of `ENGINE_LABELS`, then any other the upstream names; with `/prompts`, only those run in the period (model.ts, "Which engines"). */
  engines: EngineFigures[];
  subject: string;
  /** The parts the service does not provide; empty for one that provides everything. */
  not_provided: NotProvided[];
  /**
   * The rules of src/contract/plausibility.ts its figures break (the upstream map most likely reads a field from
   * the wrong place or in the wrong unit): empty when they keep them. Said wherever the report shows; a digest of
   * such figures is not sent.
   */
  implausible: Violation[];
}

export interface ReportInput {
  brand: { id: number; name: string };
  week: { isoWeek: string; monday: string };
  kinds: readonly DigestKind[];
  visibility: ResponseOf<'getVisibility'>;
  history: ResponseOf<'getAnswerHistory'>;
  /** Null when the service does not provide topics. */
  topics: ResponseOf<'listTopics'> | null;
  /** `/prompts` for the same 7 days, when read: gives each engine's questions naming the brand. Ignored when its days differ. */
  matrix?: ResponseOf<'getPromptMatrix'> | null;
  /** The plan's bodies (plan.ts); without them the report has no plan. */
  plan?: PlanInputs | null | undefined;
  /** The parts the service does not provide (parts.ts); their lists are empty. */
  not_provided?: readonly PartId[];
  /** Of those, the ones whose operation holds what the map misses (the line says so): by part. */
  misses?: Partial<Record<PartId, MapMisses>> | undefined;
  /** The day the bodies were read on (`YYYY-MM-DD`, from the clock seam): the fixed windows end on it. */
  today?: string | undefined;
}
