/**
 * Who is really on the other end of an address, so that a limit on "one
 * recipient" cannot be multiplied by spelling it differently.
 *
 * - A mailbox: `Alice+news@Example.com` and `alice@example.com` reach one
 *   inbox, so the case is folded and a `+tag` is dropped from the local part.
 *   Nothing else: dots stay (only consumer Gmail ignores them, and `a.b@` and
 *   `ab@` are two people almost everywhere else), and no provider table.
 * - A receiver of HTTP posts: the scheme, host and port of its URL (the URL's
 *   origin: host lower-cased, default port dropped, a trailing dot of the
 *   host dropped), whatever the path or query.
 *
 * ```ts
 * canonicalMailbox('Alice+news@Example.com') // 'alice@example.com'
 * receiverOf('https://Hooks.Example.com:443/a?v=1') // 'https://hooks.example.com'
 * ```
 */

/** The mailbox an address delivers to: lower case, without a `+tag` in its local part. */
export function canonicalMailbox(address: string): string {
  const folded = address.trim().toLowerCase();
  const at = folded.lastIndexOf('@');
  if (at < 0) return folded;
  const local = folded.slice(0, at);
  // `+tag@` is a tag only after something: `+x@host` keeps its local part whole.
  const plus = local.indexOf('+');
  return plus > 0 ? `${local.slice(0, plus)}${folded.slice(at)}` : folded;
}

/** The receiver of a URL: `scheme://host[:port]`, normalised by the URL parser, the host's trailing dot dropped. */
export function receiverOf(url: string | URL): string {
  const parsed = new URL(url);
  // `example.com.` is the same host as `example.com` (a fully qualified name); the parser keeps the dot.
  if (parsed.hostname.endsWith('.')) parsed.hostname = parsed.hostname.slice(0, -1);
  return parsed.origin;
}
