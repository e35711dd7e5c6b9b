/**
 * The sign-in form's limit per client address: `SIGN_IN_PER_MINUTE` attempts in any rolling minute, counted in D1
 * (`sign_in_attempts`), so 130 guesses in 29 s across a minute boundary are 130 in one minute. The rate-limiting
 * binding behind every unverified key (src/proxy/abuse.ts) still holds too, but its windows are fixed and reset
 * on the minute. The time is the deps' clock; the address is kept as an HMAC, for one minute.
 */
import { hmacSha256Hex } from '../lib/hash';
import type { SubscriptionDeps } from '../subscriptions';
import { UNVERIFIED_PER_MINUTE } from '../proxy';

/** As many as the unverified keys an address may send upstream a minute: the sign-in is one of those. */
export const SIGN_IN_PER_MINUTE = UNVERIFIED_PER_MINUTE;
const WINDOW_MS = 60_000;

/**
 * Counts one attempt from `address` now, unless it has had `SIGN_IN_PER_MINUTE` in the last minute: then the
 * seconds until the oldest of them leaves the window. Without an address (local tools) there is no one to hold.
 */
export async function takeSignInAttempt(deps: Pick<SubscriptionDeps, 'db' | 'now' | 'signingSecret'>, address: string | null): Promise<{ ok: true } | { ok: false; retryAfter: number }> {
  if (address === null) return { ok: true };
  const tag = await hmacSha256Hex(deps.signingSecret, `sign-in:${address}`);
  const nowMs = deps.now().getTime();
  const since = nowMs - WINDOW_MS;
  // One statement counts and inserts, so attempts at the same moment cannot all pass on one count.
  const [, inserted] = await deps.db.batch([
    deps.db.prepare('DELETE FROM sign_in_attempts WHERE at_ms <= ?').bind(since),
    deps.db
      .prepare('INSERT INTO sign_in_attempts (address_tag, at_ms) SELECT ?1, ?2 WHERE (SELECT COUNT(*) FROM sign_in_attempts WHERE address_tag = ?1 AND at_ms > ?3) < ?4')
      .bind(tag, nowMs, since, SIGN_IN_PER_MINUTE),
  ]);
  if (inserted!.meta.changes > 0) return { ok: true };
  const oldest = await deps.db.prepare('SELECT MIN(at_ms) AS at FROM sign_in_attempts WHERE address_tag = ? AND at_ms > ?').bind(tag, since).first<{ at: number | null }>();
  return { ok: false, retryAfter: Math.max(1, Math.ceil(((oldest?.at ?? nowMs) + WINDOW_MS - nowMs) / 1000)) };
}
