#!/usr/bin/env node
// The official MCP conformance suite's server scenarios against a running Worker's /mcp, through OAuth:
//
//   npm run dev   # in another terminal (http://localhost:8787)
//   npm run check -- mcp [-- base URL, default http://localhost:8787] [-- -- suite options]
//
// The suite's client sends no credential, so this script first goes through OAuth as an assistant and a browser
// would (dynamic registration, the consent page's two steps with the demo key, the code exchanged with its PKCE
// verifier), then runs a local proxy that adds `Authorization: Bearer <access token>` to the suite's requests
// (Host and Origin kept, for its DNS-rebinding scenario), and runs `npx -y @modelcontextprotocol/conformance
// server` against it: by default the active suite, then the 2026-07-28 requirements. Set MCP_KEY to use another
// key; MCP_CONFORMANCE_VERSION for another release of the suite (default 0.2.0-alpha.12: npm's `latest`, 0.1.16,
// is older and has no --requirements). Needs Node 22 (npm scripts put it on PATH).
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const args = process.argv.slice(2);
const base = args[0] && !args[0].startsWith('-') ? args.shift() : 'http://localhost:8787';
if (args[0] === '--') args.shift();
const key = process.env.MCP_KEY ?? 'demo_pro_single';
const version = process.env.MCP_CONFORMANCE_VERSION ?? '0.2.0-alpha.12';

/** An access token for `key`, through the consent page. */
async function accessToken() {
  const redirect = 'http://127.0.0.1:9/callback';
  const registered = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'MCP conformance', redirect_uris: [redirect], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] }),
  });
  if (registered.status !== 201) throw new Error(`registration: ${registered.status} ${await registered.text()}`);
  const { client_id: clientId } = await registered.json();
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL('/oauth/authorize', base);
  const query = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirect,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'conformance',
    scope: 'read',
  };
  for (const [name, value] of Object.entries(query)) authorize.searchParams.set(name, value);
  const cookies = new Map();
  const keep = (response) => {
    for (const line of response.headers.getSetCookie()) {
      const [name, value] = line.split(';')[0].split('=');
      if (/max-age=0/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
  };
  const handleOf = (html) => /name="handle" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const submit = async (fields) => {
    const response = await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([n, v]) => `${n}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
    keep(response);
    return response;
  };
  const page = await fetch(authorize);
  keep(page);
  const checked = await submit({ handle: handleOf(await page.text()), step: 'key', api_key: key, decision: 'check' });
  if (checked.status !== 200) throw new Error(`consent, key step: ${checked.status}`);
  const approved = await submit({ handle: handleOf(await checked.text()), step: 'approve', decision: 'approve' });
  const code = new URL(approved.headers.get('location') ?? 'x:').searchParams.get('code');
  if (!code) throw new Error(`consent, approve step: ${approved.status}`);
  const token = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect, client_id: clientId, code_verifier: verifier }),
  });
  if (token.status !== 200) throw new Error(`token: ${token.status} ${await token.text()}`);
  return (await token.json()).access_token;
}

/**
 * A proxy to the Worker that adds the bearer token; the answer streams back (SSE included), re-encoded by Node.
 * When the suite goes away from a request (it ends a `subscriptions/listen` stream by closing it, or exits), the
 * Worker's answer is abandoned too: an event stream never ends by itself (the SDK sends a keep-alive every 15 s),
 * and a fetch still reading one would keep this process alive after the suite is done.
 */
function startProxy(token) {
  const server = createServer(async (request, response) => {
    const gone = new AbortController();
    response.on('close', () => gone.abort());
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const headers = { ...request.headers, authorization: request.headers.authorization ?? `Bearer ${token}` };
    delete headers['content-length'];
    try {
      const answer = await fetch(new URL(request.url, base), {
        method: request.method,
        headers,
        body: ['GET', 'HEAD'].includes(request.method) ? undefined : Buffer.concat(chunks),
        signal: gone.signal,
      });
      response.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([name]) => !/^(content-encoding|content-length|transfer-encoding|connection)$/i.test(name))));
      if (answer.body) for await (const chunk of answer.body) response.write(chunk);
      response.end();
    } catch (error) {
      if (gone.signal.aborted) return;
      if (!response.headersSent) response.writeHead(502);
      response.end(String(error));
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const token = await accessToken();
console.log(`OAuth: an access token for ${key} (${token.slice(0, 10)}…, not the key)`);
const proxy = await startProxy(token);
const url = `http://localhost:${proxy.address().port}/mcp`;
let failed = false;
try {
  const runs = args.length > 0 ? [args] : [[], ['--requirements', '2026-07-28']];
  for (const options of runs) {
    console.log(`\nnpx @modelcontextprotocol/conformance@${version} server --url ${url} ${options.join(' ')}`);
    // Not spawnSync: the proxy answers the suite from this process's event loop.
    const suite = spawn('npx', ['-y', `@modelcontextprotocol/conformance@${version}`, 'server', '--url', url, ...options], { stdio: 'inherit' });
    const status = await new Promise((resolve) => suite.on('exit', resolve));
    failed ||= status !== 0;
  }
} finally {
  // The suite has exited: end what it left open (keep-alive connections, a stream it never closed), then stop.
  proxy.closeAllConnections();
  proxy.close();
}
// The suite fails its scenarios of the reference server's fixtures (test_simple_text, test_prompt_with_arguments, …)
// and of capabilities this server does not offer; docs/mcp.md lists what passes.
process.exitCode = failed ? 1 : 0;
