/**
 * Every feature in front of two other implementations of the spec, each made
 * readable by discovery alone (POST /admin/upstream/discover with `apply`, no
 * hand edit of the map after it), end to end through the Worker: the report
 * page and JSON, the digest sent through the dev outbox, an alert run and
 * its delivery, a CSV export link and MCP `weekly_report`. Their figures are
 * our origin's for the same data (test/reshape.ts builds both upstreams from
 * the demo origin).
 *
 * - "camel": camelCase, a JSON:API envelope, ChatGPT called `openai` and
 *   Copilot called `grok` (a value the contract does not list, carried as
 *   itself);
 * - "own words": its own names for fields (weeks, asOf, competitors, pct,
 *   from and to, mentions), outcomes as gain, loss and same, in a `result`
 *   envelope.
 *
 * The third shape, a service without optional parts, is
 * test/upstream-degrade.test.ts.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { env, SELF } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DiscoveryReport } from '../src/discovery/report';
import { matchOperation } from '../src/contract/request';
import type { OperationId } from '../src/contract/operations';
import { toolReport } from '../src/mcp/weekly';
import type { Report } from '../src/weekly-report/model';
import { clearDigests, deliver, demoMonday, FakeQueue, runCron, seedSubscriptions, sendRecords, testEnv } from './digests-helpers';
import { mintExport, readCsv } from './exports-helpers';
import { putUpstreamMap } from './helpers';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { call, reportJson, visibleText } from './reports-helpers';
import { alertRunWithFallingScore, CASES, changeAt, envelope, renameAt, renameFields, ReshapingUpstream } from './reshape';

type Body = Record<string, unknown>;

/** camelCase in `{data, meta, links}`, ChatGPT as `openai`, Copilot as `grok`. */
function camel(body: Body, url: URL): unknown {
  const text = JSON.stringify(envelope(renameFields(body, CASES.camel) as Body, url.pathname));
  return JSON.parse(text.replaceAll('"chatgpt"', '"openai"').replaceAll('"copilot"', '"grok"'));
}

/** Its own words for what the features read, by contract path, relative to the parent (as a map names them). */
const OWN_WORDS: Partial<Record<OperationId, Record<string, string>>> = {
  getVisibility: { history: 'weeks', 'history[].week_start': 'from', 'history[].week_end': 'to', generated_at: 'as_of', naming_runs: 'mentions' },
  listTopics: { 'topics[].rivals': 'competitors', 'topics[].rivals[].share': 'pct', generated_at: 'as_of' },
  getAnswerHistory: { generated_at: 'as_of' },
};
const OUTCOMES: Record<string, string> = { won: 'gain', lost: 'loss', held: 'same' };
const depth = (path: string) => path.split('.').length;

function ownWords(body: Body, url: URL): unknown {
  const id = matchOperation(url.pathname)!.op.id;
  let out: unknown = body;
  if (id === 'getAnswerHistory') out = changeAt(out, 'questions[].outcome', (o) => OUTCOMES[o as string] ?? o);
  for (const [path, to] of Object.entries(OWN_WORDS[id] ?? {}).sort(([a], [b]) => depth(b) - depth(a))) out = renameAt(out, path, to);
  return { result: out, meta: { service: 'own-words', version: 3 } };
}

const SHAPES = { camel, 'own words': ownWords } as const;

const admin = (method: string, path: string, body?: unknown) =>
  SELF.fetch(`https://edge.test/admin/upstream${path}`, {
    method,
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** Discovery with `apply`: the only map these upstreams get. */
async function discoverAndApply(key: string): Promise<DiscoveryReport> {
  const response = await admin('POST', '/discover', { api_key: key, apply: true });
  expect(response.status, await response.clone().text()).toBe(200);
  const report = (await response.json()) as DiscoveryReport;
  const toConfirm = Object.entries(report.operations).flatMap(([id, entry]) => ('to_confirm' in entry ? entry.to_confirm.map((item) => `${id}: ${item.path}`) : []));
  expect(toConfirm).toEqual([]);
  return report;
}

const withoutTimes = (value: unknown) => JSON.parse(JSON.stringify(value, (name, v) => (name === 'generated_at' || name === 'read_at' ? undefined : v)));
/**
 * Our report as the "camel" upstream's reads it: Copilot's figures under the name `grok`, after our five other engines;
 * Copilot, which that service never names, answered nothing, so it is neither listed nor counted. A lead on a question
 * names the engines that moved it by their labels, in the headline's words too (which question leads depends on the
 * day's demo data): Copilot is `grok` there, in the same place.
 */
function asGrok(report: Report): Report {
  const renamed = JSON.parse(JSON.stringify(report).replaceAll('"engine":"copilot","engine_label":"Copilot"', '"engine":"grok","engine_label":"grok"')) as Report;
  const grok = renamed.engines.find((e) => e.engine === 'grok')!;
  return { ...renamed, lead: leadAsGrok(renamed.lead), engines: [...renamed.engines.filter((e) => e.engine !== 'grok'), grok], plan: planAsGrok(renamed.plan) };
}

/** The plan names the engines that moved each question by their labels, in its `why` too. */
function planAsGrok(plan: Report['plan']): Report['plan'] {
  if (!plan) return plan;
  const grok = (label: string) => (label === 'Copilot' ? 'grok' : label);
  return {
    ...plan,
    items: plan.items.map((item) => ({ ...item, why: item.why.replaceAll('Copilot', 'grok'), questions: item.questions.map((q) => ({ ...q, engines: q.engines.map(grok) })) })),
  };
}

function leadAsGrok(lead: Report['lead']): Report['lead'] {
  if (!lead.engines?.includes('Copilot')) return lead;
  // The engines are named before the quoted question: `… no longer named by ChatGPT and Copilot for “…”`.
  const [names = '', ...question] = lead.headline.split('“');
  return { ...lead, engines: lead.engines.map((e) => (e === 'Copilot' ? 'grok' : e)), headline: [names.replaceAll('Copilot', 'grok'), ...question].join('“') };
}
const expectedOf = (shape: keyof typeof SHAPES, ours: Report) => (shape === 'camel' ? asGrok(ours) : ours);

afterEach(async () => {
  restoreUpstream();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  // The map is global to the tests' Worker: every test leaves none behind.
  await putUpstreamMap({ operations: {} });
});

describe.each(Object.keys(SHAPES) as (keyof typeof SHAPES)[])('in front of the "%s" upstream, after discovery alone', (shape) => {
  let key: string;
  beforeEach(async () => {
    new ReshapingUpstream(SHAPES[shape]).install();
    key = freshKey(`features-${shape.replace(' ', '-')}`);
    await discoverAndApply(key);
  });

  it("the report, as JSON and as a page, has our origin's figures", async () => {
    restoreUpstream();
    const ours = (await reportJson('/reports/weekly?market=us')).report;
    new ReshapingUpstream(SHAPES[shape]).install();
    const theirs = (await reportJson('/reports/weekly?market=us', key)).report;
    expect(withoutTimes(theirs)).toEqual(withoutTimes(expectedOf(shape, ours)));
    const page = await call('/reports/weekly?market=us', { key });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`data-score="${ours.visibility!.score!.toFixed(1)}"`);
    expect(html).toContain('class="chart"');
  });

  it("the digest is sent through the outbox with our origin's subject", async () => {
    const monday = demoMonday();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(monday);
    restoreUpstream();
    const ours = (await reportJson('/reports/weekly?market=us')).report;
    new ReshapingUpstream(SHAPES[shape]).install();
    await clearDigests();
    const queue = new FakeQueue();
    const outboxEnv = testEnv(queue, { RESEND_API_KEY: '' });
    await seedSubscriptions([{ email: `features-${shape.replace(' ', '-')}@example.com`, key }]);
    await runCron(monday.toISOString(), outboxEnv);
    await deliver(queue.sent, outboxEnv);
    expect((await sendRecords()).map((r) => [r.status, r.reason])).toEqual([['sent', null]]);
    const { messages } = (await (await SELF.fetch(`https://edge.test/dev/outbox?format=json&to=features-${shape.replace(' ', '-')}@example.com`)).json()) as { messages: { id: number }[] };
    const { message } = (await (await SELF.fetch(`https://edge.test/dev/outbox/${messages[0]!.id}?format=json`)).json()) as { message: { html: string; text: string; subject: string } };
    expect(message.subject).toBe(ours.subject);
    expect(visibleText(message.html)).not.toContain('does not provide');
    expect(message.text).not.toContain('does not provide');
  });

  it('an alert run watches every part and delivers a fall of the score', async () => {
    const { snapshot, deliveries, payloads } = await alertRunWithFallingScore(SHAPES[shape], key);
    expect(snapshot.cells.length).toBeGreaterThan(0);
    expect(snapshot.not_provided ?? []).toEqual([]);
    expect(deliveries).toBe(1);
    expect(payloads[0]!.data.events.map((e) => e.type)).toContain('visibility_moved');
    expect(payloads[0]!.data.not_provided ?? []).toEqual([]);
  });

  it("a CSV export link gives our origin's rows", async () => {
    restoreUpstream();
    const ours = await readCsv((await mintExport({ operation: 'listTopics', params: { market: 'us' } })).url);
    new ReshapingUpstream(SHAPES[shape]).install();
    const theirs = await readCsv((await mintExport({ operation: 'listTopics', params: { market: 'us' } }, key)).url);
    expect(theirs.status).toBe(200);
    expect(theirs.text).toBe(ours.text);
  });

  it("MCP weekly_report answers our origin's report", async () => {
    restoreUpstream();
    const ours = (await reportJson('/reports/weekly?market=us')).report;
    new ReshapingUpstream(SHAPES[shape]).install();
    const client = new Client({ name: 'features-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), { fetch: (url, init) => SELF.fetch(new Request(url, init)), requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    const result = await client.callTool({ name: 'weekly_report', arguments: { market: 'us' } });
    expect(result.isError).toBeFalsy();
    const { report } = result.structuredContent as { report: Report };
    expect(withoutTimes(report)).toEqual(withoutTimes(toolReport(expectedOf(shape, ours))));
    await client.close();
  });
});

/** Our origin's bodies, with one more engine on `/prompts`: `grok`, which the service carries and which answered nothing in the period. */
function withIdleGrok(body: Body, url: URL): unknown {
  if (!url.pathname.endsWith('/prompts')) return body;
  const matrix = body as { engines: string[]; prompts: { engines: Body[] }[] };
  const idle = { engine: 'grok', state: null, rate: null, position: null, runs: 0 };
  return { ...matrix, engines: [...matrix.engines, 'grok'], prompts: matrix.prompts.map((p) => ({ ...p, engines: [...p.engines, idle] })) };
}

const enginesOfPage = (html: string) => [...html.matchAll(/<tr data-engine="([^"]+)"/g)].map((m) => m[1]);
const engineCounts = (text: string) => [...new Set([...text.matchAll(/of (\d+) engines/g)].map((m) => m[1]))];

describe('in front of a service that carries an engine that answered nothing in the period', () => {
  let key: string;
  beforeEach(async () => {
    new ReshapingUpstream(withIdleGrok).install();
    key = freshKey('features-idle-grok');
    await discoverAndApply(key);
  });

  it("the JSON, the page, the text and MCP weekly_report list and count our origin's engines, without it", async () => {
    restoreUpstream();
    const ours = (await reportJson('/reports/weekly?market=us')).report;
    const ourPage = await (await call('/reports/weekly?market=us', { key: 'demo_pro_single' })).text();
    const ourText = await (await call('/reports/weekly?market=us&format=text', { key: 'demo_pro_single' })).text();
    expect(engineCounts(ourText)).toEqual(['6']);
    new ReshapingUpstream(withIdleGrok).install();

    const theirs = (await reportJson('/reports/weekly?market=us', key)).report;
    expect(theirs.engines.map((e) => e.engine)).toEqual(ours.engines.map((e) => e.engine));
    expect(withoutTimes(theirs)).toEqual(withoutTimes(ours));

    const page = await (await call('/reports/weekly?market=us', { key })).text();
    expect(enginesOfPage(page)).toEqual(enginesOfPage(ourPage));
    expect(enginesOfPage(page)).toHaveLength(6);

    const text = await (await call('/reports/weekly?market=us&format=text', { key })).text();
    expect(text).not.toContain('grok');
    expect(engineCounts(text)).toEqual(engineCounts(ourText));

    const client = new Client({ name: 'features-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), { fetch: (url, init) => SELF.fetch(new Request(url, init)), requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    const result = await client.callTool({ name: 'weekly_report', arguments: { market: 'us' } });
    expect(result.isError).toBeFalsy();
    expect(withoutTimes((result.structuredContent as { report: Report }).report)).toEqual(withoutTimes(toolReport(ours)));
    expect(JSON.stringify(result.content)).not.toContain('grok');
    await client.close();
  });
});
