/**
 * `/mcp` through the Worker, with the SDK's real client (`Client` and its
 * Streamable HTTP transport, its fetch pointed at the Worker): the tools are
 * the contract table's operations plus `weekly_report`, `tools/list` within
 * 20 KB; each result is the /api/v1 body (a long list paged), valid against
 * the tool's output schema; another implementation's bodies come on the
 * contract's names; the API's refusals are tool results with `isError`; the
 * key is checked (401); repeated calls are cache hits; the host is checked
 * (403); bad input gets the SDK's errors, never a 500.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { API_BASE, examplePath, operationList } from '../src/contract/operations';
import { sha256Hex } from '../src/lib/hash';
import { MCP_PATH } from '../src/mcp';
import { ROW_LIMIT } from '../src/mcp/pages';
import { TOOLS_LIST_MAX_BYTES, toolName } from '../src/mcp/tools';
import { PLAN_ITEMS_HELD, toolReport, WEEKLY_STRUCTURED_MAX_BYTES } from '../src/mcp/weekly';
import type { Report } from '../src/weekly-report/model';
import { RecordingApi } from './digests-helpers';
import { ForeignUpstream } from './foreign-upstream';
import { DEMO, KEYS } from './helpers';
import { freshKey } from './proxy-upstream';
import { CASES, envelope, renameFields, ReshapingUpstream } from './reshape';
import { useUpstreamForTests } from './seams';
import worker from './worker';

/** localhost: allowed in dev (the tests run with `DEV_ROUTES = "on"`), as `npm run dev` serves it. */
const MCP_URL = `http://localhost${MCP_PATH}`;
const workerFetch = (url: string | URL, init?: RequestInit) => SELF.fetch(new Request(url, init));

type Era = 'legacy' | 'auto';

/** A connected client: `legacy` speaks the 2025 revision (what most assistants send today), `auto` negotiates 2026-07-28. */
async function connect(key: string | null, era: Era = 'legacy'): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' }, { versionNegotiation: { mode: era } });
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: workerFetch, requestInit: { headers } }));
  return client;
}

/** A fetch that calls the Worker's handler with another env (a deployment's settings), as a new isolate would see it. */
const fetchWith = (bindings: object) => async (url: string | URL, init?: RequestInit) => {
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(url, init) as Request<unknown, IncomingRequestCfProperties>, bindings as Env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
};

/** A raw POST to /mcp, for what the client never sends. */
function post(body: string, headers: Record<string, string> = {}, url = MCP_URL): Promise<Response> {
  return SELF.fetch(url, { method: 'POST', body, headers: { authorization: `Bearer ${KEYS.pro}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } });
}

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

/** The arguments of an operation's example request: its path and query parameters by name. */
const exampleArgs = (op: (typeof operationList)[number]) => ({ ...op.example.path, ...op.example.query });
const proTool = operationList.find((op) => op.plan === 'pro_or_growth')!;

type Body = Record<string, unknown>;
type Tool = Awaited<ReturnType<Client['listTools']>>['tools'][number];

const validator = new CfWorkerJsonSchemaValidator();
/** Whether `value` satisfies the tool's output schema, by a JSON Schema validator of its own (the client checks too). */
function expectValid(tool: Tool, value: unknown): void {
  const { valid, errorMessage } = validator.getValidator(tool.outputSchema as never)(value);
  expect([tool.name, valid, errorMessage]).toEqual([tool.name, true, undefined]);
}

/** The list at a dotted path (`competition.daily`). */
const listAt = (body: unknown, rows: string) => rows.split('.').reduce<any>((value, name) => value?.[name], body) as unknown[];
/** `body` with the list at `rows` replaced. */
const withList = (body: Body, [name, ...rest]: string[], list: unknown[]): Body => ({ ...body, [name!]: rest.length === 0 ? list : withList(body[name!] as Body, rest, list) });
/** Every field but when the origin computed the body. */
const withoutTimes = (body: unknown) => JSON.parse(JSON.stringify(body, (name, value) => (name === 'generated_at' ? undefined : value)));

/**
 * A tool's whole answer, every page of its list read with `offset` and put
 * back together, each page checked: at most `ROW_LIMIT` rows, `page` saying
 * where the next starts, and valid against the output schema.
 */
async function readAllPages(client: Client, tool: Tool, args: Body, rows: string | undefined): Promise<Body> {
  const first = (await client.callTool({ name: tool.name, arguments: args })).structuredContent as Body;
  expectValid(tool, first);
  if (!rows || !first.page) return first;
  const { page, ...body } = first as Body & { page: { total: number } };
  const list = [...listAt(body, rows)];
  for (let offset = ROW_LIMIT; offset < page.total; offset += ROW_LIMIT) {
    const next = (await client.callTool({ name: tool.name, arguments: { ...args, offset } })).structuredContent as Body;
    expectValid(tool, next);
    expect(next.page).toEqual({ rows, offset, limit: ROW_LIMIT, total: page.total, next_offset: offset + ROW_LIMIT < page.total ? offset + ROW_LIMIT : null });
    list.push(...listAt(next, rows));
  }
  expect(page).toEqual({ rows, offset: 0, limit: ROW_LIMIT, total: list.length, next_offset: ROW_LIMIT });
  return withList(body, rows.split('.'), list);
}

/** A key of its own for demo_pro_single's account: nothing of it is cached yet. */
async function newDemoKey(): Promise<string> {
  const key = `mcp_${crypto.randomUUID()}`;
  await env.DB.prepare("INSERT INTO api_keys (account_id, key_hash, label, created_at) VALUES (1, ?, 'mcp test', '2026-01-01T00:00:00Z')")
    .bind(await sha256Hex(key))
    .run();
  return key;
}

afterEach(() => useUpstreamForTests());

describe('the endpoint', () => {
  it('answers `/mcp/` (a slash, as often pasted) with a 308 to `/mcp`, which a client follows with its method and body', async () => {
    const slashed = await SELF.fetch(`${MCP_URL}/`, { method: 'POST', body: initialize, redirect: 'manual', headers: { authorization: `Bearer ${KEYS.pro}`, 'content-type': 'application/json' } });
    expect(slashed.status).toBe(308);
    expect(slashed.headers.get('location')).toBe(MCP_PATH);
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${MCP_URL}/`), { fetch: workerFetch, requestInit: { headers: { authorization: `Bearer ${KEYS.pro}` } } }));
    expect((await client.listTools()).tools.length).toBeGreaterThan(20);
    await client.close();
  });
});

describe('tools/list', () => {
  it('lists one tool per operation of the contract table, with its parameters as the input schema, plus weekly_report', async () => {
    const client = await connect(KEYS.pro);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(operationList.length + 1);
    expect(tools.map((t) => t.name).sort()).toEqual([...operationList.map((op) => toolName(op.id)), 'weekly_report'].sort());
    for (const op of operationList) {
      const tool = tools.find((t) => t.name === toolName(op.id))!;
      // A tool whose result is a list takes `offset` for the next page.
      const params = [...Object.keys(op.params.path), ...Object.keys(op.params.query), ...(op.csv ? ['offset'] : [])];
      expect([tool.name, Object.keys(tool.inputSchema.properties ?? {}).sort()]).toEqual([tool.name, params.sort()]);
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect([tool.name, tool.title]).toEqual([tool.name, op.summary]);
      expect(tool.description!.length).toBeGreaterThan(20);
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
      if (op.scope === 'brand') expect(Object.keys(tool.inputSchema.properties!)).toEqual(expect.arrayContaining(['brand_id', 'market']));
      if (op.plan === 'pro_or_growth') expect(tool.description).toContain('Pro and Growth');
      if (op.integration) expect(tool.description).toContain('integration');
      // The outline of the response: its top-level fields, and `page` where the result is a list.
      expect(tool.outputSchema).toMatchObject({ type: 'object', properties: expect.any(Object) });
      expect([tool.name, Object.hasOwn(tool.outputSchema!.properties ?? {}, 'page')]).toEqual([tool.name, Boolean(op.csv)]);
    }
    // Numbers are JSON integers with their bounds, not the decimal text of a query string.
    const topic = tools.find((t) => t.name === 'get_topic')!;
    expect(topic.inputSchema.required).toEqual(['id']);
    expect(topic.inputSchema.properties!.id).toMatchObject({ type: 'integer', minimum: 1 });
    expect(tools.find((t) => t.name === 'weekly_report')!.inputSchema.properties).toHaveProperty('brand_id');
    await client.close();
  });

  it('weighs at most 20 KB in both eras, every tool with an output schema', async () => {
    for (const era of ['legacy', 'auto'] as const) {
      const client = await connect(KEYS.pro, era);
      const listed = await client.listTools();
      const bytes = new TextEncoder().encode(JSON.stringify(listed)).length;
      expect([era, bytes <= TOOLS_LIST_MAX_BYTES]).toEqual([era, true]);
      expect(listed.tools.filter((t) => !t.outputSchema)).toEqual([]);
      await client.close();
    }
    expect(TOOLS_LIST_MAX_BYTES).toBe(20 * 1024);
  });
});

describe('tools/call', () => {
  for (const era of ['legacy', 'auto'] as const) {
    it(`answers every operation with the /api/v1 body as structuredContent, valid against the output schema, and its JSON as text (${era})`, async () => {
      const client = await connect(KEYS.pro, era);
      const { tools } = await client.listTools();
      for (const op of operationList) {
        const tool = tools.find((t) => t.name === toolName(op.id))!;
        const result = await client.callTool({ name: tool.name, arguments: exampleArgs(op) });
        const direct = await SELF.fetch(`https://edge.test${API_BASE}${examplePath(op)}`, { headers: { authorization: `Bearer ${KEYS.pro}` } });
        expect([op.id, direct.status, result.isError ?? false]).toEqual([op.id, 200, false]);
        expectValid(tool, result.structuredContent);
        expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(result.structuredContent);
        const body = (await direct.json()) as Body;
        // A list of at most ROW_LIMIT rows is the body itself; a longer one, page by page, is the body again.
        const rows = op.csv?.rows;
        if (!rows || listAt(body, rows).length <= ROW_LIMIT) expect([op.id, result.structuredContent]).toEqual([op.id, body]);
        else expect([op.id, await readAllPages(client, tool, exampleArgs(op), rows)]).toEqual([op.id, body]);
      }
      await client.close();
    });
  }

  it('get_competitor takes the plain name, as its argument says (the server puts it in the path, encoded)', async () => {
    const client = await connect(KEYS.growth);
    const { tools } = await client.listTools();
    const name = tools.find((t) => t.name === 'get_competitor')!.inputSchema.properties!.name as { description: string };
    expect(name.description).not.toMatch(/URL-encoded/);
    const result = await client.callTool({ name: 'get_competitor', arguments: { brand_id: 2, name: 'clearbooks PRO' } });
    expect([result.isError ?? false, (result.structuredContent as { competitor: { name: string } }).competitor.name]).toEqual([false, 'Clearbooks Pro']);
    await client.close();
  });

  it('answers a call with one JSON body, not an event stream, in the 2025 revision and in 2026-07-28', async () => {
    const call = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_visibility', arguments: {} } });
    const legacy = await post(call, { 'mcp-protocol-version': '2025-06-18' });
    expect([legacy.status, legacy.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^application\/json/)]);
    expect(await legacy.json()).toMatchObject({ jsonrpc: '2.0', id: 7, result: { structuredContent: { score: expect.any(Number) } } });
    const client = await connect(KEYS.pro, 'auto');
    const modern = await client.callTool({ name: 'get_visibility', arguments: {} });
    expect(modern.structuredContent).toMatchObject({ score: expect.any(Number) });
    await client.close();
  });

  it('pages a long list: the first rows and `page`, the next with `offset`, nothing past the end, every page from one cached read', async () => {
    const upstream = new RecordingApi();
    useUpstreamForTests(upstream.upstream);
    const client = await connect(await newDemoKey());
    const call = async (args: Body) => (await client.callTool({ name: 'get_prompt_matrix', arguments: args })).structuredContent as { prompts: { question_id: number }[]; page?: Body };
    const first = await call({});
    expect([first.prompts.length, first.page]).toEqual([ROW_LIMIT, { rows: 'prompts', offset: 0, limit: ROW_LIMIT, total: 42, next_offset: ROW_LIMIT }]);
    const last = await call({ offset: ROW_LIMIT });
    expect([last.prompts.length, last.page]).toEqual([42 - ROW_LIMIT, { rows: 'prompts', offset: ROW_LIMIT, limit: ROW_LIMIT, total: 42, next_offset: null }]);
    expect(new Set([...first.prompts, ...last.prompts].map((p) => p.question_id)).size).toBe(42);
    const past = await call({ offset: 100 });
    expect([past.prompts, past.page]).toEqual([[], { rows: 'prompts', offset: 100, limit: ROW_LIMIT, total: 42, next_offset: null }]);
    // A short list asked from an offset is paged too, so the answer says where it starts.
    const topics = (await client.callTool({ name: 'list_topics', arguments: { offset: 4 } })).structuredContent as { topics: unknown[]; page: Body };
    expect([topics.topics.length, topics.page]).toEqual([2, { rows: 'topics', offset: 4, limit: ROW_LIMIT, total: 6, next_offset: null }]);
    const negative = await client.callTool({ name: 'get_prompt_matrix', arguments: { offset: -1 } });
    expect([negative.isError, JSON.stringify(negative.content)]).toEqual([true, expect.stringContaining('Input validation error')]);
    // `offset` never reaches the API: the key's check, one read of each list.
    expect(upstream.requests.map((r) => r.split('?')[0])).toEqual(['/brands', '/prompts', '/topics']);
    await client.close();
  });

  it('keeps every result on the demo data within 72 KB, whatever window or limit is asked for', async () => {
    const client = await connect(KEYS.pro);
    const { tools } = await client.listTools();
    for (const op of operationList) {
      const tool = tools.find((t) => t.name === toolName(op.id))!;
      // The widest window and the largest `limit` the tool takes.
      const args: Body = { ...exampleArgs(op) };
      for (const name of ['days', 'limit']) {
        const maximum = (tool.inputSchema.properties?.[name] as { maximum?: number } | undefined)?.maximum;
        if (maximum !== undefined) args[name] = maximum;
      }
      const result = await client.callTool({ name: tool.name, arguments: args });
      const bytes = new TextEncoder().encode(JSON.stringify(result)).length;
      expect([op.id, result.isError ?? false, bytes <= 72 * 1024]).toEqual([op.id, false, true]);
    }
    await client.close();
  });

  it("reads another implementation's bodies onto the contract's names: camelCase in an envelope answers our origin's bodies", async () => {
    const client = await connect(KEYS.pro);
    const { tools } = await client.listTools();
    const ours = new Map<string, Body>();
    for (const op of operationList) ours.set(op.id, await readAllPages(client, tools.find((t) => t.name === toolName(op.id))!, exampleArgs(op), op.csv?.rows));
    await client.close();

    new ReshapingUpstream((body, url) => envelope(renameFields(body, CASES.camel) as Body, url.pathname)).install();
    const theirs = await connect(freshKey('mcp-reshaped'));
    for (const op of operationList) {
      const tool = tools.find((t) => t.name === toolName(op.id))!;
      const body = await readAllPages(theirs, tool, exampleArgs(op), op.csv?.rows);
      expect([op.id, withoutTimes(body)]).toEqual([op.id, withoutTimes(ours.get(op.id))]);
    }
    await theirs.close();
  });

  it('answers a body it cannot read onto the contract as a 502 result naming the field, never a body that breaks the output schema', async () => {
    const foreign = new ForeignUpstream().install();
    try {
      const client = await connect(freshKey('mcp-foreign'));
      for (const op of operationList) {
        const result = await client.callTool({ name: toolName(op.id), arguments: exampleArgs(op) });
        expect([op.id, result.isError]).toEqual([op.id, true]);
        expect(result.structuredContent).toMatchObject({ error: { code: 'upstream_error', message: expect.stringMatching(/response field `[\w.]+`/) }, status: 502 });
      }
      await client.close();
    } finally {
      foreign.release();
    }
  });

  it('answers weekly_report with the weekly report model and a few lines of text', async () => {
    const client = await connect(KEYS.pro);
    const result = await client.callTool({ name: 'weekly_report', arguments: { market: 'us' } });
    expect(result.isError ?? false).toBe(false);
    const { report, source } = result.structuredContent as { report: Record<string, any>; source: Record<string, unknown> };
    expect(report.brand).toEqual({ id: DEMO.proBrand, name: 'Brightdesk' });
    expect(report.market.code).toBe('us');
    expect(typeof report.lead.headline).toBe('string');
    expect(report.visibility).toMatchObject({ score: expect.any(Number), trend: expect.any(String) });
    expect(report.engines).toHaveLength(6);
    expect(report.won_lost.counts).toEqual({ won: expect.any(Number), lost: expect.any(Number), held: expect.any(Number) });
    // How fresh the figures are, not each of the eight reads (the report page's JSON lists them).
    expect(Object.keys(source).sort()).toEqual(['from_cache', 'max_age_seconds', 'read_at']);
    const text = (result.content as { text: string }[])[0]!.text;
    expect(text).toContain(report.lead.headline);
    // The plan, in its order, with what it is ranked by.
    expect(report.plan.items.length).toBeGreaterThan(0);
    expect(text).toContain(`1. ${report.plan.items[0].headline}`);
    // Each item holds the ids to act on; why and its page work, which quote its questions, are the text's.
    const first = report.plan.items[0];
    expect(first.question_ids.length).toBeGreaterThan(0);
    expect(first).not.toHaveProperty('steps');
    expect(first).not.toHaveProperty('why');
    expect(text).toContain(report.plan.ranking);
    expect(text).toContain('Visibility');
    // Within a few KB: the digest's questions and the plan's first items; the text says the plan whole.
    const size = JSON.stringify(result.structuredContent).length;
    expect(size).toBeLessThan(WEEKLY_STRUCTURED_MAX_BYTES);
    expect(report.won_lost).not.toHaveProperty('lost');
    expect(report.plan.items.length).toBeLessThanOrEqual(PLAN_ITEMS_HELD);
    const heldAll = report.plan.items.length + report.plan.more_items;
    expect(text).toContain(`This week’s plan, ${heldAll} item`);
    // The model /reports/weekly answers as JSON, as the tool holds it.
    const page = await SELF.fetch('https://edge.test/reports/weekly?format=json&market=us', { headers: { authorization: `Bearer ${KEYS.pro}` } });
    const { report: fromPage } = (await page.json()) as { report: Report };
    for (const line of [fromPage.plan!.items[0]!.why, ...fromPage.plan!.items[0]!.steps]) expect(text).toContain(line);
    expect({ ...report, generated_at: null }).toEqual({ ...toolReport(fromPage), generated_at: null });
    await client.close();
  });

  it('answers a Pro tool for a Starter key as a result with isError and feature_not_in_plan', async () => {
    const client = await connect(KEYS.starter);
    const result = await client.callTool({ name: toolName(proTool.id), arguments: exampleArgs(proTool) });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'feature_not_in_plan', message: expect.any(String) }, status: 403 });
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^403 feature_not_in_plan: /);
    await client.close();
  });

  it("passes the API's other refusals as results: plan_inactive, brand_not_found, integration_not_connected, upstream_error", async () => {
    const inactive = await connect(KEYS.inactive);
    expect((await inactive.callTool({ name: 'get_visibility', arguments: {} })).structuredContent).toMatchObject({ error: { code: 'plan_inactive' }, status: 403 });
    await inactive.close();

    const growth = await connect(KEYS.growth);
    expect((await growth.callTool({ name: 'get_visibility', arguments: {} })).structuredContent).toMatchObject({ error: { code: 'brand_required' }, status: 400 });
    expect((await growth.callTool({ name: 'get_visibility', arguments: { brand_id: 999 } })).structuredContent).toMatchObject({ error: { code: 'brand_not_found' }, status: 404 });
    const search = await growth.callTool({ name: 'get_search_performance', arguments: { brand_id: DEMO.growthBrandB } });
    expect([search.isError, search.structuredContent]).toMatchObject([true, { error: { code: 'integration_not_connected' }, status: 409 }]);
    await growth.close();

    const client = await connect(KEYS.pro);
    // A window the API refuses: its 400 names the parameter.
    const range = await client.callTool({ name: 'list_topics', arguments: { from: '2020-01-01' } });
    expect(range.structuredContent).toMatchObject({ error: { code: 'invalid_parameter', param: 'from' }, status: 400 });
    // An upstream outage with nothing stored: 502 upstream_error, as a result.
    const upstream = new RecordingApi();
    upstream.fault = { status: 503, code: 'internal_error' };
    useUpstreamForTests(upstream.upstream);
    const down = await client.callTool({ name: 'list_pages', arguments: { days: 13 } });
    expect([down.isError, down.structuredContent]).toMatchObject([true, { error: { code: 'upstream_error' }, status: 502 }]);
    await client.close();
  });
});

describe('prompts', () => {
  const PROMPT_NAMES = ['weekly_review', 'competitor_radar', 'engine_scorecard', 'content_plan'];
  const textOf = (result: { messages: { content: unknown }[] }) => result.messages.map((m) => (m.content as { text: string }).text).join('\n');

  it('lists the four prompts with their arguments, none required, and completion as a capability', async () => {
    const client = await connect(KEYS.pro);
    expect(client.getServerCapabilities()).toMatchObject({ prompts: expect.any(Object), completions: expect.any(Object) });
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(PROMPT_NAMES);
    for (const prompt of prompts) {
      const names = prompt.name === 'competitor_radar' ? ['brand', 'market', 'competitor'] : ['brand', 'market'];
      expect([prompt.name, prompt.arguments?.map((a) => [a.name, a.required])]).toEqual([prompt.name, names.map((name) => [name, false])]);
      expect(prompt.title && prompt.description && prompt.arguments!.every((a) => a.description)).toBeTruthy();
    }
    await client.close();
  });

  it('declares lists that never change: no listChanged for tools, prompts or resources, in both eras', async () => {
    for (const era of ['legacy', 'auto'] as const) {
      const client = await connect(KEYS.pro, era);
      const { tools, prompts, resources } = client.getServerCapabilities()!;
      expect([era, tools?.listChanged, prompts?.listChanged, resources?.listChanged]).toEqual([era, false, false, false]);
      await client.close();
    }
  });

  it("gets each prompt with its arguments: one message naming the brand's id, the market and the tools to call, each a tool of tools/list", async () => {
    const client = await connect(KEYS.pro);
    const tools = new Set((await client.listTools()).tools.map((t) => t.name));
    const expected: Record<string, string[]> = {
      weekly_review: ['weekly_report', 'get_answer_history'],
      competitor_radar: ['list_topics', 'get_competitor'],
      engine_scorecard: ['get_prompt_matrix', 'get_brand_perception'],
      content_plan: ['get_content_gaps', 'list_tasks'],
    };
    for (const name of PROMPT_NAMES) {
      const args = { brand: 'Brightdesk', market: 'de', ...(name === 'competitor_radar' ? { competitor: 'Helpwave' } : {}) };
      const result = await client.getPrompt({ name, arguments: args });
      expect(result.messages).toHaveLength(1);
      expect(result.messages[0]!.role).toBe('user');
      const text = textOf(result);
      expect(text).toContain('Brightdesk (brand_id 1)');
      expect(text).toContain('{"brand_id":1,"market":"de"');
      const named = [...text.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!).filter((word) => tools.has(word));
      expect([name, [...new Set(named)]]).toEqual([name, expected[name]]);
    }
    expect(textOf(await client.getPrompt({ name: 'competitor_radar', arguments: { competitor: 'Helpwave' } }))).toContain('"name":"Helpwave"');
    // The brand by its id, or its name in any case; without it, the key's only brand and its primary market.
    for (const brand of ['1', 'brightdesk', undefined]) {
      const text = textOf(await client.getPrompt({ name: 'weekly_review', arguments: brand === undefined ? {} : { brand } }));
      expect([brand, text]).toEqual([brand, expect.stringContaining('Brightdesk (brand_id 1) in its primary market')]);
    }
    await expect(client.getPrompt({ name: 'weekly_review', arguments: { brand: 'Nobrand' } })).rejects.toThrow(/no brand "Nobrand".*Brightdesk/);
    await client.close();

    // A key with several brands and none named: the message says to ask which one.
    const growth = await connect(KEYS.growth);
    expect(textOf(await growth.getPrompt({ name: 'engine_scorecard', arguments: {} }))).toMatch(/several: call `list_brands`/);
    expect(textOf(await growth.getPrompt({ name: 'engine_scorecard', arguments: { brand: 'Payfold' } }))).toContain('"brand_id":3');
    await growth.close();

    // A key the API refuses: the request's error says why; its completions offer nothing.
    const inactive = await connect(KEYS.inactive);
    await expect(inactive.getPrompt({ name: 'weekly_review', arguments: {} })).rejects.toThrow(/403 plan_inactive/);
    expect((await inactive.complete({ ref: { type: 'ref/prompt', name: 'weekly_review' }, argument: { name: 'brand', value: '' } })).completion.values).toEqual([]);
    await inactive.close();
  });

  it('completes brand, market and competitor from what the key reads, filtered by what was typed', async () => {
    for (const era of ['legacy', 'auto'] as const) {
      const client = await connect(KEYS.pro, era);
      const complete = async (prompt: string, name: string, value: string, chosen: Record<string, string> = {}) =>
        (await client.complete({ ref: { type: 'ref/prompt', name: prompt }, argument: { name, value }, context: { arguments: chosen } })).completion.values;
      expect(await complete('weekly_review', 'brand', 'bri')).toEqual(['Brightdesk']);
      expect(await complete('weekly_review', 'brand', 'x')).toEqual([]);
      expect(await complete('content_plan', 'market', '')).toEqual(['us', 'de']);
      expect(await complete('content_plan', 'market', 'D')).toEqual(['de']);
      const rivals = await complete('competitor_radar', 'competitor', '');
      expect(rivals).toContain(DEMO.proRival);
      expect(rivals.length).toBeLessThanOrEqual(100);
      expect(await complete('competitor_radar', 'competitor', 'help', { brand: 'Brightdesk', market: 'us' })).toEqual([DEMO.proRival]);
      expect(await complete('competitor_radar', 'competitor', 'help', { market: 'de' })).toContain(DEMO.proRival);
      await client.close();
    }

    const growth = await connect(KEYS.growth);
    const complete = async (name: string, value: string, chosen: Record<string, string> = {}) =>
      (await growth.complete({ ref: { type: 'ref/prompt', name: 'competitor_radar' }, argument: { name, value }, context: { arguments: chosen } })).completion.values;
    expect(await complete('brand', '')).toEqual(['Ledgerly', 'Payfold']);
    expect(await complete('brand', 'p')).toEqual(['Payfold']);
    // Competitors once the brand is known; none before, since the key has several.
    expect(await complete('competitor', '')).toEqual([]);
    expect((await complete('competitor', '', { brand: 'Ledgerly' })).length).toBeGreaterThan(0);
    await growth.close();
  });

  it('answers a completion it cannot give as the SDK does: nothing for an argument the prompt does not take, an error for an unknown prompt or a resource', async () => {
    for (const era of ['legacy', 'auto'] as const) {
      const client = await connect(KEYS.pro, era);
      expect((await client.complete({ ref: { type: 'ref/prompt', name: 'weekly_review' }, argument: { name: 'competitor', value: '' } })).completion).toEqual({ values: [], hasMore: false });
      await expect(client.complete({ ref: { type: 'ref/prompt', name: 'no_such_prompt' }, argument: { name: 'brand', value: '' } })).rejects.toThrow('Prompt no_such_prompt not found');
      await expect(client.complete({ ref: { type: 'ref/resource', uri: 'brand://x' }, argument: { name: 'brand', value: '' } })).rejects.toThrow('Resource template brand://x not found');
      await client.close();
    }
  });

  it('reads what it completes through the cache: one read of /brands and of /topics for any number of completions', async () => {
    const upstream = new RecordingApi();
    useUpstreamForTests(upstream.upstream);
    const client = await connect(await newDemoKey());
    for (const typed of ['', 'b', 'br', 'bri']) await client.complete({ ref: { type: 'ref/prompt', name: 'competitor_radar' }, argument: { name: 'brand', value: typed } });
    for (const typed of ['', 'h', 'he']) await client.complete({ ref: { type: 'ref/prompt', name: 'competitor_radar' }, argument: { name: 'competitor', value: typed } });
    await client.getPrompt({ name: 'competitor_radar', arguments: { brand: 'Brightdesk' } });
    expect(upstream.requests).toEqual(['/brands', '/topics?brand_id=1']);
    await client.close();
  });
});

describe('the key', () => {
  it('refuses a revoked key with 401 and WWW-Authenticate: Bearer, before any MCP exchange', async () => {
    await expect(connect(KEYS.revoked)).rejects.toThrow(/invalid_api_key/);
    const response = await post(initialize, { authorization: `Bearer ${KEYS.revoked}` });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    expect(await response.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
  });

  it('refuses a request without a key, or with an unknown one, with 401', async () => {
    for (const headers of [{ authorization: '' }, { authorization: 'Basic abc' }, { authorization: `Bearer unknown_${crypto.randomUUID()}` }]) {
      const response = await post(initialize, headers);
      // With OAuth on (OAUTH_KV bound, as in wrangler.toml): the challenge names the resource metadata (test/mcp-oauth.test.ts).
      expect([headers.authorization.slice(0, 8), response.status, response.headers.get('www-authenticate')]).toEqual([
        headers.authorization.slice(0, 8),
        401,
        expect.stringMatching(/^Bearer realm="OAuth", resource_metadata="http:\/\/localhost\/\.well-known\/oauth-protected-resource\/mcp"/),
      ]);
    }
    await expect(connect(null)).rejects.toThrow();
  });

  it('checks an unknown key upstream once, then refuses it at the edge: it spends no budget', async () => {
    const upstream = new RecordingApi();
    useUpstreamForTests(upstream.upstream);
    const key = `unknown_${crypto.randomUUID()}`;
    for (let i = 0; i < 5; i++) expect((await post(initialize, { authorization: `Bearer ${key}` })).status).toBe(401);
    expect(upstream.requests).toEqual(['/brands']);
  });
});

describe('one server after another', () => {
  it("answers each call with its own key's data: in turn, at once, and after an initialize", async () => {
    const brandsOf = async (key: string) => {
      const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_brands', arguments: {} } }), {
        authorization: `Bearer ${key}`,
        'mcp-protocol-version': '2025-06-18',
      });
      const body = (await response.json()) as { result: { structuredContent: { brands: { id: number }[] } } };
      return body.result.structuredContent.brands.map((brand) => brand.id).sort();
    };
    const expected: Record<string, number[]> = { [KEYS.pro]: [DEMO.proBrand], [KEYS.growth]: [DEMO.growthBrandA, DEMO.growthBrandB], [KEYS.starter]: [DEMO.starterBrand] };
    const keys = Object.keys(expected);
    for (let round = 0; round < 3; round++) for (const key of keys) expect([key, await brandsOf(key)]).toEqual([key, expected[key]]);
    // An initialize in between, from another client: what it set up is not what the next request finds.
    expect((await post(initialize, { authorization: `Bearer ${KEYS.growth}` })).status).toBe(200);
    const atOnce = keys.flatMap((key) => Array.from({ length: 4 }, () => key));
    expect(await Promise.all(atOnce.map(async (key) => [key, await brandsOf(key)]))).toEqual(atOnce.map((key) => [key, expected[key]]));
  });
});

describe('the cache', () => {
  it('answers 100 identical tool calls with one upstream read', async () => {
    const key = await newDemoKey();
    const upstream = new RecordingApi();
    useUpstreamForTests(upstream.upstream);
    const client = await connect(key);
    const first = await client.callTool({ name: 'get_visibility', arguments: {} });
    for (let i = 1; i < 100; i++) expect((await client.callTool({ name: 'get_visibility', arguments: {} })).structuredContent).toEqual(first.structuredContent);
    // The key's check (`/brands`, once) and the one read of `/visibility`.
    expect(upstream.requests).toEqual(['/brands', '/visibility']);
    await client.close();
  });
});

describe('Host and Origin', () => {
  it('refuses a foreign Host or Origin with 403, before the key is checked', async () => {
    const foreignHost = await post(initialize, {}, `http://rebind.attacker.example${MCP_PATH}`);
    expect(foreignHost.status).toBe(403);
    const foreignOrigin = await post(initialize, { origin: 'https://attacker.example' });
    expect(foreignOrigin.status).toBe(403);
    expect(await foreignOrigin.json()).toMatchObject({ jsonrpc: '2.0', error: { message: 'Invalid Origin: attacker.example' } });
    // A local page's origin is localhost: allowed in dev.
    expect((await post(initialize, { origin: 'http://localhost:6274' })).status).toBe(200);
  });

  it('answers the hosts of MCP_ALLOWED_HOSTS, and outside dev not localhost', async () => {
    const configured = { ...env, MCP_ALLOWED_HOSTS: 'mcp.example.com, Edge.Example.org' };
    const call = async (url: string, bindings: object, headers: Record<string, string> = {}) => {
      const response = await fetchWith(bindings)(url, {
        method: 'POST',
        body: initialize,
        headers: { authorization: `Bearer ${KEYS.pro}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      });
      return response.status;
    };
    expect(await call(`https://mcp.example.com${MCP_PATH}`, configured)).toBe(200);
    expect(await call(`https://edge.example.org${MCP_PATH}`, configured, { origin: 'https://edge.example.org' })).toBe(200);
    expect(await call(`https://other.example.com${MCP_PATH}`, configured)).toBe(403);
    const deployed = { ...configured, DEV_ROUTES: '' };
    expect(await call(MCP_URL, deployed)).toBe(403);
    expect(await call(`https://mcp.example.com${MCP_PATH}`, deployed)).toBe(200);
  });
});

describe('a page of an allowed origin (CORS)', () => {
  const PAGE = 'http://localhost:6274';
  const preflight = (origin: string, url = MCP_URL, fetcher: typeof workerFetch = workerFetch) =>
    fetcher(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' } });
  const listed = (response: Response, name: string) => (response.headers.get(name) ?? '').toLowerCase().split(/\s*,\s*/);

  it('answers the preflight of an allowed origin with 204 and what it may send, and refuses another origin with 403', async () => {
    const allowed = await preflight(PAGE);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(listed(allowed, 'access-control-allow-methods')).toContain('post');
    expect(listed(allowed, 'access-control-allow-headers')).toEqual(expect.arrayContaining(['authorization', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id']));
    expect(listed(allowed, 'vary')).toContain('origin');
    const foreign = await preflight('https://attacker.example');
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    // A deployment's own host, outside dev.
    const deployed = fetchWith({ ...env, MCP_ALLOWED_HOSTS: 'mcp.example.com', DEV_ROUTES: '' });
    const own = await preflight('https://mcp.example.com', `https://mcp.example.com${MCP_PATH}`, deployed);
    expect([own.status, own.headers.get('access-control-allow-origin')]).toEqual([204, 'https://mcp.example.com']);
    expect((await preflight(PAGE, `https://mcp.example.com${MCP_PATH}`, deployed)).status).toBe(403);
  });

  it('lets the page read every answer: the 401 with its challenge, and an exchange', async () => {
    const challenged = await post(initialize, { authorization: '', origin: PAGE });
    expect(challenged.status).toBe(401);
    expect(challenged.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(listed(challenged, 'access-control-expose-headers')).toContain('www-authenticate');
    const served = await post(initialize, { origin: PAGE });
    expect(served.status).toBe(200);
    expect(served.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(listed(served, 'access-control-expose-headers')).toEqual(expect.arrayContaining(['mcp-session-id', 'mcp-protocol-version']));
    // Without a page (no Origin), no CORS header.
    expect((await post(initialize)).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('a proxy-only deployment', () => {
  it("serves /mcp with only the proxy's bindings, UPSTREAM_URL and ADMIN_TOKEN", async () => {
    const proxyOnly = {
      CACHE: env.CACHE,
      UPSTREAM_GATE: env.UPSTREAM_GATE,
      UNVERIFIED_KEYS: env.UNVERIFIED_KEYS,
      PROXY_STATS: env.PROXY_STATS,
      UPSTREAM_URL: 'https://api.example.com/api/v1',
      ADMIN_TOKEN: 'proxy_only_admin_token',
      MCP_ALLOWED_HOSTS: 'mcp.example.com',
    };
    // The gates read the tests' upstream (the embedded origin, recorded): UPSTREAM_URL is never dialled.
    const upstream = new RecordingApi();
    useUpstreamForTests(upstream.upstream);
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`https://mcp.example.com${MCP_PATH}`), { fetch: fetchWith(proxyOnly), requestInit: { headers: { authorization: `Bearer ${KEYS.pro}` } } }),
    );
    const result = await client.callTool({ name: 'get_visibility', arguments: { market: 'de' } });
    expect(result.structuredContent).toMatchObject({ brand_id: DEMO.proBrand, market: { code: 'de' } });
    expect(upstream.requests.map((r) => r.split('?')[0])).toContain('/visibility');
    await client.close();
  });
});

describe('what a stateless server refuses', () => {
  it('answers GET and DELETE with 405 and Allow: POST', async () => {
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const response = await SELF.fetch(MCP_URL, { method, headers: { authorization: `Bearer ${KEYS.pro}`, accept: 'text/event-stream' } });
      expect([method, response.status, response.headers.get('allow')]).toEqual([method, 405, 'POST']);
    }
  });

  it("answers bad input with the SDK's errors, never a 500", async () => {
    const client = await connect(KEYS.pro);
    const unknown = await client.callTool({ name: 'drop_tables', arguments: {} }).then(
      (result) => ({ isError: result.isError, text: JSON.stringify(result.content) }),
      (error: Error) => ({ isError: true, text: error.message }),
    );
    expect(unknown).toMatchObject({ isError: true, text: expect.stringContaining('drop_tables') });
    for (const args of [{ id: 'eleven' }, { id: 0 }, { id: 1101, extra: true }, {}]) {
      const result = await client.callTool({ name: 'get_topic', arguments: args });
      expect([args, result.isError, JSON.stringify(result.content)]).toEqual([args, true, expect.stringContaining('Input validation error')]);
    }
    await client.close();

    const answers = {
      notJson: await post('{"jsonrpc": "2.0", "id": 1, "method": '),
      notJsonRpc: await post(JSON.stringify({ hello: 'world' })),
      emptyBatch: await post('[]'),
      bigBatch: await post(JSON.stringify(Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })))),
      notJsonType: await post(initialize, { 'content-type': 'text/plain' }),
      noAccept: await post(initialize, { accept: 'text/html' }),
    };
    const statuses = Object.fromEntries(Object.entries(answers).map(([name, response]) => [name, response.status]));
    expect(statuses).toEqual({ notJson: 400, notJsonRpc: 400, emptyBatch: 400, bigBatch: 400, notJsonType: 415, noAccept: 406 });
    for (const response of Object.values(answers)) expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.any(String) } });
  });

  it('never answers a 500 or a stack trace, whatever the body (fast-check, fixed seed)', async () => {
    const toolNames = ['get_visibility', 'get_topic', 'get_answer_runs', 'weekly_report', 'nope'];
    const message = fc.record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0', 2),
        id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        method: fc.constantFrom('initialize', 'tools/list', 'tools/call', 'ping', 'resources/list', 'server/discover', 'notifications/initialized', 'nope'),
        params: fc.oneof(
          fc.constant(undefined),
          fc.record(
            { name: fc.constantFrom(...toolNames), arguments: fc.dictionary(fc.constantFrom('id', 'brand_id', 'market', 'days', 'from', 'prompt', 'x'), fc.jsonValue()) },
            { requiredKeys: [] },
          ),
          fc.jsonValue(),
        ),
      },
      { requiredKeys: ['jsonrpc'] },
    );
    const body = fc.oneof(
      message.map((m) => JSON.stringify(m)),
      fc.array(message, { maxLength: 3 }).map((m) => JSON.stringify(m)),
      fc.json(),
      fc.string(),
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('application/json', 'text/plain', ''), fc.constantFrom('2025-06-18', '2026-07-28', '1999-01-01', ''), async (text, type, version) => {
        const response = await post(text, { 'content-type': type, ...(version ? { 'mcp-protocol-version': version } : {}) });
        const answer = await response.text();
        expect(response.status).toBeLessThan(500);
        expect(answer).not.toMatch(/\n\s+at |stack/);
      }),
      { seed: 20261123, numRuns: 150 },
    );
  });
});

describe('echoed arguments (issue 34 item 4b)', () => {
  it('cuts what an error quotes of the request to a short prefix: prompts/get and resources/read with a 1 MB argument', async () => {
    const huge = 'x'.repeat(1024 * 1024);
    const calls = [
      { method: 'prompts/get', params: { name: huge, arguments: {} } },
      { method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: huge }, argument: { name: 'brand_id', value: '' } } },
      { method: 'resources/read', params: { uri: `ui://weekly/${huge}` } },
      { method: 'resources/read', params: { uri: huge } },
    ];
    for (const [i, call] of calls.entries()) {
      const response = await post(JSON.stringify({ jsonrpc: '2.0', id: i + 10, ...call }));
      const text = await response.text();
      expect(text).toContain('"error"');
      expect([call.method, text.length]).toEqual([call.method, expect.toSatisfy((length: number) => length < 600)]);
    }
  });

  it('cuts them in the 2026-07-28 revision too, which the SDK answers on its other path', async () => {
    const client = await connect(KEYS.pro, 'auto');
    const huge = 'y'.repeat(256 * 1024);
    const refusal = await client.getPrompt({ name: huge, arguments: {} }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refusal?.message).toContain('(cut)');
    expect(refusal!.message.length).toBeLessThan(600);
    await client.close();
  });
});
