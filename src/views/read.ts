/**
 * Reading a view through the client (the proxy's cache and budget, with the
 * caller's key): the brand and market first (`readScopeKept`: the same read
 * as the report's, which also starts the kept history), then each part's
 * operation. A part the plan does not include (403 `feature_not_in_plan`),
 * whose integration is not connected (409), that the service does not have
 * (404 where the scope read answered) or whose answer cannot be read is one
 * line in the view; any other failure (the key, a limit, an outage) is the
 * caller's to answer, as for the report.
 */
import { type ApiClient, ApiClientError } from '../client';
import { operations, type OperationId, type ResponseOf } from '../contract/operations';
import { engineLabel, readScopeKept, type WeekTarget } from '../weekly-report';
import {
  type CitationsView,
  type HeadToHead,
  type NotProvided,
  type Part,
  type PerceptionView,
  type RivalsView,
  type RivalsWindow,
  SHOWN_ROWS,
  type TrafficView,
  type View,
  type ViewHead,
  type ViewKind,
} from './model';

/** What each part is, in the words of its "not provided" line. */
const PART_WORDS: Partial<Record<OperationId, string>> = {
  getOverview: 'share of voice against rivals',
  getCompetitor: 'head-to-heads with rivals',
  listSources: 'the sources AI cites',
  listPages: 'your pages AI cites',
  getBrandPerception: 'how AI describes the brand',
  getAiCrawlers: 'AI crawler traffic',
  getAiVisitors: 'AI visitor traffic',
};

/** The line of a part not provided, or undefined for a failure the caller answers (the key, a limit, an outage). */
export function notProvided(operation: OperationId, error: unknown): NotProvided | undefined {
  if (!(error instanceof ApiClientError)) return undefined;
  const what = PART_WORDS[operation] ?? operation;
  if (error.kind === 'parse')
    return {
      provided: false,
      reason: 'unreadable',
      line: `The Read API's answer about ${what} cannot be read (${error.message}), so it is left out; whoever runs this service can see why with the compatibility check.`,
    };
  if (error.kind !== 'http') return undefined;
  if (error.code === 'feature_not_in_plan') return { provided: false, reason: 'not_in_plan', line: `Your plan does not include ${what}: it is part of the Pro and Growth plans.` };
  if (error.code === 'integration_not_connected')
    return { provided: false, reason: 'integration_not_connected', line: `${capital(what)} needs an integration your account has not connected (an edge-network integration or the tracking script).` };
  if (error.status === 404 && error.code !== 'brand_not_found')
    return { provided: false, reason: 'missing', line: `The Read API does not provide ${what} (GET ${operations[operation].path} answered 404).` };
  return undefined;
}

const capital = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** One part: its read made into what the view holds, or its line. */
async function part<T, R>(operation: OperationId, read: () => Promise<R>, shape: (body: R) => T): Promise<Part<T>> {
  try {
    return { provided: true, ...shape(await read()) };
  } catch (error) {
    const line = notProvided(operation, error);
    if (line) return line;
    throw error;
  }
}

type Scope = { brand_id: number; market: string };

async function rivals(client: ApiClient, scope: Scope): Promise<Pick<RivalsView, 'windows' | 'head_to_heads'>> {
  const window = (days: number) =>
    part(
      'getOverview',
      () => client.getOverview({ ...scope, days }),
      (body: ResponseOf<'getOverview'>): RivalsWindow => {
        const { competition } = body;
        const standings = [{ ...competition.brand, is_brand: true }, ...competition.rivals.map((r) => ({ ...r, is_brand: false }))].map((s) => ({
          name: s.name,
          is_brand: s.is_brand,
          visibility: s.visibility,
          share_of_voice: s.share_of_voice,
          position: s.position,
          citations: s.citations,
        }));
        const names = new Set(standings.map((s) => s.name));
        const daily = competition.daily.map((d) => ({
          day: d.day,
          share_of_voice: Object.fromEntries([d.brand, ...d.rivals].filter((s) => names.has(s.name)).map((s) => [s.name, s.share_of_voice])),
        }));
        return { days, period: body.period, standings, daily };
      },
    );
  const windows = await Promise.all([window(28), window(90)]);
  const first = windows[0]!;
  const top = first.provided ? first.standings.filter((s) => !s.is_brand).map((s) => s.name) : [];
  const head_to_heads = await part(
    'getCompetitor',
    async () => {
      const read = await Promise.allSettled(top.map((name) => client.getCompetitor({ ...scope, name })));
      // A rival the service cannot answer for alone is left out; every one failing says why.
      const answered = read.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const failed = read.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (answered.length === 0 && failed) throw failed.reason;
      return answered;
    },
    (bodies): { period: { from: string; to: string }; rivals: HeadToHead[] } => ({
      period: bodies[0]?.period ?? (first.provided ? first.period : { from: '', to: '' }),
      rivals: bodies.map((b) => ({
        name: b.competitor.name,
        domain: b.competitor.domain,
        rival_share: b.overall.rival_share,
        brand_share: b.overall.brand_share,
        answered_runs: b.overall.answered_runs,
        questions_won: b.questions_won.length,
        topics_won: b.topics_won.map((t) => ({ name: t.name, margin: t.margin })),
      })),
    }),
  );
  return { windows, head_to_heads };
}

async function citations(client: ApiClient, scope: Scope): Promise<Pick<CitationsView, 'sources' | 'pages'>> {
  const [sources, pages] = await Promise.all([
    part(
      'listSources',
      () => client.listSources(scope),
      (body: ResponseOf<'listSources'>) => ({
        period: body.period,
        total_citations: body.total_citations,
        by_class: body.by_class,
        domains: body.sources.slice(0, SHOWN_ROWS).map((s) => ({ domain: s.domain, citations: s.citations, share: s.share, classification: s.classification, rival: s.rival })),
      }),
    ),
    part(
      'listPages',
      () => client.listPages(scope),
      (body: ResponseOf<'listPages'>) => ({
        period: body.period,
        previous_period: body.previous_period,
        totals: body.totals,
        pages: body.pages.slice(0, SHOWN_ROWS).map((p) => ({ url: p.url, title: p.title, citations: p.citations, previous_citations: p.previous_citations, change: p.change })),
        uncited: body.uncited.slice(0, SHOWN_ROWS).map((u) => ({
          url: u.url,
          title: u.title,
          topic: u.topic.name,
          cited_instead: u.cited_instead.map((c) => ({ url: c.url, domain: c.domain, classification: c.classification, citations: c.citations })),
        })),
      }),
    ),
  ]);
  return { sources, pages };
}

async function perception(client: ApiClient, scope: Scope): Promise<Pick<PerceptionView, 'perception'>> {
  return {
    perception: await part(
      'getBrandPerception',
      () => client.getBrandPerception(scope),
      (body: ResponseOf<'getBrandPerception'>) => ({
        period: body.period,
        summary: body.summary,
        engines: body.engines.map((e) => ({
          engine: e.engine,
          engine_label: engineLabel(e.engine),
          as_of: e.as_of,
          knows_brand: e.knows_brand,
          recommends: e.recommends,
          sentiment: e.sentiment,
          gets_right: e.gets_right,
          gets_wrong: e.gets_wrong,
        })),
      }),
    ),
  };
}

async function traffic(client: ApiClient, scope: Scope): Promise<Pick<TrafficView, 'crawlers' | 'visitors'>> {
  const [crawlers, visitors] = await Promise.all([
    part(
      'getAiCrawlers',
      () => client.getAiCrawlers(scope),
      (body: ResponseOf<'getAiCrawlers'>) => ({
        period: body.period,
        total_hits: body.total_hits,
        previous_hits: body.previous_hits,
        bots: body.bots,
        pages: body.pages.slice(0, SHOWN_ROWS).map((p) => ({ url: p.url, hits: p.hits })),
      }),
    ),
    part(
      'getAiVisitors',
      () => client.getAiVisitors(scope),
      (body: ResponseOf<'getAiVisitors'>) => ({
        period: body.period,
        total_visits: body.total_visits,
        previous_visits: body.previous_visits,
        change: body.change,
        assistants: body.assistants,
        pages: body.pages.slice(0, SHOWN_ROWS).map((p) => ({ url: p.url, visits: p.visits })),
      }),
    ),
  ]);
  return { crawlers, visitors };
}

/**
 * The view of `kind` for the brand and market `target` names (the API's defaults where it names none), read with
 * `client`; `keep` is where the kept history starts (the first read of a brand and market for a person or a link).
 */
export async function readView(client: ApiClient, kind: ViewKind, target: Pick<WeekTarget, 'brand_id' | 'market'>, keep: { db: D1Database; now: Date }): Promise<View> {
  const scoped = await readScopeKept(client, target, keep);
  const { brands } = await client.listBrands();
  const brand = { id: scoped.brand_id, name: brands.find((b) => b.id === scoped.brand_id)?.name ?? `Brand ${scoped.brand_id}` };
  const head: ViewHead = { brand, market: { id: scoped.market.id, code: scoped.market.code.toLowerCase() }, read_at: keep.now.toISOString() };
  const scope = { brand_id: brand.id, market: head.market.code };
  switch (kind) {
    case 'rivals':
      return { kind, ...head, ...(await rivals(client, scope)) };
    case 'citations':
      return { kind, ...head, ...(await citations(client, scope)) };
    case 'perception':
      return { kind, ...head, ...(await perception(client, scope)) };
    case 'traffic':
      return { kind, ...head, ...(await traffic(client, scope)) };
  }
}
