/**
 * Signed, expiring tokens for links that work without an API key: the digest's
 * confirm, unsubscribe and subscribe-again links, the report links (`/r/<token>`)
 * and the CSV export links (`/x/<token>.csv`).
 *
 * Format: `v1.<payload>.<signature>`, both base64url (RFC 4648 section 5, no
 * padding). The payload is the JSON of the claims; the signature is
 * HMAC-SHA-256 (RFC 2104) under `SIGNING_SECRET` over `v1.<payload>`, checked
 * with `crypto.subtle.verify` (constant time). Every token names its purpose
 * (`p`), so a confirm token can never be replayed as a report link, and an
 * expiry (`exp`, Unix seconds).
 *
 * ```ts
 * const token = await signToken(secret, { p: 'unsubscribe', s: 'sub_123' }, { ttlSeconds: UNSUBSCRIBE_TTL });
 * const result = await verifyToken(secret, token, 'unsubscribe');
 * if (!result.ok) return page(TOKEN_FAILURE_STATUS[result.reason], ...);
 * ```
 */

export type TokenPurpose = 'confirm' | 'unsubscribe' | 'resubscribe' | 'report' | 'export';

export type Claims = { p: TokenPurpose; exp: number } & Record<string, string | number>;

export type TokenFailure = 'malformed' | 'forged' | 'expired' | 'wrong_purpose';
export type VerifyResult<C extends Claims = Claims> = { ok: true; claims: C } | { ok: false; reason: TokenFailure };

/**
 * One policy for every link with a token: cut short or garbled is a bad
 * request; not ours, changed or minted for another purpose is forbidden; out
 * of date is gone (RFC 9110, section 15.5.11: it existed and will not again).
 */
export const TOKEN_FAILURE_STATUS: Record<TokenFailure, 400 | 403 | 410> = { malformed: 400, forged: 403, wrong_purpose: 403, expired: 410 };

const VERSION = 'v1';
const DAY = 86_400;
/** A confirmation link is good for a week; after that, subscribe again. */
export const CONFIRM_TTL = 7 * DAY;
/** Unsubscribe links must keep working long after the mail was sent (CAN-SPAM asks for 30 days at least). */
export const UNSUBSCRIBE_TTL = 90 * DAY;
/** The "subscribe again" link of the unsubscribed page: a month to change one's mind. */
export const RESUBSCRIBE_TTL = 30 * DAY;
/** Report links default to 30 days. */
export const REPORT_TTL = 30 * DAY;

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keys.set(secret, key);
  }
  return key;
}

export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    // Only the canonical spelling: otherwise a last character that differs in its unused bits
    // decodes to the same bytes, and a changed token would still verify.
    return base64url(bytes) === text ? bytes : null;
  } catch {
    return null;
  }
}

/** Signs `claims` (without `exp`) for `ttlSeconds` from `now`. */
export async function signToken(secret: string, claims: { p: TokenPurpose } & Record<string, string | number>, options: { ttlSeconds: number; now?: Date }): Promise<string> {
  const exp = Math.floor((options.now ?? new Date()).getTime() / 1000) + options.ttlSeconds;
  const payload = base64url(encoder.encode(JSON.stringify({ ...claims, exp })));
  const signed = `${VERSION}.${payload}`;
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), encoder.encode(signed)));
  return `${signed}.${base64url(signature)}`;
}

/** Checks signature, purpose and expiry. Never throws on bad input. */
export async function verifyToken<C extends Claims = Claims>(secret: string, token: string | null | undefined, purpose: TokenPurpose, now: Date = new Date()): Promise<VerifyResult<C>> {
  if (!token || token.length > 2048) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) return { ok: false, reason: 'malformed' };
  const payloadBytes = fromBase64url(parts[1]!);
  const signature = fromBase64url(parts[2]!);
  if (!payloadBytes || !signature) return { ok: false, reason: 'malformed' };
  const valid = await crypto.subtle.verify('HMAC', await hmacKey(secret), signature, encoder.encode(`${parts[0]}.${parts[1]}`));
  if (!valid) return { ok: false, reason: 'forged' };
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder().decode(payloadBytes));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof claims !== 'object' || claims === null || typeof (claims as Claims).exp !== 'number') return { ok: false, reason: 'malformed' };
  if ((claims as Claims).p !== purpose) return { ok: false, reason: 'wrong_purpose' };
  if ((claims as Claims).exp * 1000 <= now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, claims: claims as C };
}

/** What a report link is about (issue 6): HMAC over brand, market, kind and expiry. */
export interface ReportLinkClaims {
  p: 'report';
  /** Brand id. */
  b: number;
  /** Market code, lower case (`us`). */
  m: string;
  /** Report kind, `weekly`. */
  k: string;
  /**
   * Optional: whose stored credentials read the data for a keyless viewer, e.g.
   * `sub:<subscription id>` for a digest's "view in browser" link.
   */
  r?: string;
  /** With `r: sub:…`: the subscription's cycle the link reads in (src/subscriptions/store.ts). */
  g?: number;
  exp: number;
}

/** Mints the token of `/r/<token>`. */
export function signReportToken(
  secret: string,
  link: { brandId: number; market: string; kind: string; ref?: string; generation?: number },
  options: { ttlSeconds?: number; now?: Date } = {},
): Promise<string> {
  const claims: Record<string, string | number> = { p: 'report', b: link.brandId, m: link.market.toLowerCase(), k: link.kind };
  if (link.ref) claims.r = link.ref;
  if (link.generation !== undefined) claims.g = link.generation;
  return signToken(secret, claims as { p: 'report' }, { ttlSeconds: options.ttlSeconds ?? REPORT_TTL, ...(options.now ? { now: options.now } : {}) });
}

export function verifyReportToken(secret: string, token: string | null | undefined, now?: Date): Promise<VerifyResult<ReportLinkClaims & Claims>> {
  return verifyToken<ReportLinkClaims & Claims>(secret, token, 'report', now);
}
