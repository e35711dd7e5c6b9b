#!/usr/bin/env node
// `npm run check [-- name ...] [-- args of the last]`: the checks named, in the order given, stopping at the first
// failure with its exit code; no name, the quick static ones (QUICK). `--list`: each name and what it checks.
// Each runs as an npm script would (scripts/steps.mjs). Examples:
//   npm run check                          lint, typecheck, layers, html, words, docs
//   npm run check -- size                  the Worker as deployed, against its budget
//   npm run check -- mcp -- http://localhost:8787   MCP conformance against `npm run dev`
import { runSteps } from './steps.mjs';

const CHECKS = {
  lint: [['lint'], 'biome ci: format and lint rules'],
  typecheck: [['typecheck'], 'tsc on the project and on src/mcp/app'],
  layers: [['layers'], 'which folder may import which, no cycles (scripts/check-layers.mjs)'],
  html: [['html'], 'HTML written only through the html template (scripts/check-html.mjs)'],
  words: [['words'], 'every file a comment or doc names exists (scripts/check-words.mjs)'],
  docs: [['docs'], 'every file, link and npm script a Markdown file names exists (scripts/check-docs.mjs)'],
  build: [['build'], 'builds dist/assets: the MCP App view and the OpenAPI documents (scripts/build-assets.mjs)'],
  size: [['size'], 'the Worker as deployed, under its gzip budget (scripts/size.mjs)'],
  openapi: [['build', 'openapi'], 'builds, then validates the OpenAPI documents (scripts/check-openapi.mjs)'],
  'upstream-discover': [['upstream-discover'], 'discovery end to end against a small service (scripts/check-upstream-discover.mjs)'],
  deploy: [['deploy'], 'npm run deploy against a fake Cloudflare API (scripts/check-deploy.mjs)'],
  'first-requests': [['first-requests'], "a fresh isolate's first answers (scripts/check-first-requests.mjs)"],
  mcp: [['mcp'], 'MCP conformance suite against a running Worker, default http://localhost:8787 (scripts/mcp-conformance.mjs)'],
};
const QUICK = ['lint', 'typecheck', 'layers', 'html', 'words', 'docs'];

const args = process.argv.slice(2);
if (args[0] === '--list') {
  for (const [name, [, what]] of Object.entries(CHECKS)) console.log(`${name.padEnd(18)} ${what}${QUICK.includes(name) ? ' [default]' : ''}`);
  process.exit(0);
}
const cut = args.indexOf('--');
const names = cut === -1 ? args : args.slice(0, cut);
const extra = cut === -1 ? [] : args.slice(cut + 1);
const unknown = names.filter((name) => !CHECKS[name]);
if (unknown.length > 0) {
  console.error(`check.mjs: no check named ${unknown.join(', ')}; the checks: ${Object.keys(CHECKS).join(', ')} (--list says what each does).`);
  process.exit(2);
}
runSteps(
  (names.length > 0 ? names : QUICK).flatMap((name) => CHECKS[name][0]),
  extra,
);
