/**
 * Is a URL a public HTTPS endpoint? For the URLs a subscriber gives us to
 * POST to (Slack incoming webhooks, webhook receivers): a request to a
 * private, loopback or link-local address would reach inside someone's
 * network (server-side request forgery), so every address the host resolves
 * to must be public unicast.
 *
 * Workers have no DNS API: names are resolved with DNS-over-HTTPS (RFC 8484's
 * JSON form), A and AAAA, behind the `Resolve` seam. Literal addresses are
 * checked as written, after the URL parser has normalised them
 * (`http://2130706433` and `http://0x7f.1` are `127.0.0.1`). An IPv4-mapped
 * IPv6 address is checked as the IPv4 address it carries.
 *
 * ```ts
 * const verdict = await checkPublicUrl('https://hooks.slack.com/services/T/B/X', { resolve: dohResolver(fetch) });
 * if (!verdict.ok) throw invalidParameter('channel.url', verdict.reason);
 * ```
 */
import * as ipaddr from 'ipaddr.js';
import { fetchWithin, readBodyUpTo } from './http';

/** The addresses a host name resolves to (A and AAAA), or none. */
export type Resolve = (host: string) => Promise<string[]>;

export type UrlVerdict = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

/** Cloudflare's resolver, JSON API (application/dns-json). */
export const DOH_URL = 'https://cloudflare-dns.com/dns-query';
/** A resolution that takes longer is a failure: the subscriber tries again. */
const DOH_TIMEOUT_MS = 5_000;
/** DNS record types: A and AAAA. */
const RECORD_TYPES = { A: 1, AAAA: 28 } as const;

/** Whether `address` (a literal IPv4 or IPv6) is public unicast: not private, loopback, link-local, unique-local, CGNAT, reserved, multicast, unspecified. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().range() === 'unicast';
  return parsed.range() === 'unicast';
}

/** The host of a URL as an address literal (brackets of IPv6 removed), or null for a name. */
function literalOf(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : null;
}

/**
 * Checks `raw` (see the module comment). `allowLocalhost` (dev only): an
 * `http://localhost` receiver on the developer's machine is accepted, and
 * nothing else that is not public.
 */
export async function checkPublicUrl(raw: string, options: { resolve: Resolve; allowLocalhost?: boolean }): Promise<UrlVerdict> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not a URL.' };
  }
  if (url.username || url.password) return { ok: false, reason: 'must not carry a user name or password.' };
  // Only the name: a literal loopback address is refused in dev too.
  if (options.allowLocalhost && url.hostname === 'localhost' && (url.protocol === 'http:' || url.protocol === 'https:')) return { ok: true, url, addresses: [] };
  if (url.protocol !== 'https:') return { ok: false, reason: 'must be an https URL.' };
  if (url.port && url.port !== '443') return { ok: false, reason: 'must use the https port (443).' };
  const literal = literalOf(url.hostname);
  if (literal) return isPublicAddress(literal) ? { ok: true, url, addresses: [literal] } : { ok: false, reason: `points at ${literal}, a private, loopback or link-local address.` };
  if (!url.hostname.includes('.') || url.hostname.endsWith('.local') || url.hostname.endsWith('.internal')) return { ok: false, reason: 'must name a public host.' };
  let addresses: string[];
  try {
    addresses = await options.resolve(url.hostname);
  } catch {
    return { ok: false, reason: `could not be resolved (${url.hostname}); try again.` };
  }
  if (addresses.length === 0) return { ok: false, reason: `does not resolve (${url.hostname} has no A or AAAA record).` };
  const inside = addresses.find((a) => !isPublicAddress(a));
  if (inside) return { ok: false, reason: `resolves to ${inside}, a private, loopback or link-local address.` };
  return { ok: true, url, addresses };
}

/** A DNS-over-HTTPS answer for one name and type is a few hundred bytes; past this it is refused unread, not parsed. */
export const DOH_MAX_BYTES = 64 * 1024;

interface DohAnswer {
  Status: number;
  Answer?: { type: number; data: string }[];
}

/** A `Resolve` over DNS-over-HTTPS with `fetch` (the seam tests replace). Throws when the resolver cannot answer. */
export function dohResolver(fetcher: typeof fetch, endpoint = DOH_URL): Resolve {
  const query = async (host: string, type: keyof typeof RECORD_TYPES): Promise<string[]> => {
    const response = await fetchWithin(fetcher, `${endpoint}?name=${encodeURIComponent(host)}&type=${type}`, { headers: { accept: 'application/dns-json' } }, DOH_TIMEOUT_MS);
    if (!response.ok) throw new Error(`DNS-over-HTTPS answered ${response.status}`);
    const body = JSON.parse(await readBodyUpTo(response, DOH_MAX_BYTES, () => new Error(`DNS-over-HTTPS answered more than ${DOH_MAX_BYTES} bytes`))) as DohAnswer;
    // NXDOMAIN (3) is an answer: no address.
    if (body.Status !== 0 && body.Status !== 3) throw new Error(`DNS-over-HTTPS status ${body.Status}`);
    return (body.Answer ?? []).filter((a) => a.type === RECORD_TYPES[type]).map((a) => a.data);
  };
  return async (host) => (await Promise.all([query(host, 'A'), query(host, 'AAAA')])).flat();
}
