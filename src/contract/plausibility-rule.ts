/**
 * What a rule of src/contract/plausibility.ts is (its id, the fields it reads,
 * its check) and what it finds: the types the table and the files of its
 * checks share, below them all.
 */
import type { OperationId } from './operations';
import type { Finding } from './plausibility-words';
import type { Period } from './window';

/** Every rule's id: the table's, and the one of what a view counts. */
export const RULE_IDS = [
  'score_is_share_named',
  'within_range',
  'points_not_fractions',
  'whole_counts',
  'outcomes_add_up',
  'outcome_follows_engines',
  'weeks_consecutive',
  'change_against_week_before',
  'last_week_is_the_period',
  'engines_by_our_names',
  'moves_follow_outcome',
  'absent_names_a_rival',
  'rate_is_share_of_runs',
  'fixed_windows',
  'period_is_the_window',
  'previous_period_before_it',
  'engines_ours_or_declared',
  'share_of_voice_is_share_of_mentions',
  'recommend_rate_is_share_of_engines',
  'readiness_is_weighted_signals',
  'brand_standing_is_its_figures',
  'citations_add_up',
  'change_of_counts',
  'position_where_named',
  'most_named_first',
  'questions_listed',
  'updated_not_before_created',
  'has_page_is_a_page',
  'cited_is_page_cited',
  'action_follows_coverage',
  'actions_counted',
  'matching_counts_the_list',
  'open_counts_cover_the_list',
  'traffic_adds_up',
  'days_with_traffic',
  'head_to_heads_partition',
  'market_code_is_its_country',
  'engines_counted',
  'verdict_is_its_latest_week',
  'open_total_is_its_layers',
  'engines_answered',
  'counts_cover_the_list',
  'rival_leads_its_questions',
  'search_totals_cover_rows',
  'sources_add_up',
  'rank_among_rivals',
] as const;
export type RuleId = (typeof RULE_IDS)[number];

/** One rule broken: which, where, the values seen, and in words a person can act on. */
export interface Violation {
  rule: RuleId;
  /** The operation whose body broke it; null for a rule of what a view counts (`engines_answered`). */
  operation: OperationId | null;
  /** The contract's fields it read (`topics[].change`). */
  fields: string[];
  values: Record<string, unknown>;
  message: string;
}

/** What a rule may know besides the body: `today` (`YYYY-MM-DD`, UTC), from the caller's clock seam, never the wall clock; a rule that needs it says nothing without it. */
export interface RuleContext {
  today?: string | undefined;
  /** The window the read asked for, resolved (`days`, `from`, `to`, or its fixed window): discovery knows its requests; the rules of it say nothing without it. */
  window?: Period | undefined;
  /** The query the read asked (`limit`, `layer`): discovery knows its requests; the rules of it say less without it. */
  query?: Readonly<Record<string, unknown>> | undefined;
}

/** A rule (what it says: the comment under its `id`), the fields it reads per operation, and the check of one body. */
export interface Rule {
  id: RuleId;
  reads: Partial<Record<OperationId, readonly string[]>>;
  /** Fields whose values it fixes (not only bounds): one candidate for them that keeps it, where others break it, is evidence (discovery). */
  pins?: readonly string[];
  check: (body: unknown, fields: readonly string[], operation: OperationId, context: RuleContext) => Finding[];
}
