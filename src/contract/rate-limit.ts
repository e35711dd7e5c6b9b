/**
 * The spec's request limit: 60 requests per rolling minute per key, and the
 * fields that report it on every response: `RateLimit-Policy` and
 * `RateLimit` of the latest IETF draft (draft-ietf-httpapi-ratelimit-headers).
 * The draft's older names (`RateLimit-Limit`, `-Remaining`, `-Reset`) are no
 * longer sent; they are still read from an upstream that sends them
 * (`readRateFields`).
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
  };
}

/** A quota as its fields report it: the limit, what is left, and seconds until the window frees up. */
export interface RateFields {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** The parameters of a structured field (`"api";r=59;t=60`) that carry the numbers. */
const PARAMETER = { r: /;\s*r=(\d+)/, t: /;\s*t=(\d+)/, q: /;\s*q=(\d+)/ } as const;
const parameter = (field: string | null, name: keyof typeof PARAMETER): number | undefined => {
  const found = field === null ? null : PARAMETER[name].exec(field);
  return found ? Number(found[1]) : undefined;
};
const digits = (value: string | null): number | undefined => (value !== null && /^\d+$/.test(value.trim()) ? Number(value) : undefined);

/**
 * The quota an answer reports: the draft's `RateLimit` (`r`, `t`) and
 * `RateLimit-Policy` (`q`), else its older `RateLimit-Remaining`, `-Reset`
 * and `-Limit`, which other implementations of the spec may still send.
 * Undefined when neither says what is left.
 */
export function readRateFields(header: (name: string) => string | null): RateFields | undefined {
  const current = header('ratelimit');
  const remaining = parameter(current, 'r') ?? digits(header('ratelimit-remaining'));
  if (remaining === undefined) return undefined;
  return {
    limit: parameter(header('ratelimit-policy'), 'q') ?? digits(header('ratelimit-limit')) ?? RATE_LIMIT,
    remaining,
    resetSeconds: parameter(current, 't') ?? digits(header('ratelimit-reset')) ?? 0,
  };
}
