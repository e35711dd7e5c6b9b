#!/usr/bin/env node
// `node scripts/screenshot-alerts.mjs`: the alert email (its PreviewProps, through the real template and
// renderer) and the page a Slack or webhook owner opens from the test delivery's confirm link (the real
// route handler over a one-row stand-in for D1), in headless Chromium at 375 and 600 px, and at 375 px dark. Checks that
// nothing scrolls sideways and saves the screenshots under test/artifacts/. Not part of `npm test`.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';

const ARTIFACTS = 'test/artifacts';
const EXECUTABLE = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ENTRY = `
import { renderAlert } from './src/mail/render';
import AlertEmail from './emails/alert';
import { subscriptionRoutes } from './src/subscriptions/routes';
import { signToken } from './src/lib/signing';
import { zodSide } from './src/contract/zod-side';

export async function pages() {
  await zodSide();
  const email = await renderAlert(AlertEmail.PreviewProps);
  const now = new Date();
  const row = { id: 'sub_screenshot', email: 'ops@example.com', brand_id: 1, brand_name: 'Brightdesk', market_id: 11, market_code: 'us', kinds: 'alerts', timezone: 'Europe/Berlin', status: 'pending',
    channel_type: 'webhook', channel_url: 'https://receiver.example.com/hooks/brightdesk', quiet_start: 1320, quiet_end: 420 };
  const db = { prepare: () => ({ bind: () => ({ first: async () => row }) }) };
  const deps = { db, signingSecret: 'screenshot', now: () => now };
  const token = await signToken('screenshot', { p: 'confirm', s: row.id }, { ttlSeconds: 3600, now });
  const url = new URL('http://localhost:8787/digests/confirm?token=' + token);
  const route = subscriptionRoutes.find((r) => r.path === '/digests/confirm');
  const confirm = await route.methods.GET(new Request(url), {}, deps, url);
  return { email: email.html, confirm: await confirm.text() };
}
`;

mkdirSync(ARTIFACTS, { recursive: true });
const bundle = join(ARTIFACTS, 'screenshot-alerts.bundle.mjs');
// The routes' module graph reaches the Durable Object classes, which extend workerd's base class: a stand-in.
const workerdStandIn = {
  name: 'cloudflare-workers',
  setup(b) {
    b.onResolve({ filter: /^cloudflare:workers$/ }, () => ({ path: 'cf', namespace: 'stand-in' }));
    b.onLoad({ filter: /.*/, namespace: 'stand-in' }, () => ({ contents: 'export class DurableObject {}' }));
  },
};
await build({
  stdin: { contents: ENTRY, resolveDir: '.', loader: 'ts' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: bundle,
  jsx: 'automatic',
  logLevel: 'error',
  plugins: [workerdStandIn],
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
});
const { pages } = await import(pathToFileURL(bundle).href);
const html = await pages();
rmSync(bundle);

const browser = await chromium.launch({ executablePath: EXECUTABLE, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  for (const [name, content] of Object.entries(html)) {
    const file = join(ARTIFACTS, `alert-${name}.html`);
    writeFileSync(file, content);
    for (const width of [375, 600]) {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      await page.goto(pathToFileURL(file).href);
      const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      assert.ok(scroll <= client, `${name} at ${width} px scrolls sideways (${scroll} > ${client})`);
      await page.screenshot({ path: join(ARTIFACTS, `alert-${name}-${width}.png`), fullPage: true });
      await page.close();
      console.log(`· ${name} at ${width} px: no sideways scroll; ${join(ARTIFACTS, `alert-${name}-${width}.png`)}`);
    }
    // Both schemes: the dark one at phone width.
    const dark = await browser.newPage({ viewport: { width: 375, height: 800 }, colorScheme: 'dark' });
    await dark.goto(pathToFileURL(file).href);
    await dark.screenshot({ path: join(ARTIFACTS, `alert-${name}-375-dark.png`), fullPage: true });
    await dark.close();
  }
} finally {
  await browser.close();
}
