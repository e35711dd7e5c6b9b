/**
 * The proxy's counters for `GET /admin/cache/stats`. Each isolate tallies in
 * memory and adds its tally to one global Durable Object at most every
 * FLUSH_MS, in the background: a counter must not cost a round trip per read.
 */
import { DurableObject } from 'cloudflare:workers';

/**
 * `rejected`: refused at the edge without an upstream call: past a key's
 * budget with nothing stored, a key that failed authentication in the last
 * minute, an address over its limit of unverified keys.
 */
export const COUNTERS = ['hits', 'misses', 'stale', 'revalidated', 'bypass', 'not_modified', 'upstream_calls', 'coalesced', 'upstream_errors', 'rejected'] as const;
export type Counter = (typeof COUNTERS)[number];
export type Counts = Record<Counter, number>;

const FLUSH_MS = 5_000;

export class ProxyStats extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)');
    ctx.storage.sql.exec("INSERT OR IGNORE INTO counters (name, value) VALUES ('since', ?)", Date.now());
  }

  async add(delta: Partial<Counts>): Promise<void> {
    for (const [name, value] of Object.entries(delta)) {
      if (value) this.ctx.storage.sql.exec('INSERT INTO counters (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET value = value + ?2', name, value);
    }
  }

  async read(): Promise<Counts & { since: string }> {
    const rows = this.ctx.storage.sql.exec<{ name: string; value: number }>('SELECT name, value FROM counters').toArray();
    const values = Object.fromEntries(rows.map((r) => [r.name, r.value]));
    const counts = Object.fromEntries(COUNTERS.map((c) => [c, values[c] ?? 0])) as Counts;
    return { ...counts, since: new Date(values.since ?? Date.now()).toISOString() };
  }
}

/** This isolate's counts not yet added to the global object: every counter always present (a flush zeroes them, never deletes one), so a count on the HIT path is a plain field update. */
const pending = Object.fromEntries(COUNTERS.map((c) => [c, 0])) as Counts;
let lastFlush = 0;

export function count(counter: Counter, by = 1): void {
  pending[counter] += by;
}

function stub(ns: DurableObjectNamespace<ProxyStats>) {
  return ns.get(ns.idFromName('global'));
}

/** Adds the pending counts to the global object. */
export async function flushStats(ns: DurableObjectNamespace<ProxyStats>): Promise<void> {
  const delta: Partial<Counts> = {};
  for (const key of COUNTERS) {
    if (pending[key] === 0) continue;
    delta[key] = pending[key];
    pending[key] = 0;
  }
  if (Object.keys(delta).length === 0) return;
  try {
    await stub(ns).add(delta);
  } catch (error) {
    // Put them back: counts are only late, never lost to a transient failure.
    for (const [key, value] of Object.entries(delta) as [Counter, number][]) count(key, value);
    throw error;
  }
}

/**
 * Flushes in the background when the last flush is older than FLUSH_MS (by the proxy's clock), from the next turn
 * of the event loop: a flush is a call to a Durable Object, and the answer in hand goes out before it starts (it
 * took 0.7 ms off a fresh isolate's first answer in `npm run bench -- startup`, where every isolate flushes at once).
 */
export function maybeFlushStats(ns: DurableObjectNamespace<ProxyStats>, nowMs: number, waitUntil: (work: Promise<unknown>) => void): void {
  if (nowMs - lastFlush < FLUSH_MS && nowMs >= lastFlush) return;
  lastFlush = nowMs;
  waitUntil(
    scheduler
      .wait(0)
      .then(() => flushStats(ns))
      .catch((error) => console.error(JSON.stringify({ msg: 'stats flush failed', error: String(error) }))),
  );
}

export async function readStats(ns: DurableObjectNamespace<ProxyStats>): Promise<Counts & { since: string }> {
  await flushStats(ns);
  return stub(ns).read();
}
