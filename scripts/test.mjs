#!/usr/bin/env node
// `npm test`: the whole suite, one step after another, stopping at the first failure with its exit code:
//  1. lint: `biome ci .`
//  2. layers: scripts/check-layers.mjs (which folder may import which, no cycles)
//  3. html: scripts/check-html.mjs (HTML written only through the `html` template)
//  4. words: scripts/check-words.mjs (every file a comment or doc names exists)
//  5. docs: scripts/check-docs.mjs (every file, link and npm script a Markdown file names exists)
//  6. unit: `vitest run --project unit`
//  7. build: scripts/build-assets.mjs (the MCP App's view and the OpenAPI documents, into dist/assets)
//  8. size: scripts/size.mjs (the Worker as deployed, under its gzip budget)
//  9. openapi: scripts/check-openapi.mjs (the built OpenAPI documents are valid)
// 10. upstream-discover: scripts/check-upstream-discover.mjs (discovery end to end against a small service)
// 11. deploy: scripts/check-deploy.mjs (`npm run deploy` against a fake Cloudflare API)
// 12. first-requests: scripts/check-first-requests.mjs (a fresh isolate's first answers)
// 13. worker: `vitest run --project worker` (the Worker in workerd)
// Each step runs as an npm script would (scripts/steps.mjs). One part alone:
//   npm test -- unit [vitest args]      npm test -- worker [vitest args]
//   npm test -- browser                 the pages in Chromium (builds first; scripts/test-browser.mjs)
//   npm test -- days [-- <day>... | --year]   the suite as if run on other days (scripts/test-days.mjs)
import { runSteps } from './steps.mjs';

const FULL = ['lint', 'layers', 'html', 'words', 'docs', 'unit', 'build', 'size', 'openapi', 'upstream-discover', 'deploy', 'first-requests', 'worker'];
const PARTS = { unit: ['unit'], worker: ['worker'], browser: ['build', 'browser'], days: ['days'] };

const [part, ...rest] = process.argv.slice(2);
if (part === undefined) runSteps(FULL);
else if (part === '--list') for (const name of Object.keys(PARTS)) console.log(name);
else if (PARTS[part]) runSteps(PARTS[part], rest[0] === '--' ? rest.slice(1) : rest);
else {
  console.error(`test.mjs: unknown part "${part}"; the parts: ${Object.keys(PARTS).join(', ')} (none: the whole suite).`);
  process.exit(2);
}
