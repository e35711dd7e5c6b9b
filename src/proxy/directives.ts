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
  /**
   * `no-cache` with `stale-if-error=0` (RFC 5861, section 4): the upstream's answer now, or an error saying when to
   * try again; never a stored copy, a slow upstream's stale one, or an answer shared from another request. What a
   * write asks of the key (api.ts, `confirmKeyNow`).
   */
  upstreamNow?: boolean;
}

/**
 * Request directives (RFC 9111, section 5.2.1; names compared without case,
 * arguments as token or quoted string): `no-cache` revalidates; `max-age=N`
 * revalidates an answer older than N seconds (`max-age=0`: always);
 * `no-store` neither reads nor writes the cache; `stale-if-error=0` with
 * `no-cache` takes only the upstream's answer now. Without Cache-Control,
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
  const noCache = noStore || directives.has('no-cache') || pragmaNoCache || maxAgeS === 0;
  const upstreamNow = noCache && directives.get('stale-if-error') === '0';
  return { noStore, noCache, ...(maxAgeS !== undefined ? { maxAgeS } : {}), ...(upstreamNow ? { upstreamNow } : {}) };
}
