// The consent page of OAuth for /mcp (src/mcp/consent.ts) in Chromium, for `npm test -- browser`: a client
// registered as an assistant would register (RFC 7591), then at 375 and 600 px (and 375 px dark) the page as it
// opens, with a wrong key (its error on the page, 400), and the approve step listing the key's brands; Approve
// sends the browser to the client's redirect URI with a code (the page's CSP `form-action` allows that redirect),
// the code is exchanged with its PKCE verifier, and the access token reads /mcp. No horizontal scrolling, no
// console error, the key in no page. Screenshots under test/artifacts/consent-*.png.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';

const WIDTHS = [375, 600];

/** `checkConsent({ browser, base, artifacts, step, key })`: `browser` is playwright's, `base` the running Worker. */
export async function checkConsent({ browser, base, artifacts, step, key }) {
  // The client's redirect URI: a loopback server here, as a local assistant listens for its code (Playwright
  // cannot intercept the redirect a form's answer makes).
  const callbackPort = Number(new URL(base).port) + 50;
  const redirectUri = `http://127.0.0.1:${callbackPort}/callback`;
  let callback;
  const server = createServer((request, response) => {
    // Not the browser's favicon request that follows.
    if (request.url.startsWith('/callback')) callback = new URL(request.url, redirectUri);
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('the assistant has the code');
  });
  await new Promise((resolve) => server.listen(callbackPort, '127.0.0.1', resolve));
  try {
    await consentRuns({ browser, base, artifacts, step, key, redirectUri, callback: () => callback });
  } finally {
    server.close();
  }
}

async function consentRuns({ browser, base, artifacts, step, key, redirectUri, callback: lastCallback }) {
  const registered = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Claude', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
  });
  assert.equal(registered.status, 201, 'consent: the client registers');
  const { client_id: clientId } = await registered.json();

  const runs = [...WIDTHS.map((width) => ({ width, scheme: 'light' })), { width: 375, scheme: 'dark' }];
  for (const [index, { width, scheme }] of runs.entries()) {
    const name = `${width}${scheme === 'dark' ? '-dark' : ''}`;
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = new URL('/oauth/authorize', base);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: `s-${name}`,
      scope: 'read',
      resource: `${base}/mcp`,
    }))
      authorize.searchParams.set(k, v);

    // Each run is another person, at an address of its own: the consent page counts its writes per address (10 a minute),
    // and three runs within a minute from one address would pass that.
    const context = await browser.newContext({ viewport: { width, height: 800 }, colorScheme: scheme, extraHTTPHeaders: { 'cf-connecting-ip': `198.51.100.${10 + index}` } });
    const page = await context.newPage();
    const errors = [];
    page.on('console', (message) => message.type() === 'error' && !/status of 400/.test(message.text()) && errors.push(message.text()));
    const shot = async (stage) => {
      const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      assert.ok(scroll <= client, `consent ${stage} at ${name}: no horizontal scrolling (${scroll} > ${client})`);
      assert.ok(!(await page.content()).includes(key), `consent ${stage} at ${name}: the key is not in the page`);
      const file = join(artifacts, `consent-${stage}-${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    };

    const opened = await page.goto(authorize.href);
    assert.equal(opened.status(), 200, 'consent: the page opens');
    assert.equal(opened.headers()['x-frame-options'], 'DENY', 'consent: no framing');
    assert.match(await page.textContent('h1'), /Connect Claude/);
    assert.match(await page.textContent('main'), /127\.0\.0\.1/, 'consent: says where the access goes');
    const empty = await shot('key');

    await page.fill('#api_key', 'not_a_real_key');
    const [wrong] = await Promise.all([page.waitForNavigation(), page.click('button[value=check]')]);
    assert.equal(wrong.status(), 400, 'consent: a wrong key is a 400 page');
    assert.match(await page.textContent('[role=alert]'), /not accepted/);
    assert.equal(await page.getAttribute('#api_key', 'aria-invalid'), 'true');
    const wrongShot = await shot('wrong-key');

    await page.fill('#api_key', key);
    const [checked] = await Promise.all([page.waitForNavigation(), page.click('button[value=check]')]);
    assert.equal(checked.status(), 200, 'consent: the key is accepted');
    assert.match(await page.textContent('h1'), /Approve Claude/);
    assert.ok((await page.locator('.brands li').count()) >= 1, "consent: the key's brands are listed");
    const approveShot = await shot('approve');

    await Promise.all([page.waitForURL(`${redirectUri}**`), page.click('button[value=approve]')]);
    const callback = lastCallback();
    assert.ok(callback?.searchParams.get('code'), 'consent: Approve redirects to the client with a code');
    assert.equal(callback.searchParams.get('state'), `s-${name}`);
    assert.deepEqual(errors, [], `consent at ${name}: no console error`);
    await context.close();

    const token = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code'),
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
        resource: `${base}/mcp`,
      }),
    });
    assert.equal(token.status, 200, 'consent: the code is exchanged with its verifier');
    const { access_token: accessToken } = await token.json();
    assert.ok(!accessToken.includes(key), 'consent: the token is not the key');
    const mcp = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_brands', arguments: {} } }),
    });
    assert.equal(mcp.status, 200, 'consent: the token reads /mcp');
    step(`consent page at ${name}: ok -> ${empty}, ${wrongShot}, ${approveShot}`);
  }
}
