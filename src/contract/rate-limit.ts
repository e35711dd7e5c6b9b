/**
 * The spec's request limit: 60 requests per rolling minute per key, and the
 * fields that report it on every response: `RateLimit-Policy` and
 * `RateLimit` of the latest IETF draft (draft-ietf-httpapi-ratelimit-headers),
 * and the older `RateLimit-Limit`, `-Remaining`, `-Reset` that existing
 * clients read (kept; the same numbers).
 */
import { MINUTE_MS } from '../lib/time';

/** Requests per key per rolling window (spec, Rate limits). */
export const RATE_LIMIT = 60;
/** The rolling window. */
export const RATE_WINDOW_MS = MINUTE_MS;

export interface RateState {
  /** Requests admitted in the rolling window, this one included. */
  used: number;
  /** When the oldest of them leaves the window. */
  resetAtMs: number;
}

/**
 * The limit's fields; an unknown caller sees the full budget. `policy` names
 * the quota: `api` where the API itself counts, `upstream` at the edge, which
 * reports the key's budget at the service behind it.
 */
export function rateHeaders(state: RateState | undefined, nowMs: number, policy: 'api' | 'upstream' = 'api'): Record<string, string> {
  const used = state?.used ?? 0;
  const remaining = Math.max(0, RATE_LIMIT - used);
  const reset = state && used > 0 ? Math.max(0, Math.ceil((state.resetAtMs - nowMs) / 1000)) : 0;
  return {
    'ratelimit-policy': `"${policy}";q=${RATE_LIMIT};w=${RATE_WINDOW_MS / 1000}`,
    ratelimit: `"${policy}";r=${remaining};t=${reset}`,
    'ratelimit-limit': String(RATE_LIMIT),
    'ratelimit-remaining': String(remaining),
    'ratelimit-reset': String(reset),
  };
}
