/**
 * The upstream map through the Worker: an upstream that names fields with
 * other words, wraps its bodies, writes scores as shares and engines with its
 * own values is unreadable for the features until the map is stored, and
 * then the weekly report has our origin's figures. A value the contract does
 * not list (an engine) is carried under its own name. GET and PUT
 * /admin/upstream/map: the admin token, validation naming the field,
 * versions.
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import { matchOperation } from '../src/contract/request';
import type { OperationId } from '../src/contract/operations';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { MAP_KEY } from '../src/proxy/upstream-map';
import { putUpstreamMap } from './helpers';
import { call, reportJson } from './reports-helpers';
import { CASES, changeAt, renameAt, renameFields, ReshapingUpstream } from './reshape';

const adminMap = (method: string, body?: unknown, token: string | null = env.ADMIN_TOKEN) =>
  SELF.fetch('https://edge.test/admin/upstream/map', {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

async function currentVersion(): Promise<number> {
  return ((await (await adminMap('GET')).json()) as { version: number }).version;
}

afterEach(async () => {
  restoreUpstream();
  // The map is global: every test leaves none behind.
  await putUpstreamMap({ operations: {} });
});

const withoutTimes = (report: unknown) => JSON.parse(JSON.stringify(report, (name, value) => (name === 'generated_at' ? undefined : value)));

/** How the "renamed" upstream names what the report reads: contract path to its own name (relative to the parent), as a person would map it. */
const RENAMES: Partial<Record<OperationId, Record<string, string>>> = {
  getVisibility: { score: 'visibility', history: 'weeks', 'history[].week_start': 'from', 'history[].week_end': 'to', answered_runs: 'answered' },
  getAnswerHistory: { questions: 'items', 'questions[].moved': 'engine_moves', 'questions[].outcome': 'result' },
  getPromptMatrix: { prompts: 'rows', 'prompts[].engines': 'cells' },
  listTopics: { topics: 'results', 'topics[].rivals': 'competitors' },
};
const ENGINE_PATHS: Partial<Record<OperationId, string[]>> = {
  getAnswerHistory: ['questions[].moved[].engine'],
  getPromptMatrix: ['engines[]', 'prompts[].engines[].engine'],
};
const OUTCOMES = { won: 'gain', lost: 'loss', held: 'same' } as const;
const depth = (path: string) => path.split('.').length;

/** Our origin's body as the "renamed" upstream sends it: its own words, in an envelope, scores as shares, `openai` for ChatGPT. */
function renamedUpstream(body: Record<string, unknown>, url: URL): unknown {
  const id = matchOperation(url.pathname)!.op.id;
  let out: unknown = body;
  for (const path of ENGINE_PATHS[id] ?? []) out = changeAt(out, path, (e) => (e === 'chatgpt' ? 'openai' : e));
  if (id === 'getVisibility')
    out = changeAt(
      changeAt(out, 'score', (s) => (s === null ? null : (s as number) / 100)),
      'history[].score',
      (s) => (s === null ? null : String(s)),
    );
  if (id === 'getAnswerHistory') out = changeAt(out, 'questions[].outcome', (o) => OUTCOMES[o as keyof typeof OUTCOMES]);
  const renames = Object.entries(RENAMES[id] ?? {}).sort(([a], [b]) => depth(b) - depth(a));
  for (const [path, to] of renames) out = renameAt(out, path, to);
  return { result: renameFields(out, CASES.camel), meta: { apiVersion: '1' } };
}

/** The map a person writes for it (or confirms from discovery). */
const RENAMED_MAP = {
  operations: Object.fromEntries(
    (['getVisibility', 'getAnswerHistory', 'getPromptMatrix', 'listTopics', 'listBrands'] as const).map((id) => [
      id,
      {
        envelope: 'result',
        fields: RENAMES[id] ?? {},
        convert: id === 'getVisibility' ? { score: 'percent', 'history[].score': 'number' } : {},
        values: {
          ...Object.fromEntries((ENGINE_PATHS[id] ?? []).map((path) => [path, { openai: 'chatgpt' }])),
          ...(id === 'getAnswerHistory' ? { 'questions[].outcome': { gain: 'won', loss: 'lost', same: 'held' } } : {}),
        },
      },
    ]),
  ),
};

describe('an upstream with its own words, an envelope, shares and engine values', () => {
  it("cannot be read by the report without the map, and gives our origin's figures with it", async () => {
    const ours = await reportJson('/reports/weekly?market=us');
    new ReshapingUpstream(renamedUpstream).install();
    const key = freshKey('renamed');
    const before = await call('/reports/weekly?market=us&format=json', { key });
    expect(before.status).toBe(502);
    expect(((await before.json()) as { error: { code: string; message: string } }).error.message).toMatch(/response field `\w+`/);

    const stored = await putUpstreamMap(RENAMED_MAP);
    expect(stored.status, await stored.clone().text()).toBe(200);
    const theirs = await reportJson('/reports/weekly?market=us', key);
    expect(withoutTimes(theirs.report)).toEqual(withoutTimes(ours.report));
  });
});

describe('a body that reads with no configuration', () => {
  it('is still read through the map, whose values may map an open value: ChatGPT called `openai` is ChatGPT again', async () => {
    const ours = await reportJson('/reports/weekly?market=us');
    const openai = (body: Record<string, unknown>) => JSON.parse(JSON.stringify(renameFields(body, CASES.camel)).replaceAll('"chatgpt"', '"openai"'));
    new ReshapingUpstream(openai).install();
    const key = freshKey('openai');
    const carried = await reportJson('/reports/weekly?market=us', key);
    expect(JSON.stringify(carried.report)).toContain('"engine":"openai"');
    const values = { openai: 'chatgpt' };
    const stored = await putUpstreamMap({
      operations: {
        getAnswerHistory: { values: { 'questions[].moved[].engine': values } },
        getPromptMatrix: { values: { 'engines[]': values, 'prompts[].engines[].engine': values } },
      },
    });
    expect(stored.status).toBe(200);
    const theirs = await reportJson('/reports/weekly?market=us', key);
    expect(withoutTimes(theirs.report)).toEqual(withoutTimes(ours.report));
  });
});

describe('a value the contract does not list', () => {
  it('is carried under its own name: an engine called grok is in the report as grok, with the figures the engine had', async () => {
    const ours = await reportJson('/reports/weekly?market=us');
    const grok = (body: Record<string, unknown>) => JSON.parse(JSON.stringify(renameFields(body, CASES.camel)).replaceAll('"copilot"', '"grok"'));
    new ReshapingUpstream(grok).install();
    const theirs = await reportJson('/reports/weekly?market=us', freshKey('grok'));
    type Engines = { engines: { engine: string; engine_label: string; naming: number | null; answered: number | null }[] };
    const copilot = (ours.report as unknown as Engines).engines.find((e) => e.engine === 'copilot')!;
    const found = (theirs.report as unknown as Engines).engines.find((e) => e.engine === 'grok');
    expect(found).toEqual({ ...copilot, engine: 'grok', engine_label: 'grok' });
    expect(JSON.stringify(theirs.report)).toContain('"engine":"grok"');
  });
});

describe('GET and PUT /admin/upstream/map', () => {
  it('needs the admin token', async () => {
    for (const token of [null, 'wrong', 'demo_pro_single']) {
      expect((await adminMap('GET', undefined, token)).status).toBe(401);
      expect((await adminMap('PUT', { operations: {} }, token)).status).toBe(401);
    }
  });

  it('stores a valid map as the next version and shows it', async () => {
    const version = await currentVersion();
    const put = await putUpstreamMap({ operations: { getVisibility: { fields: { score: 'visibility' } } } });
    expect(put.status).toBe(200);
    const stored = (await put.json()) as { version: number; updated_at: string; operations: Record<string, unknown> };
    expect(stored).toMatchObject({ version: version + 1, operations: { getVisibility: { fields: { score: 'visibility' }, convert: {}, values: {} } } });
    expect(await (await adminMap('GET')).json()).toEqual(stored);
  });

  it('refuses a map naming a field the contract does not have, naming it, and stores nothing', async () => {
    const version = await currentVersion();
    const put = await putUpstreamMap({ operations: { getVisibility: { fields: { scroe: 'visibility' } } } });
    expect(put.status).toBe(400);
    expect(await put.json()).toMatchObject({ error: { code: 'invalid_parameter', param: 'operations.getVisibility.fields.scroe' } });
    for (const bad of ['not json', JSON.stringify({ operations: { getVisibility: { convert: { score: 'float' } } } }), JSON.stringify({ ops: {} })]) {
      const response = await SELF.fetch('https://edge.test/admin/upstream/map', { method: 'PUT', headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` }, body: bad });
      expect([bad, response.status]).toEqual([bad, 400]);
    }
    expect(await currentVersion()).toBe(version);
  });

  it('refuses to replace a version that is no longer the stored one', async () => {
    const version = await currentVersion();
    expect((await adminMap('PUT', { version, operations: {} })).status).toBe(200);
    const stale = await adminMap('PUT', { version, operations: {} });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ error: { code: 'map_version_conflict' } });
  });

  it('refuses a replacement that names no version while a map is stored: no map is replaced unread', async () => {
    expect((await putUpstreamMap({ operations: { getVisibility: { fields: { score: 'visibility' } } } })).status).toBe(200);
    const version = await currentVersion();
    const unnamed = await adminMap('PUT', { operations: {} });
    expect(unnamed.status).toBe(409);
    const { error } = (await unnamed.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('map_version_conflict');
    expect(error.message).toContain(`"version": ${version}`);
    expect(await currentVersion()).toBe(version);
    // Before any map is stored there is nothing to lose: the first one needs no version.
    await env.CACHE.delete(MAP_KEY);
    const first = await adminMap('PUT', { operations: {} });
    expect([first.status, ((await first.json()) as { version: number }).version]).toEqual([200, 1]);
  });

  it("answers other methods 405 with the path's Allow", async () => {
    const response = await adminMap('DELETE');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, PUT');
  });
});
