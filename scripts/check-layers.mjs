#!/usr/bin/env node
// Run by `npm test` before the Worker's tests: the layers hold, no two files
// import each other (type imports too), no source file is over 500 lines, and
// the published `./client` bundles no D1 code. Fails with one line per problem.
import { build } from 'esbuild';
import { checkLayers, sourceFiles } from './layers.mjs';

const failures = [];
const files = sourceFiles(process.cwd());
failures.push(...checkLayers(files));

// A file holds one thing: past 500 lines it holds several, and splits along its seams (issue 35).
const MAX_LINES = 500;
for (const file of files) {
  const lines = file.text.split('\n').length - (file.text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_LINES) failures.push(`${file.path} has ${lines} lines (at most ${MAX_LINES}): split it along its seams`);
}

// The check itself must catch what it guards against: planted back-imports, a sibling import, and planted cycles of folders and of files.
const planted = (edits) => files.map((f) => (edits[f.path] ? { ...f, text: `${edits[f.path]}\n${f.text}` } : f));
const backImport = checkLayers(planted({ 'src/contract/errors.ts': "import type { ApiClient } from '../client';" }));
if (!backImport.some((p) => p.includes('runs up from src/contract to src/client'))) failures.push('self-test: a planted back-import (contract -> client) was not reported');
if (!backImport.includes('folders import each other: src/client -> src/contract -> src/client')) failures.push('self-test: the cycle of a planted back-import (contract <-> client) was not reported');
const typeOnly = checkLayers(planted({ 'src/lib/hash.ts': "export type { Report } from '../weekly-report/model';" }));
if (!typeOnly.some((p) => p.includes('runs up from src/lib to src/weekly-report'))) failures.push('self-test: a planted type re-export (lib -> weekly-report) was not reported');
const sibling = checkLayers(planted({ 'src/reports/index.ts': "import { x } from '../digests/planner';" }));
if (!sibling.some((p) => p.includes('a sibling'))) failures.push('self-test: a planted sibling import (reports -> digests) was not reported');
// A circle of types alone, within one folder (the guard imports the paths): only the file check sees it.
const typeCircle = checkLayers(planted({ 'src/account/paths.ts': "import type { SignedIn } from './guard';" }));
const plantedCircle = 'files import each other: src/account/guard.ts -> src/account/paths.ts -> src/account/guard.ts';
if (!typeCircle.includes(plantedCircle)) failures.push('self-test: a planted circle of type imports (account paths <-> guard) was not reported');

// `./client` alone: which files of this repository its bundle holds.
const { metafile, outputFiles } = await build({
  entryPoints: ['src/client/index.ts'],
  bundle: true,
  write: false,
  metafile: true,
  format: 'esm',
  platform: 'neutral',
  external: ['zod', 'cloudflare:*'],
  logLevel: 'silent',
});
const inputs = Object.keys(metafile.inputs);
const fromOrigin = inputs.filter((input) => input.startsWith('src/origin/'));
if (fromOrigin.length > 0) failures.push(`./client bundles the origin: ${fromOrigin.join(', ')}`);
const code = outputFiles[0].text;
for (const marker of ['.prepare(', 'D1Database', 'SELECT ']) if (code.includes(marker)) failures.push(`./client bundle contains D1 code (${JSON.stringify(marker)})`);

if (failures.length > 0) {
  console.error(`Layers (scripts/layers.mjs): ${failures.length} problem(s)\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(`Layers hold: ${files.length} files of src/ and emails/; ./client bundles ${inputs.length} files, none of the origin (${(code.length / 1024).toFixed(1)} KiB).`);
