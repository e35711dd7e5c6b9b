/**
 * Sampling noise (the rule is in model.ts's module comment): one standard
 * error of the change between two weekly shares, and whether a change is
 * beyond it. Pure arithmetic with no import, re-exported by model.ts, so the
 * MCP App's browser bundle (src/mcp/app) judges a change as the digest does.
 */
import type { Trend } from './words';

/** One standard error of the difference of two shares (percent), or null when either side is unmeasured. */
export function changeNoise(p1: number | null, n1: number, p0: number | null, n0: number): number | null {
  if (p1 === null || p0 === null || n1 <= 0 || n0 <= 0) return null;
  const a = p1 / 100;
  const b = p0 / 100;
  return 100 * Math.sqrt((a * (1 - a)) / n1 + (b * (1 - b)) / n0);
}

/** Up or down only when the change is at least one standard error. */
export function trendOf(change: number | null, noise: number | null): Trend {
  if (change === null) return 'unknown';
  if (noise !== null && Math.abs(change) < noise) return 'steady';
  if (change > 0) return 'up';
  if (change < 0) return 'down';
  return 'steady';
}
