/** Pieces shared by many response bodies (DESIGN section 3: snake_case, percentages 0-100 with one decimal, null when not measured). */
import * as z from 'zod';
import { once } from '../../lib/lazy';

/** Built at first use, like every response schema: a cache HIT needs none of them (src/contract/operations.ts). */
export const commonSchemas = once(() => {
  const Period = z.object({ from: z.iso.date(), to: z.iso.date() }).meta({ id: 'Period', description: 'Inclusive UTC calendar days.' });

  const MarketRef = z.object({ id: z.number().int(), code: z.string() }).meta({ id: 'MarketRef' });

  /** A percentage 0 to 100, one decimal. */
  const Percent = z.number().min(0).max(100);
  /** A percentage that is null when nothing was measured (never 0 for "no data"). */
  const MaybePercent = Percent.nullable();
  /** A change in percentage points; null when either side was not measured. */
  const Delta = z.number().min(-100).max(100).nullable();

  const Day = z.iso.date();
  const Timestamp = z.iso.datetime();

  /** What every brand-scoped body names: the brand, the market and when the figures were computed. */
  const brandScope = {
    brand_id: z.number().int(),
    market: MarketRef,
    generated_at: Timestamp,
  };

  /** `brandScope` plus the window the figures cover. */
  const windowed = { ...brandScope, period: Period };

  const WeeklyPoint = z
    .object({ week_start: Day, week_end: Day, score: MaybePercent, answered_runs: z.number().int().min(0) })
    .meta({ id: 'WeeklyPoint', description: 'One 7-day window of a 12-week history, oldest first; the last point ends today.' });

  const RivalShare = z.object({
    name: z.string().describe('The rival as AI writes it.'),
    share: Percent.describe('Share of answered runs naming this rival.'),
  });

  return { Period, MarketRef, Percent, MaybePercent, Delta, Day, Timestamp, brandScope, windowed, WeeklyPoint, RivalShare };
});
