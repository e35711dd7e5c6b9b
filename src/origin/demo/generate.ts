/**
 * The demo world and its answer runs, as rows. Pure and deterministic, and
 * relative to `today`: a day's runs are drawn from its distance to today, not
 * its date, so the last 7 days, the last 12 weeks and who won or lost a
 * question look the same whatever day the data is generated on (the tests,
 * which seed it for the day they run, see the same figures every day). Runs
 * are produced one market-day at a time so the large benchmark set never sits
 * in memory whole.
 */
import { ENGINES, type AnswerState, type Engine } from '../../contract/enums';
import { addDays } from '../../contract/window';
import { ANSWER_PHRASES, type DemoBrand, type DemoMarket, FORUMS, PITCHES, THIRD_PARTY_URLS, TOPICS } from './catalog';
import { Random, sigmoid, slug } from './random';

export interface Profile {
  /** Days of runs, ending today. */
  days: number;
  runsPerDay: number;
  /** Questions per topic; more than the catalog has are made as variants. */
  questionsPerTopic: number;
  topicsPerMarket: number;
}

/** The dataset `npm run dev` and the tests load: about 100 days, 6 topics and 42 questions per market. */
export const DEMO_PROFILE: Profile = { days: 100, runsPerDay: 1, questionsPerTopic: 7, topicsPerMarket: 6 };

/** Secondary markets track fewer questions: the brand's 6 topics and 42 questions are in its primary market. */
export const secondaryProfile = (p: Profile): Profile => ({ ...p, topicsPerMarket: Math.min(p.topicsPerMarket, 3), questionsPerTopic: Math.min(p.questionsPerTopic, 4) });

export interface WorldQuestion {
  id: number;
  text: string;
  /** Per engine: logit of naming the brand, and the weekly drift around it. */
  propensity: Map<Engine, { base: number; walk: number[] }>;
  /** Relative weight of each rival being named for this question. */
  rivalWeights: number[];
  ownPage: string | null;
}

export interface WorldTopic {
  id: number;
  name: string;
  facts: string[];
  pagesShare: string[];
  ownPage: string;
  questions: WorldQuestion[];
  threads: { id: number; url: string; title: string; forum: string; postedOn: string; replies: number }[];
}

export interface WorldMarket extends DemoMarket {
  id: number;
  brand: DemoBrand;
  rivals: { id: number; name: string; domain: string }[];
  topics: WorldTopic[];
}

const ENGINE_BIAS: Record<Engine, number> = { chatgpt: 0.25, perplexity: 0.15, gemini: -0.05, claude: 0.05, copilot: -0.3, google_ai_overviews: -0.15 };

const fill = (template: string, brand: DemoBrand, language: 'en' | 'de', rivals: { name: string }[]) =>
  template
    .replaceAll('{cat}', brand.category[language])
    .replaceAll('{r1}', rivals[0]?.name ?? '')
    .replaceAll('{r2}', rivals[1]?.name ?? '')
    .replaceAll('{r3}', rivals[2]?.name ?? rivals[0]?.name ?? '');

/** Ids follow the structure (market = brand x 10 + n, topic = market x 10 + n, ...) so they are stable and readable. */
export function buildMarket(brand: DemoBrand, market: DemoMarket, index: number, profile: Profile, today: string): WorldMarket {
  const rng = new Random(`market/${brand.id}/${market.code}`);
  const id = brand.id * 10 + index + 1;
  const rivals = brand.rivals.map((r, i) => ({ id: brand.id * 10 + i + 1, ...r }));
  const weeks = Math.ceil(profile.days / 7) + 1;
  const base = market.language === 'de' ? `https://www.${brand.domain}/de` : `https://www.${brand.domain}`;
  const catalog = TOPICS[market.language];
  const topics: WorldTopic[] = [];
  for (let t = 0; t < profile.topicsPerMarket; t++) {
    const source = catalog[t % catalog.length]!;
    const round = Math.floor(t / catalog.length);
    const topicId = id * 100 + t + 1;
    const name = fill(source.name, brand, market.language, rivals) + (round ? ` (${round + 1})` : '');
    const questions: WorldQuestion[] = [];
    for (let q = 0; q < profile.questionsPerTopic; q++) {
      const variant = Math.floor(q / source.questions.length);
      const text = fill(source.questions[q % source.questions.length]!, brand, market.language, rivals) + (variant + round ? ` (case ${variant + 1 + round * 100})` : '');
      const propensity = new Map<Engine, { base: number; walk: number[] }>();
      for (const engine of ENGINES) {
        let drift = 0;
        const walk = Array.from({ length: weeks }, () => (drift += rng.normal() * 0.45));
        propensity.set(engine, { base: brand.strength + ENGINE_BIAS[engine] + rng.normal() * 1.1, walk });
      }
      questions.push({
        id: topicId * 1000 + q + 1,
        text,
        propensity,
        rivalWeights: rivals.map(() => Math.exp(rng.normal() * 0.9)),
        ownPage: rng.chance(0.55) ? `${base}/blog/${slug(text)}` : null,
      });
    }
    const sub = slug(brand.category.en).replace(/-/g, '');
    const threads = Array.from({ length: 6 }, (_, n) => {
      const forum = FORUMS[n % 3 === 2 ? 1 : 0]!;
      const threadId = 100_000 + topicId * 10 + n;
      const title = `${fill(rng.pick(source.questions), brand, market.language, rivals)} (${['experiences', 'help', 'recommendations', 'thoughts'][n % 4]})`;
      return {
        id: topicId * 10 + n + 1,
        url: forum.url.replace('{sub}', sub).replace('{id}', threadId.toString(36)).replace('{slug}', slug(title)),
        title,
        forum: forum.name,
        postedOn: addDays(today, -rng.int(0, profile.days - 1)),
        replies: rng.int(3, 240),
      };
    });
    topics.push({ id: topicId, name, facts: source.facts, pagesShare: source.pagesShare, ownPage: `${base}/${slug(name)}`, questions, threads });
  }
  return { ...market, id, brand, rivals, topics };
}

export interface RunRow {
  id: number;
  market_id: number;
  question_id: number;
  engine: Engine;
  day: string;
  ran_at: string;
  state: AnswerState;
  position: number | null;
  answer: string;
}

export interface DayRows {
  runs: RunRow[];
  rivals: { run_id: number; market_id: number; day: string; question_id: number; engine: Engine; rival_id: number; position: number }[];
  citations: { run_id: number; market_id: number; day: string; question_id: number; engine: Engine; url: string; domain: string }[];
}

/** Weighted sample of `n` distinct indexes. */
function weightedSample(rng: Random, weights: number[], n: number): number[] {
  const pool = weights.map((w, i) => ({ i, key: Math.log(rng.next() + 1e-12) / w }));
  return pool
    .sort((a, b) => b.key - a.key)
    .slice(0, n)
    .map((p) => p.i);
}

const domainOf = (url: string) => new URL(url).hostname.replace(/^www\./, '');

/** Every run of one market on one day, the `dayIndex`th of the profile's days. `firstRunId` makes run ids deterministic. */
export function runsOfDay(world: WorldMarket, day: string, dayIndex: number, profile: Profile, firstRunId: number): DayRows {
  // Seeded by the days before today: the same runs for "3 days ago" whatever today is.
  const rng = new Random(`runs/${world.id}/-${profile.days - 1 - dayIndex}`);
  const out: DayRows = { runs: [], rivals: [], citations: [] };
  const phrases = ANSWER_PHRASES[world.language];
  const pitches = PITCHES[world.language];
  const categorySlug = slug(world.brand.category.en);
  const week = Math.floor(dayIndex / 7);
  let runId = firstRunId;
  for (const topic of world.topics) {
    for (const question of topic.questions) {
      for (const engine of ENGINES) {
        const p = question.propensity.get(engine)!;
        const logit = p.base + world.brand.trend * week + (p.walk[week] ?? 0);
        for (let k = 0; k < profile.runsPerDay; k++) {
          const id = runId++;
          const ranAt = `${day}T${String(6 + k * 12).padStart(2, '0')}:${String(ENGINES.indexOf(engine) * 7 + rng.int(0, 5)).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}Z`;
          const named = sigmoid(logit);
          const state: AnswerState = rng.chance(0.03) ? 'no_answer' : rng.chance(named) ? (rng.chance(0.25 + 0.4 * named) ? 'recommended' : 'mentioned') : rng.chance(0.85) ? 'absent' : 'open';
          const urls: string[] = [];
          const cite = (url: string) => {
            if (!urls.includes(url)) urls.push(url);
          };
          let position: number | null = null;
          let answer = '';
          if (state === 'open') {
            answer = rng.pick(phrases.open);
            if (rng.chance(0.4)) cite(rng.pick(THIRD_PARTY_URLS).replaceAll('{c}', categorySlug));
          } else if (state !== 'no_answer') {
            const brandNamed = state !== 'absent';
            const rivalCount = brandNamed ? rng.int(0, 2) : rng.int(1, 3);
            const chosen = weightedSample(rng, question.rivalWeights, rivalCount).map((i) => world.rivals[i]!);
            const names: string[] = chosen.map((r) => r.name);
            if (brandNamed) {
              position = state === 'recommended' ? (rng.chance(0.75) ? 1 : 2) : rng.int(2, chosen.length + 1);
              names.splice(position - 1, 0, world.brand.name);
            }
            chosen.forEach((r) => out.rivals.push({ run_id: id, market_id: world.id, day, question_id: question.id, engine, rival_id: r.id, position: names.indexOf(r.name) + 1 }));
            const lines = names.map((n, i) => `${i + 1}. ${n}: ${rng.pick(pitches)}.`);
            const recommendation = state === 'recommended' ? `${phrases.recommend(world.brand.name, rng.pick(pitches))}\n\n` : '';
            if (brandNamed && rng.chance(0.55)) cite(question.ownPage ?? topic.ownPage);
            for (const r of chosen) if (rng.chance(0.25)) cite(`https://www.${r.domain}/${slug(topic.name)}`);
            if (rng.chance(0.6)) cite(rng.pick(THIRD_PARTY_URLS).replaceAll('{c}', categorySlug));
            if (rng.chance(0.2)) cite(rng.pick(topic.threads).url);
            answer = `${recommendation}${rng.pick(phrases.lead)}\n\n${lines.join('\n')}\n\n${rng.pick(phrases.close)}`;
          }
          for (const url of urls) out.citations.push({ run_id: id, market_id: world.id, day, question_id: question.id, engine, url, domain: domainOf(url) });
          if (urls.length) answer += `\n\n${phrases.sources} ${urls.join(', ')}`;
          out.runs.push({ id, market_id: world.id, question_id: question.id, engine, day, ran_at: ranAt, state, position, answer });
        }
      }
    }
  }
  return out;
}

/** Runs per market per day, for allocating run ids up front. */
export const runsPerMarketDay = (profile: Profile) => profile.topicsPerMarket * profile.questionsPerTopic * ENGINES.length * profile.runsPerDay;
