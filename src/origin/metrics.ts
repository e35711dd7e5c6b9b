/**
 * The metric definitions of DESIGN section 4 as pure functions. Queries
 * gather counts; these turn counts into the published figures, so each rule
 * is stated and tested once.
 */
import { type AnswerState, NAMING_STATES, type Outcome, STATES } from '../contract/enums';

/** Percentages are published with one decimal. */
export const round1 = (x: number): number => Math.round(x * 10) / 10;

/** 100 x part / whole, one decimal; null when nothing was measured (never 0 for "no data"). */
export const percent = (part: number, whole: number): number | null => (whole > 0 ? round1((100 * part) / whole) : null);

/** Points of change; null when either side was not measured. */
export const delta = (now: number | null, before: number | null): number | null => (now === null || before === null ? null : round1(now - before));

export const isNaming = (state: AnswerState): boolean => NAMING_STATES.includes(state);

export type StateCounts = Partial<Record<AnswerState, number>>;

/**
 * The most frequent state; ties go to the better state (recommended >
 * mentioned > absent > open > no_answer). Its rate is the share of runs in
 * that state. Null when there were no runs.
 */
export function dominantState(counts: StateCounts): { state: AnswerState; rate: number } | null {
  let best: AnswerState | null = null;
  let total = 0;
  for (const state of STATES) {
    const n = counts[state] ?? 0;
    total += n;
    // STATES is ordered best first, so a strict ">" keeps the better state on ties.
    if (n > 0 && (best === null || n > (counts[best] ?? 0))) best = state;
  }
  return best === null ? null : { state: best, rate: round1((100 * (counts[best] ?? 0)) / total) };
}

/**
 * The state of `dominantState` as a SQL expression over columns named after
 * the states (their counts), for queries that need only the state: one value
 * per cell crosses from D1 instead of five counts. Built from the same order.
 */
export function dominantStateSql(): string {
  const top = `max(${STATES.join(', ')})`;
  return `CASE WHEN ${top} = 0 THEN NULL ${STATES.map((state) => `WHEN ${state} = ${top} THEN '${state}'`).join(' ')} END`;
}

/** More engines naming the brand is won, fewer is lost, equal is held. */
export const outcome = (namingBefore: number, namingNow: number): Outcome => (namingNow > namingBefore ? 'won' : namingNow < namingBefore ? 'lost' : 'held');

/** 1 + the number of rivals named more often than the brand. */
export const rankAmong = (brandShare: number, rivalShares: number[]): number => 1 + rivalShares.filter((s) => s > brandShare).length;

/** Mean of the brand's 1-based positions, one decimal; null when it was never named. */
export const meanPosition = (sum: number, count: number): number | null => (count > 0 ? round1(sum / count) : null);

/** A cited domain is the brand's own, a rival's, or a third party's; subdomains count as their parent. */
export function classifyDomain(domain: string, ownDomains: string[], rivalDomains: string[]): 'own' | 'competitor' | 'third_party' {
  const matches = (d: string) => domain === d || domain.endsWith(`.${d}`);
  if (ownDomains.some(matches)) return 'own';
  if (rivalDomains.some(matches)) return 'competitor';
  return 'third_party';
}

/** The host of a URL without a leading `www.`. */
export const domainOf = (url: string): string => new URL(url).hostname.replace(/^www\./, '');
