/**
 * The Worker `npm run bench -- proxy` runs: the product Worker as deployed, plus
 * two routes of its own: one that loads the demo data and bench keys, one
 * that reports the upstream calls made per key. Never part of the product.
 */
import { createWorker } from '../src/app/worker';
import { toDay } from '../src/contract/window';
import { sha256Hex } from '../src/lib/hash';
import { isEmpty, seedDemo } from '../src/origin/demo/load';
import { UpstreamGate as ProductGate, type UpstreamConfig } from '../src/proxy';

export { ProxyStats } from '../src/proxy';

let worker: ReturnType<typeof createWorker> | undefined;

/**
 * The product Worker, made at the first request. With BENCH_CLOCK_SLOWDOWN (bench:proxy:instructions, where
 * callgrind runs the Worker some 40 times slower than natively) its clock runs as much slower, so that the work
 * that comes with time (the isolate's memory copy renewed every 5 s, the stats flush) comes once per as many
 * requests as it does natively. Without it, the Worker is exactly the product's.
 */
function productWorker(env: Env) {
  if (worker) return worker;
  const slowdown = Number((env as Env & { BENCH_CLOCK_SLOWDOWN?: string }).BENCH_CLOCK_SLOWDOWN ?? 1);
  if (!(slowdown > 1)) return (worker = createWorker());
  const start = Date.now();
  const services = { now: () => new Date(start + (Date.now() - start) / slowdown) };
  return (worker = createWorker({ services: () => services }));
}

/** Start times of upstream calls, per API key (bench keys only: they are not secrets). */
const upstreamCalls = new Map<string, number[]>();

/** The product's gate, counting the upstream calls it makes. */
export class UpstreamGate extends ProductGate {
  protected override upstream(upstreamUrl?: string): UpstreamConfig {
    const configured = super.upstream(upstreamUrl);
    return {
      ...configured,
      transport: (request) => {
        const key = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
        const times = upstreamCalls.get(key) ?? [];
        times.push(Date.now());
        upstreamCalls.set(key, times);
        return configured.transport(request);
      },
    };
  }
}

let fixedBody = '{}';

/** The most calls any key made within any 60 s. */
function maxPerRollingMinute(times: number[]): number {
  let max = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= 60_000) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

export default {
  async fetch(request, env, ctx) {
    // The product's requests pass with no work of this wrapper's (a URL parse here would be counted against the HIT).
    if (!request.url.includes('/__bench/')) return productWorker(env).fetch(request, env, ctx);
    const url = new URL(request.url);
    if (url.pathname === '/__bench/seed') {
      const keys = Number(url.searchParams.get('keys') ?? 0);
      if (await isEmpty(env.DB)) await seedDemo(env.DB, { today: toDay(new Date()) });
      // Bench keys of demo account 1 (demo_pro_single's: one brand, Pro, every integration).
      const hashes = await Promise.all(Array.from({ length: keys }, (_, i) => sha256Hex(`bench_${i + 1}`)));
      for (let i = 0; i < hashes.length; i += 50) {
        await env.DB.batch(
          hashes
            .slice(i, i + 50)
            .map((hash, j) => env.DB.prepare("INSERT OR IGNORE INTO api_keys (account_id, key_hash, label, created_at) VALUES (1, ?, ?, '2026-01-01T00:00:00Z')").bind(hash, `bench_${i + j + 1}`)),
        );
      }
      return Response.json({ keys });
    }
    // The floor inside this Worker: same isolate and heap as the proxy, no proxy work. Separates the HIT path's own cost from the bundle's.
    if (url.pathname === '/__bench/fixed') return new Response(fixedBody, { headers: { 'content-type': 'application/json; charset=utf-8' } });
    if (url.pathname === '/__bench/fixed-body' && request.method === 'POST') {
      fixedBody = await request.text();
      return new Response(null, { status: 204 });
    }
    // Markers for the instruction benches (scripts/bench/callgrind.mjs): callgrind zeroes its counters before
    // timingSafeEqual and dumps them before structuredClone. With V8's `gc` exposed (bench:mcp:instructions), a
    // full collection first, uncounted: every window starts from the same heap.
    if (url.pathname === '/__bench/zero') {
      (globalThis as { gc?: () => void }).gc?.();
      crypto.subtle.timingSafeEqual(new Uint8Array(1), new Uint8Array(1));
      return new Response(null, { status: 204 });
    }
    if (url.pathname === '/__bench/dump') {
      structuredClone(1);
      return new Response(null, { status: 204 });
    }
    if (url.pathname === '/__bench/upstream') {
      const perKey = Object.fromEntries([...upstreamCalls].map(([key, times]) => [key, { calls: times.length, max_per_rolling_minute: maxPerRollingMinute(times) }]));
      return Response.json(perKey);
    }
    return productWorker(env).fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
