/**
 * Demo rows for the insight operations: tasks, activity, perception, forum
 * summaries, search rows, crawler and visitor traffic, readiness signals.
 * Deterministic like the runs: every market draws from its own seeded stream.
 * The analyses here (briefs, verdicts, summaries, signals) stand for what the
 * real service derives with language models; the API only aggregates them.
 */
import { AI_ASSISTANTS, AI_BOTS, ENGINES, TASK_LAYERS, type TaskLayer, TASK_STATUSES, type TaskStatus } from '../../contract/enums';
import { addDays, dayNumber } from '../../contract/window';
import { PITCHES } from './catalog';
import type { WorldMarket, WorldTopic } from './generate';
import type { BulkWriter } from './bulk-writer';
import { Random, slug } from './random';

/** Days of search, crawler and visitor data: enough for a 90-day window. */
const TRAFFIC_DAYS = 100;
/** Weeks of perception and forum summaries: the 12 weeks of history and a little more. */
const SUMMARY_WEEKS = 14;

const siteOf = (world: WorldMarket) => (world.language === 'de' ? `https://www.${world.brand.domain}/de` : `https://www.${world.brand.domain}`);

/** The Monday on or before `day` (1970-01-01 was a Thursday). */
const mondayOf = (day: string) => addDays(day, -((dayNumber(day) + 3) % 7));

/** Pages the site has besides its topic and question pages: they rank in search, and no answer ever cites them. */
const SITE_PAGES = ['pricing', 'about', 'customers', 'careers', 'changelog'];

export async function seedInsights(out: BulkWriter, worlds: WorldMarket[], today: string): Promise<void> {
  // Task ids count up across markets in world order, so demo_pro_single's `us` market has task 1.
  let nextTaskId = 1;
  let nextActivityId = 1;
  let nextTranscriptId = 1;
  for (const world of worlds) {
    const rng = new Random(`insights/${world.id}`);
    const tasks = tasksOf(world, rng, today, nextTaskId);
    nextTaskId += tasks.rows.length;
    await out.insertObjects('tasks', tasks.rows);
    await out.insertObjects('task_topics', tasks.topics);
    const activity = activityOf(world, rng, today, nextActivityId);
    nextActivityId += activity.length;
    await out.insertObjects('activity', activity);
    await out.insertObjects('perception_weeks', perceptionWeeksOf(world, rng, today));
    const transcripts = transcriptsOf(world, rng, today, nextTranscriptId);
    nextTranscriptId += transcripts.length;
    await out.insertObjects('perception_transcripts', transcripts);
    await out.insertObjects('forum_summaries', forumSummariesOf(world, rng, today));
    await out.insertObjects('search_rows', searchRowsOf(world, rng, today));
    await out.insertObjects(
      'crawler_hits',
      trafficOf(world, rng, today, AI_BOTS, 0.6, [5, 120]).map(([day, bot, url, n]) => ({ brand_id: world.brand.id, day, bot, url, hits: n })),
    );
    await out.insertObjects(
      'ai_visits',
      trafficOf(world, rng, today, AI_ASSISTANTS, 0.7, [1, 45]).map(([day, assistant, url, n]) => ({ brand_id: world.brand.id, day, assistant, url, visits: n })),
    );
    await out.insertObjects('readiness_signals', readinessOf(world, rng));
    await out.insertObjects('pages', newGuidesOf(world, rng));
    await out.insertObjects('forum_threads', newThreadsOf(world, rng, today));
  }
}

/**
 * Guides published for a third of the questions that had no page: no answer
 * cites them yet (runs cite only the pages the world was built with), so
 * `/content-gaps` has pages to `improve` and `/pages` uncited pages.
 */
function newGuidesOf(world: WorldMarket, rng: Random) {
  let id = world.id * 10_000 + 5_000;
  return world.topics.flatMap((t) =>
    t.questions
      .filter((q) => q.ownPage === null && rng.chance(0.35))
      .map((q) => ({ id: ++id, brand_id: world.brand.id, market_id: world.id, rival_id: null, url: `${siteOf(world)}/guides/${slug(q.text)}`, title: q.text, topic_id: t.id, question_id: q.id })),
  );
}

/** Two fresh threads per topic, posted in the last days: too new for any answer to cite. */
function newThreadsOf(world: WorldMarket, rng: Random, today: string) {
  return world.topics.flatMap((t) =>
    [7, 8].map((n) => {
      const question = rng.pick(t.questions);
      const title = `${question.text} (just asking)`;
      return {
        // The world's threads of a topic use ids topic x 10 + 1..6.
        id: t.id * 10 + n,
        topic_id: t.id,
        url: `https://www.reddit.com/r/${slug(world.brand.category.en).replace(/-/g, '')}/comments/new${t.id}${n}/${slug(title)}/`,
        title,
        forum: 'Reddit',
        posted_on: addDays(today, -rng.int(0, 5)),
        replies: rng.int(0, 12),
      };
    }),
  );
}

const TASK_TEMPLATES: Record<TaskLayer, { title: string; why: string; steps: string[] }[]> = {
  content: [
    {
      title: 'Write a page answering "{question}"',
      why: 'AI engines answer this question {rivalRuns} times in the last weeks by naming {rival}, and {brand} has no page that answers it directly, so there is nothing of ours for them to cite.',
      steps: [
        'Draft a page whose first paragraph answers the question in two sentences',
        'Add a comparison table with prices stated in numbers',
        'Link the page from the {topic} hub page',
        'Request indexing and check the answers again in two weeks',
      ],
    },
    {
      title: 'Refresh the {topic} hub page',
      why: 'The page exists but answers rarely cite it; the pages they cite instead are newer and state facts in tables.',
      steps: ['Update the facts AI compares for {topic}', 'Move the summary and the table above the fold', 'Add a visible "last updated" date'],
    },
  ],
  technical: [
    {
      title: 'Let AI crawlers read the {topic} pages',
      why: 'Crawler logs show few visits from GPTBot and PerplexityBot on the {topic} pages: answers cannot cite what their crawlers do not read.',
      steps: ['Allow GPTBot, OAI-SearchBot and PerplexityBot in robots.txt', 'Serve the main content without client-side rendering', 'Add the pages to the XML sitemap with lastmod dates'],
    },
    {
      title: 'Add structured data to product and pricing pages',
      why: 'Answers about prices quote third-party sites because our prices are not machine-readable.',
      steps: ['Add Product and Offer schema.org markup', 'Validate with the rich results test', 'Keep prices in the markup in sync with the page'],
    },
  ],
  authority: [
    {
      title: 'Get {brand} into the comparison articles AI cites for {topic}',
      why: 'Most citations for {topic} go to review sites and comparison articles that list {rival} but not {brand}.',
      steps: ['List the five most cited third-party pages for {topic}', 'Pitch an update with current figures to each editor', 'Offer a product demo and customer references'],
    },
    {
      title: 'Answer buyers in forum threads about {topic}',
      why: 'Answers cite forum threads where buyers ask about {topic}; {rival} is recommended there and {brand} is missing.',
      steps: ['Find the threads answers cite', 'Reply as a named company representative with a useful answer', 'Link documentation, not landing pages'],
    },
  ],
  brand: [
    {
      title: 'Correct what AI gets wrong about {brand}',
      why: 'Some engines describe outdated pricing and a missing feature; answers repeat it to buyers.',
      steps: ['Publish a short facts page with current plans and features', 'Update the company profiles on review sites', 'Ask customers for reviews that mention the current product'],
    },
  ],
};

const fillTask = (text: string, v: Record<string, string>) => text.replace(/\{(\w+)\}/g, (_, k: string) => v[k] ?? '');

function tasksOf(world: WorldMarket, rng: Random, today: string, firstId: number) {
  const rows: Record<string, string | number | null>[] = [];
  const topics: { task_id: number; topic_id: number }[] = [];
  // Every layer, every status: the first tasks are open so each layer has open work.
  const statuses: TaskStatus[] = ['open', 'open', 'open', 'in_progress', 'done', 'open', 'dismissed', 'in_progress', 'open', 'done'];
  let id = firstId;
  world.topics.forEach((topic, t) => {
    for (const [l, layer] of TASK_LAYERS.entries()) {
      if ((t + l) % 2 === 1 && layer !== 'content') continue;
      const template = rng.pick(TASK_TEMPLATES[layer]);
      const question = rng.pick(topic.questions);
      const rival = rng.pick(world.rivals);
      const values = { question: question.text, topic: topic.name, brand: world.brand.name, rival: rival.name, rivalRuns: String(rng.int(6, 30)) };
      const createdDaysAgo = rng.int(3, 60);
      const status = statuses[(id - firstId) % statuses.length] ?? TASK_STATUSES[0];
      rows.push({
        id,
        brand_id: world.brand.id,
        market_id: world.id,
        title: fillTask(template.title, values),
        layer,
        status,
        impact: rng.int(5, 80),
        effort: rng.pick(['low', 'medium', 'high'] as const),
        why: fillTask(template.why, values),
        steps: JSON.stringify(template.steps.map((s) => fillTask(s, values))),
        evidence: JSON.stringify([
          { kind: 'answer', text: `${rng.pick(ENGINES)} named ${rival.name} and not ${world.brand.name} for "${question.text}".` },
          { kind: 'citation', text: `Answers for ${topic.name} cite ${rival.name}'s page.`, url: `https://www.${rival.domain}/${slug(topic.name)}` },
          ...(question.ownPage ? [] : [{ kind: 'coverage', text: 'No page of ours answers this question.' }]),
        ]),
        created_at: `${addDays(today, -createdDaysAgo)}T09:00:00Z`,
        updated_at: `${addDays(today, -rng.int(0, Math.min(createdDaysAgo, 10)))}T15:30:00Z`,
      });
      topics.push({ task_id: id, topic_id: topic.id });
      // Authority and brand work moves a neighbouring topic too.
      if (layer === 'authority' || layer === 'brand') {
        const other = world.topics[(t + 1) % world.topics.length];
        if (other && other.id !== topic.id) topics.push({ task_id: id, topic_id: other.id });
      }
      id++;
    }
  });
  return { rows, topics };
}

function activityOf(world: WorldMarket, rng: Random, today: string, firstId: number) {
  const { brand } = world;
  const makers: Record<string, (topic: WorldTopic) => { title: string; detail: string }> = {
    visibility: (t) => ({ title: `Visibility in ${t.name} moved`, detail: `${brand.name} was named in ${rng.int(20, 70)}% of answers about ${t.name} this week.` }),
    citation: (t) => ({ title: 'New citation of an own page', detail: `${rng.pick(ENGINES)} cited ${t.ownPage} for the first time.` }),
    competitor: (t) => {
      const rival = rng.pick(world.rivals);
      return { title: `${rival.name} gained in ${t.name}`, detail: `${rival.name} is now named in ${rng.int(30, 80)}% of answers about ${t.name}.` };
    },
    content: (t) => ({ title: 'Page published', detail: `${t.ownPage} was published or updated.` }),
    task: (t) => ({ title: 'Task completed', detail: `A task for ${t.name} was marked done.` }),
    integration: () => ({ title: 'Integration synced', detail: `New data arrived from ${rng.pick(['the search-performance integration', 'the tracking script', 'the edge network'])}.` }),
  };
  const categories = Object.keys(makers);
  return Array.from({ length: 30 }, (_, i) => {
    const category = categories[i % categories.length]!;
    // From yesterday back: an event at a later hour of today would lie in the future.
    const daysAgo = Math.max(1, Math.floor((i * 60) / 30) + rng.int(0, 1));
    return {
      id: firstId + i,
      brand_id: brand.id,
      market_id: world.id,
      category,
      ...makers[category]!(rng.pick(world.topics)),
      occurred_at: `${addDays(today, -daysAgo)}T${String(rng.int(6, 20)).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}:00Z`,
    };
  });
}

const GETS_RIGHT = [
  'Describes the core product accurately',
  'Names the main integrations correctly',
  'Knows the free plan exists',
  'Quotes the security certifications',
  'Places the brand in the right category',
];
const GETS_WRONG = ["Quotes last year's prices", 'Says there is no mobile app', 'Confuses the brand with a rival', 'Misses the EU data residency option', 'Thinks the API is in beta'];

function perceptionWeeksOf(world: WorldMarket, rng: Random, today: string) {
  const lastMonday = mondayOf(today);
  return ENGINES.flatMap((engine, e) => {
    // Each engine has its own leaning, drifting week to week.
    let lean = world.brand.strength + (e % 3) * 0.4 - 0.3;
    return Array.from({ length: SUMMARY_WEEKS }, (_, w) => {
      lean += rng.normal() * 0.3;
      return {
        market_id: world.id,
        engine,
        week_start: addDays(lastMonday, -7 * (SUMMARY_WEEKS - 1 - w)),
        knows_brand: lean > -1.2 ? 1 : 0,
        recommends: lean > 0 ? 1 : 0,
        sentiment: Math.max(-1, Math.min(1, Math.round(Math.tanh(lean) * 100) / 100)),
        gets_right: JSON.stringify(rng.sample(GETS_RIGHT, rng.int(1, 3))),
        gets_wrong: JSON.stringify(rng.sample(GETS_WRONG, rng.int(0, 2))),
      };
    });
  });
}

function transcriptsOf(world: WorldMarket, rng: Random, today: string, firstId: number) {
  const { brand } = world;
  const pitches = PITCHES[world.language];
  const prompts = [
    `What do you know about ${brand.name}? Describe the product, who it is for, its pricing and how it compares with other ${brand.category.en}.`,
    `Would you recommend ${brand.name} to a 50-person company choosing ${brand.category.en}? Explain why or why not, and name the alternatives you would consider.`,
  ];
  let id = firstId;
  const rows = [];
  for (const weeksAgo of [1, 0]) {
    const day = addDays(mondayOf(today), -7 * weeksAgo);
    for (const [e, engine] of ENGINES.entries()) {
      for (const [p, prompt] of prompts.entries()) {
        const rivals = rng.sample(world.rivals, 3);
        const [known, alsoKnown] = rng.sample(pitches, 2);
        const paragraphs = [
          `${brand.name} is ${brand.category.en} used mostly by small and mid-size teams. It is known for ${known}, and reviewers also mention ${alsoKnown}.`,
          `Pricing is per seat, with a free tier for small teams and paid plans that add automation, reporting and single sign-on. Annual billing is discounted. Check the vendor's pricing page, since figures change during the year.`,
          `Compared with ${rivals.map((r) => r.name).join(', ')}, ${brand.name} is ${rng.pick(['simpler to set up', 'stronger on integrations', 'cheaper for small teams', 'less mature on enterprise features'])}. ${rivals[0]?.name} is often preferred by larger companies; ${rivals[1]?.name} by teams that want ${rng.pick(pitches)}.`,
          p === 1
            ? `${rng.chance(0.6) ? `Yes, I would shortlist ${brand.name}` : `I would shortlist ${brand.name} but also trial ${rivals[0]?.name}`}: for a 50-person company the deciding factors are the support level, the admin controls and the total cost per user including add-ons. Run a two-week trial with real work before committing.`
            : `In short: ${brand.name} is a credible choice in its category. Sources: ${siteOf(world)}, https://www.g2.com/, https://www.capterra.com/.`,
        ];
        rows.push({
          id: id++,
          market_id: world.id,
          engine,
          asked_at: `${day}T${String(4 + e).padStart(2, '0')}:${String(10 + p * 20).padStart(2, '0')}:00Z`,
          prompt,
          answer: paragraphs.join('\n\n'),
        });
      }
    }
  }
  return rows;
}

function forumSummariesOf(world: WorldMarket, rng: Random, today: string) {
  const lastMonday = mondayOf(today);
  return world.topics.flatMap((topic) =>
    Array.from({ length: SUMMARY_WEEKS }, (_, w) => {
      const rival = rng.pick(world.rivals);
      return {
        topic_id: topic.id,
        week_start: addDays(lastMonday, -7 * (SUMMARY_WEEKS - 1 - w)),
        summary: `Buyers discussing ${topic.name} this week mostly asked about ${rng.pick(['pricing', 'setup time', 'integrations', 'support quality', 'migration'])}. ${rival.name} came up in ${rng.int(2, 9)} threads, ${world.brand.name} in ${rng.int(0, 6)}; the most upvoted reply recommended ${rng.chance(0.5) ? rival.name : world.brand.name}.`,
      };
    }),
  );
}

function searchRowsOf(world: WorldMarket, rng: Random, today: string) {
  const site = siteOf(world);
  // Queries land on question pages, topic pages, and site pages no answer cites.
  const targets = [
    ...world.topics.slice(0, 4).map((t) => ({ query: t.name.toLowerCase(), page: t.ownPage })),
    ...world.topics.flatMap((t) => t.questions.filter((q) => q.ownPage).slice(0, 1)).map((q) => ({ query: q.text.toLowerCase().replace(/\?$/, ''), page: q.ownPage as string })),
    ...SITE_PAGES.map((p) => ({ query: `${world.brand.name.toLowerCase()} ${p}`, page: `${site}/${p}` })),
    { query: world.brand.name.toLowerCase(), page: site },
  ];
  const rows = [];
  for (const [i, target] of targets.entries()) {
    const popularity = 20 + rng.int(0, 400) / (1 + i * 0.3);
    const position = 1 + rng.next() * 14;
    for (let d = 0; d < TRAFFIC_DAYS; d++) {
      if (!rng.chance(0.85)) continue;
      const impressions = Math.max(1, Math.round(popularity * (0.6 + rng.next() * 0.8)));
      const pos = Math.max(1, Math.round((position + rng.normal()) * 10) / 10);
      const clicks = Math.round(impressions * Math.max(0, 0.35 - pos * 0.02) * rng.next());
      rows.push({ market_id: world.id, day: addDays(today, -d), query: target.query, page: target.page, clicks, impressions, position: pos });
    }
  }
  return rows;
}

/** Per day and agent, a few of the market's pages with a count. */
function trafficOf(world: WorldMarket, rng: Random, today: string, agents: readonly string[], chance: number, [min, max]: [number, number]): [string, string, string, number][] {
  const site = siteOf(world);
  const urls = [
    site,
    ...SITE_PAGES.map((p) => `${site}/${p}`),
    ...world.topics.map((t) => t.ownPage),
    ...world.topics.flatMap((t) => t.questions.map((q) => q.ownPage).filter((u): u is string => u !== null)),
  ];
  const rows: [string, string, string, number][] = [];
  for (let d = 0; d < TRAFFIC_DAYS; d++) {
    const day = addDays(today, -d);
    for (const agent of agents) {
      if (!rng.chance(chance)) continue;
      for (const url of rng.sample(urls, rng.int(1, 3))) rows.push([day, agent, url, rng.int(min, max)]);
    }
  }
  return rows;
}

const READINESS_SIGNALS = [
  { signal: 'crawler_access', weight: 3, note: 'Share of key pages AI crawlers may fetch (robots.txt, status codes).' },
  { signal: 'structured_data', weight: 2, note: 'Share of product and pricing pages with valid schema.org markup.' },
  { signal: 'answer_coverage', weight: 3, note: 'Share of tracked questions with a page that answers them directly.' },
  { signal: 'content_freshness', weight: 1, note: 'Share of topic pages updated in the last 90 days.' },
  { signal: 'third_party_presence', weight: 2, note: 'Share of the most cited third-party pages that mention the brand.' },
  { signal: 'llms_txt', weight: 1, note: 'Whether /llms.txt exists and lists the key pages.' },
];

function readinessOf(world: WorldMarket, rng: Random) {
  return READINESS_SIGNALS.map((s) => ({
    market_id: world.id,
    ...s,
    value: s.signal === 'llms_txt' ? (rng.chance(0.5) ? 1 : 0) : Math.round(rng.next() * 100) / 100,
  }));
}
