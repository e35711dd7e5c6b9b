/**
 * What a request's `Cache-Control` (or `Pragma`) asks of the cache: read
 * once per request by the handler, which applies it.
 */
export interface Directives {
  /** Revalidate before answering from the cache. */
  noCache: boolean;
  /** Neither read nor write the cache. */
  noStore: boolean;
  /** The oldest stored answer the caller accepts, in seconds. */
  maxAgeS?: number;
}

/**
 * Request directives (RFC 9111, section 5.2.1; names compared without case,
 * arguments as token or quoted string): `no-cache` revalidates; `max-age=N`
 * revalidates an answer older than N seconds (`max-age=0`: always);
 * `no-store` neither reads nor writes the cache. Without Cache-Control,
 * `Pragma: no-cache` counts as `no-cache` (section 5.4).
 */
const NO_DIRECTIVES: Directives = { noCache: false, noStore: false };

export function requestDirectives(headers: Headers): Directives {
  const cacheControl = headers.get('cache-control') ?? '';
  // The common case, a plain poll: nothing to parse.
  if (cacheControl === '' && !headers.has('pragma')) return NO_DIRECTIVES;
  const directives = new Map<string, string>();
  for (const part of cacheControl.split(',')) {
    const [name = '', ...argument] = part.split('=');
    if (name.trim())
      directives.set(
        name.trim().toLowerCase(),
        argument
          .join('=')
          .trim()
          .replace(/^"(.*)"$/, '$1'),
      );
  }
  const maxAge = directives.get('max-age');
  const maxAgeS = maxAge !== undefined && /^\d+$/.test(maxAge) ? Number(maxAge) : undefined;
  const pragmaNoCache = cacheControl.trim() === '' && (headers.get('pragma') ?? '').split(',').some((d) => d.trim().toLowerCase() === 'no-cache');
  const noStore = directives.has('no-store');
  return { noStore, noCache: noStore || directives.has('no-cache') || pragmaNoCache || maxAgeS === 0, ...(maxAgeS !== undefined ? { maxAgeS } : {}) };
}
