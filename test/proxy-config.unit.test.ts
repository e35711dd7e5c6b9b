/** The env schema, CORS and the proxy handler called directly with a made env and context. */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidEnvError, MissingSecretError, parseEnv } from '../src/app/env';
import { featuresOf } from '../src/app/features';
import { apiFor, handleProxy, type ProxyRuntime, upstreamConfig } from '../src/proxy';
import { FakeUpstream, freshKey, restoreUpstream } from './proxy-upstream';

afterEach(() => restoreUpstream());

/** The proxy's runtime over a made context: the real clock, background work in `ctx`. */
const runtime = (ctx: ExecutionContext = createExecutionContext()): ProxyRuntime => ({ now: () => new Date(), waitUntil: (work) => ctx.waitUntil(work) });

describe('env', () => {
  it('names a missing secret', () => {
    const broken = { ...env, ADMIN_TOKEN: '' } as unknown as Env;
    expect(() => parseEnv(broken)).toThrow(MissingSecretError);
    expect(() => parseEnv(broken)).toThrow(/ADMIN_TOKEN/);
  });

  it('parses vars once, with their defaults', () => {
    const config = parseEnv({ ...env, CORS_ORIGINS: 'https://a.example, https://b.example', TTL_WINDOWED: '60', UPSTREAM_URL: '' } as unknown as Env);
    expect(config.CORS_ORIGINS).toEqual(['https://a.example', 'https://b.example']);
    expect(config.TTL_WINDOWED).toBe(60);
    expect(config.UPSTREAM_URL).toBeUndefined();
    expect(() => parseEnv({ ...env, UPSTREAM_URL: 'ftp://x' } as unknown as Env)).toThrow(/UPSTREAM_URL/);
  });

  it('bounds an upstream answer by UPSTREAM_MAX_BYTES: 4 MiB unset, at least 1 KiB, at most 16 MiB', () => {
    const limitOf = (value: string) => upstreamConfig(parseEnv({ ...env, UPSTREAM_MAX_BYTES: value } as unknown as Env)).maxBytes;
    expect(limitOf('')).toBe(4 * 1024 * 1024);
    expect(limitOf('1048576')).toBe(1024 * 1024);
    for (const bad of ['1mb', '-1', '1000', String(16 * 1024 * 1024 + 1)]) expect(() => limitOf(bad), bad).toThrow(/UPSTREAM_MAX_BYTES/);
  });

  it('takes a deployment without the digest Queue, with the digests off (test/deploy-proxy-only.test.ts has the rest)', () => {
    const { DIGEST_QUEUE: _, ...withoutQueue } = env as unknown as Record<string, unknown>;
    const config = parseEnv(withoutQueue as unknown as Env);
    expect(config.DIGEST_QUEUE).toBeUndefined();
    expect(featuresOf(config)).toMatchObject({ reports: true, digests: false, off: { digests: 'set DIGEST_QUEUE (the Queue binding)' } });
  });

  it('says what is wrong with a var, in the words an operator reads', () => {
    const problem = (vars: Record<string, unknown>) => {
      try {
        parseEnv({ ...env, ...vars } as unknown as Env);
      } catch (error) {
        return error instanceof InvalidEnvError ? error.message : `not an InvalidEnvError: ${String(error)}`;
      }
      return 'accepted';
    };
    expect(problem({ TTL_FIXED: '5m' })).toBe('Environment variable or binding TTL_FIXED must be a whole number.');
    expect(problem({ UPSTREAM_MAX_BYTES: '10' })).toBe('Environment variable or binding UPSTREAM_MAX_BYTES must be at least 1024.');
    expect(problem({ PUBLIC_URL: 'mailto:a@example.com' })).toBe('Environment variable or binding PUBLIC_URL must be an http(s) URL.');
    expect(problem({ DEV_ROUTES: 'yes' })).toBe('Environment variable or binding DEV_ROUTES must be "on" (dev only: /dev/* routes without authentication) or empty.');
    expect(problem({ MCP_ALLOWED_HOSTS: 'https://edge.example.com' })).toMatch(/^Environment variable or binding MCP_ALLOWED_HOSTS must be host names without scheme or port/);
    expect(problem({ CACHE: undefined })).toBe('Environment variable or binding CACHE binding missing.');
    expect(problem({ RESEND_API_KEY: 're_x', DIGEST_FROM: '' })).toMatch(/^Environment variable or binding DIGEST_FROM must be set/);
    expect(problem({ RESEND_API_KEY: 're_x', DIGEST_FROM: 'a@example.com', PUBLIC_URL: 'http://edge.example.com' })).toMatch(
      /^Environment variable or binding PUBLIC_URL must be the Worker's public https address/,
    );
    expect(parseEnv({ ...env, MCP_ALLOWED_HOSTS: ' Edge.Example.com ,mcp.example.org', PUBLIC_URL: ' https://edge.example.com ' } as unknown as Env)).toMatchObject({
      MCP_ALLOWED_HOSTS: ['edge.example.com', 'mcp.example.org'],
      PUBLIC_URL: 'https://edge.example.com',
    });
  });

  it('refuses a broken binding rule by name: the embedded origin without D1', () => {
    const { DB: _, ...withoutDb } = env as unknown as Record<string, unknown>;
    expect(() => parseEnv({ ...withoutDb, UPSTREAM_URL: '' } as unknown as Env)).toThrow(InvalidEnvError);
    expect(() => parseEnv({ ...withoutDb, UPSTREAM_URL: '' } as unknown as Env)).toThrow(/DB binding missing/);
  });
});

describe('CORS', () => {
  const dash = 'https://dash.example';
  const withCors = () => parseEnv({ ...env, CORS_ORIGINS: dash } as unknown as Env);
  const preflight = (origin: string) =>
    new Request('https://edge.test/api/v1/visibility', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });

  it('answers a preflight from an allowed origin at the edge', async () => {
    const up = new FakeUpstream().install();
    const response = await handleProxy(preflight(dash), withCors(), runtime());
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(dash);
    // Everything the proxy reads from a dashboard's request may be sent.
    for (const header of ['Authorization', 'Cache-Control', 'Pragma', 'If-None-Match', 'X-Request-Id']) expect(response.headers.get('access-control-allow-headers')).toContain(header);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, HEAD');
    expect(up.calls).toBe(0);
  });

  it('grants nothing to other origins, nor to any by default', async () => {
    const other = await handleProxy(preflight('https://evil.example'), withCors(), runtime());
    expect(other.status).toBe(204);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // No allowed origins: no CORS at all, and OPTIONS is refused like any method other than GET and HEAD.
    for (const origin of ['https://evil.example', dash]) {
      const byDefault = await handleProxy(preflight(origin), parseEnv(env), runtime());
      expect(byDefault.status).toBe(405);
      expect(byDefault.headers.get('allow')).toBe('GET, HEAD');
      expect([...byDefault.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('lets an allowed page read the cache headers', async () => {
    new FakeUpstream().install();
    const ctx = createExecutionContext();
    const request = new Request('https://edge.test/api/v1/visibility', { headers: { origin: dash, authorization: `Bearer ${freshKey()}` } });
    const response = await handleProxy(request, withCors(), runtime(ctx));
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(dash);
    expect(response.headers.get('access-control-expose-headers')).toMatch(/X-Cache/);
    expect(response.headers.get('vary')).toMatch(/Origin/);
  });
});

describe('apiFor', () => {
  it('lets the typed client read through the cache, with X-Cache and Age in withMeta', async () => {
    const up = new FakeUpstream().install();
    const ctx = createExecutionContext();
    const key = freshKey();
    // The fake upstream's body is not a real Visibility: read it raw, as the client's transport sees it.
    const read = () => handleProxy(new Request('http://proxy.internal/api/v1/visibility', { headers: { authorization: `Bearer ${key}` } }), parseEnv(env), runtime(ctx), { clientAddress: null });
    const first = await read();
    expect(first.headers.get('x-cache')).toBe('MISS');
    await waitOnExecutionContext(ctx);
    const second = await read();
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(up.calls).toBe(1);
    // With the embedded origin behind it, the typed client parses real bodies and reports the cache state.
    restoreUpstream();
    const api = apiFor(parseEnv(env), runtime(), { clientAddress: null })('demo_growth_multi');
    const miss = await api.withMeta.getVisibility({ brand_id: 2 }, { headers: { 'cache-control': 'no-cache' } });
    expect(['MISS', 'REVALIDATED']).toContain(miss.meta.cache);
    expect(miss.data.brand_id).toBe(2);
    const hit = await api.withMeta.getVisibility({ brand_id: 2 });
    expect(hit.meta.cache).toBe('HIT');
  });
});
