/**
 * Writes the demo world into D1. `npm run dev` calls it when the database is
 * empty; the tests load it once; the origin benchmark loads a large profile.
 */
import { addDays } from '../../contract/window';
import { sha256Hex } from '../../lib/hash';
import { DEMO_ACCOUNTS, DEMO_MARKETS, type DemoAccount, type DemoMarket, PLAN_ROWS } from './catalog';
import { buildMarket, DEMO_PROFILE, type DayRows, type Profile, runsOfDay, runsPerMarketDay, secondaryProfile, type WorldMarket } from './generate';
import { seedInsights } from './insights';
import { slug } from './random';
import { BulkWriter, type Value } from './bulk-writer';

export interface SeedOptions {
  today: string;
  profile?: Profile;
  accounts?: DemoAccount[];
  markets?: DemoMarket[];
}

/** True when no plan exists yet: the database has never been seeded. */
export async function isEmpty(db: D1Database): Promise<boolean> {
  const row = await db.prepare('SELECT count(*) AS n FROM plans').first<{ n: number }>();
  return (row?.n ?? 0) === 0;
}

/** Loads the demo dataset: accounts, keys, brands, markets, topics, questions, runs and the stored analyses. */
export async function seedDemo(db: D1Database, options: SeedOptions): Promise<{ rows: number; runs: number }> {
  const profile = options.profile ?? DEMO_PROFILE;
  const accounts = options.accounts ?? DEMO_ACCOUNTS;
  const out = new BulkWriter(db);
  const createdAt = `${addDays(options.today, -profile.days)}T09:00:00Z`;

  await out.insertObjects('plans', PLAN_ROWS);
  await out.insertObjects(
    'accounts',
    accounts.map((a) => ({ id: a.id, name: a.name, plan_id: a.plan, plan_active: a.planActive ? 1 : 0 })),
  );
  await out.insertObjects(
    'api_keys',
    await Promise.all(
      accounts.map(async (a) => ({
        id: a.id,
        account_id: a.id,
        key_hash: await sha256Hex(a.key),
        label: a.key,
        created_at: createdAt,
        revoked_at: a.revoked ? `${addDays(options.today, -3)}T12:00:00Z` : null,
      })),
    ),
  );

  const brands = accounts.flatMap((a) => a.brands.map((b) => ({ account: a, brand: b })));
  await out.insertObjects(
    'brands',
    brands.map(({ account, brand }) => ({ id: brand.id, account_id: account.id, name: brand.name, domain: brand.domain, category: brand.category.en })),
  );
  await out.insertObjects(
    'rivals',
    brands.flatMap(({ brand }) => brand.rivals.map((r, i) => ({ id: brand.id * 10 + i + 1, brand_id: brand.id, name: r.name, domain: r.domain }))),
  );
  await out.insertObjects(
    'integrations',
    brands.flatMap(({ brand }) => brand.integrations.map((kind) => ({ brand_id: brand.id, kind, connected_at: createdAt }))),
  );

  const worlds = brands.flatMap(({ brand }) =>
    (options.markets ?? DEMO_MARKETS).map((m, i) => {
      const marketProfile = readable(accounts, brand.id) ? (m.primary ? profile : secondaryProfile(profile)) : unreadableProfile(profile);
      return { world: buildMarket(brand, m, i, marketProfile, options.today), profile: marketProfile };
    }),
  );
  for (const { world } of worlds) await writeStructure(out, world, options.today);

  let runs = 0;
  for (const { world, profile: p } of worlds) {
    for (let d = 0; d < p.days; d++) {
      const day = addDays(options.today, -(p.days - 1 - d));
      // Run ids are made from the market and the day, so they do not depend on the order of writing.
      const rows = runsOfDay(world, day, d, p, world.id * 10_000_000 + d * runsPerMarketDay(p) + 1);
      await writeDay(out, rows);
      runs += rows.runs.length;
    }
  }
  await seedInsights(
    out,
    worlds.map((w) => w.world),
    options.today,
  );
  await out.flush();
  return { rows: out.rowsWritten, runs };
}

/** Whether the demo key of the brand's account can read it. */
const readable = (accounts: DemoAccount[], brandId: number) => accounts.some((a) => a.planActive && !a.revoked && a.brands.some((b) => b.id === brandId));

/**
 * Brands whose key cannot read (inactive plan, revoked key) keep their full
 * structure but only two weeks of runs: nothing can read more, and it keeps
 * the first `npm run dev` fast.
 */
const unreadableProfile = (p: Profile): Profile => ({ ...secondaryProfile(p), topicsPerMarket: p.topicsPerMarket, questionsPerTopic: p.questionsPerTopic, days: Math.min(p.days, 14) });

async function writeStructure(out: BulkWriter, world: WorldMarket, today: string): Promise<void> {
  await out.insertObjects('markets', [
    { id: world.id, brand_id: world.brand.id, code: world.code, name: world.name, language: world.language, country: world.country, is_primary: world.primary ? 1 : 0 },
  ]);
  await out.insertObjects(
    'topics',
    world.topics.map((t) => ({
      id: t.id,
      brand_id: world.brand.id,
      market_id: world.id,
      name: t.name,
      facts_compared: JSON.stringify(t.facts),
      cited_pages_share: JSON.stringify(t.pagesShare),
      analysed_on: addDays(today, -((t.id % 5) + 1)),
    })),
  );
  await out.insertObjects(
    'questions',
    world.topics.flatMap((t) => t.questions.map((q) => ({ id: q.id, topic_id: t.id, market_id: world.id, text: q.text }))),
  );
  let pageId = world.id * 10_000;
  const pages = world.topics.flatMap((t) => [
    { id: ++pageId, brand_id: world.brand.id, market_id: world.id, rival_id: null, url: t.ownPage, title: t.name, topic_id: t.id, question_id: null },
    ...t.questions
      .filter((q) => q.ownPage)
      .map((q) => ({ id: ++pageId, brand_id: world.brand.id, market_id: world.id, rival_id: null, url: q.ownPage as string, title: q.text, topic_id: t.id, question_id: q.id })),
    ...world.rivals.map((r) => ({
      id: ++pageId,
      brand_id: world.brand.id,
      market_id: world.id,
      rival_id: r.id,
      url: `https://www.${r.domain}/${slug(t.name)}`,
      title: `${r.name}: ${t.name}`,
      topic_id: t.id,
      question_id: null,
    })),
  ]);
  await out.insertObjects('pages', pages);
  await out.insertObjects(
    'forum_threads',
    world.topics.flatMap((t) => t.threads.map((th) => ({ id: th.id, topic_id: t.id, url: th.url, title: th.title, forum: th.forum, posted_on: th.postedOn, replies: th.replies }))),
  );
}

async function writeDay(out: BulkWriter, rows: DayRows): Promise<void> {
  await out.insertObjects('runs', rows.runs as unknown as Record<string, Value>[]);
  await out.insertObjects('run_rivals', rows.rivals);
  await out.insertObjects('run_citations', rows.citations);
}
