/**
 * The origin's request limits, over D1: the spec's per-key rate limit
 * (src/contract/rate-limit.ts; 429 `rate_limited`) and the monthly read
 * quota per plan (429 `quota_exceeded`).
 */
import { retryAfterSeconds } from '../lib/time';
import { ApiError } from '../contract/errors';
import { RATE_LIMIT, RATE_WINDOW_MS, type RateState, rateHeaders } from '../contract/rate-limit';
import type { Caller } from './access';

const month = (nowMs: number) => new Date(nowMs).toISOString().slice(0, 7);

/** Seconds until the first day of next month, UTC: when the quota starts over. */
function secondsToNextMonth(nowMs: number): number {
  const now = new Date(nowMs);
  return Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - nowMs) / 1000);
}

/**
 * Admits one request or throws 429. One D1 batch is one transaction, so the
 * count and the insert cannot interleave with a concurrent request for the
 * same key: the limit is exact. Refused requests are not counted, so a
 * client that backs off as told by `Retry-After` gets through.
 */
export async function admit(db: D1Database, caller: Caller, nowMs: number, lookups: D1PreparedStatement[] = []): Promise<{ rate: RateState; lookups: D1Result[] }> {
  const windowStart = nowMs - RATE_WINDOW_MS;
  // The lookups the next checks need ride in the same round trip.
  const [, inserted, window, usage, ...looked] = await db.batch([
    db.prepare('DELETE FROM rate_hits WHERE key_id = ?1 AND at_ms <= ?2').bind(caller.keyId, windowStart),
    db
      .prepare(
        `INSERT INTO rate_hits (key_id, at_ms)
         SELECT ?1, ?2
          WHERE (SELECT count(*) FROM rate_hits WHERE key_id = ?1 AND at_ms > ?3) < ?4
            AND coalesce((SELECT reads FROM usage WHERE account_id = ?5 AND month = ?6), 0) < ?7`,
      )
      .bind(caller.keyId, nowMs, windowStart, RATE_LIMIT, caller.accountId, month(nowMs), caller.monthlyQuota),
    db.prepare('SELECT count(*) AS used, min(at_ms) AS oldest FROM rate_hits WHERE key_id = ?1 AND at_ms > ?2').bind(caller.keyId, windowStart),
    db.prepare('SELECT reads FROM usage WHERE account_id = ? AND month = ?').bind(caller.accountId, month(nowMs)),
    ...lookups,
  ]);
  const { used, oldest } = (window?.results[0] ?? { used: 0, oldest: null }) as { used: number; oldest: number | null };
  const state: RateState = { used, resetAtMs: (oldest ?? nowMs) + RATE_WINDOW_MS };
  if ((inserted?.meta.changes ?? 0) > 0) return { rate: state, lookups: looked };

  if (used >= RATE_LIMIT) {
    throw new ApiError('rate_limited', `More than ${RATE_LIMIT} requests in a minute. Retry after the time in \`Retry-After\`.`, {
      retryAfter: retryAfterSeconds(state.resetAtMs, nowMs),
      headers: rateHeaders(state, nowMs),
    });
  }
  const reads = (usage?.results[0] as { reads: number } | undefined)?.reads ?? 0;
  throw new ApiError('quota_exceeded', `The monthly read limit of ${caller.monthlyQuota} reads is reached (${reads} this month). It starts over on the first day of next month, UTC.`, {
    retryAfter: secondsToNextMonth(nowMs),
    headers: rateHeaders(state, nowMs),
  });
}

/** The key's current window without admitting a request, for responses refused before the limit check. */
export async function peek(db: D1Database, keyId: number, nowMs: number): Promise<RateState> {
  const row = await db
    .prepare('SELECT count(*) AS used, min(at_ms) AS oldest FROM rate_hits WHERE key_id = ? AND at_ms > ?')
    .bind(keyId, nowMs - RATE_WINDOW_MS)
    .first<{ used: number; oldest: number | null }>();
  return { used: row?.used ?? 0, resetAtMs: (row?.oldest ?? nowMs) + RATE_WINDOW_MS };
}

/** Counts a successful read against the account's monthly quota. */
export function countRead(db: D1Database, caller: Caller, nowMs: number): Promise<unknown> {
  return db.prepare('INSERT INTO usage (account_id, month, reads) VALUES (?, ?, 1) ON CONFLICT (account_id, month) DO UPDATE SET reads = reads + 1').bind(caller.accountId, month(nowMs)).run();
}
