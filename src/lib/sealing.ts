/**
 * The subscriber's API key at rest: AES-256-GCM under `ENCRYPTION_KEY`
 * (DESIGN section 7). The subscription id is the additional authenticated
 * data, so a ciphertext copied onto another row does not decrypt.
 *
 * Stored form: `v1.<iv>.<ciphertext+tag>`, base64url. `ENCRYPTION_KEY` is 32
 * random bytes in base64 (`openssl rand -base64 32`).
 */
import { base64url, fromBase64url } from './signing';

export class EncryptionKeyError extends Error {
  override readonly name = 'EncryptionKeyError';
}

const keys = new Map<string, Promise<CryptoKey>>();

function aesKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    const raw = fromBase64url(secret.trim().replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
    if (raw?.length !== 32) throw new EncryptionKeyError('ENCRYPTION_KEY must be 32 random bytes in base64 (openssl rand -base64 32).');
    key = crypto.subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
    keys.set(secret, key);
  }
  return key;
}

export async function seal(secret: string, plaintext: string, boundTo: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = new TextEncoder().encode(plaintext);
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(boundTo) }, await aesKey(secret), data);
  return `v1.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
}

/** The plaintext, or null when the value was tampered with, moved to another row, or sealed under another key. */
export async function unseal(secret: string, stored: string, boundTo: string): Promise<string | null> {
  const [version, ivText, dataText] = stored.split('.');
  const iv = ivText ? fromBase64url(ivText) : null;
  const data = dataText ? fromBase64url(dataText) : null;
  if (version !== 'v1' || !iv || !data) return null;
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(boundTo) }, await aesKey(secret), data);
    return new TextDecoder().decode(plain);
  } catch (error) {
    if (error instanceof EncryptionKeyError) throw error;
    return null;
  }
}
