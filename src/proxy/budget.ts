/**
 * Each key's upstream rate budget as the upstream last reported it to this
 * isolate (its `RateLimit` fields, `readRateFields`), so that answers which never reach the
 * upstream (HIT, STALE, 304, refusals at the edge) carry the same fields as
 * those that do (DESIGN section 3: every response carries them). A read
 * served from the cache spends none of the budget. Unknown: the whole budget.
 */
import { RATE_LIMIT, RATE_WINDOW_MS, type RateState, rateHeaders, readRateFields } from '../contract/rate-limit';

const lastSeen = new Map<string, RateState>();
/** Keys remembered per isolate; the oldest are forgotten first. */
const BUDGET_MEMO = 10_000;

/** Records the budget an upstream answer reported for the key. */
export function noteBudget(keyHash: string, headers: readonly (readonly [string, string])[], nowMs: number): void {
  const fields = readRateFields((name) => headers.find(([n]) => n === name)?.[1] ?? null);
  if (fields) remember(keyHash, RATE_LIMIT - fields.remaining, fields.resetSeconds, nowMs);
}

/** Records that the gate refused the key for want of budget, for `retryAfterS`. */
export function noteBudgetSpent(keyHash: string, retryAfterS: number, nowMs: number): void {
  remember(keyHash, RATE_LIMIT, retryAfterS, nowMs);
}

function remember(keyHash: string, used: number, resetS: number, nowMs: number): void {
  lastSeen.delete(keyHash);
  if (lastSeen.size >= BUDGET_MEMO) lastSeen.delete(lastSeen.keys().next().value!);
  lastSeen.set(keyHash, { used: Math.max(0, used), resetAtMs: nowMs + resetS * 1000 });
}

/** `RateLimit` and `RateLimit-Policy` for an answer that did not go upstream: the last reported budget until its reset, then the whole budget. */
export function budgetHeaders(keyHash: string | undefined, nowMs: number): Record<string, string> {
  const state = keyHash === undefined ? undefined : lastSeen.get(keyHash);
  if (!state || state.resetAtMs <= nowMs) return rateHeaders(undefined, nowMs, 'upstream');
  // Noted by a read that began after this one (an inner read): never more than one window ahead.
  return rateHeaders({ used: state.used, resetAtMs: Math.min(state.resetAtMs, nowMs + RATE_WINDOW_MS) }, nowMs, 'upstream');
}
