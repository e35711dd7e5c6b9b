/**
 * Where the upstream map (src/contract/upstream-map.ts) is kept: one KV
 * value in the proxy's own namespace, beside the cache entries but outside
 * their prefix, so no purge touches it. KV, not D1: the map is read by every
 * isolate that reads a foreign body and written by a person now and then
 * (KV's shape), and a proxy-only deployment, whose MCP `weekly_report` reads
 * fields too, has KV but no D1. An isolate keeps what it read for
 * `MAP_MEMORY_MS`; a new map reaches every location within KV's minute.
 */
import { type OperationMap, type UpstreamMap, type UpstreamMapInput, upstreamMapSchemas } from '../contract/schemas/upstream-map';
import type { OperationId } from '../contract/operations';
import type { Clock } from '../lib/time';
import { ALL_ENTRIES } from './store';

export const MAP_KEY = 'upstream-map';
/** How long an isolate trusts the map it read. */
export const MAP_MEMORY_MS = 30_000;

// The map must never be a cache entry: a purge of everything deletes by ALL_ENTRIES.
if (MAP_KEY.startsWith(ALL_ENTRIES)) throw new Error("MAP_KEY is inside the cache entries' prefix");

let memory: { map: UpstreamMap | null; readAtMs: number } | undefined;

/** The stored map, or null when none was stored: read from KV at most every `MAP_MEMORY_MS` per isolate. */
export async function readUpstreamMap(kv: KVNamespace, now: Clock): Promise<UpstreamMap | null> {
  const nowMs = now().getTime();
  if (memory && nowMs - memory.readAtMs < MAP_MEMORY_MS) return memory.map;
  const stored = await kv.get(MAP_KEY, 'json');
  // A value that no longer parses (a hand edit in KV) is no map: logged, and the features read as without one.
  const parsed = stored === null ? null : upstreamMapSchemas().UpstreamMap.safeParse(stored);
  if (parsed && !parsed.success) console.error(JSON.stringify({ msg: 'stored upstream map is invalid', problem: parsed.error.issues[0]?.message ?? 'invalid' }));
  memory = { map: parsed?.success ? parsed.data : null, readAtMs: nowMs };
  return memory.map;
}

/** Forgets the map this isolate read: its next read goes to KV, for a map deleted or written there by hand (the tests' per-file reset). */
export function forgetUpstreamMap(): void {
  memory = undefined;
}

/** One operation's entry of the stored map. */
export const operationMapOf = async (kv: KVNamespace, now: Clock, id: OperationId): Promise<OperationMap | undefined> => (await readUpstreamMap(kv, now))?.operations[id];

export class MapVersionConflict extends Error {
  constructor(
    readonly current: number,
    /** The replacement named no version, though a map is stored. */
    readonly unnamed = false,
  ) {
    super(`The stored map is version ${current}.`);
  }
}

/** The map as KV holds it now, not this isolate's memory of it: what a replacement replaces. Null when none (or none valid) is stored. */
export async function readStoredMap(kv: KVNamespace): Promise<UpstreamMap | null> {
  const current = upstreamMapSchemas().UpstreamMap.safeParse(await kv.get(MAP_KEY, 'json'));
  return current.success ? current.data : null;
}

/**
 * Replaces the map with the next version. `input.version` must be the version it replaces; without one, it
 * replaces only the empty map (version 0): a stored map is never replaced by someone who did not read it.
 */
export async function storeUpstreamMap(kv: KVNamespace, now: Clock, input: UpstreamMapInput): Promise<UpstreamMap> {
  const version = (await readStoredMap(kv))?.version ?? 0;
  if ((input.version ?? 0) !== version) throw new MapVersionConflict(version, input.version === undefined);
  const map: UpstreamMap = { version: version + 1, updated_at: now().toISOString(), operations: input.operations };
  await kv.put(MAP_KEY, JSON.stringify(map));
  memory = { map, readAtMs: now().getTime() };
  return map;
}
