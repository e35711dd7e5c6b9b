#!/usr/bin/env node
// `npm run size`: the Worker as `wrangler deploy` builds it (`wrangler deploy --dry-run --outdir`, with its
// metafile; no account needed), measured: raw and gzip size of the upload (wrangler's own figure: every module,
// gzipped together) and of the main module, which every fresh isolate loads, then the twenty largest inputs by
// the bytes they put in the output (esbuild's metafile). Exits 1 when the bundle holds what must stay out of
// production: the email previews' fixtures, prettier, or a development build of a package.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** Inputs that would only be in the bundle by mistake: preview data, a formatter, React's development builds. */
const KEEP_OUT = [
  { pattern: /^emails\/_fixtures\//, why: 'preview fixtures (only `npm run email` needs them)' },
  { pattern: /node_modules\/prettier\//, why: 'prettier (the email render formats nothing)' },
  { pattern: /\.development\.js$/, why: 'a development build' },
];

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

const outdir = mkdtempSync(path.join(tmpdir(), 'worker-size-'));
try {
  const metafile = path.join(outdir, 'bundle-meta.json');
  const built = spawnSync('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', outdir, '--metafile', metafile], {
    encoding: 'utf8',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  });
  if (built.status !== 0) {
    console.error(built.stdout, built.stderr);
    process.exit(built.status ?? 1);
  }
  const meta = JSON.parse(readFileSync(metafile, 'utf8'));

  // The modules wrangler uploads: the main module (named after `main`) and any other JavaScript module beside it.
  const modules = readdirSync(outdir)
    .filter((name) => /\.m?js$/.test(name))
    .map((name) => ({ name, content: readFileSync(path.join(outdir, name)) }));
  const main = modules.find((m) => m.name === 'index.js');
  const all = Buffer.concat(modules.map((m) => m.content));
  console.log(`Worker (wrangler deploy --dry-run): ${kib(all.length)} raw, ${kib(gzipSync(all).length)} gzip, ${modules.length} module(s)`);
  console.log(`  main module ${main.name}: ${kib(main.content.length)} raw, ${kib(gzipSync(main.content).length)} gzip`);

  const inputs = new Map();
  for (const [output, { inputs: used }] of Object.entries(meta.outputs)) {
    if (output.endsWith('.map')) continue;
    for (const [input, { bytesInOutput }] of Object.entries(used)) inputs.set(input, (inputs.get(input) ?? 0) + bytesInOutput);
  }
  const largest = [...inputs].sort((a, b) => b[1] - a[1]).slice(0, 20);
  console.log('\nLargest inputs (bytes in the output, before gzip):');
  for (const [input, bytes] of largest) console.log(`  ${kib(bytes).padStart(10)}  ${input}`);

  const problems = [...inputs.keys()].flatMap((input) => KEEP_OUT.filter((rule) => rule.pattern.test(input)).map((rule) => `${input}: ${rule.why}`));
  if (problems.length > 0) {
    console.error(`\nThe bundle holds what production must not carry:\n  ${problems.join('\n  ')}`);
    process.exitCode = 1;
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
