/** Hex SHA-256: how API keys are stored, compared, partitioned in the cache and logged (never the keys themselves). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Hex HMAC-SHA-256 of `text` under `secret`: an id derived from a key that cannot test a guess of it without the secret. */
export async function hmacSha256Hex(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(text));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Whether two secrets (a token, a form's CSRF value, a tag) are equal, in constant time: their SHA-256 digests are
 * compared with `timingSafeEqual`, so neither their content nor their length leaks through timing.
 */
export async function sameSecret(given: string, expected: string): Promise<boolean> {
  const enc = new TextEncoder();
  return crypto.subtle.timingSafeEqual(enc.encode(await sha256Hex(given)), enc.encode(await sha256Hex(expected)));
}
