/**
 * Reading a weekly report: one read with aligned windows, for the digest, the
 * page and everything later. `/visibility`, `/answers/history` and `/prompts`
 * have a fixed window (the trailing 7 days ending on the day they are read;
 * the API takes no dates for them), so they are read together, read again
 * once when they straddled midnight UTC, and `/topics` is read for exactly
 * their days. Every figure of the report covers the same 7 days.
 *
 * ```ts
 * const { inputs, source } = await readWeek(api(key, address), { brand_id: 1, market: 'us' }, new Date());
 * const report = reportOf(inputs); // both kinds
 * source.from_cache; // 'all' | 'some' | 'none'
 * ```
 *
 * The report page reads a little more (`readPageExtras`): share of voice and
 * the brand's markets. The digest never does: a digest group reads exactly
 * the four bodies of the report.
 */
import { type ApiClient, ApiClientError, type CacheStatus, type ResponseMeta, type WithMeta } from '../client';
import type { ResponseOf } from '../contract/operations';
import { buildReport, DIGEST_KINDS, type DigestKind, formatPeriod, type Report } from './model';
import { type MapMisses, missesByPart, type Needs, NEEDS, type PartId, readParts } from './parts';

/** What the report reads of `/brands`. */
const BRAND_NAME: Needs = { brand_name: 'required' };
import { firstFailure, OperationMissing } from './missing';
import type { PlanInputs } from './plan';
import { utcWeek } from './week';

/** The fixed-window reads of a week, in the order `readWeek` makes them. */
const FIXED_READS = ['getVisibility', 'getAnswerHistory', 'getPromptMatrix'] as const;

/** The reads of a week for a brand and market: the fixed ones, `/topics`, and the plan's three (`/content-gaps`, `/tasks`, `/pages`); `/brands` besides when the brand's name is not known. */
export const WEEK_READS = FIXED_READS.length + 1 + 3;

/** One read behind a report. */
export interface ReadInfo {
  operation: 'getVisibility' | 'getAnswerHistory' | 'getPromptMatrix' | 'listTopics' | 'listBrands' | 'getContentGaps' | 'listTasks' | 'listPages' | PageReadOperation;
  /** The proxy's `X-Cache`: HIT and STALE came from the cache, MISS and REVALIDATED from the API. */
  cache: CacheStatus | null;
  /** Seconds since the proxy stored the answer (`Age`), when it came from the cache. */
  age_seconds: number | null;
  read_at: string;
}

/** Where a report's figures came from and when: shown on the page and in `format=json`. */
export interface ReportSource {
  /** When the last of the reads answered. */
  read_at: string;
  /** `all`: every read was served from the edge cache; `none`: every read went to the API; `some`: mixed. */
  from_cache: 'all' | 'some' | 'none';
  /** The oldest cached answer's age in seconds, or null when nothing came from the cache. */
  max_age_seconds: number | null;
  reads: ReadInfo[];
}

/**
 * What a report is built from: the API bodies, the brand and the week. Kept so each kinds variant is built from one read.
 * A part the service does not provide (parts.ts) is listed in `not_provided`: its list is empty, or its body null.
 */
export interface WeeklyInputs {
  brand: { id: number; name: string };
  market: { id: number; code: string };
  week: { isoWeek: string; monday: string };
  visibility: ResponseOf<'getVisibility'>;
  history: ResponseOf<'getAnswerHistory'>;
  topics: ResponseOf<'listTopics'> | null;
  /** Each question's dominant answer per engine over the same 7 days: the per-engine figures. */
  matrix: ResponseOf<'getPromptMatrix'> | null;
  /** The plan's bodies (plan.ts); absent from inputs kept before the plan was read. */
  plan?: PlanInputs;
  not_provided: PartId[];
  /** Of `not_provided`, those whose operation answered with what the map misses (lists under other names, values no rule reads): by part. */
  misses?: Partial<Record<PartId, MapMisses>>;
  /** The day the week was read on (`YYYY-MM-DD`, UTC, from the caller's clock): the fixed windows end on it. */
  today?: string;
}

export interface WeeklyRead {
  inputs: WeeklyInputs;
  source: ReportSource;
}

/** The report of `inputs` for the given kinds (both by default). */
export const reportOf = (inputs: WeeklyInputs, kinds: readonly DigestKind[] = DIGEST_KINDS): Report =>
  buildReport({
    brand: inputs.brand,
    week: inputs.week,
    kinds,
    visibility: inputs.visibility,
    history: inputs.history,
    topics: inputs.topics,
    matrix: inputs.matrix,
    plan: inputs.plan,
    not_provided: inputs.not_provided,
    misses: inputs.misses,
    today: inputs.today,
  });

export interface WeekTarget {
  brand_id?: number | undefined;
  /** Market code or id, as the API takes it. */
  market?: string | undefined;
  /** The brand's name when the caller knows it (a subscription keeps it); otherwise `/brands` is read for it. */
  brandName?: string;
  /** The ISO week the report is for; the UTC week of `now` by default. */
  week?: { isoWeek: string; monday: string };
}

/** The brand and market of `target` as a read's parameters: the API's defaults where they are not given. */
export const scopeParams = (target: Pick<WeekTarget, 'brand_id' | 'market'>): { brand_id?: number; market?: string } => ({
  ...(target.brand_id !== undefined ? { brand_id: target.brand_id } : {}),
  ...(target.market !== undefined ? { market: target.market } : {}),
});

/**
 * The fixed-window reads disagreed on their days twice. `persistent` when they disagreed alike both times: no read
 * across midnight UTC, but a body whose `period` is not its window (read from the wrong field); worth a retry otherwise.
 */
export class WindowMismatch extends Error {
  override readonly name = 'WindowMismatch';
  constructor(
    message: string,
    readonly persistent = false,
  ) {
    super(message);
  }
}

const FROM_CACHE: readonly (CacheStatus | null)[] = ['HIT', 'STALE'];

function readInfo(operation: ReadInfo['operation'], meta: ResponseMeta | null): ReadInfo[] {
  if (!meta) return [];
  const cached = FROM_CACHE.includes(meta.cache);
  return [{ operation, cache: meta.cache, age_seconds: cached ? (meta.ageSeconds ?? 0) : null, read_at: meta.readAt.toISOString() }];
}

export function summarizeReads(reads: ReadInfo[]): ReportSource {
  const cached = reads.filter((r) => FROM_CACHE.includes(r.cache));
  const ages = cached.map((r) => r.age_seconds ?? 0);
  return {
    read_at:
      reads
        .map((r) => r.read_at)
        .sort()
        .at(-1) ?? new Date(0).toISOString(),
    from_cache: cached.length === 0 ? 'none' : cached.length === reads.length ? 'all' : 'some',
    max_age_seconds: ages.length === 0 ? null : Math.max(...ages),
    reads,
  };
}

const samePeriod = (a: { from: string; to: string }, b: { from: string; to: string }) => a.from === b.from && a.to === b.to;

/**
 * Reads the report's bodies for one window (see the module comment). For a
 * brand or market the key cannot read, the first reads fail the same way (the
 * API's check order), and that error is thrown as the client's
 * `ApiClientError` for the caller to pass on; `OperationMissing` when the
 * service lacks an operation the report requires; `WindowMismatch` when the
 * windows could not be aligned.
 */
export async function readWeek(client: ApiClient, target: WeekTarget, now: Date): Promise<WeeklyRead> {
  const params = scopeParams(target);
  const needs = NEEDS.digest;
  const fixed = async () => {
    // Settled together: a 404 of one beside another's 200 says the service lacks that operation (missing.ts).
    const reads = [readParts(client, needs, 'getVisibility', params), readParts(client, needs, 'getAnswerHistory', params), readParts(client, needs, 'getPromptMatrix', params)] as const;
    const settled = await Promise.allSettled(reads);
    const failure = firstFailure(
      settled.map((result, i) => ({ id: FIXED_READS[i]!, result })),
      needs,
    );
    if (failure !== undefined) throw failure;
    return Promise.all(reads);
  };
  // The brand's name, as the check reads it (parts.ts: `brand_name`): only the brands' ids and names are needed.
  const brandsRead = target.brandName === undefined ? readParts(client, BRAND_NAME, 'listBrands', {}) : undefined;
  // Settled with the first reads, so a failure of both is one error, not an unhandled second one.
  brandsRead?.catch(() => undefined);
  let [visibility, history, matrix] = await fixed();
  // Required parts: never null. Per-engine answers may be (the service has no /prompts), and then align with anything.
  const aligned = () => samePeriod(visibility.data!.period, history.data!.period) && (!matrix.data || samePeriod(visibility.data!.period, matrix.data.period));
  const windows = () =>
    [
      `/visibility covers ${formatPeriod(visibility.data!.period)}`,
      `/answers/history ${formatPeriod(history.data!.period)}`,
      ...(matrix.data ? [`/prompts ${formatPeriod(matrix.data.period)}`] : []),
    ].join(', ');
  const first = aligned() ? undefined : windows();
  if (first !== undefined) [visibility, history, matrix] = await fixed();
  if (!aligned()) throw new WindowMismatch(windows(), windows() === first);
  const { period, brand_id: brandId, market } = visibility.data!;
  const days = { ...params, from: period.from, to: period.to };
  const [topics, gaps, tasks, pages] = await Promise.all([
    readParts(client, needs, 'listTopics', days),
    readParts(client, needs, 'getContentGaps', params),
    readTasks(client, needs, params),
    readParts(client, needs, 'listPages', days),
  ]);
  const brands = brandsRead
    ? await brandsRead.catch((error: unknown) => {
        // The others answered: a 404 of /brands says the service lacks it.
        throw error instanceof ApiClientError && error.kind === 'http' && error.status === 404 && error.code !== 'brand_not_found'
          ? new OperationMissing('listBrands', `${error.status} ${error.code}`, BRAND_NAME)
          : error;
      })
    : undefined;
  const name = target.brandName ?? brands?.data?.brands.find((b) => b.id === brandId)?.name ?? `Brand ${brandId}`;
  const inputs: WeeklyInputs = {
    brand: { id: brandId, name },
    market,
    week: target.week ?? utcWeek(now),
    visibility: visibility.data!,
    history: history.data!,
    topics: topics.data,
    matrix: matrix.data,
    plan: { gaps: gaps.data, tasks: tasks.read?.data ?? null, pages: pages.data, tasks_in_plan: tasks.inPlan },
    not_provided: [visibility, history, matrix, topics, gaps, ...(tasks.read ? [tasks.read] : []), pages].flatMap((read) => read.notProvided),
    misses: missesByPart([visibility, history, matrix, topics, gaps, pages]),
    today: now.toISOString().slice(0, 10),
  };
  const reads = [
    ...readInfo('getVisibility', visibility.meta),
    ...readInfo('getAnswerHistory', history.meta),
    ...readInfo('getPromptMatrix', matrix.meta),
    ...readInfo('listTopics', topics.meta),
    ...readInfo('getContentGaps', gaps.meta),
    ...readInfo('listTasks', tasks.read?.meta ?? null),
    ...readInfo('listPages', pages.meta),
    ...(brands ? readInfo('listBrands', brands.meta) : []),
  ];
  return { inputs, source: summarizeReads(reads) };
}

/**
 * `/tasks` for the plan: open tasks (the API's default filter), best first. A key whose plan has no tasks (403 `feature_not_in_plan`) gets the
 * plan without them (`inPlan` false), never a failed report.
 */
async function readTasks(client: ApiClient, needs: Needs, params: Record<string, unknown>): Promise<{ read: Awaited<ReturnType<typeof readParts<'listTasks'>>> | null; inPlan: boolean }> {
  try {
    return { read: await readParts(client, needs, 'listTasks', params), inPlan: true };
  } catch (error) {
    if (error instanceof ApiClientError && error.kind === 'http' && error.status === 403 && error.code === 'feature_not_in_plan') return { read: null, inPlan: false };
    throw error;
  }
}

/** What a key reads, from `/visibility`: asked before a subscription or a link is made. */
export interface Scope {
  brand_id: number;
  market: { id: number; code: string };
  /** The body read: its 12 weekly points start the kept history (`readScopeKept`, history.ts). */
  visibility: ResponseOf<'getVisibility'>;
}

/**
 * The brand and market `/visibility` names for `target` (the same read the
 * features make, so its error is the one to show). Only the score is
 * required of the body: a service without the 12-week history still has
 * subscribers and links.
 */
export async function readScope(client: ApiClient, target: Pick<WeekTarget, 'brand_id' | 'market'>): Promise<Scope> {
  const params = scopeParams(target);
  const { data } = await readParts(client, { score: 'required' }, 'getVisibility', params);
  return { brand_id: data!.brand_id, market: data!.market, visibility: data! };
}

// ---------------------------------------------------------------- the page's extra reads

type PageReadOperation = 'getOverview' | 'listMarkets';

/** What the report page shows besides the report itself; each null when it was not asked for or could not be read. */
export interface PageExtras {
  /** Share of voice and the brand against its top rivals, over the report's 7 days. */
  overview: ResponseOf<'getOverview'> | null;
  /** Each question's dominant answer per engine, over the trailing 7 days (the window of `/visibility`): read with the week itself. */
  prompts: ResponseOf<'getPromptMatrix'> | null;
  /** The brand's markets. */
  markets: ResponseOf<'listMarkets'> | null;
  /** The reads that failed, by operation, with the client's error code: for the log; the page leaves their part out and says so. */
  failed: { operation: PageReadOperation; code: string }[];
}

export interface PageExtrasWanted {
  /** Share of voice (`/overview`) and per-engine answers (`/prompts`): the visibility part of the page. */
  visibility: boolean;
  /** The brand's markets (`/markets`). */
  markets: boolean;
}

/**
 * The page's extra reads, for the brand, market and days of `inputs`, made
 * together. Best effort: the report is already read, so an extra that fails
 * (an outage, a plan without it) leaves its part of the page out instead of
 * failing the page. Other errors are thrown.
 */
export async function readPageExtras(client: ApiClient, inputs: WeeklyInputs, wanted: PageExtrasWanted): Promise<{ extras: PageExtras; reads: ReadInfo[] }> {
  const scope = { brand_id: inputs.brand.id, market: inputs.market.code };
  const { period } = inputs.visibility;
  const reads: ReadInfo[] = [];
  const failed: PageExtras['failed'] = [];
  const attempt = async <T>(operation: PageReadOperation, read: () => Promise<WithMeta<T>>): Promise<T | null> => {
    try {
      const { data, meta } = await read();
      reads.push(...readInfo(operation, meta));
      return data;
    } catch (error) {
      if (!(error instanceof ApiClientError)) throw error;
      failed.push({ operation, code: error.code });
      return null;
    }
  };
  const none = async () => null;
  const [overview, markets] = await Promise.all([
    wanted.visibility ? attempt('getOverview', () => client.withMeta.getOverview({ ...scope, from: period.from, to: period.to })) : none(),
    wanted.markets ? attempt('listMarkets', () => client.withMeta.listMarkets({ brand_id: inputs.brand.id })) : none(),
  ]);
  return { extras: { overview, prompts: wanted.visibility ? inputs.matrix : null, markets, failed }, reads };
}
