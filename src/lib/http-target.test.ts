/**
 * `plainTarget` (src/lib/http.ts): the proxy's hot path reads the path and
 * query of a plain request address without a URL object. It must give
 * exactly what the runtime's URL parser gives, or nothing (then the Worker
 * parses): checked against `new URL` on hand-picked addresses and on
 * generated ones (fast-check, fixed seed).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainTarget } from './http';

const parsed = (raw: string) => {
  const url = new URL(raw);
  return { pathname: url.pathname, search: url.search };
};

describe('plainTarget', () => {
  it('reads a plain address as the parser does', () => {
    for (const raw of [
      'https://edge.example.com/api/v1/visibility',
      'http://127.0.0.1:8787/api/v1/topics?days=28&brand_id=2',
      'https://edge.example.com/api/v1/answers/runs?prompt=What%20is%20the%20best%20help%20desk%3F',
      'https://edge.example.com/api/v1/topics/12?',
      'https://edge.example.com/',
      'https://edge.example.com/api/v1/x?a=b?c=d&e=%zz',
    ]) {
      expect([raw, plainTarget(raw)]).toEqual([raw, parsed(raw)]);
    }
  });

  it('leaves to the parser what it would change: dot segments, characters it encodes, other schemes', () => {
    for (const raw of [
      'https://edge.example.com/api/v1/../admin',
      'https://edge.example.com/api/v1/./visibility',
      'https://edge.example.com/api/v1/%2e%2E/admin',
      'https://edge.example.com/api/v1/a b',
      "https://edge.example.com/api/v1/visibility?q=it's",
      'https://edge.example.com/api/v1/visibility?q="x"',
      'https://edge.example.com/api/v1/visibility#top',
      'https://edge.example.com/api/v1/\u00e9',
      'https://edge.example.com/api\\v1',
      'ftp://edge.example.com/api/v1/visibility',
      'https://edge.example.com',
    ]) {
      expect([raw, plainTarget(raw)]).toEqual([raw, undefined]);
    }
  });

  it('never disagrees with the parser (fast-check, 2,000 addresses)', () => {
    const piece = fc.constantFrom('api', 'v1', '.', '..', '%2e', '%2E', '%', '%41', ' ', "'", '"', '?', '#', '&', '=', '\\', '/', '//', '\u00e9', '<', '`', '{', 'a', '~', '@', ':', '+');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.constantFrom('http://h', 'https://h:8443'), (pieces, origin) => {
        const raw = `${origin}/${pieces.join('')}`;
        const fast = plainTarget(raw);
        if (fast !== undefined) expect(fast).toEqual(parsed(raw));
      }),
      { seed: 20261123, numRuns: 2_000 },
    );
  });
});
