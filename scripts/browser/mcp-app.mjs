// The weekly report as an MCP App, in a real browser and a real host (called by scripts/test-browser.mjs, against
// its `wrangler dev`): the SDK's client reads, through /mcp, the view's resource (the `ui://` URI that
// weekly_report's `_meta.ui.resourceUri` names) and the results of weekly_report and get_visibility on the demo
// data; a small host page served here loads the view's HTML in a sandboxed iframe (scripts only, an opaque origin)
// and speaks the MCP Apps protocol to the view (the package's `App`) with the package's own host side, `AppBridge` of
// `@modelcontextprotocol/ext-apps/app-bridge` (bundled for the page with esbuild): the host context (theme, a
// font), the tool's input, then its result; it sizes the frame from the view's size-changed notifications.
//
// At 400 and 700 px wide, in the host's light and dark theme (the browser's own scheme set to the other one, so
// the view must follow the host): the score shown is the result's; the chart is there with its 12 weeks and fits;
// the questions lost and won are the result's; no horizontal scrolling; the frame is as tall as the view says it
// is; the view's background is the theme's; no console error; the view makes no request (the only requests are
// the host page's own). Then a theme change sent live (host-context-changed), a host that says no theme (the
// system's scheme applies), and get_visibility. Screenshots under test/artifacts/mcp-app-*.png.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { build } from 'esbuild';

const MIME = 'text/html;profile=mcp-app';
/** The view's page colour in each theme (src/lib/html.ts COLOURS: --page). */
const PAGE = { light: 'rgb(255, 255, 255)', dark: 'rgb(17, 24, 39)' };
/** The host page around the frame, in each theme. */
const HOST_BACKGROUND = { light: '#f4f4f5', dark: '#1c1c1e' };

/** The host's script: AppBridge and its transport, bundled for the page, and `startHost`, which the test calls. */
async function hostScript() {
  const contents = `
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
window.startHost = async ({ html, args, result, hostContext }) => {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = 'Weekly report';
  document.getElementById('slot').append(frame);
  const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, { openLinks: {} }, { hostContext });
  window.sizes = [];
  bridge.onsizechange = ({ height }) => {
    window.sizes.push(height);
    if (height) frame.style.height = height + 'px';
  };
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  window.bridge = bridge;
};`;
  const { outputFiles } = await build({ stdin: { contents, resolveDir: process.cwd(), loader: 'js' }, bundle: true, format: 'iife', platform: 'browser', write: false, logLevel: 'silent' });
  return outputFiles[0].text;
}

/** A host page and its script, served on a free port of 127.0.0.1. */
async function serveHost(script) {
  const page = (theme) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Test host</title>
<style>body{margin:0;background:${HOST_BACKGROUND[theme]}}#slot{border:1px solid ${theme === 'dark' ? '#3a3a3c' : '#d4d4d8'};border-radius:12px;overflow:hidden}iframe{display:block;width:100%;height:80px;border:0}</style></head>
<body><div id="slot"></div><script src="/host.js"></script></body></html>`;
  const server = createServer((request, response) => {
    const url = new URL(request.url, 'http://127.0.0.1');
    if (url.pathname === '/host.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      return response.end(script);
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page(url.searchParams.get('theme') === 'dark' ? 'dark' : 'light'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

/** The MCP side: the view's HTML and the two results, read through /mcp with the SDK's client, as a host reads them. */
async function readThroughMcp(base, key) {
  const client = new Client({ name: 'browser-test-host', version: '1.0.0' }, { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [MIME] } } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  try {
    const { tools } = await client.listTools();
    const uri = tools.find((t) => t.name === 'weekly_report')?._meta?.ui?.resourceUri;
    assert.match(uri ?? '', /^ui:\/\//, 'weekly_report names its view in _meta.ui.resourceUri');
    assert.equal(tools.find((t) => t.name === 'get_visibility')?._meta?.ui?.resourceUri, uri, 'get_visibility names the same view');
    const { contents } = await client.readResource({ uri });
    assert.equal(contents[0].mimeType, MIME, `the view is ${MIME}`);
    const args = { market: 'us' };
    const weekly = await client.callTool({ name: 'weekly_report', arguments: args });
    const visibility = await client.callTool({ name: 'get_visibility', arguments: args });
    assert.ok(!weekly.isError && !visibility.isError, 'both tools answer');
    return { html: contents[0].text, args, weekly, visibility };
  } finally {
    await client.close();
  }
}

/** The whole host page: the window made as tall as the page first (Chromium paints a frame's content only within the window). */
async function shoot(page, path) {
  const { width } = page.viewportSize();
  await page.setViewportSize({ width, height: await page.evaluate(() => Math.ceil(document.getElementById('slot').getBoundingClientRect().bottom)) });
  await page.waitForTimeout(100);
  await page.screenshot({ path });
}

/**
 * Opens the host page at `width` in `theme` (the browser's scheme the other one unless `system` is given), runs the
 * view with `result`, and checks what a person would see. Returns the page (the caller closes its context).
 */
async function openView(browser, host, { html, args, result, width, theme, system, name, step, artifacts }) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1, colorScheme: system ?? (theme === 'dark' ? 'light' : 'dark') });
  const page = await context.newPage();
  const errors = [];
  const requests = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${host.origin}/?theme=${theme ?? system}`);
  const hostContext = {
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    platform: 'web',
    locale: 'en-US',
    containerDimensions: { width, maxHeight: 4000 },
    ...(theme ? { theme } : {}),
    styles: { variables: { '--font-sans': 'system-ui, sans-serif' } },
  };
  await page.evaluate((o) => window.startHost(o), { html, args, result, hostContext });
  const frame = page.frames().find((f) => f !== page.mainFrame());
  assert.ok(frame, `${name}: the view's frame`);
  await frame.waitForSelector('[data-testid=score]');
  // The frame is sized by the view's last size-changed notification (the host's border is around it, prefersBorder).
  await page
    .waitForFunction(() => window.sizes.length > 0 && Math.abs(document.querySelector('iframe').getBoundingClientRect().height - window.sizes.at(-1)) < 1, null, { timeout: 5000 })
    .catch(async () => {
      throw new Error(
        `${name}: the frame was not sized by the view (sizes ${JSON.stringify(await page.evaluate(() => window.sizes))}, frame ${await page.evaluate(() => document.querySelector('iframe').getBoundingClientRect().height)} px)`,
      );
    });
  await page.waitForTimeout(150);

  const structured = result.structuredContent;
  const score = (structured.report?.visibility ?? structured).score;
  const shown = await frame.$eval('[data-testid=score]', (el) => ({ data: el.dataset.score, text: el.textContent }));
  assert.equal(shown.data, score.toFixed(1), `${name}: the score shown is the result's`);
  assert.ok(shown.text.startsWith(`${score.toFixed(1)}%`), `${name}: the score reads ${score.toFixed(1)}% (${shown.text})`);

  const view = await frame.evaluate(() => {
    const chart = document.querySelector('svg[data-testid=chart]')?.getBoundingClientRect();
    const label = document.querySelector('svg[data-testid=chart] text.val')?.getBoundingClientRect();
    return {
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
      height: Math.ceil(document.documentElement.getBoundingClientRect().height),
      innerHeight: window.innerHeight,
      background: getComputedStyle(document.body).backgroundColor,
      theme: document.documentElement.dataset.theme ?? null,
      font: getComputedStyle(document.body).fontFamily,
      chart: chart ? { width: chart.width, height: chart.height } : null,
      labelHeight: label?.height ?? 0,
      points: document.querySelectorAll('svg[data-testid=chart] g.point').length,
      questions: [...document.querySelectorAll('[data-testid=questions] li strong')].map((q) => q.textContent.replace(/^“|”$/g, '')),
    };
  });
  assert.ok(view.scrollWidth <= view.clientWidth, `${name}: no horizontal scrolling (scrollWidth ${view.scrollWidth} > clientWidth ${view.clientWidth})`);
  assert.ok(view.innerHeight >= view.height - 1, `${name}: the host's frame shows the whole view (${view.innerHeight} px for ${view.height} px): it was told the size`);
  assert.equal(view.background, PAGE[theme ?? system], `${name}: the ${theme ? "host's" : "system's"} ${theme ?? system} theme`);
  assert.match(view.font, /system-ui/, `${name}: the host's font (--font-sans)`);
  assert.ok(view.chart && view.chart.width <= view.clientWidth && view.chart.height > 100, `${name}: the chart is there and fits (${JSON.stringify(view.chart)})`);
  assert.ok(view.labelHeight >= 9, `${name}: the chart's figures are readable (${view.labelHeight.toFixed(1)} px)`);
  const history = (structured.report?.visibility ?? structured).history;
  assert.equal(view.points, history.length, `${name}: the chart has the ${history.length} weeks`);
  if (structured.report) {
    const wl = structured.report.won_lost;
    assert.deepEqual(
      view.questions,
      [...wl.top_lost, ...wl.top_won].map((q) => q.text),
      `${name}: the questions lost and won are the result's`,
    );
    const counts = await frame.textContent('[data-testid=counts]');
    assert.equal(counts, `${wl.counts.lost} lost · ${wl.counts.won} won · ${wl.counts.held} held`, `${name}: the counts`);
  }
  assert.deepEqual(errors, [], `${name}: no console error`);
  assert.deepEqual(
    requests.filter((url) => !url.startsWith(host.origin)),
    [],
    `${name}: the view makes no request of its own`,
  );
  assert.deepEqual(requests.map((url) => new URL(url).pathname).sort(), ['/', '/host.js'], `${name}: only the host page's own requests`);

  const file = join(artifacts, `mcp-app-${name}.png`);
  await shoot(page, file);
  step(`MCP App ${name}: score ${score.toFixed(1)}%, ${view.points} weeks, ${view.height} px tall -> ${file}`);
  return { page, context, frame, errors };
}

/** The checks above, on `base` (a `wrangler dev` with the demo data) with `key`. */
export async function checkMcpApp({ browser, base, key, artifacts, step }) {
  const { html, args, weekly, visibility } = await readThroughMcp(base, key);
  const host = await serveHost(await hostScript());
  try {
    for (const width of [400, 700]) {
      for (const theme of ['light', 'dark']) {
        const { context } = await openView(browser, host, { html, args, result: weekly, width, theme, name: `weekly-${width}-${theme}`, step, artifacts });
        await context.close();
      }
    }

    // The host changes its theme while the view is open: the view follows at once.
    {
      const { page, context, frame, errors } = await openView(browser, host, { html, args, result: weekly, width: 400, theme: 'light', name: 'weekly-400-switch-before', step, artifacts });
      await page.evaluate(() => window.bridge.sendHostContextChange({ theme: 'dark' }));
      await frame.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
      assert.equal(await frame.evaluate(() => getComputedStyle(document.body).backgroundColor), PAGE.dark, 'a theme sent live (host-context-changed) turns the view dark');
      assert.deepEqual(errors, [], 'theme switch: no console error');
      await shoot(page, join(artifacts, 'mcp-app-weekly-400-switched-dark.png'));
      step('MCP App: the host switched to dark while the view was open -> mcp-app-weekly-400-switched-dark.png');
      await context.close();
    }

    // A host that names no theme: the system's scheme (prefers-color-scheme) applies.
    {
      const { context } = await openView(browser, host, { html, args, result: weekly, width: 400, system: 'dark', name: 'weekly-400-system-dark', step, artifacts });
      await context.close();
    }

    for (const [width, theme] of [
      [400, 'light'],
      [700, 'dark'],
    ]) {
      const { context } = await openView(browser, host, { html, args, result: visibility, width, theme, name: `visibility-${width}-${theme}`, step, artifacts });
      await context.close();
    }
  } finally {
    host.close();
  }
}
