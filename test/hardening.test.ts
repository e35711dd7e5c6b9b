/**
 * The holes an attack found (issue "Mail abuse, dev routes, revoked keys"),
 * closed, through the Worker:
 *
 * - `/dev/*` exists only with `DEV_ROUTES = "on"`, never because a secret is
 *   missing; without Resend and without dev routes, mail is recorded in D1,
 *   readable by no route, and each send says so in the logs.
 * - A public dev secret (`npm run dev`'s `.dev.vars`) outside dev is a start-up error.
 * - Every malformed percent-encoding in a path parameter is a 400, never a 500.
 * - `X-Request-Id` on every response of every route table entry (and 404s,
 *   405s, preflights, a feature that is off, a misconfigured env).
 * - Bodies are refused by size before they are read; send-now checks the key
 *   before its body.
 * - No token, URL, key or address in the Worker's own logs during the link flows.
 *
 * The origin's abuse limits are in test/proxy-abuse.test.ts.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EXAMPLE_SECRETS } from '../src/app/env';
import { errorText } from '../src/lib/log';
import { documentedRoutes, outboxRoutes, productRoutes } from '../src/app/routes';
import { errorBodySchema } from '../src/contract/schemas/errors';
import { API_BASE, examplePath, operationList } from '../src/contract/operations';
import { digestDevRoutes } from '../src/digests';
import type { Method } from '../src/lib/router';
import { adminRoutes } from '../src/proxy/admin';
import { reportRoutes } from '../src/reports';
import { subscriptionRoutes } from '../src/subscriptions';
import { clearDigests } from './digests-helpers';
import { clearReports } from './reports-helpers';
import { useServicesForTests } from './seams';
import worker from './worker';

const BASE = 'https://edge.test';

/** The test Worker's env with some settings changed: a new object, so parsed (and its features line logged) afresh. */
const envWith = (extra: Record<string, unknown>): Env => ({ ...(env as unknown as Record<string, unknown>), ...extra }) as unknown as Env;
/** A deployment's env: no dev routes, no Resend (the test env has none). */
const deployedEnv = () => envWith({ DEV_ROUTES: '' });

/** Through the Worker's fetch handler with `testEnv`, its background work finished. */
async function fetchWith(testEnv: Env, input: string | Request, init: RequestInit = {}): Promise<Response> {
  const request = typeof input === 'string' ? new Request(`${BASE}${input}`, init) : input;
  const ctx = createExecutionContext();
  const response = await worker.fetch!(request as Request<unknown, IncomingRequestCfProperties>, testEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

type Level = 'log' | 'info' | 'warn' | 'error' | 'debug';
const LEVELS: Level[] = ['log', 'info', 'warn', 'error', 'debug'];

/** Every console line, of every level, while `run` runs. */
async function logsOf<T>(run: () => Promise<T>): Promise<{ result: T; lines: { level: Level; text: string }[] }> {
  const lines: { level: Level; text: string }[] = [];
  const spies = LEVELS.map((level) =>
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      lines.push({ level, text: args.map((a) => (typeof a === 'string' ? a : (JSON.stringify(a) ?? String(a)))).join(' ') });
    }),
  );
  try {
    return { result: await run(), lines };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

const subscribeInit = (email: string, key = 'demo_pro_single'): RequestInit => ({
  method: 'POST',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ email, market: 'us' }),
});

async function outboxRows(to: string) {
  const { results } = await env.DB.prepare('SELECT kind, subject, text, html FROM digest_outbox WHERE to_addr = ? ORDER BY id')
    .bind(to)
    .all<{ kind: string; subject: string; text: string; html: string }>();
  return results;
}

const TOKEN = /v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g;

beforeEach(async () => {
  await clearDigests();
  await clearReports();
});
afterEach(() => useServicesForTests());

describe('dev routes: only with DEV_ROUTES = "on"', () => {
  it('a deployment without Resend has no /dev/*: the outbox and the planner are 404, and nothing is planned', async () => {
    const deployed = deployedEnv();
    for (const [method, path] of [
      ['GET', '/dev/outbox'],
      ['GET', '/dev/outbox?format=json'],
      ['GET', '/dev/outbox/1'],
      ['HEAD', '/dev/outbox'],
      ['POST', '/dev/digests/plan?at=2026-11-23T08:00:00Z'],
    ] as const) {
      const response = await fetchWith(deployed, path, { method });
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.headers.get('x-request-id')).toBeTruthy();
      if (method !== 'HEAD') expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^Nothing here/);
    }
    expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM digest_sends').first<{ n: number }>())?.n).toBe(0);
  });

  it('the tests\' env (DEV_ROUTES = "on") has them', async () => {
    expect((await SELF.fetch(`${BASE}/dev/outbox?format=json`)).status).toBe(200);
    expect((await SELF.fetch(`${BASE}/dev/digests/plan?at=nonsense`, { method: 'POST' })).status).toBe(400);
  });

  it('without Resend and without dev routes, mail is recorded in D1, and each send logs that it was not sent (no address, no link)', async () => {
    const deployed = deployedEnv();
    const email = 'unsent@example.com';
    const { result: response, lines } = await logsOf(() => fetchWith(deployed, '/digests/subscriptions', subscribeInit(email)));
    expect(response.status).toBe(201);
    const [mail] = await outboxRows(email);
    expect(mail?.kind).toBe('confirm');
    const warnings = lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!.text)).toEqual({ msg: expect.stringMatching(/^mail recorded, not sent: RESEND_API_KEY is unset/), emails: 1, kinds: { confirm: 1 } });
    // The first request of this env said where mail goes, loudly.
    const features = lines.map((l) => l.text).find((text) => text.includes('"msg":"features"'));
    expect(JSON.parse(features!).mail).toMatch(/^NOT SENT: RESEND_API_KEY is unset/);
    expect(JSON.parse(features!)).not.toHaveProperty('dev_routes');
    for (const line of lines) {
      expect(line.text).not.toContain(email);
      expect(line.text).not.toMatch(TOKEN);
    }
  });

  it('in dev the features line says the dev routes are open, and mail sent to the outbox logs no warning', async () => {
    const dev = envWith({ DEV_ROUTES: 'on' });
    const { result: response, lines } = await logsOf(() => fetchWith(dev, '/digests/subscriptions', subscribeInit('dev-outbox@example.com')));
    expect(response.status).toBe(201);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
    const features = JSON.parse(lines.map((l) => l.text).find((text) => text.includes('"msg":"features"'))!);
    expect(features.mail).toMatch(/^the dev outbox in D1, readable at \/dev\/outbox/);
    expect(features.dev_routes).toMatch(/without authentication/);
  });
});

describe('example secrets outside dev', () => {
  it('each is a start-up error naming the secret (500 to the caller, the name in the log, never the value)', async () => {
    for (const [name, example] of Object.entries(EXAMPLE_SECRETS)) {
      const { result: response, lines } = await logsOf(() => fetchWith(envWith({ DEV_ROUTES: '', [name]: example }), '/api/v1/visibility', { headers: { 'x-request-id': 'req-example-secret' } }));
      expect(response.status, name).toBe(500);
      expect(response.headers.get('x-request-id')).toBe('req-example-secret');
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('internal_error');
      const logged = lines.map((l) => l.text).join('\n');
      expect(logged).toContain(`InvalidEnvError: The secret ${name} is the public dev value that npm run dev writes into .dev.vars`);
      expect(logged).not.toContain(example);
    }
    // In dev they are fine.
    expect((await fetchWith(envWith({ DEV_ROUTES: 'on', ...EXAMPLE_SECRETS }), '/openapi.json')).status).toBe(200);
  });
});

describe('malformed percent-encoding in a path is a 400, on every route with a path parameter', () => {
  const MALFORMED = ['%ZZ', '%', '%E0%A4%A'];

  it("DELETE /digests/subscriptions/{id}: 400 invalid_parameter naming `id`, in the API's error shape", async () => {
    for (const bad of MALFORMED) {
      for (const key of ['demo_pro_single', null]) {
        const response = await SELF.fetch(`${BASE}/digests/subscriptions/${bad}`, { method: 'DELETE', headers: key ? { authorization: `Bearer ${key}` } : {} });
        expect([bad, response.status]).toEqual([bad, 400]);
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(response.headers.get('x-request-id')).toBeTruthy();
        const body = await response.json();
        expect(errorBodySchema().parse(body)).toEqual(body);
        expect((body as { error: { code: string; param: string } }).error).toMatchObject({ code: 'invalid_parameter', param: 'id' });
      }
      // Another method on the same path is still 405 with the path's Allow.
      const other = await SELF.fetch(`${BASE}/digests/subscriptions/${bad}`);
      expect(other.status).toBe(405);
      expect(other.headers.get('allow')).toBe('DELETE');
    }
  });

  it('the pages (/r/{token}, /dev/outbox/{id}): a 400 page', async () => {
    for (const bad of MALFORMED) {
      for (const [path, says] of [
        [`/r/${bad}`, 'This report link is not valid'],
        [`/r/v1.abc.def${bad}`, 'This report link is not valid'],
        [`/dev/outbox/${bad}`, 'not valid percent-encoding'],
      ] as const) {
        const response = await SELF.fetch(`${BASE}${path}`);
        expect([path, response.status]).toEqual([path, 400]);
        expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(response.headers.get('x-request-id')).toBeTruthy();
        expect(await response.text()).toContain(says);
        const head = await SELF.fetch(`${BASE}${path}`, { method: 'HEAD' });
        expect([path, head.status, await head.text()]).toEqual([path, 400, '']);
      }
    }
  });

  it("/api/v1 and /origin/api/v1 (the contract's path parameters), and the admin: 400 or 404, never a 500", async () => {
    for (const bad of MALFORMED) {
      for (const base of [API_BASE, `/origin${API_BASE}`]) {
        for (const [path, param] of [
          [`/topics/${bad}`, 'id'],
          [`/competitors/${bad}`, 'name'],
        ] as const) {
          const response = await SELF.fetch(`${BASE}${base}${path}`, { headers: { authorization: 'Bearer demo_pro_single' } });
          expect([base + path, response.status]).toEqual([base + path, 400]);
          expect(((await response.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'invalid_parameter', param });
          expect(response.headers.get('x-request-id')).toBeTruthy();
        }
      }
      // The admin's paths have no parameters: a malformed one names no admin endpoint.
      for (const token of [null, env.ADMIN_TOKEN]) {
        const response = await SELF.fetch(`${BASE}/admin/cache/${bad}`, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {} });
        expect(response.status).toBe(404);
        expect(response.headers.get('x-request-id')).toBeTruthy();
        expect(errorBodySchema().safeParse(await response.json()).success).toBe(true);
      }
      // A path that names no route is 404, whatever its encoding.
      expect((await SELF.fetch(`${BASE}/digests/${bad}`)).status).toBe(404);
    }
  });
});

describe('X-Request-Id on every response of every route', () => {
  /** Every route table the Worker mounts beside /api/v1, with a value for each path parameter. */
  const tables = { subscriptionRoutes, reportRoutes, digestDevRoutes, outboxRoutes, adminRoutes, productRoutes } as const;
  const entries = Object.entries(tables).flatMap(([table, routes]) =>
    (routes as readonly { path: string; methods: Partial<Record<Method, unknown>> }[]).map((route) => ({
      table,
      path: route.path.replace(/\{\w+\}/g, 'x'),
      methods: Object.keys(route.methods) as Method[],
    })),
  );
  /** Requests that would do work (plan the digests now) get a parameter that stops them at validation. */
  const query = (path: string) => (path === '/dev/digests/plan' ? '?at=nonsense' : '');

  async function expectId(what: string, response: Response, id: string) {
    expect(response.headers.get('x-request-id'), `${what} (${response.status})`).toBe(id);
    expect(response.status, what).not.toBe(500);
  }

  it('each method of each route table entry, HEAD with GET, and a method it does not take (405), without and with a key', async () => {
    expect(entries.length).toBeGreaterThanOrEqual(15);
    let n = 0;
    for (const { table, path, methods } of entries) {
      const asked = [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'PATCH', 'OPTIONS'];
      for (const method of asked) {
        for (const authorization of [undefined, 'Bearer demo_pro_single']) {
          const id = `req-${++n}`;
          const response = await SELF.fetch(`${BASE}${path}${query(path)}`, { method, headers: { 'x-request-id': id, ...(authorization ? { authorization } : {}) } });
          await expectId(`${table}: ${method} ${path}${authorization ? ' (key)' : ''}`, response, id);
          await response.arrayBuffer();
        }
      }
    }
  });

  it('/api/v1 and /origin/api/v1: every operation, the documents, 404s, 405s and a CORS preflight', async () => {
    const corsEnv = envWith({ CORS_ORIGINS: 'https://dash.example.com' });
    let n = 0;
    const paths = [...operationList.map((op) => examplePath(op)), '/openapi.json', '/nothing'];
    for (const base of [API_BASE, `/origin${API_BASE}`]) {
      for (const path of paths) {
        for (const method of ['GET', 'HEAD', 'POST']) {
          const id = `api-${++n}`;
          const response = await SELF.fetch(`${BASE}${base}${path}`, { method, headers: { 'x-request-id': id, authorization: 'Bearer demo_pro_single' } });
          await expectId(`${method} ${base}${path}`, response, id);
          await response.arrayBuffer();
        }
      }
    }
    const id = 'preflight-1';
    const preflight = await fetchWith(corsEnv, `${API_BASE}/visibility`, {
      method: 'OPTIONS',
      headers: { 'x-request-id': id, origin: 'https://dash.example.com', 'access-control-request-method': 'GET' },
    });
    await expectId('preflight', preflight, id);
  });

  // documentedRoutes, /mcp and its OAuth among them, each path also with a slash after it (`/mcp/` redirects, 308).
  it('every documented route and its path with a trailing slash, redirects included; JSON 404s are never cached', async () => {
    let n = 0;
    const paths = documentedRoutes.map((route) => route.path.replace(/\{\w+\}/g, 'x')).flatMap((path) => [path, `${path}/`]);
    const seen = new Set<number>();
    for (const path of [...paths, `${API_BASE}/nothing`, `/origin${API_BASE}/nothing`]) {
      for (const method of ['GET', 'POST']) {
        const id = `doc-${++n}`;
        const response = await SELF.fetch(`${BASE}${path}`, { method, redirect: 'manual', headers: { 'x-request-id': id, authorization: 'Bearer demo_pro_single' } });
        await expectId(`${method} ${path}`, response, id);
        seen.add(response.status);
        if (response.status === 404 && response.headers.get('content-type')?.startsWith('application/json'))
          expect([path, response.headers.get('cache-control')]).toEqual([path, expect.stringContaining('no-store')]);
        await response.arrayBuffer();
      }
    }
    expect(seen).toContain(308);
    expect(seen).toContain(404);
  });

  it('404s anywhere, the documents, a feature that is off, and a misconfigured env', async () => {
    let n = 0;
    for (const path of ['/', '/nothing', '/digests/nothing', '/reports/nothing', '/r', '/dev/nothing', '/admin/cache/nothing', '/origin/nothing', '/openapi.json']) {
      const id = `misc-${++n}`;
      await expectId(path, await SELF.fetch(`${BASE}${path}`, { headers: { 'x-request-id': id } }), id);
    }
    const reportsOff = envWith({ SIGNING_SECRET: '' });
    for (const path of ['/reports/weekly', '/digests/subscriptions', '/r/v1.a.b']) {
      const id = `off-${++n}`;
      const response = await fetchWith(reportsOff, path, { headers: { 'x-request-id': id } });
      expect(response.status).toBe(404);
      await expectId(`off: ${path}`, response, id);
    }
    const { result: broken } = await logsOf(() => fetchWith(envWith({ ADMIN_TOKEN: '' }), '/reports/weekly', { headers: { 'x-request-id': 'broken-1' } }));
    expect(broken.status).toBe(500);
    expect(broken.headers.get('x-request-id')).toBe('broken-1');
  });
});

describe('bodies: refused by size before they are read; the key before the body', () => {
  const MB10 = 10 * 1024 * 1024;
  const CHUNK = 64 * 1024;

  /** A body of `total` bytes of `fill`, made on demand: `pulled()` says how much of it the Worker asked for. */
  function lazyBody(total: number, fill = ' ') {
    let produced = 0;
    const chunk = new TextEncoder().encode(fill.repeat(CHUNK));
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (produced >= total) return controller.close();
        produced += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    return { stream, pulled: () => produced };
  }

  async function post(path: string, o: { key?: string | null; admin?: boolean; declared?: boolean; fill?: string }) {
    const body = lazyBody(MB10, o.fill);
    const headers = new Headers({ 'content-type': 'application/json' });
    if (o.key) headers.set('authorization', `Bearer ${o.key}`);
    if (o.declared) headers.set('content-length', String(MB10));
    const request = new Request(`${BASE}${path}`, { method: 'POST', headers, body: body.stream, duplex: 'half' } as RequestInit);
    const response = await fetchWith(env, request);
    const error = response.status === 204 ? undefined : ((await response.json()) as { error?: { code: string; param?: string } }).error;
    return { status: response.status, error, pulled: body.pulled(), requestId: response.headers.get('x-request-id') };
  }

  it('send-now: a missing or unknown key with a 10 MB body is 401 without reading it', async () => {
    for (const declared of [true, false]) {
      for (const key of [null, `random_${crypto.randomUUID()}`]) {
        const answer = await post('/reports/weekly/send?brand_id=1&market=us', { key, declared });
        expect({ declared, key: key && 'random', status: answer.status, code: answer.error?.code }).toEqual({ declared, key: key && 'random', status: 401, code: 'invalid_api_key' });
        // At most the one chunk a stream makes ready before anyone reads it.
        expect(answer.pulled).toBeLessThanOrEqual(CHUNK);
        expect(answer.requestId).toBeTruthy();
      }
    }
  });

  it('send-now with a good key: a body is 400 by its declared length unread, or after at most its first chunk', async () => {
    for (const declared of [true, false]) {
      const answer = await post('/reports/weekly/send?brand_id=1&market=us', { key: 'demo_pro_single', declared });
      expect({ declared, status: answer.status, error: answer.error }).toEqual({ declared, status: 400, error: expect.objectContaining({ code: 'invalid_parameter', param: 'body' }) });
      expect(answer.pulled).toBeLessThanOrEqual(2 * CHUNK);
    }
    expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM report_sends').first<{ n: number }>())?.n).toBe(0);
  });

  it('the JSON bodies (subscribe, report links), the admin purge and discovery: 400 past their limit, read no further', async () => {
    for (const declared of [true, false]) {
      for (const path of ['/digests/subscriptions', '/reports/links']) {
        const answer = await post(path, { key: 'demo_pro_single', declared, fill: '{' });
        expect({ path, declared, status: answer.status, param: answer.error?.param }).toEqual({ path, declared, status: 400, param: 'body' });
        expect(answer.pulled).toBeLessThanOrEqual(2 * CHUNK);
      }
      for (const path of ['/admin/cache/purge', '/admin/upstream/discover']) {
        const admin = await post(path, { key: env.ADMIN_TOKEN, declared });
        expect({ path, declared, status: admin.status, param: admin.error?.param }).toEqual({ path, declared, status: 400, param: 'body' });
        expect(admin.pulled).toBeLessThanOrEqual(2 * CHUNK);
        // Without the token: 401, the body unread.
        const anonymous = await post(path, { key: null, declared });
        expect(anonymous.status).toBe(401);
        expect(anonymous.pulled).toBeLessThanOrEqual(CHUNK);
      }
    }
  });
});

describe("the Worker's own logs", () => {
  it('hold no token, URL, API key or address through the confirm, unsubscribe, subscribe-again and report-link flows, failures included', async () => {
    // One address per pass and step: the confirmation caps count per address.
    const emails = ['no-logs-1@example.com', 'no-logs-2@example.com', 'no-logs-3@example.com', 'no-logs-4@example.com'];
    const key = 'demo_pro_single';
    const deployed = deployedEnv();
    const seen = new Set<string>();
    const collect = (text: string) => {
      for (const token of text.match(TOKEN) ?? []) seen.add(token);
      return text;
    };
    const pathOf = (url: string) => {
      const u = new URL(url.replace(/&amp;/g, '&'));
      return `${u.pathname}${u.search}`;
    };

    const { lines } = await logsOf(async () => {
      for (const [pass, testEnv] of [deployed, env].entries()) {
        const email = emails[2 * pass]!;
        expect((await fetchWith(testEnv, '/digests/subscriptions', subscribeInit(email))).status).toBe(201);
        const [confirmation] = await outboxRows(email);
        const text = collect(confirmation!.text + confirmation!.html);
        const confirmUrl = /https?:\/\/\S+\/digests\/confirm\?token=[\w.-]+/.exec(text)![0];
        const unsubscribeUrl = /https?:\/\/\S+\/digests\/unsubscribe\?token=[\w.-]+/.exec(text)![0];
        // GET shows the confirm page (or confirms); POST confirms where confirming is a POST. Either way, logs are what is checked.
        for (const method of ['HEAD', 'GET', 'POST']) collect(await (await fetchWith(testEnv, pathOf(confirmUrl), { method })).text());
        collect(await (await fetchWith(testEnv, pathOf(unsubscribeUrl))).text());
        const unsubscribed = collect(
          await (await fetchWith(testEnv, pathOf(unsubscribeUrl), { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).text(),
        );
        const again = /action="(\/digests\/resubscribe\?token=[^"]+)"/.exec(unsubscribed)?.[1];
        if (again) {
          collect(await (await fetchWith(testEnv, pathOf(`${BASE}${again}`))).text());
          collect(await (await fetchWith(testEnv, pathOf(`${BASE}${again}`), { method: 'POST' })).text());
        }
        // Tokens that fail: forged, cut, badly encoded, of another purpose.
        const confirmToken = /token=([\w.-]+)/.exec(confirmUrl)![1]!;
        for (const bad of [`${confirmToken}x`, confirmToken.slice(0, -5), `${confirmToken}%ZZ`]) {
          await fetchWith(testEnv, `/digests/confirm?token=${bad}`);
          await fetchWith(testEnv, `/digests/unsubscribe?token=${bad}`, { method: 'POST' });
          await fetchWith(testEnv, `/r/${bad}`);
        }
        // A report link: minted, read in each format, and the report by key.
        const minted = await fetchWith(testEnv, '/reports/links', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ market: 'us' }),
        });
        expect(minted.status).toBe(201);
        const link = collect(((await minted.json()) as { link: { url: string } }).link.url);
        for (const format of ['', '?format=json', '?format=text']) expect((await fetchWith(testEnv, `${pathOf(link)}${format}`)).status).toBe(200);
        expect((await fetchWith(testEnv, '/reports/weekly?market=us&format=json', { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
        // Failures that log: the mail service refuses the confirmation email.
        useServicesForTests({ mailer: { name: 'resend', sendBatch: async () => ({ ok: false, retryable: true, status: 500, code: 'application_error', message: 'refused' }) } });
        expect((await fetchWith(testEnv, '/digests/subscriptions', subscribeInit(emails[2 * pass + 1]!))).status).toBe(502);
        useServicesForTests();
      }
    });

    expect(seen.size).toBeGreaterThanOrEqual(4);
    // Something was logged (the features lines, the unsent-mail warnings, the failed email): and none of it is a secret.
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const { level, text } of lines) {
      for (const token of seen) expect(text, level).not.toContain(token);
      expect(text, level).not.toMatch(TOKEN);
      expect(text, level).not.toMatch(/token=|https?:\/\/|Bearer|demo_pro_single/i);
      for (const email of emails) expect(text, level).not.toContain(email);
    }
  });
});

it("errorText keeps an exception's message and drops the URLs, tokens, credentials and query values it quotes", () => {
  const text = errorText(new TypeError('Invalid URL: https://edge.example.com/digests/confirm?token=v1.eyJwIjoi.c2ln (Bearer demo_pro_single) /r/v1.abc.def?format=json'));
  expect(text).toBe('TypeError: Invalid URL: <url> (Bearer <redacted>) /r/<token>?format=<redacted>');
  expect(errorText('Invalid `to`: ada.lovelace+digest@mail.example.co.uk refused')).toBe('Invalid `to`: <address> refused');
  expect(errorText('x'.repeat(2000))).toHaveLength(500);
});
