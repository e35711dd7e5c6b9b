/**
 * The sessions of the pages for people. A person signs in with the API key
 * (the sign-in route in `routes.ts` checks it first); the browser then holds only an opaque id, in
 * a `__Host-` cookie (HttpOnly, Secure, SameSite=Lax, Path=/). The key stays
 * on the server, in D1 (migration 0019): the row is found by the id's
 * SHA-256, the key is sealed under `ENCRYPTION_KEY` bound to that hash, and
 * the row carries an HMAC of it under `SIGNING_SECRET`. A session ends:
 * - after a working day (`SESSION_TTL_MS`, 8 hours from signing in, however
 *   active: the key is asked for again each morning);
 * - when the key signs in a 21st time while 20 of its sessions live
 *   (`SESSIONS_PER_KEY`): the oldest ends;
 * - on signing out (the row is deleted);
 * - when the key is no longer accepted upstream (every page reads the key's
 *   brands first, `guard.ts`: a revoked key ends every session of it);
 * - when the operator rotates either secret (the seal no longer opens, the
 *   tag no longer matches).
 *
 * Every form carries a token derived from the session id (`csrfTokenOf`):
 * a form posted from another site has neither the cookie (SameSite=Lax) nor
 * the token, and its Origin is checked too (`form.ts`).
 *
 * Secure on http://localhost as well: Chromium and Firefox treat loopback as
 * a secure context and keep `Secure` (and so `__Host-`) cookies set over
 * plain http there, so dev, the browser test and production use one name.
 */
import { hmacSha256Hex, sameSecret, sha256Hex } from '../lib/hash';
import { seal, unseal } from '../lib/sealing';
import { base64url } from '../lib/signing';
import { HOUR_MS } from '../lib/time';

export const SESSION_COOKIE = '__Host-session';
/** A working day. */
export const SESSION_TTL_MS = 8 * HOUR_MS;
/** Live sessions one key may hold (browsers, people); signing in past it ends the oldest, so no key grows the table without bound. */
export const SESSIONS_PER_KEY = 20;

export interface SessionDeps {
  db: D1Database;
  encryptionKey: string;
  signingSecret: string;
  now: () => Date;
}

/** A live session: its id (the cookie's value), the key it acts with, and its form token. */
export interface Session {
  id: string;
  key: string;
  csrf: string;
  expiresAt: Date;
}

const tagOf = (secret: string, idHash: string) => hmacSha256Hex(secret, `session:${idHash}`);
/** The token every form of the session carries: derived, never stored, useless without the cookie. */
export const csrfTokenOf = (secret: string, id: string) => hmacSha256Hex(secret, `session-form:${id}`);

/** Begins a session for a key already checked upstream; returns it with the cookie that holds it. */
export async function beginSession(deps: SessionDeps, key: string): Promise<{ session: Session; cookie: string }> {
  const id = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const idHash = await sha256Hex(id);
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  const keyHash = await sha256Hex(key);
  // Expired rows go as new ones come: the table holds a working day of sign-ins, at most SESSIONS_PER_KEY a key.
  await deps.db.batch([
    deps.db.prepare('DELETE FROM account_sessions WHERE expires_at <= ?').bind(now.toISOString()),
    deps.db
      .prepare('INSERT INTO account_sessions (id_hash, key_sealed, key_hash, secret_tag, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
      .bind(idHash, await seal(deps.encryptionKey, key, idHash), keyHash, await tagOf(deps.signingSecret, idHash), now.toISOString(), expiresAt.toISOString()),
    deps.db
      .prepare('DELETE FROM account_sessions WHERE key_hash = ? AND id_hash NOT IN (SELECT id_hash FROM account_sessions WHERE key_hash = ? ORDER BY created_at DESC, rowid DESC LIMIT ?)')
      .bind(keyHash, keyHash, SESSIONS_PER_KEY),
  ]);
  const session = { id, key, csrf: await csrfTokenOf(deps.signingSecret, id), expiresAt };
  return { session, cookie: sessionCookie(id, SESSION_TTL_MS / 1000) };
}

/** Why there is no session: none was sent, or the one sent has ended (expired, signed out, secrets rotated). */
export type NoSession = 'none' | 'ended';

/** The session of a request's cookie, or why there is none. An ended session's row is deleted. */
export async function sessionOf(deps: SessionDeps, request: Request): Promise<Session | NoSession> {
  const id = cookieValue(request.headers.get('cookie'), SESSION_COOKIE);
  if (!id) return 'none';
  if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return 'ended';
  const idHash = await sha256Hex(id);
  const row = await deps.db
    .prepare('SELECT key_sealed, secret_tag, expires_at FROM account_sessions WHERE id_hash = ?')
    .bind(idHash)
    .first<{ key_sealed: string; secret_tag: string; expires_at: string }>();
  if (!row) return 'ended';
  const expiresAt = new Date(row.expires_at);
  const key =
    expiresAt.getTime() > deps.now().getTime() && (await sameSecret(row.secret_tag, await tagOf(deps.signingSecret, idHash))) ? await unseal(deps.encryptionKey, row.key_sealed, idHash) : null;
  if (key === null) {
    await deps.db.prepare('DELETE FROM account_sessions WHERE id_hash = ?').bind(idHash).run();
    return 'ended';
  }
  return { id, key, csrf: await csrfTokenOf(deps.signingSecret, id), expiresAt };
}

/** Ends one session (signing out). */
export async function endSession(deps: Pick<SessionDeps, 'db'>, session: Pick<Session, 'id'>): Promise<void> {
  await deps.db
    .prepare('DELETE FROM account_sessions WHERE id_hash = ?')
    .bind(await sha256Hex(session.id))
    .run();
}

/** Ends every session of a key: the upstream no longer accepts it. */
export async function endSessionsOfKey(deps: Pick<SessionDeps, 'db'>, key: string): Promise<void> {
  await deps.db
    .prepare('DELETE FROM account_sessions WHERE key_hash = ?')
    .bind(await sha256Hex(key))
    .run();
}

export function sessionCookie(value: string, maxAgeS: number): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}`;
}

/** The cookie that removes the session's. */
export const clearedSessionCookie = () => sessionCookie('', 0);

export function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
