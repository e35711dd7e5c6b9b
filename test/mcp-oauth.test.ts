/**
 * OAuth 2.1 for `/mcp` (src/mcp/oauth.ts, consent.ts), through the Worker,
 * with the official SDK client's OAuth (`auth()`, an `OAuthClientProvider`,
 * the transport's `authProvider`): discovery from the 401, dynamic
 * registration, the consent page answered as a browser would (its form, its
 * cookie), the code exchanged with PKCE, a tool called with the token, refresh,
 * revocation; the page's refusals (a wrong key, a form that is missing,
 * forged, used or late, an unknown client or redirect URI); PKCE `plain`
 * refused; a key revoked upstream ends its token within 5 minutes (fake
 * clock); the pasted key still works; the token is never the key, and the key
 * is in no response and no log line.
 */
import {
  auth,
  Client,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MCP_PATH } from '../src/mcp';
import { OAUTH_WRITES_PER_MINUTE } from '../src/mcp/oauth-paths';
import { sha256Hex } from '../src/lib/hash';
import { KEY_RECHECK_MS } from '../src/proxy/policy';
import { inOneLimiterWindow, KEYS, kvKeys } from './helpers';
import { FakeUpstream, freshKey, restoreUpstream } from './proxy-upstream';
import worker from './worker';

const ORIGIN = 'http://localhost';
const MCP_URL = `${ORIGIN}${MCP_PATH}`;
const REDIRECT = 'http://127.0.0.1:33418/callback';

/** Every response the Worker gave in a test, its text kept: the key must be in none. */
let seen: { url: string; status: number; text: string; headers: string }[] = [];

async function workerFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const response = await SELF.fetch(new Request(url, init));
  const text = await response.clone().text();
  seen.push({ url: String(url), status: response.status, text, headers: JSON.stringify([...response.headers]) });
  return response;
}

/** An assistant's OAuth state, in memory: what the SDK asks a client to keep. */
class MemoryProvider implements OAuthClientProvider {
  client?: StoredOAuthClientInformation;
  saved?: StoredOAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(readonly name = 'Test Assistant') {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return { client_name: this.name, redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  discovery?: OAuthDiscoveryState;
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/** A browser's cookies for the Worker's origin: what the consent page sets, sent back with its form. */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (attributes.some((a) => /max-age=0\b/i.test(a.trim()))) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
  }
  get header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

const handleOf = (html: string) => /name="handle" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** The browser: opens the consent page and answers its form. */
class Browser {
  readonly jar = new CookieJar();
  async open(url: URL | string): Promise<{ response: Response; html: string }> {
    const response = await workerFetch(url, { headers: { cookie: this.jar.header } });
    this.jar.take(response);
    return { response, html: await response.text() };
  }
  async submit(fields: Record<string, string>, cookie = this.jar.header): Promise<{ response: Response; html: string }> {
    const response = await workerFetch(`${ORIGIN}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
      body: new URLSearchParams(fields).toString(),
    });
    this.jar.take(response);
    return { response, html: await response.text() };
  }
  /** Pastes the key and approves: the redirect's code, state and issuer. */
  async consent(url: URL, apiKey: string): Promise<URL> {
    const first = await this.open(url);
    expect(first.response.status).toBe(200);
    const checked = await this.submit({ handle: handleOf(first.html), step: 'key', api_key: apiKey, decision: 'check' });
    expect(checked.response.status).toBe(200);
    const approved = await this.submit({ handle: handleOf(checked.html), step: 'approve', decision: 'approve' });
    expect(approved.response.status).toBe(302);
    return new URL(approved.response.headers.get('location')!);
  }
}

/** The SDK's client with the provider: the first connect fails with UnauthorizedError after sending it to the consent page. */
async function connectWith(provider: OAuthClientProvider): Promise<Client> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: workerFetch, authProvider: provider }));
  return client;
}

/** Registration, consent with `apiKey` and the code's exchange, as an assistant does them: a provider with tokens. */
async function authorized(apiKey: string, browser = new Browser()): Promise<MemoryProvider> {
  const provider = new MemoryProvider();
  await expect(connectWith(provider)).rejects.toBeInstanceOf(UnauthorizedError);
  const callback = await browser.consent(provider.authorizationUrl!, apiKey);
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: workerFetch, authProvider: provider });
  await transport.finishAuth(callback.searchParams);
  return provider;
}

const mcpPost = (token: string, body = initialize) =>
  workerFetch(MCP_URL, { method: 'POST', body, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } });
const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const listBrandsCall = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_brands', arguments: {} } });

beforeEach(() => {
  seen = [];
});

describe('discovery', () => {
  it('answers /mcp without a token 401 in the API error shape, with the challenge naming the resource metadata', async () => {
    const response = await workerFetch(MCP_URL, { method: 'POST', body: initialize, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer realm="OAuth", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp", scope="read"`);
    expect(await response.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
  });

  it('publishes the protected resource metadata (path-aware and at the root) and the authorization server metadata', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await workerFetch(`${ORIGIN}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ resource: MCP_URL, authorization_servers: [ORIGIN], scopes_supported: ['read'], bearer_methods_supported: ['header'] });
    }
    const response = await workerFetch(`${ORIGIN}/.well-known/oauth-authorization-server`, { headers: { origin: 'https://claude.ai' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('https://claude.ai');
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/oauth/authorize`,
      token_endpoint: `${ORIGIN}/oauth/token`,
      registration_endpoint: `${ORIGIN}/oauth/register`,
      revocation_endpoint: `${ORIGIN}/oauth/token`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      response_types_supported: ['code'],
    });
  });
});

describe('the whole flow with the SDK client', () => {
  it('registers, consents with the key, exchanges the code with PKCE, calls a tool, refreshes and revokes', async () => {
    const provider = await authorized(KEYS.pro);
    const tokens = provider.saved!;
    expect(tokens.access_token).not.toContain(KEYS.pro);
    expect(tokens.refresh_token).toBeTruthy();

    const client = await connectWith(provider);
    const result = await client.callTool({ name: 'list_brands', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { brands: unknown[] }).brands.length).toBeGreaterThan(0);
    await client.close();

    // Refresh: a new access token, which works; the refresh token rotates.
    expect(await auth(provider, { serverUrl: MCP_URL, fetchFn: workerFetch })).toBe('AUTHORIZED');
    const refreshed = provider.saved!;
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await mcpPost(refreshed.access_token)).status).toBe(200);

    // Revocation (RFC 7009) at the token endpoint: the token is refused at once.
    const revoked = await workerFetch(`${ORIGIN}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshed.access_token, token_type_hint: 'access_token', client_id: provider.client!.client_id }).toString(),
    });
    expect(revoked.status).toBe(200);
    const refused = await mcpPost(refreshed.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await refused.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
  });

  it('binds a token to the host name it was obtained at: the same Worker by another name refuses it', async () => {
    const token = (await authorized(KEYS.pro)).saved!.access_token;
    expect((await mcpPost(token, listBrandsCall)).status).toBe(200);
    // 127.0.0.1 is allowed in dev like localhost, but it is another issuer and resource.
    const elsewhere = await workerFetch(`http://127.0.0.1${MCP_PATH}`, {
      method: 'POST',
      body: listBrandsCall,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('www-authenticate')).toMatch(/resource_metadata="http:\/\/127\.0\.0\.1\/\.well-known\/oauth-protected-resource\/mcp".*error="invalid_token"/);
    // Not the message of a key the upstream refused: this token's key is fine.
    expect(((await elsewhere.json()) as { error: { message: string } }).error.message).not.toContain('no longer accepted');
  });

  it('never shows the key: not in the token, not in any response, not in a log line', async () => {
    const key = KEYS.growth;
    const lines: string[] = [];
    const spies = (['log', 'warn', 'error', 'info', 'debug'] as const).map((level) => vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' '))));
    try {
      const provider = await authorized(key);
      expect((await mcpPost(provider.saved!.access_token, listBrandsCall)).status).toBe(200);
      await auth(provider, { serverUrl: MCP_URL, fetchFn: workerFetch });
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(seen.length).toBeGreaterThan(5);
    for (const response of seen) expect(`${response.text} ${response.headers}`).not.toContain(key);
    for (const line of lines) expect(line).not.toContain(key);
  });
});

describe('the consent page', () => {
  async function started(name = 'Test Assistant'): Promise<{ provider: MemoryProvider; browser: Browser; html: string; response: Response }> {
    const provider = new MemoryProvider(name);
    await expect(connectWith(provider)).rejects.toBeInstanceOf(UnauthorizedError);
    const browser = new Browser();
    const { response, html } = await browser.open(provider.authorizationUrl!);
    return { provider, browser, html, response };
  }

  it('says who asks, where the access goes and what it can read; it cannot be framed, and posts only here and to the client', async () => {
    const { response, html } = await started('Claude <script>');
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:33418");
    expect(response.headers.get('cache-control')).toContain('no-store');
    expect(html).toContain('Claude &lt;script&gt;');
    expect(html).not.toContain('Claude <script>');
    expect(html).toContain('127.0.0.1');
    expect(html).toContain('an app on this computer');
    expect(html).toMatch(/Read, never change/);
    expect(html).toMatch(/<label for="api_key">/);
    expect(html).toMatch(/<input type="password" id="api_key" name="api_key" required/);
  });

  it('shows a wrong key on the page (400 HTML, the field marked) and lets the person try again', async () => {
    const { browser, html } = await started();
    const wrong = await browser.submit({ handle: handleOf(html), step: 'key', api_key: 'not_a_key_at_all', decision: 'check' });
    expect(wrong.response.status).toBe(400);
    expect(wrong.response.headers.get('content-type')).toContain('text/html');
    expect(wrong.html).toContain('role="alert"');
    expect(wrong.html).toContain('This key was not accepted');
    expect(wrong.html).toContain('aria-invalid="true"');
    expect(wrong.html).not.toContain('not_a_key_at_all');
    // The retry works, on the page's new form.
    const checked = await browser.submit({ handle: handleOf(wrong.html), step: 'key', api_key: KEYS.pro, decision: 'check' });
    expect(checked.response.status).toBe(200);
  });

  it('lists the brands the key reads before the final Approve', async () => {
    const { browser, html } = await started();
    const checked = await browser.submit({ handle: handleOf(html), step: 'key', api_key: KEYS.growth, decision: 'check' });
    expect(checked.html).toContain('Approve');
    expect(checked.html).toMatch(/class="brands"/);
    expect(checked.html).not.toContain(KEYS.growth);
  });

  it('redirects with error=access_denied on Deny, on either step', async () => {
    for (const onApprove of [false, true]) {
      const { provider, browser, html } = await started();
      let handle = handleOf(html);
      let step = 'key';
      if (onApprove) {
        handle = handleOf((await browser.submit({ handle, step, api_key: KEYS.pro, decision: 'check' })).html);
        step = 'approve';
      }
      const denied = await browser.submit({ handle, step, decision: 'deny' });
      expect(denied.response.status).toBe(302);
      const location = new URL(denied.response.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get('error')).toBe('access_denied');
      expect(location.searchParams.get('state')).toBe(provider.authorizationUrl!.searchParams.get('state'));
      expect(location.searchParams.get('iss')).toBe(ORIGIN);
    }
  });

  it('refuses a form whose CSRF handle is missing, forged, from another browser, used, or expired (403 page, the key never checked)', async () => {
    const { browser, html } = await started();
    const handle = handleOf(html);
    const refusedWith = async (fields: Record<string, string>, cookie?: string) => {
      const answer = await browser.submit(fields, cookie);
      expect([answer.response.status, answer.response.headers.get('content-type')]).toEqual([403, 'text/html; charset=utf-8']);
      expect(answer.html).toContain('This form has expired');
    };
    await refusedWith({ step: 'key', api_key: KEYS.pro, decision: 'check' });
    await refusedWith({ handle: `${handle.slice(0, -2)}xx`, step: 'key', api_key: KEYS.pro, decision: 'check' });
    await refusedWith({ handle, step: 'key', api_key: KEYS.pro, decision: 'check' }, '');
    // Used once (a wrong key), then again.
    await browser.submit({ handle, step: 'key', api_key: 'wrong', decision: 'check' });
    await refusedWith({ handle, step: 'key', api_key: KEYS.pro, decision: 'check' });
    // Expired: the transaction's ten minutes are over (KV drops it; here it is dropped by hand).
    const again = await started();
    const late = handleOf(again.html);
    const { keys } = await env.OAUTH_KV.list({ prefix: 'transaction:' });
    const hash = [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(late)))].map((b) => b.toString(16).padStart(2, '0')).join('');
    expect(keys.map((k) => k.name)).toContain(`transaction:${hash}`);
    await env.OAUTH_KV.delete(`transaction:${hash}`);
    const answer = await again.browser.submit({ handle: late, step: 'key', api_key: KEYS.pro, decision: 'check' });
    expect(answer.response.status).toBe(403);
  });

  it('answers an unknown client or an unregistered redirect URI with an HTML page, never a redirect', async () => {
    const { provider } = await started();
    const url = new URL(provider.authorizationUrl!);
    const unknown = new URL(url);
    unknown.searchParams.set('client_id', 'nobody_registered_this');
    const elsewhere = new URL(url);
    elsewhere.searchParams.set('redirect_uri', 'https://attacker.example/steal');
    for (const bad of [unknown, elsewhere]) {
      const response = await workerFetch(bad, { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(await response.text()).toContain('This connection cannot start');
    }
  });
});

describe('PKCE', () => {
  it('refuses code_challenge_method=plain, and a request without PKCE from a public client', async () => {
    const provider = new MemoryProvider();
    await expect(connectWith(provider)).rejects.toBeInstanceOf(UnauthorizedError);
    for (const change of [(u: URL) => u.searchParams.set('code_challenge_method', 'plain'), (u: URL) => (u.searchParams.delete('code_challenge'), u.searchParams.delete('code_challenge_method'))]) {
      const url = new URL(provider.authorizationUrl!);
      change(url);
      const response = await workerFetch(url, { redirect: 'manual' });
      // The client and its redirect URI are valid, so the error goes back to it (RFC 6749 4.1.2.1).
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('invalid_request');
    }
  });

  it('refuses the code without the right verifier', async () => {
    const provider = new MemoryProvider();
    await expect(connectWith(provider)).rejects.toBeInstanceOf(UnauthorizedError);
    const callback = await new Browser().consent(provider.authorizationUrl!, KEYS.pro);
    const response = await workerFetch(`${ORIGIN}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        client_id: provider.client!.client_id,
        code_verifier: 'x'.repeat(64),
      }).toString(),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('the same rules as the key', () => {
  const T0 = Date.now();
  let up: FakeUpstream;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    up = new FakeUpstream().install();
  });
  afterEach(() => {
    restoreUpstream();
    vi.useRealTimers();
  });

  it('a key revoked upstream stops its token within 5 minutes: 401 invalid_token, and the grant ends (no refresh)', async () => {
    const key = freshKey('oauth-revoked');
    const provider = await authorized(key);
    const token = provider.saved!.access_token;
    expect((await mcpPost(token, listBrandsCall)).status).toBe(200);
    up.byKey.set(key, { status: 401, code: 'invalid_api_key' });
    // Within the 5 minutes the cache still answers for the key, as it does on /api/v1.
    vi.setSystemTime(T0 + KEY_RECHECK_MS - 1000);
    expect((await mcpPost(token, listBrandsCall)).status).toBe(200);
    vi.setSystemTime(T0 + KEY_RECHECK_MS + 1000);
    const refused = await mcpPost(token, listBrandsCall);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('no longer accepted');
    // The grant is gone: the refresh token no longer works, so the assistant asks the person again.
    const refresh = await workerFetch(`${ORIGIN}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: provider.saved!.refresh_token!, client_id: provider.client!.client_id }).toString(),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a pasted key revoked upstream is served no longer than a token: within 5 minutes of its last acceptance, then 401', async () => {
    const key = freshKey('pasted-revoked');
    expect((await mcpPost(key, listBrandsCall)).status).toBe(200);
    const calls = up.calls;
    up.byKey.set(key, { status: 401, code: 'invalid_api_key' });
    // Accepted upstream less than 5 minutes ago: the key check reads nothing (its read would be a cache hit).
    vi.setSystemTime(T0 + KEY_RECHECK_MS - 1000);
    expect((await mcpPost(key, listBrandsCall)).status).toBe(200);
    expect(up.calls).toBe(calls);
    vi.setSystemTime(T0 + KEY_RECHECK_MS + 1000);
    const refused = await mcpPost(key, listBrandsCall);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
  });

  it("reads through the key's gate: the token's calls and the key's own share one cache entry", async () => {
    const key = freshKey('oauth-cache');
    const provider = await authorized(key);
    const before = up.calls;
    for (let i = 0; i < 3; i++) expect((await mcpPost(provider.saved!.access_token, listBrandsCall)).status).toBe(200);
    expect((await mcpPost(key, listBrandsCall)).status).toBe(200);
    expect(up.calls).toBe(before);
  });
});

describe('the API key pasted as a header', () => {
  it('still works beside OAuth, and an unknown key or token is 401 with the challenge', async () => {
    expect((await mcpPost(KEYS.pro, listBrandsCall)).status).toBe(200);
    const unknownKey = await mcpPost('demo_nobody');
    expect(unknownKey.status).toBe(401);
    expect(unknownKey.headers.get('www-authenticate')).toContain('resource_metadata=');
    // A token's shape that we never issued: refused as a token, never tried upstream as a key.
    const forged = await mcpPost(`bav1_${'0'.repeat(32)}:${'A'.repeat(16)}:${'B'.repeat(32)}`);
    expect(forged.status).toBe(401);
    expect(forged.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});

describe('a deployment without OAUTH_KV', () => {
  /** The Worker's handler with the test env less OAUTH_KV: a new env object, as a fresh isolate sees it. */
  async function withoutOAuth(url: string, init?: RequestInit): Promise<Response> {
    const { OAUTH_KV: _, ...rest } = env as unknown as Record<string, unknown>;
    return fetchWith(rest as unknown as Env, url, init);
  }
  async function fetchWith(testEnv: Env, url: string, init?: RequestInit): Promise<Response> {
    const ctx = createExecutionContext();
    const response = await worker.fetch!(new Request(url, init) as Request<unknown, IncomingRequestCfProperties>, testEnv, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  }
  const post = (key: string | null, body = initialize) =>
    withoutOAuth(MCP_URL, { method: 'POST', body, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json', accept: 'application/json, text/event-stream' } });

  it('serves /mcp with the pasted key, challenges without OAuth metadata, and answers the OAuth paths 404 naming what to bind', async () => {
    expect((await post(KEYS.pro, listBrandsCall)).status).toBe(200);
    const refused = await post(null);
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="mcp"']);
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource/mcp', '/oauth/authorize', '/oauth/register']) {
      const response = await withoutOAuth(`${ORIGIN}${path}`);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain('bind OAUTH_KV');
    }
  });

  it('the start-up features line says whether /mcp takes OAuth: on with OAUTH_KV, off (and what to bind) without', async () => {
    const mcpLineOf = async (testEnv: Env) => {
      const lines: string[] = [];
      const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
      try {
        await fetchWith(testEnv, `${ORIGIN}/nothing`);
      } finally {
        spy.mockRestore();
      }
      const features = lines.filter((line) => line.includes('"msg":"features"'));
      expect(features).toHaveLength(1);
      return (JSON.parse(features[0]!) as { mcp: string }).mcp;
    };
    // Each a new env object: the first request of each logs its line.
    const { OAUTH_KV: _, ...rest } = env as unknown as Record<string, unknown>;
    expect(await mcpLineOf({ ...rest, OAUTH_KV: env.OAUTH_KV } as unknown as Env)).toMatch(/^OAuth \(OAUTH_KV bound: assistants connect by URL\) or the API key/);
    const off = await mcpLineOf(rest as unknown as Env);
    expect(off).toMatch(/^the API key in Authorization only: OAuth is off/);
    expect(off).toContain('bind OAUTH_KV');
  });
});

describe('bounds (issue 34 item 3)', () => {
  let n = 0;
  /** An address of its own per call: the per-address limits of one test never reach another. */
  const address = () => `203.0.113.${(n++ % 250) + 1}`;
  const register = (metadata: Record<string, unknown>, ip?: string) =>
    workerFetch(`${ORIGIN}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...(ip ? { 'cf-connecting-ip': ip } : {}) }, body: JSON.stringify(metadata) });
  const client = (extra: Record<string, unknown> = {}) => ({ client_name: 'Bounded', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...extra });

  it('refuses a registration over its sizes with 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [client({ client_name: 'n'.repeat(1_000_000) }), 'client_name'],
      [client({ redirect_uris: Array.from({ length: 2000 }, (_, i) => `http://127.0.0.1:${1000 + i}/cb`) }), 'redirect_uris'],
      [client({ redirect_uris: [`http://127.0.0.1:33418/${'p'.repeat(200 * 1024)}`] }), 'redirect_uris'],
      [client({ client_uri: `https://example.com/${'u'.repeat(5000)}` }), 'client_uri'],
    ];
    for (const [metadata, field] of cases) {
      const response = await register(metadata);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: string; error_description: string };
      expect(body.error).toMatch(/^invalid_(client_metadata|redirect_uri)$/);
      expect(body.error_description.startsWith(`${field}:`)).toBe(true);
    }
    expect((await register(client())).status).toBe(201);
  });

  it(`lets one address register ${OAUTH_WRITES_PER_MINUTE} times a minute, then 429 with Retry-After`, async () => {
    // One minute's window of the binding (helpers.ts): a run across a minute boundary is made again from another address.
    const refused = await inOneLimiterWindow(address, async (ip) => {
      for (let i = 0; i < OAUTH_WRITES_PER_MINUTE; i++) expect((await register(client(), ip)).status).toBe(201);
      return register(client(), ip);
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
    // Another address is not held back.
    expect((await register(client(), address())).status).toBe(201);
  });

  it('keeps a registration that reaches no grant at most a day; one that reaches a grant, as long as the grant', async () => {
    const response = await register(client());
    const { client_id } = (await response.json()) as { client_id: string };
    const expiryOf = async (id: string) => {
      for await (const key of kvKeys(env.OAUTH_KV, 'client:')) if (key.name === `client:${id}`) return key.expiration!;
      throw new Error('client not stored');
    };
    const nowS = Math.floor(Date.now() / 1000);
    const ungranted = await expiryOf(client_id);
    expect(ungranted).toBeLessThanOrEqual(nowS + 86_400 + 5);
    const provider = await authorized(KEYS.pro);
    // Against the first one's expiry, not the test's clock: KV expires by workerd's own clock, which
    // `npm test -- days` does not move.
    expect(await expiryOf(provider.client!.client_id)).toBeGreaterThan(ungranted + 88 * 86_400);
  });

  async function startedConsent(): Promise<{ provider: MemoryProvider; url: URL }> {
    const provider = new MemoryProvider();
    await expect(connectWith(provider)).rejects.toBeInstanceOf(UnauthorizedError);
    return { provider, url: provider.authorizationUrl! };
  }
  const allKeys = async () => (await env.OAUTH_KV.list()).keys.map((k) => k.name).sort();

  it('writes nothing for a consent page looked at with HEAD; GETs count per address like registrations (429 with Retry-After)', async () => {
    const { url } = await startedConsent();
    const before = await allKeys();
    const head = await workerFetch(url, { method: 'HEAD', headers: { 'cf-connecting-ip': address() } });
    expect(head.status).toBe(200);
    expect(await allKeys()).toEqual(before);
    const refused = await inOneLimiterWindow(address, async (ip) => {
      for (let i = 0; i < OAUTH_WRITES_PER_MINUTE; i++) expect((await workerFetch(url, { headers: { 'cf-connecting-ip': ip } })).status).toBe(200);
      return workerFetch(url, { headers: { 'cf-connecting-ip': ip } });
    });
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '60']);
    expect(refused.headers.get('content-type')).toContain('text/html');
    expect(await refused.text()).toContain('Too many attempts');
  });

  it('reads a chunked consent form only up to its limit: 413, the rest never pulled', async () => {
    const { url } = await startedConsent();
    const page = await new Browser().open(url);
    let pulls = 0;
    const chunk = new TextEncoder().encode(`api_key=${'a'.repeat(1016)}`);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        // 64 MiB if read whole.
        if (pulls > 64 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await SELF.fetch(`${ORIGIN}/oauth/authorize`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.text()).toContain('Form too large');
    // The form's limit is 8 KiB: a few chunks of 1 KiB, with what the runtime buffers ahead.
    expect(pulls).toBeLessThan(256);
    expect(handleOf(page.html)).not.toBe('');
  });

  it('refuses a key with characters a header cannot carry: the key step again (400) saying so, never a 500 or the key in a log line', async () => {
    const lines: string[] = [];
    const spies = (['log', 'warn', 'error', 'info', 'debug'] as const).map((level) => vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' '))));
    const bad = ['demo_pro\r\nsingle', 'demo\0pro', 'demo\u200bpro_single', '\u201cdemo_pro_single\u201d', 'k'.repeat(300)];
    try {
      const { url } = await startedConsent();
      const browser = new Browser();
      let html = (await browser.open(url)).html;
      for (const api_key of bad) {
        const answer = await browser.submit({ handle: handleOf(html), step: 'key', api_key, decision: 'check' });
        expect(answer.response.status).toBe(400);
        expect(answer.html).toContain('role="alert"');
        expect(answer.html).toMatch(/The API key (has characters|is longer)/);
        expect(answer.html).not.toContain(api_key);
        html = answer.html;
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    for (const api_key of bad) expect(lines.join('\n')).not.toContain(api_key);
  });

  const refresh = (provider: MemoryProvider, refreshToken: string) =>
    workerFetch(`${ORIGIN}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: provider.client!.client_id }).toString(),
    });

  it('a rotated-out refresh token mints nothing and ends the grant: its tokens, the new refresh token included, stop', async () => {
    const provider = await authorized(KEYS.pro);
    const old = provider.saved!.refresh_token!;
    const rotated = await refresh(provider, old);
    expect(rotated.status).toBe(200);
    const fresh = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect(fresh.refresh_token).not.toBe(old);
    expect((await mcpPost(fresh.access_token)).status).toBe(200);
    // The old one again: refused, and the grant is over.
    const reused = await refresh(provider, old);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await mcpPost(fresh.access_token)).status).toBe(401);
    const next = await refresh(provider, fresh.refresh_token);
    expect(next.status).toBe(400);
    expect(await next.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('carries nothing derived from the key in codes and tokens: our marker and an HMAC, no SHA-256 prefix', async () => {
    const key = KEYS.growth;
    const digest = await sha256Hex(key);
    const provider = new MemoryProvider();
    await expect(connectWith(provider)).rejects.toBeInstanceOf(UnauthorizedError);
    const callback = await new Browser().consent(provider.authorizationUrl!, key);
    const code = callback.searchParams.get('code')!;
    await new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: workerFetch, authProvider: provider }).finishAuth(callback.searchParams);
    for (const credential of [code, provider.saved!.access_token, provider.saved!.refresh_token!]) {
      expect(credential.startsWith('bav1_')).toBe(true);
      expect(credential).not.toContain(digest.slice(0, 16));
    }
  });

  it('refuses a token of the old k_ users at /mcp and at refresh (the person connects again)', async () => {
    const legacy = `k_${'0'.repeat(32)}:${'A'.repeat(16)}:${'B'.repeat(32)}`;
    expect((await mcpPost(legacy)).status).toBe(401);
    const provider = await authorized(KEYS.pro);
    const answer = await refresh(provider, legacy);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: 'invalid_grant' });
  });

  describe('at /api/v1', () => {
    let up: FakeUpstream;
    beforeEach(() => {
      up = new FakeUpstream().install();
    });
    afterEach(() => restoreUpstream());

    it('an access token of ours is 401 saying tokens are for /mcp, and the upstream is never called', async () => {
      const provider = await authorized(freshKey('oauth-at-api'));
      const calls = up.calls;
      for (const token of [provider.saved!.access_token, provider.saved!.refresh_token!]) {
        const response = await workerFetch(`${ORIGIN}/api/v1/brands`, { headers: { authorization: `Bearer ${token}` } });
        expect(response.status).toBe(401);
        const body = (await response.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('invalid_api_key');
        expect(body.error.message).toContain('/mcp');
      }
      expect(up.calls).toBe(calls);
    });
  });
});
