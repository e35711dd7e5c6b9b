/**
 * Reading a weekly report: the three bodies the digest reads (`/visibility`,
 * `/answers/history`, `/topics`) plus `/brands` for the brand's name, through
 * the cached edge proxy (`proxyTransport`), so the report can say when its
 * data was read and whether it came from the cache.
 *
 * ```ts
 * const { inputs, source } = await readWeekly(client, { brand_id: 1, market: 'us' }, new Date());
 * const report = reportOf(inputs); // both kinds
 * source.from_cache; // 'all' | 'some' | 'none'
 * ```
 */
import type { ApiClient, CacheStatus, ResponseMeta } from '../client';
import type { ResponseOf } from '../contract/operations';
import { addDays, toDay } from '../contract/window';
import { isoWeek } from '../digests/schedule';
import { buildReport, DIGEST_KINDS, type DigestKind, type Report } from './model';

/** One read behind a report. */
export interface ReadInfo {
  operation: 'getVisibility' | 'getAnswerHistory' | 'listTopics' | 'listBrands';
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

/** What a report is built from: the API bodies, the brand and the week. Kept so each kinds variant is built from one read. */
export interface WeeklyInputs {
  brand: { id: number; name: string };
  market: { id: number; code: string };
  week: { isoWeek: string; monday: string };
  visibility: ResponseOf<'getVisibility'>;
  history: ResponseOf<'getAnswerHistory'>;
  topics: ResponseOf<'listTopics'>;
}

export interface WeeklyRead {
  inputs: WeeklyInputs;
  source: ReportSource;
}

/** The report of `inputs` for the given kinds (both by default): the digest's model, unchanged. */
export const reportOf = (inputs: WeeklyInputs, kinds: readonly DigestKind[] = DIGEST_KINDS): Report =>
  buildReport({ brand: inputs.brand, week: inputs.week, kinds, visibility: inputs.visibility, history: inputs.history, topics: inputs.topics });

export interface ReportTarget {
  brand_id?: number | undefined;
  /** Market code or id, as the API takes it. */
  market?: string | undefined;
}

const FROM_CACHE: readonly (CacheStatus | null)[] = ['HIT', 'STALE'];

/** The ISO week of `now` (UTC) and its Monday: the week an on-demand report is about. */
export function currentWeek(now: Date): { isoWeek: string; monday: string } {
  const today = toDay(now);
  const weekday = now.getUTCDay() || 7;
  const monday = addDays(today, -(weekday - 1));
  return { isoWeek: isoWeek(monday), monday };
}

function readInfo(operation: ReadInfo['operation'], meta: ResponseMeta): ReadInfo {
  const cached = FROM_CACHE.includes(meta.cache);
  return { operation, cache: meta.cache, age_seconds: cached ? (meta.ageSeconds ?? 0) : null, read_at: meta.readAt.toISOString() };
}

export function summarizeReads(reads: ReadInfo[]): ReportSource {
  const cached = reads.filter((r) => FROM_CACHE.includes(r.cache));
  const ages = cached.map((r) => r.age_seconds ?? 0);
  return {
    read_at: reads.map((r) => r.read_at).sort().at(-1) ?? new Date(0).toISOString(),
    from_cache: cached.length === 0 ? 'none' : cached.length === reads.length ? 'all' : 'some',
    max_age_seconds: ages.length === 0 ? null : Math.max(...ages),
    reads,
  };
}

/**
 * Reads and builds the report for the key's brand and market. The four reads
 * go out together: for a brand or market the key cannot read they all fail
 * the same way (the API's check order), and that error is thrown as the
 * client's `ApiClientError` for the caller to pass through.
 */
export async function readWeekly(client: ApiClient, target: ReportTarget, now: Date): Promise<WeeklyRead> {
  const params = { ...(target.brand_id !== undefined ? { brand_id: target.brand_id } : {}), ...(target.market !== undefined ? { market: target.market } : {}) };
  const [visibility, history, topics, brands] = await Promise.all([
    client.withMeta.getVisibility(params),
    client.withMeta.getAnswerHistory(params),
    // No dates: the trailing 7 days ending today, the same window as /visibility and /answers/history.
    client.withMeta.listTopics(params),
    client.withMeta.listBrands(),
  ]);
  const brandId = visibility.data.brand_id;
  const name = brands.data.brands.find((b) => b.id === brandId)?.name ?? `Brand ${brandId}`;
  const inputs: WeeklyInputs = {
    brand: { id: brandId, name },
    market: visibility.data.market,
    week: currentWeek(now),
    visibility: visibility.data,
    history: history.data,
    topics: topics.data,
  };
  const source = summarizeReads([
    readInfo('getVisibility', visibility.meta),
    readInfo('getAnswerHistory', history.meta),
    readInfo('listTopics', topics.meta),
    readInfo('listBrands', brands.meta),
  ]);
  return { inputs, source };
}
