/**
 * A proxy-only deployment (the issue "A drop-in in front of the real
 * service"): only `UPSTREAM_URL` and `ADMIN_TOKEN`, with the bindings the
 * proxy needs (KV, the two Durable Objects, the rate-limiting binding); no D1,
 * no Queue, no signing or encryption secret, no Resend. It serves `/api/v1`
 * and the admin routes; the features that need more answer 404 naming what to
 * configure; the cron, the queue and the mail handlers only log; the first
 * request logs which features are on. Also the partial deployments between
 * that and the full one.
 *
 * The upstream is the tests' fake (test/proxy-upstream.ts), installed through
 * the gates' seam: `UPSTREAM_URL` names a service that is never dialled. (The
 * gates parse their own env, the test Worker's, which is why the seam and not
 * `UPSTREAM_URL` decides where they read.)
 */
import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidEnvError, parseEnv } from '../src/app/env';
import { featuresOf } from '../src/app/features';
import { API_BASE } from '../src/contract/operations';
import { FakeUpstream, freshKey, read, restoreUpstream, settled } from './proxy-upstream';
import worker from './worker';

const ADMIN_TOKEN = 'proxy_only_admin_token';

/** Exactly what the minimal deployment has: the proxy's bindings, UPSTREAM_URL and ADMIN_TOKEN. A new object per call: a fresh isolate's env. */
const proxyOnlyEnv = (): Env =>
  ({
    CACHE: env.CACHE,
    UPSTREAM_GATE: env.UPSTREAM_GATE,
    UNVERIFIED_KEYS: env.UNVERIFIED_KEYS,
    PROXY_STATS: env.PROXY_STATS,
    UPSTREAM_URL: 'https://api.example.com/api/v1',
    ADMIN_TOKEN,
  }) as unknown as Env;

/** The test Worker's full env without the named bindings and secrets. */
function fullEnvWithout(...names: string[]): Env {
  const copy: Record<string, unknown> = { ...(env as unknown as Record<string, unknown>) };
  for (const name of names) delete copy[name];
  return copy as unknown as Env;
}

async function call(testEnv: Env, path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch!(new Request(`https://edge.test${path}`, init) as Request<unknown, IncomingRequestCfProperties>, testEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

/** Every console line of `level` while `run` runs. */
async function logged(level: 'log' | 'error', run: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return lines;
}

afterEach(() => {
  restoreUpstream();
  vi.unstubAllGlobals();
});

describe('a proxy-only deployment: UPSTREAM_URL and ADMIN_TOKEN', () => {
  it('parses, with only the proxy on', () => {
    const config = parseEnv(proxyOnlyEnv());
    expect(config.DB).toBeUndefined();
    expect(config.SIGNING_SECRET).toBeUndefined();
    expect(featuresOf(config)).toMatchObject({ proxy: true, origin: false, reports: false, digests: false, mail: 'off' });
  });

  it('serves /api/v1 through the proxy and its cache', async () => {
    const up = new FakeUpstream().install();
    const testEnv = proxyOnlyEnv();
    const key = freshKey('proxy_only');
    const first = await read(await settled('/visibility', key, {}, { env: testEnv }));
    expect(first.status).toBe(200);
    expect(first.cache).toBe('MISS');
    expect(first.body?.brand_id).toBe(up.brandId);
    const second = await read(await settled('/visibility', key, {}, { env: testEnv }));
    expect(second.status).toBe(200);
    expect(second.cache).toBe('HIT');
    expect(up.calls).toBe(1);
    // The API's own errors still come from the proxy, not from the feature gate.
    expect((await read(await settled('/visibility', null, {}, { env: testEnv }))).status).toBe(401);
  });

  it('serves the admin routes behind its ADMIN_TOKEN', async () => {
    const testEnv = proxyOnlyEnv();
    const stats = await call(testEnv, '/admin/cache/stats', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(stats.status).toBe(200);
    expect(await stats.json()).toBeTypeOf('object');
    expect((await call(testEnv, '/admin/cache/stats')).status).toBe(401);
    expect((await call(testEnv, '/admin/cache/stats', { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } })).status).toBe(401);
  });

  it('answers the digests and the reports with 404 naming what to configure', async () => {
    const testEnv = proxyOnlyEnv();
    for (const [method, path] of [
      ['GET', '/digests/subscriptions'],
      ['POST', '/digests/subscriptions'],
      ['GET', '/digests/confirm?token=v1.a.b'],
    ] as const) {
      const response = await call(testEnv, path, { method, headers: { authorization: 'Bearer demo_pro_single' } });
      expect(response.status, path).toBe(404);
      expect(response.headers.get('x-request-id'), path).toBeTruthy();
      const error = await errorOf(response);
      expect(error.code).toBe('not_found');
      expect(error.message).toMatch(/^Digests are not configured on this deployment: set /);
      for (const name of ['DB', 'SIGNING_SECRET', 'ENCRYPTION_KEY', 'DIGEST_QUEUE']) expect(error.message, path).toContain(name);
    }
    for (const path of ['/reports/weekly', '/reports/weekly/send', '/reports/links', '/r/v1.a.b']) {
      const response = await call(testEnv, path, { headers: { authorization: 'Bearer demo_pro_single' } });
      expect(response.status, path).toBe(404);
      const error = await errorOf(response);
      expect(error.code).toBe('not_found');
      expect(error.message).toMatch(/^Reports are not configured on this deployment: set /);
      for (const name of ['DB', 'SIGNING_SECRET', 'ENCRYPTION_KEY']) expect(error.message, path).toContain(name);
      expect(error.message, path).not.toContain('DIGEST_QUEUE');
    }
    // No /dev/* without DEV_ROUTES = "on" (a deployment never has it).
    for (const [method, path] of [
      ['GET', '/dev/outbox'],
      ['POST', '/dev/digests/plan'],
    ] as const)
      expect((await errorOf(await call(testEnv, path, { method }))).message, path).toMatch(/^Nothing here/);
  });

  it("serves both OpenAPI documents: the API's and the product routes'", async () => {
    const testEnv = proxyOnlyEnv();
    for (const path of [`${API_BASE}/openapi.json`, '/openapi.json']) {
      const response = await call(testEnv, path);
      expect([path, response.status]).toEqual([path, 200]);
      expect(((await response.json()) as { openapi: string }).openapi).toMatch(/^3\.1/);
    }
  });

  it('mounts no embedded origin', async () => {
    const response = await call(proxyOnlyEnv(), `/origin${API_BASE}/visibility`, { headers: { authorization: 'Bearer demo_pro_single' } });
    expect(response.status).toBe(404);
    expect((await errorOf(response)).message).toMatch(/^Nothing here/);
  });

  it('runs the cron and the queue handlers without throwing and without sending anything', async () => {
    const outbound: string[] = [];
    vi.stubGlobal('fetch', async (input: RequestInfo | URL) => {
      outbound.push(String(input instanceof Request ? input.url : input));
      throw new Error('no outbound request expected');
    });
    const sendsBefore = await env.DB.prepare('SELECT COUNT(*) AS n FROM digest_sends').first<{ n: number }>();
    const testEnv = proxyOnlyEnv();
    const job = { v: 1, iso_week: '2026-W48', week_monday: '2026-11-23', group_key: '1:1:abcdef', brand_id: 1, market_id: 1 };

    const cronLines = await logged('log', async () => {
      const ctx = createExecutionContext();
      await worker.scheduled!(createScheduledController({ scheduledTime: new Date('2026-11-23T08:00:00Z'), cron: '0 * * * *' }), testEnv, ctx);
      await waitOnExecutionContext(ctx);
    });
    // The first event of this env also logs its features (see the last test of this block).
    const cron = cronLines.filter((line) => !line.includes('"msg":"features"')).map((line) => JSON.parse(line) as unknown);
    expect(cron).toEqual([{ msg: 'digests are off: the cron run planned nothing', cron: '0 * * * *', needs: expect.stringContaining('DIGEST_QUEUE') }]);

    for (const queue of ['digest-sends', 'digest-sends-dlq']) {
      const batch = createMessageBatch(queue, [{ id: `proxy-only-${queue}`, timestamp: new Date(), attempts: 1, body: job }]);
      const ctx = createExecutionContext();
      const lines = await logged('error', () => worker.queue!(batch as MessageBatch<unknown>, testEnv, ctx));
      const result = await getQueueResult(batch, ctx);
      // Nothing processed, nothing acknowledged: the Queue delivers the batch again later.
      expect(result.outcome).toBe('ok');
      expect(result.ackAll).toBe(false);
      expect(result.explicitAcks).toEqual([]);
      expect(result.retryBatch.retry).toBe(true);
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'digests are off: the batch is left to the Queue to retry', queue, messages: 1 });
    }

    expect(outbound).toEqual([]);
    const sendsAfter = await env.DB.prepare('SELECT COUNT(*) AS n FROM digest_sends').first<{ n: number }>();
    expect(sendsAfter?.n).toBe(sendsBefore?.n);
  });

  it('rejects mail to the unsubscribe address', async () => {
    const rejected: string[] = [];
    const message = { headers: new Headers({ subject: 'unsubscribe v1.a.b' }), setReject: (reason: string) => rejected.push(reason) };
    await worker.email!(message as unknown as ForwardableEmailMessage, proxyOnlyEnv(), createExecutionContext());
    expect(rejected).toEqual(['This address takes no mail.']);
  });

  it('logs once, at the first request, which features are on and what each one off needs, and no secret', async () => {
    const testEnv = proxyOnlyEnv();
    new FakeUpstream().install();
    const lines = await logged('log', async () => {
      await call(testEnv, `${API_BASE}/visibility`, { headers: { authorization: `Bearer ${freshKey('log')}` } });
      await call(testEnv, '/reports/weekly');
      await call(testEnv, `/admin/cache/stats`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    });
    const features = lines.filter((line) => line.includes('"msg":"features"'));
    expect(features).toHaveLength(1);
    const line = JSON.parse(features[0]!) as { on: string[]; off: Record<string, string>; mail: string; mcp: string };
    expect(line.on).toEqual(['proxy', 'admin']);
    expect(Object.keys(line.off).sort()).toEqual(['alerts', 'digests', 'exports', 'origin', 'reports']);
    expect(line.off.origin).toMatch(/UPSTREAM_URL is set/);
    expect(line.off.reports).toBe('set DB (the D1 binding), SIGNING_SECRET (the secret), ENCRYPTION_KEY (the secret)');
    expect(line.off.digests).toBe('set DB (the D1 binding), SIGNING_SECRET (the secret), ENCRYPTION_KEY (the secret), DIGEST_QUEUE (the Queue binding)');
    expect(line.off.alerts).toBe('set DB (the D1 binding), SIGNING_SECRET (the secret), ENCRYPTION_KEY (the secret), ALERT_QUEUE (the Queue binding)');
    expect(line.mail).toBe('off');
    // No OAUTH_KV: /mcp takes only a pasted key, and the line says what turns OAuth on.
    expect(line.mcp).toMatch(/^the API key in Authorization only: OAuth is off/);
    expect(line.mcp).toContain('bind OAUTH_KV');
    expect(features[0]).not.toContain(ADMIN_TOKEN);
    expect(features[0]).not.toContain('api.example.com');
  });
});

describe('between proxy-only and the full deployment', () => {
  it('the embedded origin as upstream needs D1, and says so', () => {
    const noUpstream = { ...(proxyOnlyEnv() as unknown as Record<string, unknown>), UPSTREAM_URL: '' } as unknown as Env;
    expect(() => parseEnv(noUpstream)).toThrow(InvalidEnvError);
    expect(() => parseEnv(noUpstream)).toThrow(/DB binding missing: with UPSTREAM_URL unset the upstream is the embedded origin/);
    const withDb = parseEnv({ ...(noUpstream as unknown as Record<string, unknown>), DB: env.DB } as unknown as Env);
    expect(featuresOf(withDb)).toMatchObject({ origin: true, reports: false, digests: false });
  });

  it('the embedded origin with D1 and no secrets: /api/v1 and /origin/api/v1 answer, the reports do not', async () => {
    const testEnv = { ...(proxyOnlyEnv() as unknown as Record<string, unknown>), UPSTREAM_URL: '', DB: env.DB } as unknown as Env;
    const origin = await call(testEnv, `/origin${API_BASE}/visibility`, { headers: { authorization: 'Bearer demo_pro_single' } });
    expect(origin.status).toBe(200);
    const proxied = await call(testEnv, `${API_BASE}/visibility`, { headers: { authorization: 'Bearer demo_pro_single' } });
    expect(proxied.status).toBe(200);
    const report = await call(testEnv, '/reports/weekly', { headers: { authorization: 'Bearer demo_pro_single' } });
    expect(report.status).toBe(404);
    expect((await errorOf(report)).message).toBe('Reports are not configured on this deployment: set SIGNING_SECRET (the secret), ENCRYPTION_KEY (the secret) (docs/deploy.md).');
  });

  it('without the digest Queue: reports on, digests off and naming only DIGEST_QUEUE', async () => {
    const testEnv = fullEnvWithout('DIGEST_QUEUE');
    expect(featuresOf(parseEnv(testEnv))).toMatchObject({ origin: true, reports: true, digests: false, mail: 'dev outbox' });
    const report = await call(testEnv, '/reports/weekly?format=text', { headers: { authorization: 'Bearer demo_pro_single' } });
    expect(report.status).toBe(200);
    const subscribe = await call(testEnv, '/digests/subscriptions', {
      method: 'POST',
      headers: { authorization: 'Bearer demo_pro_single', 'content-type': 'application/json' },
      body: '{"email":"noqueue@example.com"}',
    });
    expect(subscribe.status).toBe(404);
    expect((await errorOf(subscribe)).message).toBe('Digests are not configured on this deployment: set DIGEST_QUEUE (the Queue binding) (docs/deploy.md).');
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM digest_subscriptions WHERE email = 'noqueue@example.com'").first<{ n: number }>())?.n).toBe(0);
  });

  it('without the alert Queue: digests on, alerts off; subscribing to alerts is a 400 naming kinds, and nothing is stored', async () => {
    const testEnv = fullEnvWithout('ALERT_QUEUE');
    expect(featuresOf(parseEnv(testEnv))).toMatchObject({ digests: true, alerts: false });
    const subscribe = await call(testEnv, '/digests/subscriptions', {
      method: 'POST',
      headers: { authorization: 'Bearer demo_pro_single', 'content-type': 'application/json' },
      body: '{"email":"noalerts@example.com","kinds":["alerts"]}',
    });
    expect(subscribe.status).toBe(400);
    expect(await errorOf(subscribe)).toMatchObject({ code: 'invalid_parameter', param: 'kinds', message: expect.stringContaining('ALERT_QUEUE') });
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM digest_subscriptions WHERE email = 'noalerts@example.com'").first<{ n: number }>())?.n).toBe(0);
  });

  it('an empty secret is an unset one: the features it turns on are off', () => {
    const features = featuresOf(parseEnv({ ...(env as unknown as Record<string, unknown>), SIGNING_SECRET: '' } as unknown as Env));
    expect(features).toMatchObject({ proxy: true, origin: true, reports: false, digests: false });
    expect(features.off.reports).toBe('set SIGNING_SECRET (the secret)');
  });

  it('the full deployment turns everything on', () => {
    expect(featuresOf(parseEnv(env))).toMatchObject({ proxy: true, origin: true, reports: true, digests: true, mail: 'dev outbox', off: {} });
  });
});
