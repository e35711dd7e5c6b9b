/**
 * The spec's request limit: 60 requests per rolling minute per key, and the
 * `RateLimit-*` fields that report it on every response (IETF draft
 * "RateLimit header fields for HTTP").
 */

/** Requests per key per rolling window (spec, Rate limits). */
export const RATE_LIMIT = 60;
/** The rolling window. */
export const RATE_WINDOW_MS = 60_000;

export interface RateState {
  /** Requests admitted in the rolling window, this one included. */
  used: number;
  /** When the oldest of them leaves the window. */
  resetAtMs: number;
}

/** `RateLimit-*` headers; an unknown caller sees the full budget. */
export function rateHeaders(state: RateState | undefined, nowMs: number): Record<string, string> {
  const used = state?.used ?? 0;
  const reset = state && used > 0 ? Math.max(0, Math.ceil((state.resetAtMs - nowMs) / 1000)) : 0;
  return {
    'ratelimit-limit': String(RATE_LIMIT),
    'ratelimit-remaining': String(Math.max(0, RATE_LIMIT - used)),
    'ratelimit-reset': String(reset),
  };
}
