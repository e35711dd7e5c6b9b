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
