/**
 * Cache entry names (the key layout is in policy.ts): partitioned by the hash
 * of the API key, then the hash of the key and the request's canonical form.
 */
import { canonicalOf, type Match, type ParsedRequest, parseRequest } from '../contract/request';
import { toDay } from '../contract/window';
import { invalidParameter } from '../contract/errors';
import { sha256Hex } from '../lib/hash';
import { API_BASE } from '../contract/operations';
import { CACHE_KEY_VERSION } from './policy';
import { upstreamIdentity } from './upstream';
import type { ProxyEnv } from './env';

export interface ValidRequest extends ParsedRequest {
  /** The upstream path and query, as the caller wrote them (validated). */
  upstreamPath: string;
  /** What the cache key is made of: see canonicalOf. */
  canonical: string;
}

/**
 * Validates like the origin (an invalid request never spends upstream budget) and names what it reads. `pageParams`:
 * the parameters the upstream's pages add (the map's `pages`, src/client/pages.ts), passed on as written and part
 * of the entry's name, so each page is its own entry.
 */
export function validate(match: Match, url: URL, nowMs: number, pageParams: readonly string[] = []): ValidRequest {
  const asked = new URLSearchParams(url.searchParams);
  const page: [string, string][] = [];
  for (const name of pageParams) {
    const value = asked.get(name);
    if (value === null) continue;
    if (value.length > MAX_PAGE_VALUE) throw invalidParameter(name, `\`${name}\` is at most ${MAX_PAGE_VALUE} characters.`);
    page.push([name, value]);
    asked.delete(name);
  }
  const parsed = parseRequest(match, asked, toDay(new Date(nowMs)), 'edge');
  const pages = page.length > 0 ? ` pages?${new URLSearchParams(page.sort(([a], [b]) => (a < b ? -1 : 1)))}` : '';
  return { ...parsed, upstreamPath: url.pathname.slice(API_BASE.length) + url.search, canonical: canonicalOf(parsed) + pages };
}
/** A page parameter's longest value: a cursor, never a body. */
const MAX_PAGE_VALUE = 2048;

/** Hashes of API keys seen by this isolate, so a HIT costs one SHA-256, not two. Bounded; keys are never logged. */
const keyHashes = new Map<string, string>();
const KEY_HASH_MEMO = 1000;

/** The hash when this isolate has computed it already, without a promise. */
export const knownKeyHash = (apiKey: string): string | undefined => keyHashes.get(apiKey);

export async function hashApiKey(apiKey: string): Promise<string> {
  const known = keyHashes.get(apiKey);
  if (known) return known;
  const hash = await sha256Hex(apiKey);
  if (keyHashes.size >= KEY_HASH_MEMO) keyHashes.clear();
  keyHashes.set(apiKey, hash);
  return hash;
}

/**
 * The upstream a body comes from, as a short tag in every entry's name: after
 * `UPSTREAM_URL` changes, the entries of the service before are never read
 * again (a switch back finds its own). Hashed once per env object, i.e. once
 * per isolate in a deployment; the last env is kept beside the map so a HIT
 * pays one comparison, not a lookup. 12 hex digits (48 bits): two services an
 * operator switches between do not share one.
 */
const upstreamTags = new WeakMap<object, string>();
let lastEnv: object | undefined;
let lastTag = '';

/** The tag when this isolate has computed it for `env` already, without a promise. */
export function knownUpstreamTag(env: Pick<ProxyEnv, 'UPSTREAM_URL'>): string | undefined {
  if (env === lastEnv) return lastTag;
  const tag = upstreamTags.get(env);
  if (tag !== undefined) {
    lastEnv = env;
    lastTag = tag;
  }
  return tag;
}

export async function upstreamTagOf(env: Pick<ProxyEnv, 'UPSTREAM_URL'>): Promise<string> {
  const known = knownUpstreamTag(env);
  if (known !== undefined) return known;
  const tag = (await sha256Hex(upstreamIdentity(env))).slice(0, 12);
  upstreamTags.set(env, tag);
  lastEnv = env;
  lastTag = tag;
  return tag;
}

/** The entry name: see the key layout in policy.ts. */
export async function cacheKeyOf(apiKey: string, keyHash: string, upstreamTag: string, canonical: string): Promise<string> {
  return `${CACHE_KEY_VERSION}:${keyHash}:${upstreamTag}:${await sha256Hex(`${apiKey}\n${canonical}`)}`;
}

/** All of a key's entries, whichever upstream they came from (a purge, a revocation). */
export const keyPrefix = (keyHash: string) => `${CACHE_KEY_VERSION}:${keyHash}:`;
