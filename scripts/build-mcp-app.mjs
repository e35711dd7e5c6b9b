#!/usr/bin/env node
// `node scripts/build-mcp-app.mjs`: builds the MCP App's view, the weekly report's HTML document that hosts show in the chat,
// into the Worker's static assets: dist/assets/mcp-app/weekly-report.html (git-ignored; `resources/read` of its
// `ui://` resource reads it through the ASSETS binding, src/mcp/weekly-view.ts). wrangler.toml's `[build]` runs
// this before `wrangler dev` and `wrangler deploy` (and the dry run of `npm run check -- size`), and `npm test` and
// `npm test -- browser` run it first, so a fresh clone needs no step of its own.
//
// One self-contained document: the script (src/mcp/app/view.ts with the package's `App` class and render.ts,
// bundled by esbuild for the browser, minified) and the style inline, laid out by src/mcp/app/document.ts. Static
// assets rather than a module of the Worker: with the package's `App` (the SDK's Protocol, the MCP schemas and
// zod) the script weighs about 110 KiB gzip, which the Worker's 400 KiB budget could not hold.
//
// Trimmed: zod's locales (every language's error messages, ~260 KB; `App` never shows one) are left out but
// English, and the transport's `console.debug` of every message (a tool's whole result in the host's console).
//
// The document must make no request of its own, so the build fails when:
// - the bundle names a way to make a request as code (fetch, XMLHttpRequest, WebSocket, EventSource, sendBeacon,
//   importScripts: each is defined to a marker, which esbuild substitutes only where code refers to the global,
//   never in a string; the package's schema descriptions mention fetch and WebSocket in their text), or holds an
//   `import(`;
// - the view's own sources (the bundle's inputs under src/) mention any of those at all;
// - the document outside its script holds a URL, a src, href or other loading attribute, an @import or url(;
// - the document has more than one script, or its script holds `</script` or `<!--` unescaped.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ASSETS_DIRECTORY } from './assets-dir.mjs';

const ENTRY = 'src/mcp/app/view.ts';

/** The browser's ways to make a request, as globals the bundle could name. */
const REQUEST_GLOBALS = ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'importScripts', 'navigator.sendBeacon'];
const MARKER = '__mcp_app_requests__';
const define = Object.fromEntries(REQUEST_GLOBALS.flatMap((name) => [name, ...['window', 'self', 'globalThis'].map((root) => `${root}.${name}`)]).map((name, i) => [name, `${MARKER}${i}`]));
const OWN_SOURCE_REQUESTS = /\bfetch\b|XMLHttpRequest|WebSocket|EventSource|sendBeacon|\bimport\s*\(|importScripts/;

/** zod's `locales` namespace, imported by its `z` and `core`, reduced to the English messages zod sets by default. */
const englishOnlyZod = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (/[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'english-only' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'english-only' }, () => ({ contents: "export { default as en } from 'zod/v4/locales/en.js';", resolveDir: process.cwd(), loader: 'js' }));
  },
};

const { outputFiles, metafile } = await build({
  entryPoints: [ENTRY],
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2022'],
  legalComments: 'none',
  define,
  pure: ['console.debug'],
  plugins: [englishOnlyZod],
  write: false,
  metafile: true,
  logLevel: 'silent',
});
const script = outputFiles[0].text.trim();

// The document around it: document.ts (and the view's path, asset.ts) bundled for Node and run here, so the
// page's colours and the chart's style come from the same modules as the Worker's pages.
const documentModule = await build({
  stdin: { contents: "export { viewDocument } from './document'; export { VIEW_ASSET_PATH } from './asset';", resolveDir: 'src/mcp/app', loader: 'ts' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  write: false,
  logLevel: 'silent',
});
const { viewDocument, VIEW_ASSET_PATH } = await import(`data:text/javascript;base64,${Buffer.from(documentModule.outputFiles[0].text).toString('base64')}`);
const html = viewDocument(script);

const problems = [];
if (script.includes(MARKER)) problems.push(`the script names a way to make a request (${REQUEST_GLOBALS.join(', ')}) as code`);
if (/\bimport\s*\(/.test(script)) problems.push('the script holds an import()');
const ownSources = Object.keys(metafile.inputs).filter((input) => input.startsWith('src/'));
for (const source of ownSources) {
  const found = OWN_SOURCE_REQUESTS.exec(readFileSync(source, 'utf8'));
  if (found) problems.push(`${source} mentions ${found[0]}: the view's own code makes no request`);
}
const scripts = html.match(/<script[\s>]/gi) ?? [];
if (scripts.length !== 1) problems.push(`the document has ${scripts.length} scripts, not the one inline script`);
const start = html.indexOf('<script>') + '<script>'.length;
const end = html.lastIndexOf('</script>');
const inline = html.slice(start, end);
if (/<\/script|<!--/i.test(inline)) problems.push('the inline script holds `</script` or `<!--`');
const markup = html.slice(0, start) + html.slice(end);
if (/\s(src|href|srcset|action|formaction|poster|data|background)\s*=/i.test(markup)) problems.push('the document has an attribute that loads something (src, href, action, ...)');
if (/https?:|\/\/[a-z0-9.-]+\.[a-z]{2,}\//i.test(markup)) problems.push('the document outside its script holds a URL');
if (/@import|url\(/i.test(markup)) problems.push('the style loads something (@import or url())');
if (problems.length > 0) {
  console.error(`MCP App view (${ENTRY}):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}

const out = `${ASSETS_DIRECTORY.replace(/\/$/, '')}${VIEW_ASSET_PATH}`;
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, html);
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
console.log(`MCP App view: ${out}, ${kib(html.length)} (${kib(gzipSync(html).length)} gzip; its script ${kib(script.length)}, from ${Object.keys(metafile.inputs).length} files).`);
