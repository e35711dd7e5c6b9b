/**
 * `sameSecret` (src/lib/hash.ts): its digests compared with workerd's
 * `crypto.subtle.timingSafeEqual`, which Node's Web Crypto lacks, so this unit
 * runs in the worker project.
 */
import { describe, expect, it } from 'vitest';
import { sameSecret } from '../src/lib/hash';

describe('secrets compared', () => {
  it('in constant time, whatever their length: equal only when equal', async () => {
    expect(await sameSecret('a'.repeat(64), 'a'.repeat(64))).toBe(true);
    for (const [given, expected] of [
      ['a'.repeat(64), 'b'.repeat(64)],
      ['a', 'a'.repeat(64)],
      ['', 'x'],
      [`${'a'.repeat(63)}b`, 'a'.repeat(64)],
    ])
      expect(await sameSecret(given!, expected!)).toBe(false);
  });
});
