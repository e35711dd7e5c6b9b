// The pages for people (src/account) in Chromium, for `npm test -- browser`: a whole flow as a person, without
// a line of JSON: the front door, sign in with the key, subscribe an address and confirm it from the dev outbox,
// add a webhook channel to a receiver on this machine (http://localhost: dev takes it; never a private-range
// address) and confirm it from its test delivery, make a share link and open it signed out, make a CSV link and
// read it, revoke both, remove the subscriber, sign out, and a revoked key's sign-in refused. axe-core runs on every page (no serious or critical violation); no horizontal scrolling; no console
// error; the key in no page. Then every page at 375 and 1280 px, light and dark, into `shots` (the screenshots to
// look at: ACCOUNT_SHOTS, default test/artifacts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const REVOKED = 'demo_revoked';
const INACTIVE = 'demo_inactive';

/** An action the page asks about first (`details`): open it, then its "Yes, …" button. */
async function asked(scope, verb) {
  const summary = scope.locator('summary', { hasText: verb });
  if ((await scope.locator('details[open]').count()) === 0) await summary.click();
  await scope.locator('button', { hasText: `Yes, ${verb.toLowerCase()}` }).click();
}

/**
 * `checkAccount({ browser, base, artifacts, step, key, sql })`: `browser` is playwright's, `base` the running Worker
 * (dev routes on), `sql` runs a statement on its local D1 (the tour's last deliveries, sent and not sent).
 */
export async function checkAccount({ browser, base, artifacts, step, key, sql }) {
  const shots = process.env.ACCOUNT_SHOTS ?? artifacts;
  // The webhook's receiver: a loopback server here, addressed as `localhost` (dev's only allowed private name).
  const deliveries = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      deliveries.push({ headers: request.headers, body });
      response.writeHead(204);
      response.end();
    });
  });
  const receiverPort = Number(new URL(base).port) + 60;
  await new Promise((resolve) => server.listen(receiverPort, '127.0.0.1', resolve));
  try {
    await flow({ browser, base, step, key, receiver: `http://localhost:${receiverPort}/hook`, deliveries, shots });
    await underCsp({ browser, base, step, key });
    for (const width of [375, 1280]) for (const scheme of ['light', 'dark']) await tour({ browser, base, step, key, width, scheme, shots, sql });
  } finally {
    server.close();
  }
}

/** A page of the flow: loaded, no horizontal scrolling, axe without serious or critical violations, the key nowhere. */
async function checked(page, name, key) {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  assert.ok(scroll <= client, `account ${name}: no horizontal scrolling (${scroll} > ${client})`);
  assert.ok(!(await page.content()).includes(key), `account ${name}: the key is in no page`);
  // axe is injected past the page's CSP (the context bypasses it): the page's own script still runs under its nonce.
  await page.addScriptTag({ content: AXE });
  const { violations } = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`),
    [],
    `account ${name}: axe finds no serious or critical violation`,
  );
}

function newContext(browser, { width, scheme, address }) {
  return browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme, bypassCSP: true, extraHTTPHeaders: { 'cf-connecting-ip': address } });
}

function consoleErrors(page) {
  const errors = [];
  // Refusals shown on their page (400, 403, 404, a 409 "sent recently", 429): the browser logs their statuses.
  page.on('console', (message) => message.type() === 'error' && !/status of (400|403|404|409|429)/.test(message.text()) && errors.push(message.text()));
  return errors;
}

const confirmLinkIn = (text) => /https?:\/\/[^\s"]+\/digests\/confirm\?token=[A-Za-z0-9._-]+/.exec(text)?.[0];

async function signIn(page, base, key) {
  await page.goto(`${base}/account/sign-in`);
  await page.fill('#api_key', key);
  await Promise.all([page.waitForURL(`${base}/account`), page.click('button[type=submit]')]);
}

async function flow({ browser, base, step, key, receiver, deliveries, shots }) {
  const context = await newContext(browser, { width: 375, scheme: 'light', address: '198.51.100.71' });
  const page = await context.newPage();
  const errors = consoleErrors(page);
  const email = `person-${Date.now()}@example.com`;

  // The front door, then sign in.
  await page.goto(`${base}/`);
  await checked(page, 'front door', key);
  await Promise.all([page.waitForURL(`${base}/account/sign-in`), page.click('text=Sign in with your API key')]);
  await checked(page, 'sign-in', key);
  await page.fill('#api_key', key);
  await Promise.all([page.waitForURL(`${base}/account`), page.click('button[type=submit]')]);
  assert.match(await page.textContent('main'), /Brightdesk/, "account: the overview lists the key's brand");
  await checked(page, 'overview', key);
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === '__Host-session');
  assert.ok(session?.httpOnly && session.secure && session.sameSite === 'Lax', 'account: the session cookie is HttpOnly, Secure, SameSite=Lax');

  // Subscribe an address; confirm it from the dev outbox.
  await page.click('nav >> text=Digests and alerts');
  await page.fill('#email', email);
  await page.fill('#timezone', 'Europe/Berlin');
  await Promise.all([page.waitForURL(/done=added/), page.click('form[action="/account/subscriptions"] button[type=submit]')]);
  assert.match(await page.textContent('[role=status]'), /Added\./, 'account: the message after the redirect');
  const card = page.locator('li', { hasText: email });
  assert.match(await card.textContent(), /waiting for confirmation/);
  await checked(page, 'subscriptions', key);
  const { messages } = await (await fetch(`${base}/dev/outbox?format=json&to=${encodeURIComponent(email)}`)).json();
  const confirm = confirmLinkIn(messages.find((m) => m.kind === 'confirm')?.text ?? '');
  assert.ok(confirm, 'account: the confirmation is in the outbox');
  await page.goto(confirm);
  await page.click('main form button[type=submit]');
  await page.goto(`${base}/account/subscriptions`);
  assert.match(await page.locator('li', { hasText: email }).textContent(), /active/, 'account: confirmed from the outbox, the subscription is active');
  step('account: signed in, subscribed an address, confirmed it from the outbox');

  // Send this week's digest now (the main run sent Brightdesk US a few minutes ago: then the page says when it can
  // go again, beside its button); the digest email, as a mail program shows it, is clean for axe too.
  await submit(page, 'form[action="/account/subscriptions/send"] button[type=submit]');
  const said = await page.textContent('[role=status], #send-error');
  assert.match(said, /Sent to \d+ of \d+ confirmed subscriber|can be sent again/, `account: send now says what it did (${said})`);
  await checked(page, 'sent now', key);
  const digest = (await (await fetch(`${base}/dev/outbox?format=json&limit=200`)).json()).messages.find((m) => m.kind === 'digest');
  assert.ok(digest, 'account: a digest is in the outbox');
  await page.goto(`${base}/dev/outbox/${digest.id}?format=html`);
  await checked(page, 'the digest email', key);
  step('account: sent the digest now; the digest email is clean for axe');
  await page.goto(`${base}/account/subscriptions`);

  // A mistake, said beside its field.
  await page.fill('#email', 'not-an-address');
  await page.click('form[action="/account/subscriptions"] button[type=submit]');
  assert.match(await page.textContent('#email-error'), /not a valid email address/, 'account: the mistake beside its field');
  assert.equal(await page.getAttribute('#email', 'aria-invalid'), 'true');
  await checked(page, 'subscriptions with an error', key);

  // A webhook channel for alerts, to the receiver here; confirmed from its test delivery.
  await page.goto(`${base}/account/subscriptions`);
  await page.fill('#email', email);
  await page.uncheck('input[name=kinds][value=visibility]');
  await page.uncheck('input[name=kinds][value=won_lost]');
  await page.check('input[name=kinds][value=alerts]');
  await page.check('input[name=channel][value=webhook]');
  await page.fill('#channel_url', receiver);
  await page.click('form[action="/account/subscriptions"] button[type=submit]');
  assert.match(await page.textContent('#webhook-secret'), /^whsec_/, 'account: the webhook secret, shown once');
  await checked(page, 'webhook added', key);
  const test = deliveries.at(-1);
  assert.ok(test?.headers['webhook-signature'], 'account: the receiver got the signed test delivery');
  const hookConfirm = JSON.parse(test.body).data?.confirm_url ?? confirmLinkIn(test.body);
  assert.ok(hookConfirm, 'account: the test delivery carries the confirm link');
  await page.goto(hookConfirm);
  await page.click('main form button[type=submit]');
  await page.goto(`${base}/account/subscriptions`);
  assert.match(await page.locator('li', { hasText: 'Webhook: localhost' }).textContent(), /active/, 'account: the webhook channel is active');
  step('account: a webhook channel to a local receiver, confirmed from its test delivery');

  // A share link, opened signed out (another browser, no session); a CSV link, read; both revoked.
  await page.click('nav >> text=Share links');
  await page.fill('#days', '7');
  await page.click('form[action="/account/links"] button[type=submit]');
  const shareUrl = (await page.textContent('#made-url')).trim();
  await checked(page, 'share link made', key);
  const stranger = await browser.newContext({ viewport: { width: 375, height: 900 } });
  const reader = await stranger.newPage();
  assert.equal((await reader.goto(shareUrl)).status(), 200, 'account: the share link opens signed out');
  assert.match(await reader.textContent('main'), /Brightdesk/);
  await page.click('nav >> text=CSV links');
  // The table first: the page comes back with its parameters as fields.
  await page.selectOption('#table', 'listTopics');
  await Promise.all([page.waitForURL(/table=listTopics/), page.click('form.choose button[type=submit]')]);
  assert.equal(await page.getAttribute('#p-days', 'type'), 'number', 'account: a window in days is a number field');
  await page.click('form[method="post"][action="/account/exports"] button[type=submit]');
  // The link just made (or handed out again: one live link per export and parameters) is marked.
  const fresh = page.locator('ul.cards > li.fresh');
  const csvUrl = (await fresh.locator('code[id^=url-]').textContent()).trim();
  assert.equal((await fresh.locator('code[id^=formula-]').textContent()).trim(), `=IMPORTDATA("${csvUrl}")`, 'account: the Google Sheets formula');
  await checked(page, 'CSV link made', key);
  const csv = await fetch(csvUrl);
  assert.equal(csv.status, 200, 'account: the CSV link reads');
  assert.match(csv.headers.get('content-type'), /^text\/csv/);
  await Promise.all([page.waitForURL(/done=revoked/), asked(fresh, 'Revoke')]);
  assert.equal((await fetch(csvUrl)).status, 410, 'account: a revoked CSV link reads nothing');
  await page.click('nav >> text=Share links');
  await Promise.all([page.waitForURL(/done=revoked/), asked(page.locator('ul.cards > li').first(), 'Revoke')]);
  assert.equal((await reader.goto(shareUrl)).status(), 410, 'account: a revoked share link opens nothing');
  await stranger.close();
  step('account: a share link opened signed out, a CSV link read, both revoked');

  // Remove the subscriber, sign out.
  await page.click('nav >> text=Digests and alerts');
  // Remove asks first: opening it changes nothing; its own button removes.
  await page.locator('li', { hasText: email }).locator('summary', { hasText: 'Remove' }).click();
  assert.ok(!page.url().includes('done='), 'account: Remove asks before it removes');
  await Promise.all([page.waitForURL(/done=removed/), asked(page.locator('li', { hasText: email }), 'Remove')]);
  assert.equal(await page.locator('li', { hasText: email }).count(), 0, 'account: the address is removed');
  // The webhook channel too: a run against the same state subscribes it anew (one subscription per URL).
  await Promise.all([page.waitForURL(/done=removed/), asked(page.locator('li', { hasText: 'Webhook: localhost' }), 'Remove')]);
  await Promise.all([page.waitForURL(/note=signed-out/), page.click('nav button:has-text("Sign out")')]);
  assert.match(await page.textContent('[role=status]'), /You are signed out/);
  await page.goto(`${base}/account/subscriptions`);
  assert.ok(page.url().endsWith('/account/sign-in'), 'account: signed out, the screens lead to sign-in');

  // A revoked key is refused, beside the field.
  await page.fill('#api_key', REVOKED);
  await page.click('button[type=submit]');
  assert.match(await page.textContent('#key-error'), /not accepted: it is unknown or revoked/, "account: a revoked key's sign-in is refused");
  await checked(page, 'sign-in refused', REVOKED);
  assert.deepEqual(errors, [], 'account: no console error');
  await context.close();
  step('account: removed the subscriber, signed out, a revoked key refused; axe clean on every page');
  void shots;
}

/** Under the pages' own CSP (the other contexts bypass it for axe): the copy buttons' script runs by its nonce, and copies. */
async function underCsp({ browser, base, step, key }) {
  const context = await browser.newContext({ viewport: { width: 375, height: 900 }, extraHTTPHeaders: { 'cf-connecting-ip': '198.51.100.79' } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  const errors = consoleErrors(page);
  await signIn(page, base, key);
  const copy = page.locator('button.copy[data-for=mcp-url]');
  assert.ok(await copy.isVisible(), 'account: the copy buttons show (their script runs under the nonce)');
  await copy.click();
  // The clipboard answers asynchronously: the button says so when it has.
  await page.waitForFunction(() => document.querySelector('button.copy[data-for=mcp-url]').textContent !== 'Copy the MCP address', null, { timeout: 10_000 });
  assert.equal(await copy.textContent(), 'Copied');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${base}/mcp`, 'account: the MCP address is copied');
  assert.deepEqual(errors, [], "account: no console error (no CSP violation) under the pages' own CSP");
  await context.close();
  step("account: under the pages' CSP, the copy button copies the MCP address");
}

/** Clicks a submit button and waits for the page it leads to. */
const submit = (page, selector) => Promise.all([page.waitForNavigation(), page.click(selector)]);

/** Every page at one width and scheme, into the screenshots. */
async function tour({ browser, base, step, key, width, scheme, shots, sql }) {
  const name = `${width}-${scheme}`;
  const context = await newContext(browser, { width, scheme, address: `198.51.100.${width === 375 ? 81 : 82}` });
  const page = await context.newPage();
  const shot = async (stage) => {
    await checked(page, `${stage} at ${name}`, key);
    await page.screenshot({ path: join(shots, `account-${stage}-${name}.png`), fullPage: true });
  };
  await page.goto(`${base}/`);
  await shot('front-door');
  // An address that is no page: a 404 page a person can go back from (not the API's JSON).
  assert.equal((await page.goto(`${base}/account/no-such-page`)).status(), 404, `account not-found at ${name}: 404`);
  await shot('not-found');
  await page.goto(`${base}/account/sign-in`);
  await page.fill('#api_key', REVOKED);
  await submit(page, 'button[type=submit]');
  await shot('sign-in-refused');
  await signIn(page, base, key);
  await shot('overview');
  await Promise.all([page.waitForNavigation(), page.click('main a[href^="/account/report"]')]);
  assert.match(await page.textContent('main'), /Brightdesk/, `account report at ${name}: the report page, read with the session's key`);
  await shot('report');
  await Promise.all([page.waitForNavigation(), page.click('main a[href^="/account/history"]')]);
  assert.match(await page.textContent('h1'), /Brightdesk in AI answers: the kept history/, `account history at ${name}: the kept history, read with the session's key`);
  await shot('history');
  // The views, by the brand's row of pages: each a page of its own tables and CSV links, in the account's frame.
  for (const [kind, title] of [
    ['rivals', 'rivals'],
    ['citations', 'citations'],
    ['perception', 'how AI describes it'],
    ['traffic', 'AI traffic'],
  ]) {
    await Promise.all([page.waitForNavigation(), page.click(`nav[aria-label="This brand's pages"] a[href^="/account/views/${kind}"]`)]);
    assert.equal(await page.textContent('h1'), `Brightdesk in AI answers: ${title}`, `account ${kind} at ${name}: the view, read with the session's key`);
    // Showing the page makes no CSV link; its form does.
    assert.equal(await page.locator('[data-testid=csv-link]').count(), 0, `account ${kind} at ${name}: no CSV link made by showing the page`);
    await Promise.all([page.waitForNavigation(), page.click('[data-testid=csv-form] button[type=submit]')]);
    assert.ok((await page.locator('[data-testid=csv-link]').count()) > 0, `account ${kind} at ${name}: its CSV links, made by its form`);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `account ${kind} at ${name}: nothing scrolls sideways`);
    await shot(`view-${kind}`);
  }
  // Two addresses, one whose last digest went out and one whose last digest did not, with its reason.
  const sent = `tour-${name}@example.com`;
  const skipped = `tour-skipped-${name}@example.com`;
  await page.goto(`${base}/account/subscriptions`);
  for (const email of [sent, skipped]) {
    await page.fill('#email', email);
    await submit(page, 'form[action="/account/subscriptions"] button[type=submit]');
  }
  const idOf = async (email) => page.locator('li', { hasText: email }).getAttribute('data-subscription');
  const at = new Date().toISOString();
  const reason = 'The Read API answered 503 three times: the digest goes out with the next weekly run.';
  const row = (id, status, why) =>
    `('${id}', '2026-W01', '2026-01-05', 'tour', 'digest/${id}/tour', '${status}', ${why ? `'${why}'` : 'NULL'}, '${at}', '${at}', ${status === 'sent' ? `'${at}'` : 'NULL'})`;
  sql(
    `INSERT INTO digest_sends (subscription_id, iso_week, week_monday, group_key, idempotency_key, status, reason, planned_at, updated_at, sent_at) VALUES ${row(await idOf(sent), 'sent')}, ${row(await idOf(skipped), 'skipped', reason)}`,
  );
  await page.goto(`${base}/account/subscriptions`);
  assert.match(await page.locator('li', { hasText: sent }).textContent(), /Last digest: sent/, `account subscriptions at ${name}: a last delivery that went out`);
  assert.match(await page.locator('li', { hasText: skipped }).textContent(), /Last digest: not sent .* UTC: The Read API answered 503/, `account subscriptions at ${name}: one that did not, and why`);
  await shot('subscriptions');
  await page.fill('#email', 'not-an-address');
  await submit(page, 'form[action="/account/subscriptions"] button[type=submit]');
  await shot('subscriptions-error');
  await page.locator('li', { hasText: sent }).locator('summary', { hasText: 'Remove' }).click();
  await shot('subscriptions-remove-asks');
  for (const email of [sent, skipped]) await Promise.all([page.waitForURL(/done=removed/), asked(page.locator('li', { hasText: email }), 'Remove')]);
  await page.goto(`${base}/account/links`);
  await submit(page, 'form[action="/account/links"] button[type=submit]');
  await shot('share-links');
  await page.goto(`${base}/account/exports?table=listTopics`);
  await submit(page, 'form[method="post"][action="/account/exports"] button[type=submit]');
  const csvId = await page.locator('ul.cards > li.fresh').getAttribute('data-link');
  await shot('csv-links');
  await page.fill('#p-days', '400');
  await submit(page, 'form[method="post"][action="/account/exports"] button[type=submit]');
  await shot('csv-links-error');
  // The two links this tour made (the key's other links are the rest of the run's): the share link is the newest.
  for (const [path, card] of [
    ['links', 'ul.cards > li >> nth=0'],
    ['exports', `li[data-link="${csvId}"]`],
  ]) {
    await page.goto(`${base}/account/${path}`);
    await Promise.all([page.waitForNavigation(), asked(page.locator(card), 'Revoke')]);
  }
  await submit(page, 'nav button:has-text("Sign out")');
  await shot('signed-out');
  // A key whose plan is inactive: signed in, it sees what it may still do, and the plan's message where a read is refused.
  await signIn(page, base, INACTIVE);
  assert.match(await page.textContent('#inactive'), /not active/, `account inactive at ${name}: the plan's message`);
  await shot('inactive-overview');
  for (const [path, stage] of [
    ['subscriptions', 'inactive-subscriptions'],
    ['links', 'inactive-share-links'],
  ]) {
    await page.goto(`${base}/account/${path}`);
    assert.match(await page.textContent('#inactive'), /not active/, `account ${stage} at ${name}: the plan's message`);
    await shot(stage);
  }
  await submit(page, 'nav button:has-text("Sign out")');
  await context.close();
  step(`account pages at ${name}: axe clean, no horizontal scrolling`);
}
