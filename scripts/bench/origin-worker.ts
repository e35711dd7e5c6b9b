/**
 * The Worker the origin benchmark runs: the reference origin as deployed,
 * plus one route that loads a dataset into its D1. Never part of the product.
 */
import { DEMO_ACCOUNTS, DEMO_MARKETS, type DemoAccount } from '../../src/origin/demo/catalog';
import type { Profile } from '../../src/origin/demo/generate';
import { seedDemo } from '../../src/origin/demo/load';
import { sha256Hex } from '../../src/lib/hash';
import { handleOrigin } from '../../src/origin/handler';
import { toDay } from '../../src/contract/window';

/** The large set of the issue: one brand, 500 questions, 6 engines, 2 runs a day, 100 days = 600,000 runs. */
const LARGE: Profile = { days: 100, runsPerDay: 2, topicsPerMarket: 50, questionsPerTopic: 10 };

const LARGE_ACCOUNT: DemoAccount = {
  id: 1,
  name: 'Benchmark Corp',
  plan: 'growth',
  planActive: true,
  key: 'bench_key_0',
  revoked: false,
  brands: [
    {
      id: 1,
      name: 'Benchmark',
      domain: 'benchmark.example',
      category: { en: 'help desk software', de: 'Helpdesk-Software' },
      strength: 0,
      trend: 0.02,
      // The demo's help desk rivals: the large set is the same world, made bigger.
      rivals: DEMO_ACCOUNTS[0]!.brands[0]!.rivals,
      integrations: ['search_performance', 'edge_network', 'tracking_script'],
    },
  ],
};

/** Extra keys so the benchmark's reads stay inside each key's 60 requests a minute. */
const BENCH_KEYS = 200;

export default {
  async fetch(request: Request, env: { DB: D1Database; ASSETS?: Fetcher }, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/__bench/seed') {
      const large = url.searchParams.get('profile') === 'large';
      const started = Date.now();
      const result = large
        ? await seedDemo(env.DB, { today: toDay(new Date()), profile: LARGE, accounts: [LARGE_ACCOUNT], markets: DEMO_MARKETS.filter((m) => m.primary) })
        : await seedDemo(env.DB, { today: toDay(new Date()) });
      // Every bench key belongs to the account whose brand is read: brand 1 in both sets.
      const hashes = await Promise.all(Array.from({ length: BENCH_KEYS }, (_, i) => sha256Hex(`bench_key_${i + 1}`)));
      await env.DB.batch(
        hashes.map((hash, i) => env.DB.prepare("INSERT INTO api_keys (account_id, key_hash, label, created_at) VALUES (1, ?, ?, '2026-01-01T00:00:00Z')").bind(hash, `bench_key_${i + 1}`)),
      );
      return Response.json({ ...result, seconds: (Date.now() - started) / 1000 });
    }
    // The static assets hold the API's OpenAPI document, which the benches read their operations from.
    return handleOrigin(request, { db: env.DB, waitUntil: (work) => ctx.waitUntil(work), ...(env.ASSETS ? { assets: env.ASSETS } : {}) });
  },
};
