#!/usr/bin/env node
// `npm run check -- size`: the Worker as `wrangler deploy` builds it (scripts/bench/deployed.mjs), measured: raw and gzip
// size of the upload (wrangler's own figure: every module, gzipped together) and of the main module, then how much
// of it a fresh isolate evaluates when it loads (the inputs reached from src/index.ts by static imports) and how
// much waits for an `import()` (wrangler does not split the bundle: that code is in the main module, compiled with
// it, and evaluated at its first use), then the twenty largest inputs by the bytes they put in the output
// (esbuild's metafile). Exits 1 over the budget (400 KiB gzip, issue 24), when the bundle holds what must stay
// out of production (the email previews' fixtures, prettier, a development build of a package, the OpenAPI documents' sources), or when an isolate
// evaluates at load what /api/v1 does not need (`LOAD_LATER`). `.ci/run` runs it.
import { gzipSync } from 'node:zlib';
import { buildAsDeployed } from './bench/deployed.mjs';

/** Inputs that would only be in the bundle by mistake: preview data, a formatter, React's development builds. */
const KEEP_OUT = [
  { pattern: /^emails\/_fixtures\//, why: 'preview fixtures (only `npm run email` needs them)' },
  { pattern: /node_modules\/prettier\//, why: 'prettier (the email render formats nothing)' },
  { pattern: /\.development\.js$/, why: 'a development build' },
  { pattern: /^src\/(.+\/)?(openapi|product-openapi|upstream-check-openapi)\.ts$/, why: "an OpenAPI document's source (built into the static assets at build time: scripts/build-openapi.mjs)" },
];

/**
 * What `/api/v1` does not need, so a fresh isolate must not evaluate it when it loads (issue 24): it waits for an
 * `import()` at its first use. MCP beyond its route and paths, the MCP SDK and OAuth, email rendering, HTML
 * parsing, zod (a HIT's request is parsed without it), the typed client.
 */
const LOAD_LATER = [
  { pattern: /^src\/mcp\/(?!index\.ts$|oauth-paths\.ts$)/, why: 'MCP (src/mcp/index.ts loads it at the first /mcp request)' },
  { pattern: /node_modules\/@modelcontextprotocol\//, why: 'the MCP SDK' },
  { pattern: /node_modules\/@cloudflare\/workers-oauth-provider\//, why: 'the OAuth provider' },
  { pattern: /^emails\/|^src\/mail\/|node_modules\/(react|react-dom|@react-email\/[^/]+)\//, why: 'email rendering' },
  { pattern: /node_modules\/(htmlparser2|html-to-text|domhandler|dom-serializer|entities)\//, why: 'HTML parsing' },
  { pattern: /node_modules\/zod\/|^src\/contract\/schemas\//, why: "zod and the contract's schemas (src/contract/zod-side.ts loads them past a HIT)" },
  { pattern: /^src\/client\/(?!transport\.ts$)|^src\/contract\/(body|conform|optional-paths)\.ts$/, why: 'the typed client and its body checks (a HIT reads no body)' },
];

/** The whole upload, gzipped, at most. */
const BUDGET_GZIP_BYTES = 400 * 1024;

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

const { modules, main, meta } = buildAsDeployed();
const all = Buffer.concat(modules.map((m) => m.content));
const gzipped = gzipSync(all).length;
const mainModule = modules.find((m) => m.name === main);
console.log(`Worker (wrangler deploy --dry-run): ${kib(all.length)} raw, ${kib(gzipped)} gzip (budget ${kib(BUDGET_GZIP_BYTES)}), ${modules.length} module(s)`);
console.log(`  main module ${main}: ${kib(mainModule.content.length)} raw, ${kib(gzipSync(mainModule.content).length)} gzip`);

const inputs = new Map();
for (const [output, { inputs: used }] of Object.entries(meta.outputs)) {
  if (output.endsWith('.map')) continue;
  for (const [input, { bytesInOutput }] of Object.entries(used)) inputs.set(input, (inputs.get(input) ?? 0) + bytesInOutput);
}
// Evaluated with the isolate: what src/index.ts reaches without an import(). The rest waits for its first use.
const eager = new Set();
const pending = [Object.values(meta.outputs).find((output) => output.entryPoint)?.entryPoint];
while (pending.length > 0) {
  const input = pending.pop();
  if (eager.has(input) || !meta.inputs[input]) continue;
  eager.add(input);
  for (const { path, kind } of meta.inputs[input].imports) if (kind !== 'dynamic-import') pending.push(path);
}
const sum = (filter) => [...inputs].filter(([input]) => filter(input)).reduce((total, [, bytes]) => total + bytes, 0);
console.log(`  evaluated when an isolate loads it: ${kib(sum((i) => eager.has(i)))}; on first use (import()): ${kib(sum((i) => !eager.has(i)))} (bytes in the output, before gzip)`);

const largest = [...inputs].sort((a, b) => b[1] - a[1]).slice(0, 20);
console.log('\nLargest inputs (bytes in the output, before gzip; * = evaluated when an isolate loads):');
for (const [input, bytes] of largest) console.log(`  ${kib(bytes).padStart(10)} ${eager.has(input) ? '*' : ' '} ${input}`);

const problems = [...inputs.keys()].flatMap((input) => KEEP_OUT.filter((rule) => rule.pattern.test(input)).map((rule) => `${input}: ${rule.why}`));
for (const input of eager)
  for (const rule of LOAD_LATER)
    if (rule.pattern.test(input)) problems.push(`${input}: evaluated when an isolate loads, though /api/v1 does not need it (${rule.why}): load it with import() at its first use`);
if (gzipped > BUDGET_GZIP_BYTES) problems.push(`${kib(gzipped)} gzip: over the budget of ${kib(BUDGET_GZIP_BYTES)}`);
if (problems.length > 0) {
  console.error(`\nThe bundle fails its checks:\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
}
