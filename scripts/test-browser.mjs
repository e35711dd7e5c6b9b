#!/usr/bin/env node
// `npm run test:browser`: the report page in a real browser. Starts `wrangler dev` on its own port
// and its own state directory (demo data loaded on the first request, secrets generated for this run),
// then drives Debian's headless Chromium with playwright-core: opens the weekly report at desktop
// (1280x900) and phone (390x844) widths, with the API key and through a signed link, checks that the
// chart and the won/lost lists show the demo figures of the JSON form of the same report, and saves
// screenshots under test/artifacts/. Not part of `npm test` (which needs no browser).
//
// Environment: CHROMIUM (default /usr/bin/chromium), BROWSER_TEST_PORT (default 8792).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const PORT = Number(process.env.BROWSER_TEST_PORT ?? 8792);
const BASE = `http://127.0.0.1:${PORT}`;
const STATE = '.wrangler/browser-test-state';
const ARTIFACTS = 'test/artifacts';
const EXECUTABLE = process.env.CHROMIUM ?? '/usr/bin/chromium';
const KEY = 'demo_pro_single';
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };

if (!existsSync(EXECUTABLE)) {
  console.error(`No browser at ${EXECUTABLE}. Install Debian's chromium (apt-get install -y chromium) or set CHROMIUM.`);
  process.exit(2);
}
mkdirSync(ARTIFACTS, { recursive: true });
rmSync(STATE, { recursive: true, force: true });

const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' };
const secrets = {
  ADMIN_TOKEN: randomBytes(24).toString('base64url'),
  SIGNING_SECRET: randomBytes(32).toString('base64url'),
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

const step = (text) => console.log(`· ${text}`);

step(`applying migrations to ${STATE}`);
const migrate = spawnSync('npx', ['wrangler', 'd1', 'migrations', 'apply', 'DB', '--local', '--persist-to', STATE], { stdio: ['ignore', 'ignore', 'inherit'], env });
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

step(`starting wrangler dev on :${PORT}`);
const vars = { DEMO_DATA: 'on-empty', PUBLIC_URL: BASE, RESEND_API_KEY: '', ...secrets };
const dev = spawn('npx', ['wrangler', 'dev', '--port', String(PORT), '--ip', '127.0.0.1', '--persist-to', STATE, ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}:${v}`])], {
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true,
});
let devLog = '';
dev.stdout.on('data', (d) => (devLog += d));
dev.stderr.on('data', (d) => (devLog += d));
const stopDev = () => {
  try {
    process.kill(-dev.pid, 'SIGTERM');
  } catch {
    // already gone
  }
};
process.on('exit', stopDev);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

let browser;
try {
  // The first request loads the demo data (about 30 s).
  const started = Date.now();
  for (;;) {
    if (dev.exitCode !== null) throw new Error(`wrangler dev exited (${dev.exitCode}):\n${devLog}`);
    if (Date.now() - started > 240_000) throw new Error(`wrangler dev not ready after 240 s:\n${devLog}`);
    try {
      const r = await fetch(`${BASE}/api/v1/visibility`, { headers: { authorization: `Bearer ${KEY}` } });
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  step(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);

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

  /** Opens a URL at a width, checks the report against the JSON, saves a screenshot. */
  async function checkReport(name, url, viewport, headers = {}) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1, extraHTTPHeaders: headers });
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    const response = await page.goto(url, { waitUntil: 'load' });
    assert.equal(response.status(), 200, `${name}: 200`);
    assert.equal(await page.getAttribute('html', 'lang'), 'en', `${name}: lang`);

    const score = await page.getAttribute('[data-testid=score]', 'data-score');
    assert.equal(score, expected.score, `${name}: the score`);

    const chart = page.locator('svg[data-testid=chart]');
    assert.ok(await chart.isVisible(), `${name}: the chart is visible`);
    const chartBox = await chart.boundingBox();
    assert.ok(chartBox.width <= viewport.width, `${name}: the chart fits the width (${chartBox.width} px)`);
    const bars = await page.$$eval('svg[data-testid=chart] g.bar', (gs) =>
      gs.map((g) => {
        const rect = g.querySelector('rect').getBoundingClientRect();
        return { week: g.dataset.week, score: g.dataset.score, label: g.querySelector('text.val').textContent, height: rect.height };
      }),
    );
    assert.deepEqual(
      bars.map((b) => ({ week: b.week, score: b.score })),
      expected.bars,
      `${name}: the chart's 12 bars carry the weekly scores`,
    );
    for (const b of bars) assert.equal(b.label, b.score === '' ? '–' : b.score, `${name}: bar ${b.week} is labelled with its score`);
    // Drawn heights are proportional to the scores (bars start at zero).
    const measured = bars.filter((b) => b.score !== '' && Number(b.score) > 0);
    const ratio = measured[0].height / Number(measured[0].score);
    for (const b of measured) assert.ok(Math.abs(b.height - Number(b.score) * ratio) <= 1.5, `${name}: bar ${b.week} height ${b.height.toFixed(1)} px matches ${b.score}%`);
    const labelSize = await page.$eval('svg[data-testid=chart] text.val', (t) => t.getBoundingClientRect().height);
    assert.ok(labelSize >= 9, `${name}: chart labels are readable (${labelSize.toFixed(1)} px)`);

    const counts = await page.$$eval('[data-count]', (els) => Object.fromEntries(els.map((e) => [e.dataset.count, Number(e.textContent)])));
    assert.deepEqual(counts, expected.counts, `${name}: won / lost / held counts`);
    const listTexts = (outcome) => page.$$eval(`[data-testid=${outcome}-list] > li .q`, (qs) => qs.map((q) => q.textContent.replace(/^“|”$/g, '')));
    assert.deepEqual(await listTexts('won'), expected.won, `${name}: the won questions`);
    assert.deepEqual(await listTexts('lost'), expected.lost, `${name}: the lost questions`);
    if (expected.lost.length > 0) assert.ok(await page.locator('[data-testid=lost-list] > li').first().isVisible(), `${name}: the lost list is visible`);

    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${name}: no horizontal scrolling (overflow ${overflow} px)`);
    assert.deepEqual(errors, [], `${name}: no console errors`);

    const file = join(ARTIFACTS, `report-${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    // The first screen as a reader sees it, and the chart alone, for a closer look.
    await page.screenshot({ path: join(ARTIFACTS, `report-${name}-first-screen.png`) });
    await chart.screenshot({ path: join(ARTIFACTS, `report-${name}-chart.png`) });
    step(`${name}: ok (${bars.length} bars, ${expected.won.length} won, ${expected.lost.length} lost) -> ${file}`);
    await context.close();
  }

  const keyed = `${BASE}/reports/weekly?market=us`;
  await checkReport('desktop', keyed, VIEWPORTS.desktop, { authorization: `Bearer ${KEY}` });
  await checkReport('phone', keyed, VIEWPORTS.phone, { authorization: `Bearer ${KEY}` });
  await checkReport('link-phone', link.url, VIEWPORTS.phone);
  await checkReport('link-desktop', link.url, VIEWPORTS.desktop);

  // A changed link: a clear 403 page, screenshotted too.
  const context = await browser.newContext({ viewport: VIEWPORTS.phone });
  const page = await context.newPage();
  const bad = await page.goto(link.url.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')));
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
