/**
 * The measuring instrument of issue 43 item 4: discovery alone in front of a
 * service in a house style (generator.ts), scored.
 *
 * `runStyle(style, env, now)`:
 *
 * 1. The service: our embedded origin (`originTransport(env.DB)`, the demo
 *    key `demo_pro_single`), in process, with the style applied to every 200
 *    body; an operation the style omits answers 404 `not_found`. The origin's
 *    answers are kept by URL for the whole run, so a style costs only its
 *    transformation (and the service answers the same bytes every time).
 * 2. Discovery alone (`discoverUpstreamMap` over `clientReader`), no hand
 *    edit. **Entries left for a person**: the total of `to_confirm.length +
 *    unplaced.length` over the operations the style provides (not omitted,
 *    and answered 200 by the origin). An operation provided but not read by
 *    discovery (skipped for a value it could not find, or failed) is listed in
 *    `unread`, apart from the count.
 * 3. The weekly report twice, with `readWeek` + `reportOf` and the same
 *    `now`: once straight from the origin (with the style's omitted
 *    operations answering 404 there too, so both sides have the same parts),
 *    once through the styled service with the discovered map. Both are
 *    flattened to path → value and compared: equal, different, missing,
 *    extra. A read that fails counts every field of the origin's report as
 *    different. Timestamps compare as instants (`…:00Z` and `…:00.000Z` are
 *    one).
 * 4. Per operation provided, its example request: whether `checkResponseBody`
 *    passes with the discovered map, and whether the conformed body equals
 *    the origin's field by field. One that passes with other figures (a field
 *    of the origin's different or missing) is a "wrong figure called right";
 *    what the service holds beyond the origin's (an engine of its own that
 *    answered nothing) is not.
 */
import type { DiscoveryReport, ToConfirm } from '../../src/discovery/report';
import { clientReader, discoverUpstreamMap } from '../../src/discovery/discover';
import { createClient, operationUrl } from '../../src/client/client';
import { checkResponseBody } from '../../src/contract/body';
import type { OperationMap } from '../../src/contract/schemas/upstream-map';
import { API_BASE, examplePath, OPERATION_IDS, type OperationId, operations } from '../../src/contract/operations';
import { matchOperation } from '../../src/contract/request';
import { zodSide } from '../../src/contract/zod-side';
import { originTransport } from '../../src/origin/transport';
import { readWeek, reportOf } from '../../src/weekly-report/read';
import { applyStyle, describeStyle, type HouseStyle, PAGED_LISTS, pageAsked, pagedAnswer, styleOmits, trueMapOf, trueOperationMap, truePagesOf, trueValueOf } from './generator';
import { fieldKey } from '../../src/contract/conform';
import type { UpstreamMapInput } from '../../src/contract/schemas/upstream-map';

const zs = await zodSide();

/** The demo key the styled service answers for (its brand, its primary market). */
export const STYLE_KEY = 'demo_pro_single';
const BASE = `http://styled.internal${API_BASE}`;

export interface FieldCounts {
  total: number;
  equal: number;
  different: number;
  missing: number;
  extra: number;
}

export interface OperationScore {
  /** `checkResponseBody` with the discovered map passes. */
  passes: boolean;
  /** And the conformed body has the origin's figures, field by field. */
  equal: boolean;
  fields: FieldCounts;
  problem?: string;
  /** A few of the fields that differ: `path: got vs origin`. */
  examples?: string[];
}

export interface StyleResult {
  seed: number;
  description: string;
  tokenNamed: boolean;
  provided: OperationId[];
  omitted: OperationId[];
  /** Σ to_confirm + unplaced over the operations the style provides. */
  entriesLeft: number;
  entriesByOperation: Partial<Record<OperationId, number>>;
  /** Each entry left, `operation path[=value]` (to confirm) or `operation !path` (unplaced). */
  leftEntries: string[];
  /** Each question left with discovery's reason and its first candidates. */
  leftWhy: string[];
  /** Provided operations discovery did not read (skipped or failed). */
  unread: OperationId[];
  reportEqual: boolean;
  reportFields: FieldCounts;
  /** Why the report through the styled service failed, when it did. */
  reportError?: string;
  reportExamples: string[];
  /** The weekly report equals the origin's once each entry left is answered from the style's true map (`answeredFromTruth`). */
  answeredReportEqual: boolean;
  answeredReportExamples: string[];
  /** Operations whose body, read with the entries answered from the true map, still fails its check or differs from the origin's. */
  answeredUnequal: string[];
  operations: Partial<Record<OperationId, OperationScore>>;
  /** Entries of the stored map (fields, conversions, keyed lists, values, envelopes) and those the style's true map contradicts. */
  stored: number;
  wrongStored: string[];
  /** Of a paging style's operations the map reads whose list, as discovery asked it, is longer than a page: those it reads without their pages. */
  pagesMissed: OperationId[];
  /** Operations the stored map reads in pages. */
  pagesStored: OperationId[];
  /** Operations whose body passed the check with the map while its figures differ from the origin's. */
  wrongCalledRight: { operation: OperationId; different: number; examples: string[] }[];
  ms: number;
}

// ---------------------------------------------------------------- the origin, read once per URL

interface Answer {
  status: number;
  text: string;
  contentType: string;
}
const originAnswers = new Map<string, Promise<Answer>>();

/** The origin's answer to the path and query of `url`, read once per run. */
export function originAnswer(db: D1Database, url: URL): Promise<Answer> {
  const key = `${url.pathname}${url.search}`;
  let answer = originAnswers.get(key);
  if (!answer) {
    answer = (async () => {
      const response = await originTransport(db)(new Request(`http://origin.internal${key}`, { headers: { authorization: `Bearer ${STYLE_KEY}` } }));
      return { status: response.status, text: await response.text(), contentType: response.headers.get('content-type') ?? 'application/json' };
    })();
    originAnswers.set(key, answer);
  }
  return answer;
}

const notFound = (id: OperationId) =>
  new Response(JSON.stringify({ error: { code: 'not_found', message: `${id}: this service has no such operation.` } }), { status: 404, headers: { 'content-type': 'application/json' } });

const badPage = (style: HouseStyle) =>
  new Response(JSON.stringify({ error: { code: 'invalid_parameter', message: `This service gave no such page.`, param: style.pages.kind === 'none' ? undefined : style.pages.param } }), {
    status: 400,
    headers: { 'content-type': 'application/json' },
  });

/**
 * The service in a style, as a transport: the origin's answers, each 200 body in the style; a style's omitted
 * operation answers 404. With `styled: false`, the origin's bodies as they are (the omissions kept).
 */
export function styledTransport(db: D1Database, style: HouseStyle, styled = true): (request: Request) => Promise<Response> {
  const bodies = new Map<string, string>();
  return async (request) => {
    const url = new URL(request.url);
    const match = matchOperation(url.pathname);
    if (!match) return notFound('listBrands');
    const id = match.op.id;
    if (styleOmits(style, id)) return notFound(id);
    // A paging style answers its long lists a page at a time; the origin is asked for the whole list.
    const page = styled ? pageAsked(style, id, url) : undefined;
    if (page === 'bad') return badPage(style);
    const answer = await originAnswer(db, page?.unpaged ?? url);
    if (answer.status !== 200 || !styled) return new Response(answer.text, { status: answer.status, headers: { 'content-type': answer.contentType } });
    const key = `${url.pathname}${url.search}`;
    let text = bodies.get(key);
    if (text === undefined) bodies.set(key, (text = JSON.stringify(page ? pagedAnswer(style, id, JSON.parse(answer.text), page.offset, url) : applyStyle(style, id, JSON.parse(answer.text)))));
    return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

// ---------------------------------------------------------------- comparing

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;

/** Every leaf of `value` by its path (`a.b[2].c`); timestamps as instants, so two spellings of one are equal. */
export function flatten(value: unknown, path = '', into: Map<string, unknown> = new Map()): Map<string, unknown> {
  if (Array.isArray(value)) {
    if (value.length === 0) into.set(path, '[]');
    value.forEach((item, i) => flatten(item, `${path}[${i}]`, into));
  } else if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) into.set(path, '{}');
    for (const [name, item] of entries) flatten(item, path ? `${path}.${name}` : name, into);
  } else into.set(path, typeof value === 'string' && ISO_TIME.test(value) && !Number.isNaN(Date.parse(value)) ? `@${Date.parse(value)}` : value);
  return into;
}

/** `got` against `want`, field by field. */
export function compareFields(want: unknown, got: unknown): { counts: FieldCounts; examples: string[] } {
  const a = flatten(want);
  const b = flatten(got);
  const counts: FieldCounts = { total: a.size, equal: 0, different: 0, missing: 0, extra: 0 };
  const examples: string[] = [];
  for (const [path, value] of a) {
    if (!b.has(path)) {
      counts.missing++;
      if (examples.length < 4) examples.push(`${path}: missing (origin ${JSON.stringify(value)})`);
    } else if (b.get(path) === value) counts.equal++;
    else {
      counts.different++;
      if (examples.length < 4) examples.push(`${path}: ${JSON.stringify(b.get(path))} vs origin ${JSON.stringify(value)}`);
    }
  }
  for (const path of b.keys()) if (!a.has(path)) counts.extra++;
  return { counts, examples };
}

const allDifferent = (total: number): FieldCounts => ({ total, equal: 0, different: total, missing: 0, extra: 0 });

// ---------------------------------------------------------------- one style

/** The origin's report for a set of omitted operations, by the day of `now`: read once per run. */
const originReports = new Map<string, Promise<unknown>>();

function originReport(db: D1Database, style: HouseStyle, now: Date): Promise<unknown> {
  const key = `${now.toISOString().slice(0, 10)} ${style.omitted.join(',')}`;
  let report = originReports.get(key);
  if (!report) {
    const client = createClient({ apiKey: STYLE_KEY, baseUrl: BASE, transport: styledTransport(db, style, false), sleep: async () => {} });
    report = readWeek(client, {}, now).then(({ inputs }) => reportOf(inputs));
    originReports.set(key, report);
  }
  return report;
}

/** A question left, as `operation path[=value]`. */
const questionLine = (id: OperationId, c: ToConfirm) => `${id} ${c.path}${c.value !== undefined ? `=${c.value}` : ''}`;

const entriesOf = (entry: DiscoveryReport['operations'][string] | undefined): number | undefined =>
  entry && entry.status === 200 && 'to_confirm' in entry ? entry.to_confirm.length + entry.unplaced.length : undefined;

/** Runs discovery in front of the style's service and scores it (see the module comment). */
export async function runStyle(style: HouseStyle, env: { DB: D1Database }, now: Date): Promise<StyleResult> {
  const started = Date.now();
  const transport = styledTransport(env.DB, style);
  const client = (upstreamMap?: Parameters<typeof createClient>[0]['upstreamMap']) =>
    createClient({ apiKey: STYLE_KEY, baseUrl: BASE, transport, sleep: async () => {}, ...(upstreamMap ? { upstreamMap } : {}) });

  const discovery = await discoverUpstreamMap(clientReader(client()), { now: () => now });

  // What the style provides: not omitted, and answered by the origin.
  const provided: OperationId[] = [];
  for (const id of OPERATION_IDS) {
    if (styleOmits(style, id)) continue;
    const answer = await originAnswer(env.DB, new URL(`${BASE}${examplePath(operations[id])}`));
    if (answer.status === 200) provided.push(id);
  }
  const entriesByOperation: StyleResult['entriesByOperation'] = {};
  const unread: OperationId[] = [];
  for (const id of provided) {
    const n = entriesOf(discovery.operations[id]);
    if (n === undefined) unread.push(id);
    else entriesByOperation[id] = n;
  }
  const entriesLeft = Object.values(entriesByOperation).reduce((sum, n) => sum + n, 0);
  const leftEntries = provided.flatMap((id) => {
    const entry = discovery.operations[id];
    if (entry?.status !== 200 || !('to_confirm' in entry)) return [];
    return [...entry.to_confirm.map((c) => questionLine(id, c)), ...entry.unplaced.map((u) => `${id} !${u}`)];
  });

  // The same with discovery's reason and its first candidates, for a person reading the detail.
  const leftWhy = provided.flatMap((id) => {
    const entry = discovery.operations[id];
    if (entry?.status !== 200 || !('to_confirm' in entry)) return [];
    return entry.to_confirm.map(
      (c) =>
        `${questionLine(id, c)}${c.with ? ` with ${c.with.join(',')}` : ''}: ${c.reason} [${c.candidates
          .slice(0, 3)
          .map((k) => `${k.from} ${k.confidence}`)
          .join('; ')}]`,
    );
  });

  // The weekly report: the origin's, and through the styled service with the discovered map, then with its entries answered.
  const want = await originReport(env.DB, style, now);
  type ReportRead = { fields: FieldCounts; examples: string[]; error: string | undefined };
  const reportWith = async (maps: UpstreamMapInput['operations']): Promise<ReportRead> => {
    try {
      const { inputs } = await readWeek(
        client(async (id) => maps[id]),
        {},
        now,
      );
      const compared = compareFields(want, reportOf(inputs));
      return { fields: compared.counts, examples: compared.examples, error: undefined };
    } catch (error) {
      return { fields: allDifferent(flatten(want).size), examples: [], error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
    }
  };
  const equalReport = (r: ReportRead) => r.error === undefined && r.fields.equal === r.fields.total && r.fields.extra === 0;
  const report = await reportWith(discovery.map.operations);
  const answeredMaps = entriesLeft === 0 ? undefined : answeredFromTruth(style, discovery, provided);
  const answered = answeredMaps ? await reportWith(answeredMaps) : report;

  const { stored, wrong } = storedAgainstTruth(style, discovery.map.operations);
  // Each wrong placement with the evidence discovery gave for it.
  const wrongStored = wrong.map((line) => {
    const [id, part, path] = line.split(' ') as [OperationId, string, string];
    const entry = discovery.operations[id];
    const placed = part === 'fields' && entry && 'fields' in entry ? entry.fields[path.replace(/:$/, '')] : undefined;
    return placed ? `${line} (by ${placed.by} ${placed.confidence})` : line;
  });
  const { scores, wrongCalledRight } = await scoreOperations(env.DB, style, provided, (id) => discovery.map.operations[id]);
  // Every body read with the entries answered: an operation still failing or unequal had a question discovery did not ask.
  const answeredScores = answeredMaps ? (await scoreOperations(env.DB, style, provided, (id) => answeredMaps[id])).scores : scores;
  const answeredUnequal = provided.flatMap((id) => {
    const score = answeredScores[id];
    return score?.equal ? [] : [`${id}: ${score?.problem ?? score?.examples?.join('; ') ?? 'not read'}`];
  });
  const pagesStored = OPERATION_IDS.filter((id) => discovery.map.operations[id]?.pages !== undefined);
  const pagesMissed: OperationId[] = [];
  for (const id of provided) {
    const list = PAGED_LISTS[id];
    const entry = discovery.operations[id];
    // A body the map cannot read is counted already (its entries left); here, a list read as if it were whole.
    if (style.pages.kind === 'none' || !list || !scores[id]?.passes || entry?.status !== 200 || !('params' in entry) || pagesStored.includes(id)) continue;
    const origin = await originAnswer(env.DB, new URL(operationUrl(BASE, id, entry.params)));
    const items = (JSON.parse(origin.text) as Record<string, unknown>)[list];
    if (Array.isArray(items) && items.length > style.pages.size) pagesMissed.push(id);
  }

  return {
    seed: style.seed,
    description: describeStyle(style),
    tokenNamed: style.tokenNamed,
    provided,
    omitted: style.omitted,
    entriesLeft,
    entriesByOperation,
    leftEntries,
    leftWhy,
    unread,
    reportEqual: equalReport(report),
    reportFields: report.fields,
    ...(report.error !== undefined ? { reportError: report.error } : {}),
    reportExamples: report.examples,
    answeredReportEqual: equalReport(answered),
    answeredReportExamples: answered.error !== undefined ? [answered.error] : answered.examples,
    answeredUnequal,
    operations: scores,
    stored,
    wrongStored,
    pagesMissed,
    pagesStored,
    wrongCalledRight,
    ms: Date.now() - started,
  };
}

/**
 * The map a person makes of discovery's proposal by answering each entry it left from the style's true map: a
 * question of fields (with the fields asked beside it) or a field unplaced takes the truth's field, conversion, key
 * and value spellings, a parent's everything under it; a question of a value the truth's value; the body's envelope
 * the truth's. What discovery stored stays as it is (it is checked apart, `storedAgainstTruth`), and an operation it
 * did not read stays unread. Issue 57's token-named target: the report equals the origin's once its entries are
 * answered.
 */
export function answeredFromTruth(style: HouseStyle, discovery: DiscoveryReport, provided: readonly OperationId[]): UpstreamMapInput['operations'] {
  const answered = structuredClone(discovery.map.operations);
  for (const id of provided) {
    const entry = discovery.operations[id];
    if (entry?.status !== 200 || !('to_confirm' in entry)) continue;
    const truth = trueOperationMap(style, id);
    const map = (answered[id] ??= { fields: {}, convert: {}, values: {} });
    const answer = (path: string) => {
      if (path === '') {
        if (truth.envelope !== undefined) map.envelope = truth.envelope;
        return;
      }
      // A question of a parent (`plan`, `totals`) is answered with everything under it, as a person answers its card.
      const under = (key: string) => key === path || key.startsWith(`${path}.`) || key.startsWith(`${path}[]`);
      for (const [key, from] of Object.entries(truth.fields)) if (under(key)) map.fields[key] = from;
      for (const [key, form] of Object.entries(truth.convert)) if (under(key)) map.convert[key] = form as never;
      for (const [key, by] of Object.entries(truth.keyed)) if (under(key)) (map.keyed ??= {})[key] = by;
      for (const [key, spelled] of Object.entries(truth.values)) if (under(key)) map.values[key] = { ...map.values[key], ...spelled };
    };
    for (const question of entry.to_confirm) {
      if (question.value === undefined) [question.path, ...(question.with ?? [])].forEach(answer);
      else {
        const ours = truth.values[question.path]?.[question.value];
        if (ours !== undefined) (map.values[question.path] ??= {})[question.value] = ours;
      }
    }
    entry.unplaced.forEach(answer);
  }
  return answered;
}

/**
 * Each operation's example body through the styled service, checked with `map` (`checkResponseBody`) and, when it
 * passes, compared with the origin's body field by field: one that passes with other figures is a wrong figure called right.
 */
export async function scoreOperations(db: D1Database, style: HouseStyle, ids: readonly OperationId[], map: (id: OperationId) => OperationMap | undefined) {
  const transport = styledTransport(db, style);
  const scores: StyleResult['operations'] = {};
  const wrongCalledRight: StyleResult['wrongCalledRight'] = [];
  for (const id of ids) {
    const url = new URL(`${BASE}${examplePath(operations[id])}`);
    const origin = await originAnswer(db, url);
    const styled = await (await transport(new Request(url))).text();
    const checked = checkResponseBody(zs, id, styled, map(id));
    if (!checked.ok) {
      scores[id] = { passes: false, equal: false, fields: allDifferent(flatten(JSON.parse(origin.text)).size), problem: checked.message };
      continue;
    }
    // A paging style's body is its first page: it is compared with the origin's first page (the report reads them all).
    const list = PAGED_LISTS[id];
    const originBody = JSON.parse(origin.text) as Record<string, unknown>;
    if (style.pages.kind !== 'none' && list && Array.isArray(originBody[list])) originBody[list] = (originBody[list] as unknown[]).slice(0, style.pages.size);
    const { counts, examples } = compareFields(originBody, checked.data);
    // What the service holds beyond the origin (an engine of its own that answered nothing) is no figure of the origin's read wrong.
    const equal = counts.different === 0 && counts.missing === 0;
    scores[id] = { passes: true, equal, fields: counts, ...(equal ? {} : { examples }) };
    if (!equal) wrongCalledRight.push({ operation: id, different: counts.different + counts.missing, examples });
  }
  return { scores, wrongCalledRight };
}

/** The one line `npm run test:styles` prints per style. */
export function styleLine(seed: number, r: StyleResult): string {
  const report = `${r.reportFields.equal}/${r.reportFields.total}`;
  return `seed ${seed} · left ${r.entriesLeft}${r.unread.length ? ` (+${r.unread.length} unread)` : ''} · report ${report}${r.reportError ? ' (failed)' : ''} · wrong-called-right ${r.wrongCalledRight.length} · ${r.description}`;
}

/** Upstream paths as one name: each dotted part under any spelling. */
const pathKey = (path: string) => path.split('.').map(fieldKey).join('.');

/**
 * Every entry of a stored map against the style's true map (`trueMapOf`): a field read from another upstream field, a
 * conversion that reads its values otherwise than the style writes them (a stored field whose values need one it
 * lacks among them), a list keyed by another field, a value mapped onto another of ours, an envelope elsewhere. Each
 * wrong one as `operation part path: stored, true`.
 */
export function storedAgainstTruth(style: HouseStyle, maps: UpstreamMapInput['operations']): { stored: number; wrong: string[] } {
  let stored = 0;
  const wrong: string[] = [];
  for (const [id, map] of Object.entries(maps) as [OperationId, NonNullable<UpstreamMapInput['operations'][OperationId]>][]) {
    const truth = trueMapOf(style, id);
    const fail = (part: string, path: string, got: unknown, want: unknown) => wrong.push(`${id} ${part} ${path}: ${JSON.stringify(got)}, true ${JSON.stringify(want ?? null)}`);
    if (map.envelope !== undefined) {
      stored++;
      if (truth.envelope === undefined || pathKey(map.envelope) !== pathKey(truth.envelope)) fail('envelope', '', map.envelope, truth.envelope);
    }
    for (const [path, from] of Object.entries(map.fields)) {
      stored++;
      const want = truth.fields[path];
      if (want === undefined || (from === '.') !== (want === '.') || pathKey(from) !== pathKey(want)) fail('fields', path, from, want);
    }
    if (map.pages !== undefined) {
      stored++;
      const want = truePagesOf(style, id);
      if (!want || want.list !== map.pages.list || pathKey(want.next) !== pathKey(map.pages.next) || want.params.join() !== map.pages.params.join()) fail('pages', '', map.pages, want);
    }
    for (const [path, key] of Object.entries(map.keyed ?? {})) {
      stored++;
      if (truth.keyed[path] !== key) fail('keyed', path, key, truth.keyed[path]);
    }
    // A conversion stored, or a field stored without the one its values need: as the values then read.
    const same = (leaf: string, got: string | undefined, want: string | undefined) =>
      got === want || (got === 'number' && want === undefined) || (leaf === 'date' && got === 'date' && want === undefined) || (leaf === 'timestamp' && got === 'date-time' && want === undefined);
    for (const path of new Set([...Object.keys(map.convert), ...Object.keys(map.fields)])) {
      const leaf = truth.leaves[path];
      if (!leaf || leaf.leaf === 'other' || leaf.leaf === 'engine' || !['percent', 'delta', 'date', 'timestamp'].includes(leaf.leaf)) continue;
      if (map.convert[path] !== undefined) stored++;
      if (!same(leaf.leaf, map.convert[path], leaf.convert)) fail('convert', path, map.convert[path], leaf.convert);
    }
    for (const [path, values] of Object.entries(map.values))
      for (const [upstream, ours] of Object.entries(values)) {
        stored++;
        const leaf = truth.leaves[path]?.leaf ?? 'other';
        const want = trueValueOf(style, leaf, upstream);
        if (want !== ours) fail('values', `${path}=${upstream}`, ours, want);
      }
  }
  return { stored, wrong };
}
