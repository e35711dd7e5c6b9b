/**
 * The cache tiers: the Cache API (per location, fast; a no-op on
 * workers.dev) in front of KV (global, eventually consistent, ~60 s to
 * propagate). A KV value holds the status, body, `stored_at` and ETag; the
 * freshness is in its metadata. Writes are never awaited on the request path.
 *
 * In front of both, a small copy in the isolate's memory, kept a few seconds:
 * a hot entry (a dashboard polling) is then answered without any I/O.
 *
 * A stored copy is served only when it is whole. Each tier keeps the body's
 * length beside it (KV metadata, a Cache API header) and a copy read back
 * with another length, or that does not parse, is a miss and is dropped; a
 * write that fails leaves no copy in either tier. The memory copy is not
 * checked: it is only ever made from a whole body (the upstream's, read in
 * full, or a checked copy), and a HIT from it stays free of any work.
 */
import { CACHE_URL_BASE, CACHE_KEY_VERSION, EDGE_TIER_MAX_AGE_S, type Freshness, KV_MIN_TTL_S, MEMORY_TIER_MAX_AGE_MS, MEMORY_TIER_MAX_CHARS, MEMORY_TIER_MAX_ENTRIES } from './policy';

export interface Entry extends Freshness {
  status: 200;
  body: string;
  etag: string;
  /** The brand the body names, so a purge by brand can find it; undefined for account-level reads (`/brands`). */
  brandId: number | undefined;
}

/**
 * Every entry is made here, its fields always in this order and all present:
 * the HIT path then meets one hidden class, whichever tier the entry came
 * from. An entry of another shape (a memory copy refreshed from KV every few
 * seconds) made V8 throw away the HIT path's optimized code each time.
 */
export function makeEntry(body: string, etag: string, freshness: Freshness, brandId: number | undefined): Entry {
  return { status: 200, body, etag, storedAt: freshness.storedAt, freshUntil: freshness.freshUntil, revalidateUntil: freshness.revalidateUntil, staleUntil: freshness.staleUntil, brandId };
}

/** KV value. */
interface StoredValue {
  status: 200;
  body: string;
  stored_at: number;
  etag: string;
}

/** KV metadata (at most 1024 bytes): what a purge and a freshness check need without reading the value. */
export interface StoredMeta {
  fresh_until: number;
  revalidate_until: number;
  stale_until: number;
  etag: string;
  brand_id?: number;
  /** The body's `length` as written: a value read back with another is not whole. Absent on a value written before it was kept: not trusted either. */
  length?: number;
}

const cacheUrl = (name: string) => CACHE_URL_BASE + name;

/** The isolate's copies: entry and until when the copy may be used. Map order is insertion order: the oldest go first. */
const memory = new Map<string, { entry: Entry; until: number }>();
/** The characters of the bodies `memory` holds. */
let memoryChars = 0;

function remember(name: string, entry: Entry, nowMs: number): void {
  const until = Math.min(nowMs + MEMORY_TIER_MAX_AGE_MS, entry.staleUntil);
  if (until <= nowMs || entry.body.length > MEMORY_TIER_MAX_CHARS) return;
  unmemorize(name);
  while (memory.size >= MEMORY_TIER_MAX_ENTRIES || memoryChars + entry.body.length > MEMORY_TIER_MAX_CHARS) unmemorize(memory.keys().next().value!);
  memory.set(name, { entry, until });
  memoryChars += entry.body.length;
}

function unmemorize(name: string): void {
  const copy = memory.get(name);
  if (!copy) return;
  memory.delete(name);
  memoryChars -= copy.entry.body.length;
}

function recall(name: string, nowMs: number): Entry | undefined {
  const copy = memory.get(name);
  if (!copy) return undefined;
  // A clock that went backwards (a test's, or a skewed one) also ends the copy.
  if (nowMs < copy.until && nowMs >= copy.until - MEMORY_TIER_MAX_AGE_MS) return copy.entry;
  unmemorize(name);
  return undefined;
}

/** Forgets this isolate's copies whose names start with `prefix` (a purge, a revocation). */
function forget(prefix: string, select: (entry: Entry) => boolean = () => true): void {
  for (const [name, { entry }] of memory) if (name.startsWith(prefix) && select(entry)) unmemorize(name);
}
const edgeCache = () => caches.default;

/** A failed background write costs a later miss, nothing more: logged, never thrown. */
const writeFailed = (error: unknown) => console.error(JSON.stringify({ msg: 'cache write failed', error: String(error) }));

export class CacheStore {
  constructor(
    private readonly kv: KVNamespace,
    private readonly waitUntil: (work: Promise<unknown>) => void,
  ) {}

  /** The isolate's memory copy, if it has a usable one: no I/O, no promise. */
  recall(name: string, nowMs: number): Entry | undefined {
    return recall(name, nowMs);
  }

  /**
   * The entry from the nearest tier that has it; a KV hit is copied into the
   * Cache API in the background. A tier that fails to answer counts as a
   * miss: the read goes upstream instead of failing.
   */
  async read(name: string, nowMs: number): Promise<Entry | undefined> {
    const remembered = recall(name, nowMs);
    if (remembered) return remembered;
    try {
      return await this.readTiers(name, nowMs);
    } catch (error) {
      console.error(JSON.stringify({ msg: 'cache tiers unavailable, reading upstream', error: String(error) }));
      return undefined;
    }
  }

  private async readTiers(name: string, nowMs: number): Promise<Entry | undefined> {
    const local = await edgeCache().match(cacheUrl(name));
    if (local) {
      const entry = await fromEdgeCopy(local);
      if (entry) {
        remember(name, entry, nowMs);
        return entry;
      }
      this.dropBroken('cache_api', edgeCache().delete(cacheUrl(name)));
    }
    const { value, metadata } = await this.kv.getWithMetadata<StoredMeta>(name, 'text');
    if (value === null || !metadata) return undefined;
    const stored = wholeValue(value, metadata);
    if (!stored) {
      this.dropBroken('kv', this.kv.delete(name));
      return undefined;
    }
    const entry = makeEntry(
      stored.body,
      stored.etag,
      { storedAt: stored.stored_at, freshUntil: metadata.fresh_until, revalidateUntil: metadata.revalidate_until, staleUntil: metadata.stale_until },
      metadata.brand_id,
    );
    if (nowMs < entry.staleUntil) {
      remember(name, entry, nowMs);
      this.waitUntil(this.putEdgeCopy(name, entry, nowMs).catch(writeFailed));
    }
    return entry;
  }

  /** Stores in both tiers, in the background. If either write fails, neither tier keeps a copy. */
  write(name: string, entry: Entry, nowMs: number): void {
    const value: StoredValue = { status: 200, body: entry.body, stored_at: entry.storedAt, etag: entry.etag };
    const metadata: StoredMeta = {
      fresh_until: entry.freshUntil,
      revalidate_until: entry.revalidateUntil,
      stale_until: entry.staleUntil,
      etag: entry.etag,
      ...(entry.brandId !== undefined ? { brand_id: entry.brandId } : {}),
      length: entry.body.length,
    };
    const expirationTtl = Math.max(KV_MIN_TTL_S, Math.ceil((entry.staleUntil - nowMs) / 1000));
    remember(name, entry, nowMs);
    const writes = Promise.allSettled([this.kv.put(name, JSON.stringify(value), { expirationTtl, metadata }), this.putEdgeCopy(name, entry, nowMs)]);
    this.waitUntil(
      writes.then((outcomes) => {
        const failed = outcomes.find((outcome) => outcome.status === 'rejected');
        if (!failed) return;
        writeFailed(failed.reason);
        // Once both have settled: a copy still being written would outlive its deletion.
        return Promise.all([this.kv.delete(name), edgeCache().delete(cacheUrl(name))]).catch(writeFailed);
      }),
    );
  }

  /** A copy that is not whole: a miss now, deleted in the background so the next read does not meet it again. */
  private dropBroken(tier: 'cache_api' | 'kv', deletion: Promise<unknown>): void {
    console.error(JSON.stringify({ msg: 'cache copy not whole: dropped', tier }));
    this.waitUntil(deletion.catch(writeFailed));
  }

  private putEdgeCopy(name: string, entry: Entry, nowMs: number): Promise<void> {
    const maxAge = Math.min(EDGE_TIER_MAX_AGE_S, Math.floor((entry.staleUntil - nowMs) / 1000));
    if (maxAge <= 0) return Promise.resolve();
    const headers: Record<string, string> = {
      'cache-control': `max-age=${maxAge}`,
      etag: entry.etag,
      'x-stored-at': String(entry.storedAt),
      'x-fresh-until': String(entry.freshUntil),
      'x-revalidate-until': String(entry.revalidateUntil),
      'x-stale-until': String(entry.staleUntil),
      'x-body-length': String(entry.body.length),
    };
    if (entry.brandId !== undefined) headers['x-brand-id'] = String(entry.brandId);
    return edgeCache().put(cacheUrl(name), new Response(entry.body, { headers }));
  }

  /**
   * Deletes the entries whose names start with `prefix` and that pass `keep`
   * (false = delete), from KV and from this location's Cache API. Returns how
   * many were deleted.
   */
  async purge(prefix: string, select: (meta: StoredMeta | undefined) => boolean = () => true): Promise<number> {
    forget(prefix, (entry) => select(entry.brandId === undefined ? undefined : ({ brand_id: entry.brandId } as StoredMeta)));
    let cursor: string | undefined;
    let purged = 0;
    do {
      const page: KVNamespaceListResult<StoredMeta> = await this.kv.list<StoredMeta>({ prefix, ...(cursor ? { cursor } : {}) });
      const names = page.keys.filter((k) => select(k.metadata)).map((k) => k.name);
      await Promise.all(names.flatMap((name) => [this.kv.delete(name), edgeCache().delete(cacheUrl(name))]));
      purged += names.length;
      cursor = page.list_complete ? undefined : page.cursor;
    } while (cursor);
    return purged;
  }

  /** Deletes one entry from both tiers of this location. */
  async delete(name: string): Promise<void> {
    unmemorize(name);
    await Promise.all([this.kv.delete(name), edgeCache().delete(cacheUrl(name))]);
  }
}

export const ALL_ENTRIES = `${CACHE_KEY_VERSION}:`;

/** The Cache API copy as an entry, or undefined when its body is not the length it was stored with. */
async function fromEdgeCopy(response: Response): Promise<Entry | undefined> {
  const h = (name: string) => Number(response.headers.get(name));
  const body = await response.text();
  if (response.headers.get('x-body-length') !== String(body.length)) return undefined;
  const brand = response.headers.get('x-brand-id');
  return makeEntry(
    body,
    response.headers.get('etag') ?? '',
    { storedAt: h('x-stored-at'), freshUntil: h('x-fresh-until'), revalidateUntil: h('x-revalidate-until'), staleUntil: h('x-stale-until') },
    brand !== null ? Number(brand) : undefined,
  );
}

/** The KV value, when it parses and its body is the length the metadata says. */
function wholeValue(value: string, metadata: StoredMeta): StoredValue | undefined {
  let stored: Partial<StoredValue>;
  try {
    stored = JSON.parse(value) as Partial<StoredValue>;
  } catch {
    return undefined;
  }
  return typeof stored.body === 'string' && stored.body.length === metadata.length ? (stored as StoredValue) : undefined;
}
