/**
 * `/mcp` through the Worker, with the SDK's real client (`Client` and its
 * Streamable HTTP transport, its fetch pointed at the Worker): the tools are
 * the contract table's operations plus `weekly_report`; each result is the
 * /api/v1 body; the API's refusals are tool results with `isError`; the key is
 * checked (401); repeated calls are cache hits; the host is checked (403);
 * bad input gets the SDK's errors, never a 500.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { API_BASE, examplePath, operationList } from '../src/contract/operations';
import { sha256Hex } from '../src/lib/hash';
import { MCP_PATH } from '../src/mcp';
import { toolName } from '../src/mcp/tools';
import { RecordingApi } from './digests-helpers';
import { ForeignUpstream } from './foreign-upstream';
import { DEMO, KEYS } from './helpers';
import { freshKey } from './proxy-upstream';
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

afterEach(() => useUpstreamForTests());

describe('tools/list', () => {
  it('lists one tool per operation of the contract table, with its parameters as the input schema, plus weekly_report', async () => {
    const client = await connect(KEYS.pro);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(operationList.length + 1);
    expect(tools.map((t) => t.name).sort()).toEqual([...operationList.map((op) => toolName(op.id)), 'weekly_report'].sort());
    for (const op of operationList) {
      const tool = tools.find((t) => t.name === toolName(op.id))!;
      const params = [...Object.keys(op.pathParams.shape), ...Object.keys(op.query.shape)];
      expect([tool.name, Object.keys(tool.inputSchema.properties ?? {}).sort()]).toEqual([tool.name, params.sort()]);
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.description).toContain(op.summary);
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
      if (op.scope === 'brand') expect(Object.keys(tool.inputSchema.properties!)).toEqual(expect.arrayContaining(['brand_id', 'market']));
      if (op.plan === 'pro_or_growth') expect(tool.description).toContain('Pro and Growth');
    }
    // Numbers are JSON integers with their bounds, not the decimal text of a query string.
    const topic = tools.find((t) => t.name === 'get_topic')!;
    expect(topic.inputSchema.required).toEqual(['id']);
    expect(topic.inputSchema.properties!.id).toMatchObject({ type: 'integer', minimum: 1 });
    expect(tools.find((t) => t.name === 'weekly_report')!.inputSchema.properties).toHaveProperty('brand_id');
    await client.close();
  });
});

describe('tools/call', () => {
  for (const era of ['legacy', 'auto'] as const) {
    it(`answers every operation with the /api/v1 body as structuredContent and its JSON as text (${era})`, async () => {
      const client = await connect(KEYS.pro, era);
      for (const op of operationList) {
        const result = await client.callTool({ name: toolName(op.id), arguments: exampleArgs(op) });
        const direct = await SELF.fetch(`https://edge.test${API_BASE}${examplePath(op)}`, { headers: { authorization: `Bearer ${KEYS.pro}` } });
        expect([op.id, direct.status, result.isError ?? false]).toEqual([op.id, 200, false]);
        expect([op.id, result.structuredContent]).toEqual([op.id, await direct.json()]);
        expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(result.structuredContent);
      }
      await client.close();
    });
  }

  it('passes on the body of another implementation of the spec as it is: other field names, extra fields, open values', async () => {
    const foreign = new ForeignUpstream().install();
    try {
      const key = freshKey('mcp-foreign');
      const client = await connect(key);
      for (const op of operationList) {
        const result = await client.callTool({ name: toolName(op.id), arguments: exampleArgs(op) });
        expect([op.id, result.isError ?? false]).toEqual([op.id, false]);
        expect(result.structuredContent).toMatchObject({ brandId: 1, operationName: op.id, vendorExtra: { region: 'eu-west', sampled: true } });
        // The same bytes a proxy client gets, from the same cache entry.
        const direct = await SELF.fetch(`https://edge.test${API_BASE}${examplePath(op)}`, { headers: { authorization: `Bearer ${key}` } });
        expect([op.id, direct.headers.get('x-cache'), result.structuredContent]).toEqual([op.id, 'HIT', await direct.json()]);
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
    expect(source.reads).toHaveLength(5);
    const text = (result.content as { text: string }[])[0]!.text;
    expect(text).toContain(report.lead.headline);
    expect(text).toContain('Visibility');
    // The same model /reports/weekly answers as JSON.
    const page = await SELF.fetch('https://edge.test/reports/weekly?format=json&market=us', { headers: { authorization: `Bearer ${KEYS.pro}` } });
    const { report: fromPage } = (await page.json()) as { report: Record<string, unknown> };
    expect({ ...report, generated_at: null }).toEqual({ ...fromPage, generated_at: null });
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

  it('passes the API\'s other refusals as results: plan_inactive, brand_not_found, integration_not_connected, upstream_error', async () => {
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
      expect([headers.authorization.slice(0, 8), response.status, response.headers.get('www-authenticate')]).toEqual([headers.authorization.slice(0, 8), 401, 'Bearer realm="mcp"']);
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

describe('the cache', () => {
  it('answers 100 identical tool calls with one upstream read', async () => {
    // A key of its own (demo_pro_single's account): nothing of it is cached yet.
    const key = `mcp_${crypto.randomUUID()}`;
    await env.DB.prepare("INSERT INTO api_keys (account_id, key_hash, label, created_at) VALUES (1, ?, 'mcp test', '2026-01-01T00:00:00Z')").bind(await sha256Hex(key)).run();
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
      const response = await fetchWith(bindings)(url, { method: 'POST', body: initialize, headers: { authorization: `Bearer ${KEYS.pro}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } });
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

describe('a proxy-only deployment', () => {
  it('serves /mcp with only the proxy\'s bindings, UPSTREAM_URL and ADMIN_TOKEN', async () => {
    const proxyOnly = { CACHE: env.CACHE, UPSTREAM_GATE: env.UPSTREAM_GATE, UNVERIFIED_KEYS: env.UNVERIFIED_KEYS, PROXY_STATS: env.PROXY_STATS, UPSTREAM_URL: 'https://api.example.com/api/v1', ADMIN_TOKEN: 'proxy_only_admin_token', MCP_ALLOWED_HOSTS: 'mcp.example.com' };
    // The gates read the tests' upstream (the embedded origin, recorded): UPSTREAM_URL is never dialled.
    const upstream = new RecordingApi();
    useUpstreamForTests(upstream.upstream);
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`https://mcp.example.com${MCP_PATH}`), { fetch: fetchWith(proxyOnly), requestInit: { headers: { authorization: `Bearer ${KEYS.pro}` } } }));
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

  it('answers bad input with the SDK\'s errors, never a 500', async () => {
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
        params: fc.oneof(fc.constant(undefined), fc.record({ name: fc.constantFrom(...toolNames), arguments: fc.dictionary(fc.constantFrom('id', 'brand_id', 'market', 'days', 'from', 'prompt', 'x'), fc.jsonValue()) }, { requiredKeys: [] }), fc.jsonValue()),
      },
      { requiredKeys: ['jsonrpc'] },
    );
    const body = fc.oneof(message.map((m) => JSON.stringify(m)), fc.array(message, { maxLength: 3 }).map((m) => JSON.stringify(m)), fc.json(), fc.string());
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
