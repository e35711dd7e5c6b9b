/**
 * The account's overview is where the week shows (issue 45): for each brand and market the key reads, the week's
 * report read as the report page reads it (`readWeek`, through the cache and the key's budget), cut to what fits a
 * card: the score and its change against the noise, won and lost, the 12 weeks, and the plan's first action. The
 * reads keep the API's 12 weeks too, so the history starts full from the first sign-in.
 */
import { ApiClientError, toApiError } from '../client';
import type { SubscriptionDeps } from '../subscriptions';
import { type ChartBar, keepApiWeeks, OperationMissing, readWeek, reportOf, type Trend, WindowMismatch } from '../weekly-report';
import type { SignedIn } from './guard';

export interface OverviewWeek {
  brandId: number;
  brand: string;
  market: string;
  /** The week's figures; absent when the read failed, and `problem` says why in the API's words. */
  week?: {
    period: string;
    score: number | null;
    change: number | null;
    trend: Trend;
    won: number;
    lost: number;
    history: ChartBar[];
    /** The plan's first item, what to do; null when nothing is to win back. */
    action: string | null;
  };
  problem?: string;
}

/** Every brand and market of the session's key, read together; one that fails says so and leaves the others. */
export function overviewWeeks(deps: SubscriptionDeps, who: SignedIn): Promise<OverviewWeek[]> {
  const client = deps.api(who.caller.key, who.caller.clientAddress);
  const now = deps.now();
  return Promise.all(
    who.brands.flatMap((b) =>
      b.markets.map(async (m): Promise<OverviewWeek> => {
        const scope = { brandId: b.id, brand: b.name, market: m.code.toLowerCase() };
        try {
          const { inputs } = await readWeek(client, { brand_id: b.id, market: scope.market, brandName: b.name }, now);
          await keepApiWeeks(deps.db, inputs.visibility, now);
          const report = reportOf(inputs);
          const vis = report.visibility!;
          return {
            ...scope,
            week: {
              period: report.period_label,
              score: vis.score,
              change: vis.change,
              trend: vis.trend,
              won: report.won_lost!.counts.won,
              lost: report.won_lost!.counts.lost,
              history: vis.history,
              action: report.plan?.items[0]?.headline ?? null,
            },
          };
        } catch (error) {
          if (error instanceof ApiClientError) return { ...scope, problem: toApiError(error).message };
          // A week the report cannot read (an operation missing, windows apart): said on its card, the others shown.
          if (error instanceof OperationMissing || error instanceof WindowMismatch) return { ...scope, problem: error.message };
          throw error;
        }
      }),
    ),
  );
}
