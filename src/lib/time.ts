/** Durations in milliseconds, one name each, and the clock seam. */
export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** What "now" is: `() => new Date()` in production, a fixed or moving instant in tests. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

/** Whole seconds from `nowMs` until `untilMs`, at least 1: what a `Retry-After` says. */
export const retryAfterSeconds = (untilMs: number, nowMs: number): number => Math.max(1, Math.ceil((untilMs - nowMs) / SECOND_MS));

/** Seconds from `Retry-After`, written as seconds or as an HTTP date (RFC 9110, section 10.2.3). */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - nowMs) / 1000));
}
