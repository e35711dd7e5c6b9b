#!/usr/bin/env node
// `npm test -- browser`: the pages in a real browser. Starts `wrangler dev` on its own port and its
// own state directory (demo data loaded on the first request, secrets generated for this run), then
// drives Debian's headless Chromium with playwright-core:
// - the weekly report at 1280, 600 and 375 px wide, with the API key and through a signed link: the
//   chart, the 12 weeks, the won/lost lists show the figures of the JSON form of the same report; the
//   chart's scale shows a 3-point move; share of voice, engines and (keyed) the markets switch are there;
//   the copy button works on the signed link's page (its script runs under the CSP nonce); no
//   horizontal scrolling (scrollWidth <= clientWidth); no console error (a CSP violation is one);
// - the confirm page (opening it confirms nothing; its button does), the unsubscribe, unsubscribed
//   and subscribe-again pages, and the dev outbox's list and one message, at 375 and 390 px: no
//   horizontal scrolling, the product's name on each;
// - the emails at 375 and 600 px: the confirmation, an alerts-only subscription's confirmation (it and its
//   confirm page speak of alerts, never of a digest) and the digest;
// - the CSV exports: an export link's CSV in the browser, the report's "Copy CSV link" buttons and the
//   kept history's page at 600 and 375 px;
// - in front of a Read API without some parts (a second `wrangler dev` on the next port, whose upstream
//   is a small server here that answers from the first one's embedded origin without the 12-week
//   history, rivals and /prompts): the report page and the digest email at 375 and 600 px, the lines
//   where their sections were, and the compatibility check's page (POST /admin/upstream/check);
// - the consent page of OAuth for /mcp at 375 and 600 px (scripts/browser/consent.mjs);
// - the pages for people (scripts/browser/account.mjs): a whole flow through them (sign in, subscribe and
//   confirm, a webhook channel to a receiver here, remove, sign out, a revoked key refused), axe-core on every
//   page, and every page at 375 and 1280 px, light and dark (ACCOUNT_SHOTS: where those screenshots go);
// and saves screenshots under test/artifacts/. Not part of `npm test` (which needs no browser).
//
// Environment: CHROMIUM (default /usr/bin/chromium), BROWSER_TEST_PORT (default 8792; the second
// instance takes the next port, the foreign upstream the one after).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { checkMcpApp } from './browser/mcp-app.mjs';
import { checkConsent } from './browser/consent.mjs';
import { checkAccount } from './browser/account.mjs';

const PORT = Number(process.env.BROWSER_TEST_PORT ?? 8792);
const BASE = `http://127.0.0.1:${PORT}`;
const STATE = '.wrangler/browser-test-state';
/** The Worker in front of a Read API without some parts, and that API. */
const LACKING_PORT = PORT + 1;
const LACKING_BASE = `http://127.0.0.1:${LACKING_PORT}`;
const LACKING_STATE = '.wrangler/browser-test-lacking-state';
const FOREIGN_PORT = PORT + 2;
const ARTIFACTS = 'test/artifacts';
const EXECUTABLE = process.env.CHROMIUM ?? '/usr/bin/chromium';
const KEY = 'demo_pro_single';
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, tablet: { width: 600, height: 900 }, phone: { width: 375, height: 812 }, phone390: { width: 390, height: 844 } };
const PRODUCT = 'Brand AI-Visibility';

if (!existsSync(EXECUTABLE)) {
  console.error(`No browser at ${EXECUTABLE}. Install Debian's chromium (apt-get install -y chromium) or set CHROMIUM.`);
  process.exit(2);
}
mkdirSync(ARTIFACTS, { recursive: true });
rmSync(STATE, { recursive: true, force: true });
rmSync(LACKING_STATE, { recursive: true, force: true });

const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' };
const secrets = {
  ADMIN_TOKEN: randomBytes(24).toString('base64url'),
  SIGNING_SECRET: randomBytes(32).toString('base64url'),
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

const step = (text) => console.log(`· ${text}`);

/** A `wrangler dev` of the Worker on `port` with its own migrated state and these vars; ready once `/api/v1/visibility` answers 200. */
async function startDev(name, port, state, vars) {
  step(`${name}: applying migrations to ${state}`);
  const migrate = spawnSync('npx', ['wrangler', 'd1', 'migrations', 'apply', 'DB', '--local', '--persist-to', state], { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (migrate.status !== 0) throw new Error(`${name}: migrations failed (${migrate.status})`);
  step(`${name}: starting wrangler dev on :${port}`);
  const args = ['wrangler', 'dev', '--port', String(port), '--ip', '127.0.0.1', '--inspector-port', String(port + 1000), '--persist-to', state, '--test-scheduled'];
  const dev = spawn('npx', [...args, ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}:${v}`])], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let log = '';
  dev.stdout.on('data', (d) => (log += d));
  dev.stderr.on('data', (d) => (log += d));
  const stop = () => {
    try {
      process.kill(-dev.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  process.on('exit', stop);
  const started = Date.now();
  for (;;) {
    if (dev.exitCode !== null) throw new Error(`${name}: wrangler dev exited (${dev.exitCode}):\n${log}`);
    if (Date.now() - started > 240_000) throw new Error(`${name}: wrangler dev not ready after 240 s:\n${log}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/api/v1/visibility`, { headers: { authorization: `Bearer ${KEY}` } });
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  step(`${name}: ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { stop };
}

const camel = (name) => name.replace(/_(\w)/g, (_, c) => c.toUpperCase());
const respell = (value) => (Array.isArray(value) ? value.map(respell) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [camel(k), respell(v)])) : value);

/**
 * A Read API without some parts, as another implementation of the spec may be: the first Worker's embedded
 * origin (the demo data), in camelCase, without the 12-week history in /visibility and the rivals in /topics,
 * and without /prompts at all (404).
 */
function startLackingUpstream() {
  const server = createServer(async (request, response) => {
    const path = request.url.replace(/^\/api\/v1/, '');
    const answer = (status, body) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (path.startsWith('/prompts')) return answer(404, { error: { code: 'not_found', message: 'No such endpoint.' } });
    const origin = await fetch(`${BASE}/origin/api/v1${path}`, { headers: { authorization: request.headers.authorization ?? '' } });
    const body = await origin.json();
    if (origin.status !== 200) return answer(origin.status, body);
    if (/^\/visibility(?:\?|$)/.test(path)) delete body.history;
    // The list of topics only: `/topics/{id}` (a topic's own answer) keeps its rivals.
    if (/^\/topics(?:\?|$)/.test(path)) for (const topic of body.topics) delete topic.rivals;
    answer(200, respell(body));
  });
  server.listen(FOREIGN_PORT, '127.0.0.1');
  process.on('exit', () => server.close());
  return server;
}

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

let browser;
const stops = [];
const stopDev = () => stops.forEach((stop) => stop());
try {
  // The first request loads the demo data (about 30 s).
  stops.push((await startDev('our origin', PORT, STATE, { DEMO_DATA: 'on-empty', DEV_ROUTES: 'on', PUBLIC_URL: BASE, RESEND_API_KEY: '', ...secrets })).stop);

  // The same report as JSON: the figures the page must show.
  const jsonResponse = await fetch(`${BASE}/reports/weekly?market=us&format=json`, { headers: { authorization: `Bearer ${KEY}` } });
  assert.equal(jsonResponse.status, 200, 'format=json answers 200');
  const { report } = await jsonResponse.json();
  const expected = {
    score: report.visibility.score.toFixed(1),
    bars: report.visibility.history.map((b) => ({ week: b.week_start, score: b.score === null ? '' : b.score.toFixed(1) })),
    counts: report.won_lost.counts,
    won: report.won_lost.won.map((q) => q.text),
    lost: report.won_lost.lost.map((q) => q.text),
    plan: report.plan.items.map((item) => item.headline),
  };
  assert.equal(expected.bars.length, 12, 'the demo report has 12 weeks');
  assert.ok(expected.won.length + expected.lost.length > 0, 'the demo report has won or lost questions');

  const mint = await fetch(`${BASE}/reports/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ market: 'us', kind: 'weekly', expires_in_days: 30 }),
  });
  assert.equal(mint.status, 201, 'POST /reports/links answers 201');
  const { link } = await mint.json();
  assert.ok(link.url.startsWith(`${BASE}/r/`), `the link is absolute under PUBLIC_URL: ${link.url}`);

  browser = await chromium.launch({ executablePath: EXECUTABLE, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });

  /** No horizontal scrolling: the document is no wider than the window. */
  async function assertNoOverflow(page, name) {
    const { scrollWidth, clientWidth, widest } = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      // The elements that reach past the window, innermost first: what to fix when this fails.
      const widest = [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > width + 0.5)
        .reverse()
        .slice(0, 3)
        .map(
          (el) =>
            `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''} (right ${Math.round(el.getBoundingClientRect().right)} px)`,
        );
      return { scrollWidth: document.documentElement.scrollWidth, clientWidth: width, widest };
    });
    assert.ok(scrollWidth <= clientWidth, `${name}: no horizontal scrolling (scrollWidth ${scrollWidth} > clientWidth ${clientWidth}: ${widest.join(', ')})`);
  }

  /**
   * The CSV exports (docs/exports.md): an export link's CSV opened in the browser (the docs' screenshot), the
   * report page's "Copy CSV link" buttons at 600 and 375 px (one clicked: the clipboard holds the link), and the
   * kept history's page after one cron run (`/__scheduled`, `wrangler dev --test-scheduled`) at 600 and 375 px.
   */
  async function checkExports() {
    const minted = await fetch(`${BASE}/exports/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'listTopics', params: { market: 'us', days: 28 } }),
    });
    assert.equal(minted.status, 201, 'POST /exports/links answers 201');
    const { link: csvLink } = await minted.json();
    const csvText = await (await fetch(csvLink.url)).text();
    // A topic's rivals are spread over numbered columns, one value per cell (docs/exports.md).
    assert.match(csvText, /^id,name,score,change,rank,questions,rivals\.1\.name,rivals\.1\.share,rivals\.2\.name,[^\r\n]*\r\n/, `the CSV starts with its header row: ${csvText.slice(0, 80)}`);
    {
      // Chromium saves text/csv instead of showing it, so the file's text, exactly as the link serves it, is shown in a page.
      const context = await browser.newContext({ viewport: { width: 1000, height: 420 }, deviceScaleFactor: 1 });
      const page = await context.newPage();
      const escaped = (t) => t.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]);
      const shown = csvLink.url.replace(/(\/x\/v1\.)[\w-]+\.[\w-]+/, '$1…');
      await page.setContent(
        `<!doctype html><title>CSV</title><body style="margin:12px;font:13px ui-monospace,monospace"><p style="color:#555">GET ${escaped(shown)} · text/csv; charset=utf-8</p><pre style="margin:0">${escaped(csvText)}</pre>`,
      );
      await page.screenshot({ path: join(ARTIFACTS, 'export-csv-in-browser.png') });
      step(`export CSV in the browser -> ${join(ARTIFACTS, 'export-csv-in-browser.png')}`);
      await context.close();
    }
    const scheduled = await fetch(`${BASE}/__scheduled?cron=${encodeURIComponent('0 * * * *')}`);
    assert.equal(scheduled.status, 200, '/__scheduled runs the cron');
    for (const [name, viewport] of [
      ['tablet', VIEWPORTS.tablet],
      ['phone', VIEWPORTS.phone],
    ]) {
      const context = await browser.newContext({ viewport, deviceScaleFactor: 1, extraHTTPHeaders: { authorization: `Bearer ${KEY}` } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
      const page = await context.newPage();
      const errors = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      assert.equal((await page.goto(`${BASE}/reports/weekly?market=us`)).status(), 200, `report ${name}: 200`);
      // Showing the page makes no CSV link: its form does.
      assert.equal(await page.locator('button.copy-csv').count(), 0, `report ${name}: no CSV link made by showing the page`);
      await Promise.all([page.waitForNavigation(), page.click('[data-testid=csv-form] button[type=submit]')]);
      const buttons = page.locator('button.copy-csv');
      assert.ok((await buttons.count()) >= 4, `report ${name}: a Copy CSV link button per table`);
      await buttons.first().click();
      await page.waitForFunction(() => document.querySelector('button.copy-csv')?.textContent === 'CSV link copied');
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      assert.match(copied, /\/x\/v1\.[\w.-]+\.csv$/, `report ${name}: the clipboard holds the CSV link`);
      await assertNoOverflow(page, `report ${name} with CSV buttons`);
      await page.locator('table.weeks').scrollIntoViewIfNeeded();
      await page
        .locator('[data-testid=csv-link]')
        .first()
        .evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await page.screenshot({ path: join(ARTIFACTS, `report-csv-button-${name}.png`) });
      assert.equal((await page.goto(`${BASE}/reports/history?market=us`)).status(), 200, `history ${name}: 200`);
      assert.ok((await page.locator('[data-testid=history-table] tbody tr').count()) >= 1, `history ${name}: the cron kept this week`);
      await assertNoOverflow(page, `history ${name}`);
      await page.screenshot({ path: join(ARTIFACTS, `history-${name}.png`), fullPage: true });
      assert.deepEqual(errors, [], `exports ${name}: no console error`);
      step(`exports at ${viewport.width} px: ok -> report-csv-button-${name}.png, history-${name}.png`);
      await context.close();
    }
  }

  /** Opens a URL at a width, checks the report against the JSON, saves a screenshot. */
  async function checkReport(name, url, viewport, o = {}) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1, extraHTTPHeaders: o.headers ?? {} });
    if (o.signed) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));
    const response = await page.goto(url, { waitUntil: 'load' });
    assert.equal(response.status(), 200, `${name}: 200`);
    assert.equal(await page.getAttribute('html', 'lang'), 'en', `${name}: lang`);
    assert.equal(await page.textContent('.masthead .product'), PRODUCT, `${name}: the product's name heads the page`);
    const text = await page.textContent('main');
    assert.doesNotMatch(text, /ISO week|\d{4}-W\d\d|edge cache/, `${name}: plain words, no ISO week or cache jargon`);
    assert.match(await page.textContent('[data-testid=source]'), /^Figures from \d+ \w{3} \d{4}, \d\d:\d\d UTC \(/, `${name}: when the figures are from`);

    const score = await page.getAttribute('[data-testid=score]', 'data-score');
    assert.equal(score, expected.score, `${name}: the score`);

    const chart = page.locator('svg[data-testid=chart]');
    assert.ok(await chart.isVisible(), `${name}: the chart is visible`);
    const chartBox = await chart.boundingBox();
    assert.ok(chartBox.width <= viewport.width, `${name}: the chart fits the width (${chartBox.width} px)`);
    const points = await page.$$eval('svg[data-testid=chart] g.point', (gs) =>
      gs.map((g) => {
        const circle = g.querySelector('circle');
        const box = circle?.getBoundingClientRect();
        return { week: g.dataset.week, score: g.dataset.score, label: g.querySelector('text.val').textContent, y: box ? box.y + box.height / 2 : null };
      }),
    );
    assert.deepEqual(
      points.map((p) => ({ week: p.week, score: p.score })),
      expected.bars,
      `${name}: the chart's 12 points carry the weekly scores`,
    );
    for (const p of points) assert.equal(p.label, p.score === '' ? '–' : p.score, `${name}: point ${p.week} is labelled with its score`);
    // Drawn heights are linear in the scores, on the chart's own scale; a 3-point move is plainly visible.
    const lo = Number(await chart.getAttribute('data-scale-lo'));
    const hi = Number(await chart.getAttribute('data-scale-hi'));
    const measured = points.filter((p) => p.score !== '');
    const [a, b] = [measured[0], measured.find((p) => Math.abs(Number(p.score) - Number(measured[0].score)) >= 0.5) ?? measured.at(-1)];
    const pxPerPoint = Math.abs(a.y - b.y) / Math.max(0.1, Math.abs(Number(a.score) - Number(b.score)));
    for (const p of measured) {
      const predicted = a.y - (Number(p.score) - Number(a.score)) * pxPerPoint;
      assert.ok(Math.abs(p.y - predicted) <= 1.5, `${name}: point ${p.week} at ${p.y.toFixed(1)} px matches ${p.score}% (scale ${lo}–${hi}%)`);
    }
    assert.ok(3 * pxPerPoint >= 12, `${name}: a 3-point move spans ${(3 * pxPerPoint).toFixed(1)} px`);
    const labelSize = await page.$eval('svg[data-testid=chart] text.val', (t) => t.getBoundingClientRect().height);
    assert.ok(labelSize >= 9, `${name}: chart labels are readable (${labelSize.toFixed(1)} px)`);
    const weeks = await page.$$eval('[data-testid=weeks] tbody tr', (rows) => rows.map((r) => r.dataset.week));
    assert.deepEqual(weeks, expected.bars.map((b) => b.week).reverse(), `${name}: the 12 weeks as a table, newest first`);

    const counts = await page.$$eval('[data-count]', (els) => Object.fromEntries(els.map((e) => [e.dataset.count, Number(e.textContent)])));
    assert.deepEqual(counts, expected.counts, `${name}: won / lost / held counts`);
    const listTexts = (outcome) => page.$$eval(`[data-testid=${outcome}-list] > li .q`, (qs) => qs.map((q) => q.textContent.replace(/^“|”$/g, '')));
    assert.deepEqual(await listTexts('won'), expected.won, `${name}: the won questions`);
    assert.deepEqual(await listTexts('lost'), expected.lost, `${name}: the lost questions`);
    if (expected.lost.length > 0) assert.ok(await page.locator('[data-testid=lost-list] > li').first().isVisible(), `${name}: the lost list is visible`);
    assert.ok((await page.$$('[data-testid=share-of-voice] tbody tr')).length >= 2, `${name}: share of voice against rivals`);
    assert.ok((await page.$$('[data-testid=engines] tbody tr')).length >= 1, `${name}: answers per engine`);

    const copy = page.locator('#copy-link');
    if (o.signed) {
      assert.ok(await copy.isVisible(), `${name}: the copy button shows (its script ran under the CSP nonce)`);
      assert.equal(await page.inputValue('#share-url'), url, `${name}: the link to copy is the page's own`);
      await copy.click();
      await page.waitForFunction(() => document.getElementById('copy-status').textContent !== '');
      assert.equal(await page.textContent('#copy-status'), 'Link copied.', `${name}: says the link was copied`);
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url, `${name}: the clipboard holds the link`);
      assert.equal(await page.$('[data-testid=markets]'), null, `${name}: a signed link is bound to its market: no switch`);
    } else {
      assert.equal(await copy.count(), 0, `${name}: no copy button without a signed URL`);
      assert.match(await page.textContent('[data-testid=share]'), /POST .* to .*\/reports\/links with your key/, `${name}: says how to mint a signed link`);
      assert.ok(await page.locator('[data-testid=markets] a[data-market=de]').isVisible(), `${name}: the markets switch offers DE`);
    }

    // The week's plan, whole, in its order, right after the lead.
    const plan = await page.$$eval('[data-testid=plan] > li > .what', (ps) => ps.map((p) => p.textContent));
    assert.deepEqual(plan, expected.plan, `${name}: the plan's items, as the JSON form has them`);

    await assertNoOverflow(page, name);
    assert.deepEqual(errors, [], `${name}: no console errors`);

    const file = join(ARTIFACTS, `report-${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    // The first screen as a reader sees it, and the chart alone, for a closer look.
    await page.screenshot({ path: join(ARTIFACTS, `report-${name}-first-screen.png`) });
    await chart.screenshot({ path: join(ARTIFACTS, `report-${name}-chart.png`) });
    await page.locator('[data-testid=plan-section]').screenshot({ path: join(ARTIFACTS, `report-${name}-plan.png`) });
    step(`${name}: ok (${points.length} weeks, ${expected.won.length} won, ${expected.lost.length} lost, scale ${lo}–${hi}%) -> ${file}`);

    if (!o.signed && o.switchMarket) {
      await page.click('[data-testid=markets] a[data-market=de]');
      assert.match(await page.textContent('[data-testid=period]'), /Germany \(DE\)$/, `${name}: the switch opens the DE report`);
      await assertNoOverflow(page, `${name} (DE)`);
      await page.screenshot({ path: join(ARTIFACTS, `report-${name}-de.png`), fullPage: true });
      step(`${name}: the markets switch opens DE`);
    }
    await context.close();
  }

  const keyed = `${BASE}/reports/weekly?market=us`;
  const auth = { authorization: `Bearer ${KEY}` };

  /** The lines said where a section is left out (src/weekly-report/parts.ts). */
  const LINES = [
    'Your Read API does not provide the 12-week history, so the weekly chart is left out.',
    'Your Read API does not provide per-engine answers, so each engine’s questions naming the brand are left out.',
  ];

  /**
   * In front of a Read API without the 12-week history, rivals and /prompts: the report page and the digest
   * email (sent now, from the second Worker's dev outbox) leave those sections out and say so, at 600 and 375 px;
   * and the compatibility check's page, for that API and for our own origin.
   */
  async function checkLacking() {
    const foreign = startLackingUpstream();
    stops.push(() => foreign.close());
    const vars = { UPSTREAM_URL: `http://127.0.0.1:${FOREIGN_PORT}/api/v1`, DEV_ROUTES: 'on', PUBLIC_URL: LACKING_BASE, RESEND_API_KEY: '', ...secrets };
    stops.push((await startDev('a Read API without some parts', LACKING_PORT, LACKING_STATE, vars)).stop);

    const email = `lacking-${Date.now()}@example.com`;
    const subscribed = await fetch(`${LACKING_BASE}/digests/subscriptions`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ email, market: 'us' }),
    });
    assert.equal(subscribed.status, 201, 'lacking: subscribing answers 201 (the score is all it needs)');
    const messagesTo = async () => (await (await fetch(`${LACKING_BASE}/dev/outbox?format=json&to=${encodeURIComponent(email)}`)).json()).messages;
    const confirmUrl = /https?:\/\/\S+\/digests\/confirm\?token=[\w.-]+/.exec((await messagesTo())[0].text)?.[0];
    assert.equal((await fetch(confirmUrl, { method: 'POST' })).status, 200, 'lacking: the address is confirmed');
    assert.equal((await fetch(`${LACKING_BASE}/reports/weekly/send?market=us`, { method: 'POST', headers: auth })).status, 202, 'lacking: send now answers 202');
    const digest = (await messagesTo()).find((m) => m.kind === 'digest');
    assert.ok(digest, 'lacking: the digest is in the outbox');
    for (const line of LINES) assert.ok(digest.text.includes(line), `lacking digest: its text part says "${line}"`);

    for (const width of [600, 375]) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1, extraHTTPHeaders: auth });
      const page = await context.newPage();
      const errors = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      assert.equal((await page.goto(`${LACKING_BASE}/reports/weekly?market=us`)).status(), 200, `lacking report ${width}: 200`);
      const text = await page.textContent('main');
      for (const line of LINES) assert.ok(text.includes(line), `lacking report ${width}: says "${line}"`);
      assert.equal(await page.locator('svg[data-testid=chart]').count(), 0, `lacking report ${width}: no trend chart`);
      assert.ok((await page.locator('[data-testid=lost-list] > li').count()) > 0, `lacking report ${width}: the lost questions are there`);
      await assertNoOverflow(page, `lacking report ${width}`);
      assert.deepEqual(errors, [], `lacking report ${width}: no console error`);
      await page.screenshot({ path: join(ARTIFACTS, `report-lacking-${width}.png`), fullPage: true });

      assert.equal((await page.goto(`${LACKING_BASE}/dev/outbox/${digest.id}?format=html`)).status(), 200, `lacking digest ${width}: 200`);
      for (const line of LINES) assert.ok((await page.textContent('body')).includes(line), `lacking digest ${width}: says "${line}"`);
      await assertNoOverflow(page, `lacking digest email at ${width} px`);
      await page.screenshot({ path: join(ARTIFACTS, `email-digest-lacking-${width}.png`), fullPage: true });
      step(`lacking at ${width} px: ok -> report-lacking-${width}.png, email-digest-lacking-${width}.png`);
      await context.close();
    }

    // The check's page: a POST with the key in the body, asked for as HTML (the route answers the browser's GET with it).
    // Our origin's with the Growth key: demo_pro_single's minute of budget went on the pages above.
    const checks = [
      ['lacking', LACKING_BASE, 375, { api_key: KEY, market: 'us' }],
      ['lacking', LACKING_BASE, 600, { api_key: KEY, market: 'us' }],
      ['ours', BASE, 600, { api_key: 'demo_growth_multi', brand_id: 2, market: 'us' }],
    ];
    for (const [name, base, width, body] of checks) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1 });
      const page = await context.newPage();
      await page.route(`${base}/check-page`, async (route) => {
        const check = () =>
          route.fetch({
            url: `${base}/admin/upstream/check`,
            method: 'POST',
            headers: { authorization: `Bearer ${secrets.ADMIN_TOKEN}`, 'content-type': 'application/json', accept: 'text/html' },
            postData: JSON.stringify(body),
          });
        let response = await check();
        // The key's minute of budget may have gone on the pages above (the check reads every operation): it says when
        // to check again, and the reads it made are cached by then.
        if (response.status() === 429) {
          const wait = Number(response.headers()['retry-after'] ?? 60);
          step(`compatibility check (${name}): the key's budget is spent, checking again in ${wait} s as it says`);
          await new Promise((resolve) => setTimeout(resolve, (wait + 1) * 1000));
          response = await check();
        }
        await route.fulfill({ response });
      });
      assert.equal((await page.goto(`${base}/check-page`, { timeout: 150_000 })).status(), 200, `check ${name} ${width}: 200`);
      const statuses = await page.$$eval('[data-feature]', (items) => Object.fromEntries(items.map((li) => [li.dataset.feature, li.dataset.status])));
      const expected = name === 'ours' ? 'works' : 'works_without';
      assert.deepEqual(Object.values(statuses), Array(6).fill(expected), `check ${name} ${width}: every feature ${expected}`);
      assert.ok(!(await page.content()).includes(body.api_key), `check ${name} ${width}: the key is not shown`);
      await assertNoOverflow(page, `check ${name} ${width}`);
      await page.screenshot({ path: join(ARTIFACTS, `upstream-check-${name}-${width}.png`), fullPage: true });
      step(`compatibility check (${name}) at ${width} px: ok -> upstream-check-${name}-${width}.png`);
      await context.close();
    }
  }

  /** The pages people reach from mail, and the dev outbox, at phone widths. */
  async function checkSmallPages() {
    const email = `browser-${Date.now()}@example.com`;
    const subscribed = await fetch(`${BASE}/digests/subscriptions`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ email, market: 'us', timezone: 'Europe/Berlin' }),
    });
    assert.equal(subscribed.status, 201, 'subscribing answers 201');
    const { messages } = await (await fetch(`${BASE}/dev/outbox?format=json&to=${encodeURIComponent(email)}`)).json();
    assert.equal(messages.length, 1, 'one confirmation email in the outbox');
    const confirmUrl = /https?:\/\/\S+\/digests\/confirm\?token=[\w.-]+/.exec(messages[0].text)?.[0];
    const unsubscribeUrl = /^<([^>]+)>/.exec(messages[0].headers['List-Unsubscribe'])?.[1];
    assert.ok(confirmUrl && unsubscribeUrl, 'the confirmation email has both links');

    for (const viewport of [VIEWPORTS.phone, VIEWPORTS.phone390]) {
      const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
      const page = await context.newPage();
      const errors = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      const w = viewport.width;
      /** Checks the page in view and saves it. */
      const shot = async (name, expectText) => {
        assert.equal(await page.textContent('.masthead .product'), PRODUCT, `${name}: the product's name heads the page`);
        if (expectText) assert.match(await page.textContent('main'), expectText, `${name}: says what happens next`);
        await assertNoOverflow(page, `${name} at ${w} px`);
        const file = join(ARTIFACTS, `${name}-${w}.png`);
        await page.screenshot({ path: file, fullPage: true });
        step(`${name} at ${w} px: ok -> ${file}`);
      };

      if (w === VIEWPORTS.phone.width) {
        // Opening the link only shows the button (mail scanners prefetch links); the button confirms.
        await page.goto(confirmUrl);
        await shot('confirm-ask', /Nothing is sent until you confirm/);
        const listed = await (await fetch(`${BASE}/digests/subscriptions`, { headers: auth })).json();
        assert.equal(listed.subscriptions.find((s) => s.email === email)?.status, 'pending', 'opening the confirm link confirms nothing');
        await page.click('button:has-text("Confirm the subscription")');
        await page.waitForLoadState('load');
        await shot('confirm', /Your first digest arrives \w+day \d+ \w{3} \d{4} at \d\d:00 \(Europe\/Berlin\)\./);
        await page.goto(unsubscribeUrl);
        await shot('unsubscribe', /subscribe again/);
        await page.click('button[type=submit]');
        await page.waitForLoadState('load');
        await shot('unsubscribed', /Changed your mind\? Subscribe again below until/);
        await page.click('button:has-text("Subscribe again")');
        await page.waitForLoadState('load');
        // The first confirmation went minutes ago: the page says when another can go (10-minute window).
        await shot('resubscribed', /confirmation link went to|We sent a confirmation link/);
      }

      await page.goto(`${BASE}/dev/outbox`);
      await shot('outbox-list');
      await page.click(`[data-testid=messages] li a.subject >> nth=0`);
      await page.waitForLoadState('load');
      assert.match(await page.textContent('[data-testid=envelope]'), /From.*To.*Subject/s, 'outbox message: from, to, subject');
      assert.ok((await page.textContent('[data-testid=text]')).length > 20, 'outbox message: the text part');
      const frame = page.frameLocator('iframe[data-testid=html]');
      assert.ok((await frame.locator('body').textContent()).length > 20, 'outbox message: the HTML part renders in its sandboxed frame');
      // Its buttons work as in a mail program: the link opens in a new tab (the frame's sandbox lets popups out).
      const [opened] = await Promise.all([page.context().waitForEvent('page'), frame.locator('a[href*="/digests/"]').first().click()]);
      await opened.waitForLoadState('load');
      assert.match(new URL(opened.url()).pathname, /^\/digests\//, "outbox message: the email's button opens its link in a new tab");
      assert.equal(await opened.textContent('.masthead .product'), PRODUCT, 'outbox message: the link opened a page of this site');
      await opened.close();
      // A sandboxed frame is painted only once scrolled into view, even in a full-page screenshot.
      await page.locator('iframe[data-testid=html]').scrollIntoViewIfNeeded();
      await page.locator('iframe[data-testid=html]').screenshot({ path: join(ARTIFACTS, `outbox-message-html-${w}.png`) });
      await shot('outbox-message');
      await page.click('[data-testid=back]');
      await page.waitForLoadState('load');
      assert.equal(new URL(page.url()).pathname, '/dev/outbox', 'outbox message: back to the list');
      assert.deepEqual(errors, [], `small pages at ${w} px: no console errors`);
      await context.close();
    }
  }

  /**
   * The emails as a mail program shows them, from the dev outbox: the confirmation, the confirmation of an
   * alerts-only subscription, and the digest (sent with "send now" to a confirmed subscriber), at 375 and
   * 600 px. Nothing overflows; the alerts' confirmation speaks of alerts, never of a digest; the digest lists
   * at most 5 questions lost and 5 won, then links to the full report. Then the alerts-only confirm page
   * and, after its button, the confirmed page, at 375 and 600 px.
   */
  async function checkEmails() {
    const email = `digest-${Date.now()}@example.com`;
    const subscribed = await fetch(`${BASE}/digests/subscriptions`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ email, market: 'us' }) });
    assert.equal(subscribed.status, 201, 'emails: subscribing answers 201');
    const messagesTo = async () => (await (await fetch(`${BASE}/dev/outbox?format=json&to=${encodeURIComponent(email)}`)).json()).messages;
    const [confirmation] = await messagesTo();
    const confirmUrl = /https?:\/\/\S+\/digests\/confirm\?token=[\w.-]+/.exec(confirmation.text)?.[0];
    assert.ok(confirmUrl, 'emails: the confirmation email has its link');
    // The confirm page's button: a POST to the link's address.
    assert.equal((await fetch(confirmUrl, { method: 'POST' })).status, 200, 'emails: the address is confirmed');
    const sent = await fetch(`${BASE}/reports/weekly/send?market=us`, { method: 'POST', headers: auth });
    assert.equal(sent.status, 202, 'emails: send now answers 202');
    const digest = (await messagesTo()).find((m) => m.kind === 'digest');
    assert.ok(digest, 'emails: the digest is in the outbox');

    const alertsEmail = `alerts+${Date.now()}@example.com`;
    const alertsSubscribed = await fetch(`${BASE}/digests/subscriptions`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ email: alertsEmail, market: 'us', kinds: ['alerts'], timezone: 'Europe/Berlin', quiet_hours: { start: '22:30', end: '06:30' } }),
    });
    assert.equal(alertsSubscribed.status, 201, 'emails: an alerts-only subscription answers 201');
    const [alertsConfirmation] = (await (await fetch(`${BASE}/dev/outbox?format=json&to=${encodeURIComponent(alertsEmail)}`)).json()).messages;
    assert.equal(alertsConfirmation.subject, 'Confirm your AI-visibility change alerts for Brightdesk', 'emails: the alerts confirmation names alerts');

    for (const [name, message] of [
      ['confirmation', confirmation],
      ['alerts-confirmation', alertsConfirmation],
      ['digest', digest],
    ]) {
      for (const width of [375, 600]) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1 });
        const page = await context.newPage();
        assert.equal((await page.goto(`${BASE}/dev/outbox/${message.id}?format=html`)).status(), 200, `${name}: 200`);
        await assertNoOverflow(page, `${name} email at ${width} px`);
        if (name === 'digest') {
          for (const outcome of ['lost', 'won']) {
            const listed = await page.locator(`[data-question=${outcome}]`).count();
            assert.ok(listed <= 5, `digest: at most 5 questions ${outcome} (${listed})`);
          }
          const button = page.locator('a', { hasText: /See the whole plan and all .* changed questions|See all .* changed questions|Open the full report/ });
          assert.equal(await button.count(), 1, 'digest: one button to the full report');
          // "This week": at most three items, the first read with the score without scrolling (the email's first 900 px).
          const items = page.locator('[data-plan-item]');
          assert.ok((await items.count()) >= 1 && (await items.count()) <= 3, `digest: one to three plan items (${await items.count()})`);
          const first = await items.first().boundingBox();
          assert.ok(first && first.y + first.height <= 900, `digest at ${width} px: the plan's first item ends at ${first && first.y + first.height} px, past the first 900`);
          assert.match(await button.getAttribute('href'), /\/r\/v1\./, 'digest: the button opens the full report by its signed link');
        }
        if (name === 'alerts-confirmation') {
          // The written-out confirm link is a /digests/ address: words only.
          const shown = (await page.textContent('body')).replace(/https?:\/\/\S+/g, '');
          assert.match(shown, /change alerts for Brightdesk \(US\).*the day something moves beyond the noise.*quiet hours 22:30–06:30/s, 'alerts confirmation: what comes and when');
          assert.doesNotMatch(shown, /digest/i, 'alerts confirmation: no word of a digest');
        }
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        const file = join(ARTIFACTS, `email-${name}-${width}.png`);
        await page.screenshot({ path: file, fullPage: true });
        step(`${name} email at ${width} px: ok, ${height} px tall -> ${file}`);
        await context.close();
      }
    }

    const alertsConfirmUrl = /https?:\/\/\S+\/digests\/confirm\?token=[\w.-]+/.exec(alertsConfirmation.text)?.[0];
    assert.ok(alertsConfirmUrl, 'alerts confirmation: its link');
    // 600 px first: the 375 px pass presses the button.
    for (const width of [600, 375]) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1 });
      const page = await context.newPage();
      /** The page in view: the product's name, alerts and never a digest, no sideways scroll; then its screenshot. */
      const shot = async (name, expectText) => {
        assert.equal(await page.textContent('.masthead .product'), PRODUCT, `${name}: the product's name heads the page`);
        const shown = await page.textContent('body');
        assert.match(shown, expectText, `${name}: says what comes`);
        assert.doesNotMatch(shown, /digest/i, `${name}: no word of a digest`);
        await assertNoOverflow(page, `${name} at ${width} px`);
        const file = join(ARTIFACTS, `${name}-${width}.png`);
        await page.screenshot({ path: file, fullPage: true });
        step(`${name} at ${width} px: ok -> ${file}`);
      };
      assert.equal((await page.goto(alertsConfirmUrl)).status(), 200, 'alerts confirm page: 200');
      await shot('alerts-confirm-ask', /Confirm your change alerts.*the day something moves beyond the noise.*quiet hours 22:30–06:30/s);
      if (width === 375) {
        await page.click('button:has-text("Confirm the alerts")');
        await page.waitForLoadState('load');
        await shot('alerts-confirmed', /Alerts confirmed.*alerts start from the day after/s);
      }
      await context.close();
    }
  }

  await checkReport('desktop', keyed, VIEWPORTS.desktop, { headers: auth });
  await checkReport('tablet', keyed, VIEWPORTS.tablet, { headers: auth });
  await checkReport('phone', keyed, VIEWPORTS.phone, { headers: auth, switchMarket: true });
  await checkReport('link-phone', link.url, VIEWPORTS.phone, { signed: true });
  await checkReport('link-tablet', link.url, VIEWPORTS.tablet, { signed: true });
  await checkReport('link-desktop', link.url, VIEWPORTS.desktop, { signed: true });

  await checkSmallPages();
  await checkEmails();
  await checkExports();
  await checkLacking();
  await checkConsent({ browser, base: BASE, artifacts: ARTIFACTS, step, key: KEY });
  // The account's tour writes a last delivery of each kind straight into the running Worker's local D1.
  const sql = (command) => {
    const run = spawnSync('npx', ['wrangler', 'd1', 'execute', 'DB', '--local', '--persist-to', STATE, '--command', command], { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (run.status !== 0) throw new Error(`d1 execute failed (${run.status})`);
  };
  await checkAccount({ browser, base: BASE, artifacts: ARTIFACTS, step, key: KEY, sql });

  // The dark scheme (the pages follow prefers-color-scheme): the same page, screenshotted for a look.
  {
    const context = await browser.newContext({ viewport: VIEWPORTS.phone, colorScheme: 'dark' });
    const page = await context.newPage();
    assert.equal((await page.goto(link.url)).status(), 200, 'dark: 200');
    await assertNoOverflow(page, 'dark');
    await page.screenshot({ path: join(ARTIFACTS, 'report-link-phone-dark-first-screen.png') });
    step(`dark scheme: ok -> ${join(ARTIFACTS, 'report-link-phone-dark-first-screen.png')}`);
    await context.close();
  }

  await checkMcpApp({ browser, base: BASE, key: KEY, artifacts: ARTIFACTS, step }); // the weekly report as an MCP App in a test host: scripts/browser/mcp-app.mjs

  // A changed link: a clear 403 page, screenshotted too. The character changed is inside the signature, not its
  // last one: a last character carries unused bits, and one spelled with them set is malformed (400), not forged.
  const context = await browser.newContext({ viewport: VIEWPORTS.phone });
  const page = await context.newPage();
  const at = link.url.length - 5;
  const bad = await page.goto(`${link.url.slice(0, at)}${link.url[at] === 'A' ? 'B' : 'A'}${link.url.slice(at + 1)}`);
  assert.equal(bad.status(), 403, 'a changed link is 403');
  assert.match(await page.textContent('h1'), /not valid/, 'the 403 page says the link is not valid');
  await page.screenshot({ path: join(ARTIFACTS, 'report-link-invalid-phone.png'), fullPage: true });
  step(`changed link: 403 page -> ${join(ARTIFACTS, 'report-link-invalid-phone.png')}`);
  await context.close();

  console.log('\nBrowser test passed.');
} catch (error) {
  console.error(`\nBrowser test failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  await browser?.close();
  stopDev();
}
