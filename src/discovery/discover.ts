/**
 * Discovering the upstream map: one read of each operation the key can read,
 * and the map proposed from the bodies (`propose.ts`), with a confidence per
 * field. The Worker (`POST /admin/upstream/discover`, reading through its
 * cache and the key's budget) and the command line (`npm run
 * upstream:discover`, reading the service over the network) run this with
 * their own reader.
 *
 * ```ts
 * const report = await discoverUpstreamMap(clientReader(createClient({ apiKey, baseUrl, transport: networkTransport })));
 * report.map;        // the PUT body of /admin/upstream/map: the entries at or above report.threshold
 * report.operations; // per operation: each field's placement, what to confirm, what is unplaced
 * ```
 *
 * Requests that need a value (a topic id, a question's text) take it from an
 * operation read before, as the contract's table says (`paramsFrom`,
 * `BRAND_ID_FROM`), read through the map proposed for that operation.
 *
 * A read refused for the key's budget (429) is not evidence: discovery waits
 * for the window when its caller lets it (`Pacing`), or stops, proposes
 * nothing, and says when it can go on (`stopped.resume_at`); the reads made
 * so far are cached by the Worker, so going on costs only the rest.
 */
import { type ZodSide, zodSide } from '../contract/zod-side';
import { resolvePeriod } from '../contract/window';
import type { RuleContext } from '../contract/plausibility';
import { response as responseSchema } from '../contract/schemas/responses';
import { once } from '../lib/lazy';
import { contractPaths } from '../contract/upstream-map';
import { brandNamesByAnswers, knownValues, paramsFromKnown } from './joins';
import { enumPaths, settleValues, type ValueHint } from './values';
import { hasEntries } from '../contract/body';
import { conformBody, isObject } from '../contract/conform';
import { fillParams, type Params, valuesAt } from '../contract/params-from';
import { type AnyOperation, BRAND_ID_FROM, OPERATION_IDS, type OperationId, operations } from '../contract/operations';
import type { RateFields } from '../contract/rate-limit';
import type { ApiClient, WithMeta } from '../client/client';
import { ApiClientError } from '../client/errors';
import { figuresFor, pointsPrecision, settledIn } from './figures';
import { proposeOperation } from './propose';
import { wholeLists } from './probes';
import { type EvidenceFor, probeReads, propose } from './probe-reads';
import { valueAtPath } from '../contract/paths';
import { joinPage, PAGE_BASE, PAGE_PROBES_WASTED, pagedList, pageDiff, paramsToTry, POINTERS_PROBED, pointersOf } from './pages';
import { MAX_PAGES, nextPage } from '../client/pages';
import { operationUrl } from '../client/client';
import { takesUnit } from './shapes';
import { extrasOf, houseWordsOf, vocabularyOf } from './vocabulary';
import type { Vocabulary } from './walk';
import { CONFIDENCE_THRESHOLD, type DiscoveryReport } from './report';

/** One read: the body as sent (any JSON) on a 200, the API's error otherwise; `cache` is the edge proxy's `X-Cache`. */
export interface DiscoveryRead {
  status: number;
  body?: unknown;
  cache?: string | null;
  error?: { code: string; message: string };
  /** Seconds from the answer's `Retry-After` (a 429 says when the key may read again). */
  retryAfter?: number;
  /** The key's budget as the answer reports it (`RateLimit`): what is left and when the window frees up. */
  rateLimit?: RateFields | null;
}
export type DiscoveryReader = (id: OperationId, params: Params) => Promise<DiscoveryRead>;

/** A reader over the typed client's `unchecked` methods: the body as sent, through whatever transport the client has. */
export function clientReader(api: ApiClient): DiscoveryReader {
  return async (id, params) => {
    try {
      const read = api.unchecked[id] as (params: Params) => Promise<WithMeta<Record<string, unknown>>>;
      const { data, meta } = await read(params);
      return { status: meta.status, body: data, cache: meta.cache, rateLimit: meta.rateLimit };
    } catch (error) {
      if (!(error instanceof ApiClientError)) throw error;
      return { status: error.status, error: { code: error.code, message: error.message }, ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}) };
    }
  };
}

/**
 * How discovery keeps within the key's budget where it may wait (the command line): before a read, while the last
 * answer said none is left (`RateLimit`), and after a 429, it waits for the window, as long as that is at most
 * `maxWaitSeconds`; past that it stops and says when to go on. Without it (the Worker's route) a 429 stops it at once.
 */
export interface Pacing {
  /** A seam, so tests never sleep. */
  sleep: (ms: number) => Promise<void>;
  maxWaitSeconds: number;
}

export interface DiscoveryOptions {
  threshold?: number;
  pace?: Pacing;
  /** When a stop for the budget says discovery can go on: now plus `Retry-After`. */
  now?: () => Date;
}

/** A 429: the key's budget (`rate_limited`) or its month's quota (`quota_exceeded`), not evidence about the service. */
export const budgetRefused = (answer: Pick<DiscoveryRead, 'status'>) => answer.status === 429;
/** The wait a 429 asks for when it does not say (the spec's window). */
const WINDOW_SECONDS = 60;

/** Refusals that hold for every operation: when the first read answers one, the key reads nothing and discovery stops. */
export const KEY_REFUSALS: ReadonlySet<string> = new Set(['invalid_api_key', 'plan_inactive']);
/** Answers the edge cache gave without asking the upstream. */
const FROM_CACHE = new Set(['HIT', 'STALE']);

const table = (id: OperationId) => operations[id] as unknown as AnyOperation;

/** The brands' operation first, then those needing no value, then those taking one from another's answer. */
export function readingOrder(): OperationId[] {
  const first = BRAND_ID_FROM.operation as OperationId;
  const rest = OPERATION_IDS.filter((id) => id !== first);
  return [first, ...rest.filter((id) => !table(id).paramsFrom), ...rest.filter((id) => table(id).paramsFrom)];
}

export async function discoverUpstreamMap(read: DiscoveryReader, options: DiscoveryOptions = {}): Promise<DiscoveryReport> {
  const zs = await zodSide();
  const { threshold = CONFIDENCE_THRESHOLD, pace, now = () => new Date() } = options;
  const report: DiscoveryReport = { threshold, calls: 0, upstream_calls: 0, brand_id: null, map: { operations: {} }, operations: {} };
  // The fixed windows end today: a rule discovery reads windows by.
  const context: RuleContext = { today: now().toISOString().slice(0, 10) };
  let waited = 0;
  /** Waits `seconds` when pacing allows it; false when discovery must stop instead. */
  const wait = async (seconds: number): Promise<boolean> => {
    if (!pace || seconds > pace.maxWaitSeconds) return false;
    await pace.sleep(seconds * 1000);
    waited += seconds;
    return true;
  };
  let last: DiscoveryRead | undefined;
  /** One read within the key's budget, counted; undefined when the budget refused it and discovery stops (`stopped`). */
  const paced = async (id: OperationId, params: Params): Promise<DiscoveryRead | undefined> => {
    // Nothing left in the window: wait for it rather than spend a read on a refusal.
    if (last?.rateLimit?.remaining === 0 && last.rateLimit.resetSeconds > 0) await wait(last.rateLimit.resetSeconds);
    let answer = await read(id, params);
    report.calls++;
    if (!FROM_CACHE.has(answer.cache ?? '')) report.upstream_calls++;
    while (budgetRefused(answer) && answer.error?.code !== 'quota_exceeded' && (await wait(answer.retryAfter ?? WINDOW_SECONDS))) {
      answer = await read(id, params);
      report.calls++;
      if (!FROM_CACHE.has(answer.cache ?? '')) report.upstream_calls++;
    }
    last = answer;
    if (!budgetRefused(answer)) return answer;
    // A refused read says nothing about the service: nothing is proposed from a discovery that could not read everything.
    const retryAfter = answer.retryAfter ?? WINDOW_SECONDS;
    const error = answer.error ?? { code: 'rate_limited', message: `${id}: refused for the key's budget.` };
    report.stopped = {
      status: answer.status,
      code: error.code,
      message: error.message,
      operation: id,
      retry_after: retryAfter,
      resume_at: new Date(now().getTime() + retryAfter * 1000).toISOString(),
    };
    report.map = { operations: {} };
    return undefined;
  };
  let brandIds: number[] = [];
  const entries = new Map<OperationId, DiscoveryReport['operations'][string]>();
  /** Each body read, on the contract's names as discovery best guesses them: where later requests find their values. */
  const read200 = new Map<OperationId, unknown>();
  const failed = new Map<OperationId, string>();
  /** Each body read as sent, with the request it answered: proposed again once every operation is read. */
  const bodies = new Map<OperationId, { body: Record<string, unknown>; params: Params }>();

  /** The pages found (`pages.ts`): each operation's pointer and parameters, and its first page. */
  const pagesFound = new Map<OperationId, { next: string; params: string[]; first: Record<string, unknown> }>();
  /** The page parameter a token was found to go in: a service names its pages one way, so it is tried first elsewhere. */
  let learnedParam: string | undefined;
  /** Pointers that proved no page: not probed again in another answer. */
  const notPointers = new Set<string>();
  let wastedPageReads = 0;

  /**
   * The body with its list made whole, where a text beside it proves to point to the next page (a probe reads the
   * operation with it as its page); the body as read where none does; undefined when the budget stopped discovery.
   */
  const followPages = async (id: OperationId, first: Record<string, unknown>, params: Params): Promise<Record<string, unknown> | undefined> => {
    const pointers = pointersOf(first, table(id).path, params)
      .filter((p) => !notPointers.has(p.path))
      .slice(0, POINTERS_PROBED);
    let reads = 0;
    for (const pointer of pointers) {
      const tries: Params[] = pointer.linkParams ? [pointer.linkParams] : paramsToTry(pointer, learnedParam).map((name) => ({ [name]: pointer.value }));
      for (const extra of tries) {
        if (wastedPageReads >= PAGE_PROBES_WASTED) break;
        const asked = { ...params, ...extra };
        const answer = await paced(id, asked);
        reads++;
        if (!answer) return undefined;
        const diff = answer.status === 200 ? pageDiff(first, answer.body) : undefined;
        if (!diff) {
          wastedPageReads++;
          continue;
        }
        const pages = { next: pointer.path, params: Object.keys(extra) };
        if (!pointer.linkParams) learnedParam = pages.params[0];
        let whole = joinPage(first, answer.body, diff.container);
        let [count, last, lastAsked] = [2, answer.body, asked];
        for (; count < MAX_PAGES; count++) {
          const next = nextPage(new URL(operationUrl(PAGE_BASE, id, lastAsked)), last, pages);
          if (next === undefined || 'problem' in next) break;
          const nextAsked: Params = Object.fromEntries(next.searchParams);
          const more = await paced(id, nextAsked);
          reads++;
          if (!more) return undefined;
          if (more.status !== 200 || !isObject(more.body)) break;
          whole = joinPage(whole, more.body, diff.container);
          [last, lastAsked] = [more.body, nextAsked];
        }
        const said = Object.entries(extra)
          .map(([name, value]) => `${name}=${String(value).slice(0, 24)}`)
          .join('&');
        (report.probes ??= []).push({
          purpose: `the pages of ${id}: read again with \`${said}\`, the text at \`${pointer.path}\``,
          reads,
          settled: `a list in pages: \`${pointer.path}\` points to the next page, asked back as \`${pages.params.join('`, `')}\`; ${count} pages read`,
        });
        pagesFound.set(id, { ...pages, first });
        return whole;
      }
      notPointers.add(pointer.path);
    }
    if (reads > 0) (report.probes ??= []).push({ purpose: `the pages of ${id}: the texts beside its body read as its page`, reads, settled: 'nothing: no answer was the next page' });
    return first;
  };

  /** One operation read and proposed: `stop` when discovery must end (a refused key, the budget). */
  const readOperation = async (id: OperationId): Promise<'next' | 'stop'> => {
    const op = table(id);
    const params: Params = {};
    if (report.brand_id !== null && op.scope !== 'account') params.brand_id = report.brand_id;
    Object.assign(params, wholeLists(id));
    const lacking = fillParams(op, params, read200, failed);
    if (lacking) {
      // Another answer read may hold a value of the same resource (a topic's id in the overview, a question's text in /prompts).
      const joined = paramsFromKnown(
        id,
        knownValues(read200, (read) => contractPaths(zs, read), new Map()),
      );
      if (!joined) {
        entries.set(id, { status: null, skipped: lacking });
        return 'next';
      }
      Object.assign(params, joined);
    }
    const answer = await paced(id, params);
    if (!answer) return 'stop';
    const body = answer.body;
    if (answer.status !== 200 || typeof body !== 'object' || body === null || Array.isArray(body)) {
      const error = answer.error ?? { code: 'invalid_response', message: `${id}: the body is not a JSON object.` };
      entries.set(id, { status: answer.status, params, error });
      failed.set(id, `answered ${answer.status} ${error.code}`);
      // The first read tells whether anything can be read: not with a refused key, nor from a service that does not answer.
      if (report.calls === 1 && (KEY_REFUSALS.has(error.code) || answer.status === 0 || answer.status >= 500)) {
        report.stopped = { status: answer.status, code: error.code, message: error.message };
        return 'stop';
      }
      return 'next';
    }
    // A list in pages is read whole before anything is judged of it: counts and joins are of the whole list.
    const whole = await followPages(id, body as Record<string, unknown>, params);
    if (!whole) return 'stop';
    const proposal = proposeOperation(zs, id, whole, threshold, { context: askedIn(context, id, params) });
    entries.set(id, { status: 200, params, cache: answer.cache ?? null, ...proposal.report });
    if (hasEntries(proposal.map)) report.map.operations[id] = proposal.map;
    read200.set(id, conformBody(zs.response(id), whole, proposal.guess));
    bodies.set(id, { body: whole, params });
    failed.delete(id);
    if (id === BRAND_ID_FROM.operation) {
      // `brand_id` is required of a key with several brands, and optional with one: given only when needed.
      brandIds = valuesAt(read200.get(id), BRAND_ID_FROM.path).filter((b): b is number => typeof b === 'number');
      if (brandIds.length > 1) report.brand_id = brandIds[0]!;
    }
    return 'next';
  };
  for (const id of readingOrder()) if ((await readOperation(id)) === 'stop') break;
  // Reads the service refused for want of a brand (a key with several, whose /brands discovery could not read): the
  // brand ids are probed, each candidate of /brands' numbers asked of one refused read, and the refused reads made again.
  const refusedForBrand = () =>
    readingOrder().filter((id) => {
      const e = entries.get(id);
      return e?.status === 400 && 'error' in e && e.error.code === 'brand_required';
    });
  if (!report.stopped && refusedForBrand().length > 0 && report.brand_id === null) {
    // The ids read from /brands, where there were any (one read where the key has several); else each number it holds.
    if (brandIds.length === 0) {
      const probe = refusedForBrand()[0]!;
      const tried: number[] = [];
      for (const candidate of brandCandidates(bodies.get(BRAND_ID_FROM.operation as OperationId)?.body)) {
        const answer = await paced(probe, { ...(entries.get(probe) as { params: Params }).params, brand_id: candidate });
        if (!answer) break;
        tried.push(candidate);
        if (answer.status === 200) brandIds.push(candidate);
      }
      (report.probes ??= []).push({
        purpose: `the brand ids: each number /brands holds asked of ${probe}, which a key with several brands answers only for one of its own`,
        reads: tried.length,
        settled: brandIds.length > 0 ? `brands ${brandIds.join(', ')}` : 'none of them is a brand of the key',
      });
    }
    if (brandIds.length > 0 && !report.stopped) {
      report.brand_id = brandIds[0]!;
      for (const id of readingOrder()) {
        const entry = entries.get(id);
        const again = (entry?.status === 400 && 'error' in entry && entry.error.code === 'brand_required') || entry?.status === null;
        if (again && (await readOperation(id)) === 'stop') break;
      }
    }
  }
  // Another brand's answers may hold enumeration values the first brand's never showed: read those that carry them.
  const others: [OperationId, Record<string, unknown>][] = [];
  for (const brand of report.stopped ? [] : brandIds.slice(1, 1 + OTHER_BRANDS)) {
    for (const [id, { params }] of bodies) {
      if (!valueOperations().has(id) || table(id).paramsFrom) continue;
      const answer = await paced(id, { ...params, brand_id: brand });
      if (!answer) break;
      if (answer.status === 200 && typeof answer.body === 'object' && answer.body !== null && !Array.isArray(answer.body)) others.push([id, answer.body as Record<string, unknown>]);
    }
    if (report.stopped) break;
    report.other_brands_read = [...(report.other_brands_read ?? []), brand];
  }
  if (!report.stopped) {
    const evidenceFor = joinAcross(zs, bodies, others, threshold, report, entries, context);
    const markets = valueAtPath(read200.get('listMarkets'), 'markets');
    await probeReads({
      zs,
      bodies,
      threshold,
      report,
      entries,
      evidenceFor,
      paced,
      today: context.today!,
      markets: Array.isArray(markets) ? (markets.filter(isObject) as { id: unknown; code: unknown }[]) : [],
    });
  }
  // Pages are proven by their probe; their list is the one the map reads more of in the whole than in the first page.
  if (!report.stopped)
    for (const [id, { first, ...pages }] of pagesFound) {
      const map = report.map.operations[id] ?? { fields: {}, convert: {}, values: {} };
      const list = pagedList(zs, id, first, bodies.get(id)?.body, map);
      if (list !== undefined) report.map.operations[id] = { ...map, pages: { list, ...pages } };
    }
  for (const id of OPERATION_IDS) {
    const entry = entries.get(id) ?? { status: null, skipped: 'not read: discovery stopped (see `stopped`)' };
    report.operations[id] = entry;
  }
  if (waited > 0) report.waited_seconds = waited;
  const unread = refusedForBrand();
  if (!report.stopped && unread.length > 0)
    report.incomplete = {
      code: 'brand_required',
      operations: unread,
      message: `${unread.length} operations were refused for want of a brand (400 brand_required): the key has several brands and discovery could not read their ids from /brands. Their parts of the map are missing; answer /brands' questions (its brands' ids) and run discovery again.`,
    };
  return report;
}

/** Brands besides the first whose answers are read for enumeration values: each costs a read of every operation that holds one. */
const OTHER_BRANDS = 2;
/** The operations whose answers hold a closed enumeration (an answer state, an outcome, an action, a source's class). */
const valueOperations = once((): ReadonlySet<OperationId> => new Set(OPERATION_IDS.filter((id) => enumPaths(responseSchema(id)).size > 0)));

/** Rounds of proposing again with what the other operations settled: a join settled in one may settle another in the next, and a word evidence taught in one (`vocabulary.ts`) places a field in the next. */
const JOIN_ROUNDS = 3;

/**
 * Every body proposed again, now that every operation is read: the values each holds for the resources the spec
 * joins (`joins.ts`), as placed surely so far, and the values its requests were answered for, settle fields no name
 * placed.
 */
function joinAcross(
  zs: ZodSide,
  bodies: ReadonlyMap<OperationId, { body: Record<string, unknown>; params: Params }>,
  others: readonly [OperationId, Record<string, unknown>][],
  threshold: number,
  report: DiscoveryReport,
  entries: Map<OperationId, DiscoveryReport['operations'][string]>,
  context: RuleContext,
): EvidenceFor {
  /** Values settled in a round read as ours in the next: what each round settles is kept for the rounds after. */
  const settled = new Map<string, Map<string, ValueHint>>();
  let evidenceFor: EvidenceFor = (_id, params) => ({ context: askedIn(context, _id, params) });
  for (let round = 0; round < JOIN_ROUNDS; round++) {
    const placed = new Map([...bodies].map(([id, { body }]) => [id, conformBody(zs.response(id), body, report.map.operations[id])] as const));
    const joined = knownValues(placed, (id) => contractPaths(zs, id), new Map([...bodies].map(([id, { params }]) => [id, params] as const)));
    // The brand's name by the answers that name it: a list of brands keyed by name, with no overview to join it.
    const byAnswers = brandNamesByAnswers(bodies.get('listBrands')?.body, placed.get('getAnswerRuns'));
    const known = byAnswers.size === 0 ? joined : new Map([...joined, ['brand_name', new Set([...(joined.get('brand_name') ?? []), ...byAnswers])] as const]);
    const words = (values: Iterable<unknown>) => new Set([...values].filter((v): v is string => typeof v === 'string' && v.length >= 3));
    const names = { brands: words(valuesAt(placed.get('listBrands'), 'brands[].name')), rivals: words(known.get('rival') ?? []) };
    const pooled = [...placed, ...others.map(([id, body]) => [id, conformBody(zs.response(id), body, report.map.operations[id])] as const)];
    for (const [key, values] of settleValues(pooled, (id) => zs.response(id), names)) for (const [value, hint] of values) (settled.get(key) ?? settled.set(key, new Map()).get(key)!).set(value, hint);
    const hints = settled;
    // What the round starts from: `placed` reads each answer with the map of the entries as they were then.
    const before = new Map(entries);
    const trusted = (id: OperationId, path: string) => settledIn(before.get(id), path);
    const precision = pointsPrecision(before, placed, (id, path) => takesUnit(zs.response(id), path));
    const placementsOf = (entry: DiscoveryReport['operations'][string]) =>
      'fields' in entry && entry.fields ? Object.entries(entry.fields).map(([path, placed]) => [path, placed.from, placed.by] as const) : [];
    // An answer's own placement by form teaches nothing to that answer: it would only relabel itself.
    const taughtWords = new Map<OperationId, { vocabulary: Vocabulary; wordsElsewhere: Vocabulary }>();
    const wordsFor = (id: OperationId) => {
      const taught = (keep: (other: OperationId, by: string) => boolean) =>
        vocabularyOf([...before].flatMap(([other, entry]) => placementsOf(entry).filter(([, , by]) => keep(other as OperationId, by))));
      return taughtWords.get(id) ?? taughtWords.set(id, { vocabulary: taught((other, by) => other !== id || by !== 'form'), wordsElsewhere: taught((other) => other !== id) }).get(id)!;
    };
    // One word at a time too, from every sure placement of the names that break no tie themselves.
    const houseWords = houseWordsOf([...before.values()].flatMap((entry) => placementsOf(entry).filter(([, , by]) => by !== 'resemblance')));
    const extras = extrasOf(before.values());
    evidenceFor = (id, params) => ({ known, hints, context: askedIn(context, id, params), figures: figuresFor(id, placed, trusted), precision, houseWords, extras, ...wordsFor(id) });
    for (const [id, { body, params }] of bodies) propose(zs, id, body, params, threshold, evidenceFor(id, params), report, entries);
  }
  return evidenceFor;
}

/** The rules' context for one read: the window it asked for, resolved as the spec says (a rule of the period judges by it), and its query (`limit`). */
function askedIn(context: RuleContext, id: OperationId, params: Params): RuleContext {
  if (!context.today) return context;
  const { days, from, to } = params as { days?: number; from?: string; to?: string };
  return { ...context, window: resolvePeriod(table(id).window, { days, from, to }, context.today), query: params };
}

/** The numbers /brands holds anywhere (its values, and its keys where a list is keyed by id): the brand ids it may list, at most `BRAND_PROBES`. */
function brandCandidates(body: unknown): number[] {
  const found = new Set<number>();
  const visit = (value: unknown) => {
    if (found.size >= BRAND_PROBES) return;
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null)
      for (const [key, v] of Object.entries(value)) {
        if (/^\d{1,9}$/.test(key)) found.add(Number(key));
        visit(v);
      }
    else if (typeof value === 'number' && Number.isInteger(value) && value > 0) found.add(value);
  };
  visit(body);
  return [...found].slice(0, BRAND_PROBES);
}
/** Brand ids probed at most: each costs one read of the key's budget. */
const BRAND_PROBES = 8;
