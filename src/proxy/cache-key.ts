/**
 * Cache entry names (the key layout is in policy.ts): partitioned by the hash
 * of the API key, then the hash of the key and the request's canonical form.
 */
import { canonicalOf, type Match, type ParsedRequest, parseRequest } from '../contract/request';
import { toDay } from '../contract/window';
import { sha256Hex } from '../lib/hash';
import { API_BASE } from '../contract/operations';
import { CACHE_KEY_VERSION } from './policy';

export interface ValidRequest extends ParsedRequest {
  /** The upstream path and query, as the caller wrote them (validated). */
  upstreamPath: string;
  /** What the cache key is made of: see canonicalOf. */
  canonical: string;
}

/** Validates like the origin (an invalid request never spends upstream budget) and names what it reads. */
export function validate(match: Match, url: URL, nowMs: number): ValidRequest {
  const parsed = parseRequest(match, url.searchParams, toDay(new Date(nowMs)), 'edge');
  return { ...parsed, upstreamPath: url.pathname.slice(API_BASE.length) + url.search, canonical: canonicalOf(parsed) };
}

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

/** The entry name: see the key layout in policy.ts. */
export async function cacheKeyOf(apiKey: string, keyHash: string, canonical: string): Promise<string> {
  return `${CACHE_KEY_VERSION}:${keyHash}:${await sha256Hex(`${apiKey}\n${canonical}`)}`;
}

export const keyPrefix = (keyHash: string) => `${CACHE_KEY_VERSION}:${keyHash}:`;
