/**
 * Log lines hold fixed fields: ids, counts, route templates, never a URL, a
 * query string, a header value or a token (SECURITY.md, "Logs and tokens in
 * URLs"). An exception's message is the one free text that reaches a log, and
 * some quote their input (`Invalid URL: …`, a fetch error naming what it
 * loaded), and a mail service's refusal may name an address: `errorText`
 * keeps the message and drops what could be such input.
 *
 * One address is logged on purpose, and only to the log: the origin (scheme,
 * host and port, never a path or query) an upstream redirected the proxy to,
 * which the operator needs to fix `UPSTREAM_URL` and the caller must not see.
 */

/** `String(error)` (or a message), with URLs, signed tokens, credentials, query values and email addresses replaced; at most 500 characters. */
export function errorText(error: unknown): string {
  return String(error)
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]*/gi, '<url>')
    .replace(/\bv1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, '<token>')
    .replace(/\b(Bearer|Basic)\s+[^\s)"'\]]+/gi, '$1 <redacted>')
    .replace(/([?&][\w.-]+=)[^\s&"']*/g, '$1<redacted>')
    .replace(/[\w.!#$%&'*+/=?^`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g, '<address>')
    .slice(0, 500);
}
