/**
 * POST /admin/upstream/discover through the Worker, in front of two other
 * implementations of the spec built from our demo origin (test/reshape.ts):
 *
 * - one in camelCase, in a JSON:API envelope, naming ChatGPT `openai`: the
 *   proposed map needs no hand edit, and once applied the weekly report has
 *   our origin's figures;
 * - one with its own words (`weeks`, `visibility`, `asOf`, `competitors`),
 *   numbers as text, dates as date-times and a share for the score: the sure
 *   fields are placed with their confidences, the others are listed to
 *   confirm and kept out of the map, and once a person confirms them with
 *   PUT the report has our origin's figures.
 *
 * Discovery reads through the edge cache with the key's budget: every
 * operation of the contract table is in the answer, and a second discovery
 * is answered by the cache.
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import type { DiscoveryReport, OperationRead, ToConfirm } from '../src/discovery/report';
import { matchOperation } from '../src/contract/request';
import { OPERATION_IDS, type OperationId } from '../src/contract/operations';
import type { OperationMap } from '../src/contract/schemas/upstream-map';
import { KEYS, putUpstreamMap } from './helpers';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { reportJson } from './reports-helpers';
import { CASES, changeAt, envelope, renameAt, renameFields, ReshapingUpstream } from './reshape';
import { useUpstreamForTests } from './seams';
import { styledTransport } from './styles/harness';
import { contractStyle, type HouseStyle, PAGED_LISTS } from './styles/generator';

const admin = (method: string, path: string, body?: unknown, token: string | null = env.ADMIN_TOKEN) =>
  SELF.fetch(`https://edge.test/admin/upstream${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

async function discover(body: unknown): Promise<DiscoveryReport> {
  const response = await admin('POST', '/discover', body);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as DiscoveryReport;
}

const currentVersion = async () => ((await (await admin('GET', '/map')).json()) as { version: number }).version;

afterEach(async () => {
  restoreUpstream();
  // The map is global to the tests' Worker: every test leaves none behind.
  await putUpstreamMap({ operations: {} });
});

const withoutTimes = (report: unknown) => JSON.parse(JSON.stringify(report, (name, value) => (name === 'generated_at' ? undefined : value)));
const readOf = (report: DiscoveryReport, id: OperationId) => report.operations[id] as OperationRead;
const toConfirmOf = (report: DiscoveryReport) => Object.entries(report.operations).flatMap(([id, entry]) => ('to_confirm' in entry ? entry.to_confirm.map((item) => ({ id, ...item })) : []));

/** JSON:API-minded: camelCase, `{data, meta: {generatedAt}, links}`, and ChatGPT called `openai`. */
function camelInEnvelope(body: Record<string, unknown>, url: URL): unknown {
  const camel = renameFields(body, CASES.camel) as Record<string, unknown>;
  return JSON.parse(JSON.stringify(envelope(camel, url.pathname)).replaceAll('"chatgpt"', '"openai"'));
}

describe('an upstream in camelCase, in an envelope, with its own name for an engine', () => {
  it("gets a map that needs no hand edit, read through the cache and the key's budget, and the report of our origin once it is applied", async () => {
    const ours = await reportJson('/reports/weekly?market=us');
    const upstream = new ReshapingUpstream(camelInEnvelope).install();
    const key = freshKey('discover-camel');
    const version = await currentVersion();

    const report = await discover({ api_key: key, apply: true });
    expect(Object.keys(report.operations)).toEqual(OPERATION_IDS);
    for (const id of OPERATION_IDS) expect([id, report.operations[id]!.status]).toEqual([id, 200]);
    expect(report).toMatchObject({ calls: OPERATION_IDS.length, upstream_calls: OPERATION_IDS.length, brand_id: null, applied: { version: version + 1 } });
    expect(upstream.requests).toHaveLength(OPERATION_IDS.length);
    // Values for the requests that need one came from the list operations read first.
    expect(readOf(report, 'getTopic').params).toEqual({ id: 1101 });
    expect(readOf(report, 'getAnswerRuns').params).toEqual({ prompt: expect.any(String) });

    // Nothing to confirm: case conventions and the envelope need no map; `openai` is a well-known alias of ours.
    expect(toConfirmOf(report)).toEqual([]);
    for (const id of OPERATION_IDS) {
      const read = readOf(report, id);
      expect({ id, unplaced: read.unplaced, reads: read.reads, envelope: read.envelope }).toEqual({ id, unplaced: [], reads: { ok: true }, envelope: { at: 'data', confidence: 0.9, in_map: false } });
      expect(Object.values(read.fields).every((field) => field.by === 'name' && field.confidence === 1)).toBe(true);
    }
    expect(report.map.operations.getPromptMatrix).toEqual({ fields: {}, convert: {}, values: { 'engines[]': { openai: 'chatgpt' }, 'prompts[].engines[].engine': { openai: 'chatgpt' } } });
    expect(readOf(report, 'getPromptMatrix').values['engines[]']).toEqual({ openai: { to: 'chatgpt', confidence: 0.8, by: 'synonym' } });

    // Right after, every read is a cache HIT: no upstream call, the same proposal.
    const again = await discover({ api_key: key });
    expect(again).toMatchObject({ calls: OPERATION_IDS.length, upstream_calls: 0, map: report.map });
    expect(again.applied).toBeUndefined();
    expect(upstream.requests).toHaveLength(OPERATION_IDS.length);
    expect(await currentVersion()).toBe(version + 1);

    const theirs = await reportJson('/reports/weekly?market=us', key);
    expect(withoutTimes(theirs.report)).toEqual(withoutTimes(ours.report));
  });
});

/** How the "synonyms" upstream names what the contract names: contract path to its own name, relative to the parent. */
const SYNONYM_NAMES: Partial<Record<OperationId, Record<string, string>>> = {
  getVisibility: { score: 'visibility', history: 'weeks', 'history[].week_start': 'from', 'history[].week_end': 'to', answered_runs: 'answered', naming_runs: 'hits', generated_at: 'asOf' },
  getAnswerHistory: { 'questions[].outcome': 'result', 'questions[].moved': 'changes' },
  getPromptMatrix: { prompts: 'rows', 'prompts[].engines': 'cells' },
  listTopics: { 'topics[].rivals': 'competitors', 'topics[].rivals[].share': 'pct', generated_at: 'computed_at' },
};
const OUTCOMES = { won: 'gain', lost: 'loss', held: 'same' } as const;
const depth = (path: string) => path.split('.').length;

/** Its own words, numbers as text, dates as midnight date-times, `YYYY-MM-DD HH:MM:SS`, a share for the score, gain/loss/same. */
function synonymsUpstream(body: Record<string, unknown>, url: URL): unknown {
  const id = matchOperation(url.pathname)!.op.id;
  let out: unknown = body;
  if (id === 'getVisibility') {
    out = changeAt(out, 'score', (s) => (s === null ? null : (s as number) / 100));
    out = changeAt(out, 'history[].score', (s) => (s === null ? null : String(s)));
    out = changeAt(out, 'answered_runs', String);
    for (const path of ['history[].week_start', 'history[].week_end']) out = changeAt(out, path, (day) => `${day}T00:00:00Z`);
    out = changeAt(out, 'generated_at', (at) => (at as string).replace('T', ' ').replace(/(\.\d+)?Z$/, ''));
  }
  if (id === 'getAnswerHistory') out = changeAt(out, 'questions[].outcome', (o) => OUTCOMES[o as keyof typeof OUTCOMES]);
  for (const [path, to] of Object.entries(SYNONYM_NAMES[id] ?? {}).sort(([a], [b]) => depth(b) - depth(a))) out = renameAt(out, path, to);
  return out;
}

/** What a person does with `to_confirm`: takes each question's first candidate into the map. */
function confirmFirstCandidates(map: DiscoveryReport['map'], questions: (ToConfirm & { id: string })[]): DiscoveryReport['map'] {
  const operations = structuredClone(map.operations) as Record<string, OperationMap>;
  for (const { id, path, value, candidates } of questions) {
    const entry = (operations[id] ??= { fields: {}, convert: {}, values: {} });
    const [chosen] = candidates;
    if (value !== undefined) (entry.values[path] ??= {})[value] = chosen!.to!;
    else {
      if (chosen!.from !== path.split('.').at(-1)) entry.fields[path] = chosen!.from!;
      if (chosen!.convert) entry.convert[path] = chosen!.convert;
    }
  }
  return { operations };
}

describe('an upstream with its own words, numbers as text, dates as date-times and a share', () => {
  it("places the sure fields, lists the others to confirm and keeps them out of the map; confirmed with PUT, the report has our origin's figures", async () => {
    const ours = await reportJson('/reports/weekly?market=us');
    new ReshapingUpstream(synonymsUpstream).install();
    const key = freshKey('discover-synonyms');

    const report = await discover({ api_key: key, apply: true });
    const visibility = readOf(report, 'getVisibility');
    expect(visibility.fields).toMatchObject({
      history: { from: 'weeks', confidence: 0.8, by: 'synonym' },
      'history[].week_start': { from: 'from', confidence: 0.8, by: 'synonym', convert: 'date' },
      'history[].week_end': { from: 'to', confidence: 0.8, by: 'synonym', convert: 'date' },
      'history[].score': { from: 'score', confidence: 0.95, by: 'name', convert: 'number' },
      answered_runs: { from: 'answered', confidence: 0.8, by: 'synonym', convert: 'integer' },
      generated_at: { from: 'asOf', confidence: 0.8, by: 'synonym', convert: 'date-time' },
      // The data settles what names cannot: the score and the runs naming the brand are the pair that keeps score = naming / answered.
      score: { from: 'visibility', confidence: 0.9, by: 'evidence', convert: 'percent' },
      naming_runs: { from: 'hits', confidence: 0.9, by: 'evidence' },
      // In points: by name, or, on a day its value lies within -1 to 1 beside the 0-1 score, by the score less the week before's.
      change: { from: 'change' },
    });
    expect(visibility.fields.change!.convert).toBeUndefined();
    expect(readOf(report, 'listTopics').fields).toMatchObject({
      generated_at: { from: 'computed_at', confidence: 0.8, by: 'synonym' },
      'topics[].rivals': { from: 'competitors', confidence: 0.8, by: 'synonym' },
      'topics[].rivals[].share': { from: 'pct', confidence: 0.8, by: 'synonym' },
    });
    // Under a field to confirm, what is sure is proposed already: the changes of a question, and its outcomes' values.
    expect(readOf(report, 'getAnswerHistory').fields['questions[].moved']).toEqual({ from: 'changes', confidence: 0.85, by: 'structure' });
    expect(readOf(report, 'getPromptMatrix').fields['prompts[].engines']).toEqual({ from: 'cells', confidence: 0.85, by: 'structure' });
    expect(report.map.operations.getAnswerHistory!.values).toEqual({ 'questions[].outcome': { gain: 'won', loss: 'lost', same: 'held' } });

    // No field is left to a person: the rows of /prompts are the only list left whose contents read as its prompts
    // (a placement by form teaches the service's word to the other answers, never back to its own).
    const questions = toConfirmOf(report);
    expect(questions).toEqual([]);
    expect(readOf(report, 'getPromptMatrix').fields.prompts).toEqual({ from: 'rows', confidence: 0.8, by: 'form' });
    // The outcome no name relates is the only text left beside the question's: placed by its form.
    expect(readOf(report, 'getAnswerHistory').fields['questions[].outcome']).toEqual({ from: 'result', confidence: 0.8, by: 'form' });
    expect(visibility.reads).toEqual({ ok: true });

    // Applied as proposed, the report has our origin's figures.
    expect(report.applied).toEqual({ version: expect.any(Number) });
    const before = await reportJson('/reports/weekly?market=us', key);
    expect(withoutTimes(before.report)).toEqual(withoutTimes(ours.report));

    const confirmed = await admin('PUT', '/map', { version: report.applied!.version, ...confirmFirstCandidates(report.map, questions) });
    expect(confirmed.status, await confirmed.clone().text()).toBe(200);
    const theirs = await reportJson('/reports/weekly?market=us', key);
    expect(withoutTimes(theirs.report)).toEqual(withoutTimes(ours.report));
  });
});

describe('POST /admin/upstream/discover', () => {
  it('needs the admin token', async () => {
    for (const token of [null, 'wrong', KEYS.pro]) {
      const response = await admin('POST', '/discover', { api_key: KEYS.pro }, token);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
    }
  });

  it('refuses a bad body, naming the field, and reads nothing', async () => {
    const upstream = new ReshapingUpstream((body) => body).install();
    for (const [body, param] of [
      ['not json', 'body'],
      [{}, 'api_key'],
      [{ api_key: '' }, 'api_key'],
      [{ api_key: 'k', apply: 'yes' }, 'apply'],
      [{ api_key: 'k', dry_run: true }, 'dry_run'],
      [{ api_key: 'k'.repeat(2000) }, 'body'],
    ] as const) {
      const response = await admin('POST', '/discover', body);
      expect([body, response.status]).toEqual([body, 400]);
      expect(await response.json()).toMatchObject({ error: { code: 'invalid_parameter', param } });
    }
    expect(upstream.requests).toHaveLength(0);
    const get = await admin('GET', '/discover');
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
  });

  it('says plainly when the Read API refuses the key, after one read, and stores nothing', async () => {
    const version = await currentVersion();
    const response = await admin('POST', '/discover', { api_key: KEYS.revoked, apply: true });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; param: string; message: string } };
    expect(body.error).toMatchObject({ code: 'invalid_parameter', param: 'api_key', message: expect.stringContaining('refuses this key (401 invalid_api_key)') });
    expect(body.error.message).not.toContain(KEYS.revoked);
    expect(await currentVersion()).toBe(version);
  });

  it('reports the operations a plan cannot read with their error, and the requests left without a value; applied, keeps their stored entries', async () => {
    const tasks = { fields: { tasks: 'items' }, convert: {}, values: {} };
    expect((await putUpstreamMap({ operations: { listTasks: tasks, getVisibility: { fields: { score: 'visibility' } } } })).status).toBe(200);
    const report = await discover({ api_key: KEYS.starter, apply: true });
    expect(Object.keys(report.operations)).toEqual(OPERATION_IDS);
    expect(report.operations.listTasks).toMatchObject({ status: 403, error: { code: 'feature_not_in_plan' } });
    expect(report.operations.getTask).toEqual({ status: null, skipped: 'needs `id` from listTasks (`tasks[].id`), which answered 403 feature_not_in_plan' });
    expect(report.operations.getVisibility).toMatchObject({ status: 200, reads: { ok: true } });
    expect(report.map).toEqual({ operations: {} });
    expect(report.calls).toBe(OPERATION_IDS.length - 1);
    // The operations it read need no entry now; the one it could not read keeps its own.
    const stored = (await (await admin('GET', '/map')).json()) as { version: number; operations: Record<string, unknown> };
    expect(stored).toMatchObject({ version: report.applied!.version, operations: { listTasks: tasks } });
    expect(Object.keys(stored.operations)).toEqual(['listTasks']);
  });

  it('probes the brand ids of a key with several brands when /brands cannot be read, and reads every operation for one of them', async () => {
    // /brands in a form of its own: the brands under opaque keys, each id two objects down.
    const hidden = (body: Record<string, unknown>, url: URL) =>
      url.pathname.endsWith('/brands')
        ? { accounts: Object.fromEntries(((body.brands ?? []) as { id: number; name: string }[]).map((b, i) => [`x${i}`, { ref: { num: b.id }, label: b.name }])) }
        : body;
    new ReshapingUpstream(hidden, () => KEYS.growth).install();
    const report = await discover({ api_key: 'foreign_growth_probe' });
    expect(report.incomplete).toBeUndefined();
    expect(report.brand_id).toBe(2);
    expect(report.probes).toEqual([{ purpose: expect.stringMatching(/^the brand ids/), reads: expect.any(Number), settled: 'brands 2, 3' }]);
    expect(readOf(report, 'getVisibility')).toMatchObject({ status: 200, params: { brand_id: 2 } });
    const refused = Object.values(report.operations).filter((entry) => 'error' in entry && entry.error.code === 'brand_required');
    expect(refused).toEqual([]);
  });

  it('says so, and stores nothing, when reads were refused for want of a brand it could not find', async () => {
    // /brands naming its brands by text alone: no number in it is a brand id.
    const textual = (body: Record<string, unknown>, url: URL) => (url.pathname.endsWith('/brands') ? { brands: ((body.brands ?? []) as { name: string }[]).map((b) => ({ name: b.name })) } : body);
    new ReshapingUpstream(textual, () => KEYS.growth).install();
    const before = await currentVersion();
    const report = await discover({ api_key: 'foreign_growth_textual' });
    expect(report.incomplete).toMatchObject({ code: 'brand_required', message: expect.stringMatching(/refused for want of a brand/) });
    expect(report.incomplete!.operations).toContain('getVisibility');
    const applied = await admin('POST', '/discover', { api_key: 'foreign_growth_textual', apply: true });
    expect(applied.status).toBe(409);
    expect(((await applied.json()) as { error: { code: string } }).error.code).toBe('discovery_incomplete');
    expect(await currentVersion()).toBe(before);
  });

  it('reads the first brand of a key with several brands', async () => {
    const report = await discover({ api_key: KEYS.growth });
    expect(report.brand_id).toBe(2);
    expect(readOf(report, 'getVisibility').params).toEqual({ brand_id: 2 });
    expect(readOf(report, 'listBrands').params).toEqual({});
  });
});

describe('a service whose long lists come a page at a time', () => {
  const style: HouseStyle = { ...contractStyle(), pages: { kind: 'cursor', size: 10, param: 'page_token' } };

  it('finds the pages by probing, stores them, and the report reads every page; /api/v1 passes each page on as its own entry', async () => {
    const ours = await reportJson('/reports/weekly?market=us');
    useUpstreamForTests({ transport: styledTransport(env.DB, style), baseUrl: 'https://paged.test/api/v1', timeoutMs: 10_000, startTimeout: () => () => {} });
    const key = freshKey('discover-pages');

    const report = await discover({ api_key: key, apply: true });
    expect(report.stopped).toBeUndefined();
    expect(report.map.operations.getAnswerHistory?.pages).toEqual({ list: 'questions', next: 'next_cursor', params: ['page_token'] });
    expect(report.probes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ purpose: expect.stringMatching(/^the pages of getAnswerHistory: read again with `page_token=/), settled: expect.stringMatching(/pages read$/) }),
      ]),
    );
    // Every list longer than a page, and only those, is read in pages.
    const paged = Object.entries(report.map.operations).flatMap(([id, map]) => (map?.pages ? [id] : []));
    expect(paged).toEqual(expect.arrayContaining(['getAnswerHistory', 'getPromptMatrix', 'getContentGaps']));
    for (const id of paged) expect(Object.hasOwn(PAGED_LISTS, id)).toBe(true);

    // Another key, whose minute's budget discovery did not spend: the report's reads of every page are its own.
    const reader = freshKey('report-pages');
    const theirs = await reportJson('/reports/weekly?market=us', reader);
    expect(withoutTimes(theirs.report)).toEqual(withoutTimes(ours.report));

    // A drop-in client reads the service's own pages through the proxy, each stored on its own.
    const first = await SELF.fetch('https://edge.test/api/v1/answers/history', { headers: { authorization: `Bearer ${key}` } });
    const page = (await first.json()) as { questions: unknown[]; next_cursor: string };
    expect(page.questions).toHaveLength(10);
    const second = () => SELF.fetch(`https://edge.test/api/v1/answers/history?page_token=${encodeURIComponent(page.next_cursor)}`, { headers: { authorization: `Bearer ${key}` } });
    const next = await second();
    expect(next.status).toBe(200);
    const nextPage = (await next.json()) as { questions: unknown[] };
    expect(nextPage.questions).not.toEqual(page.questions);
    expect((await second()).headers.get('x-cache')).toBe('HIT');
  });
});
