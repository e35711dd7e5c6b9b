// The project's TypeScript, imported into a Node script: bundled with esbuild
// (which wrangler brings), packages left as imports resolved from
// node_modules. check-openapi.mjs and upstream-discover.mjs run source this way.
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The module `contents` (TypeScript, its imports relative to the repository's root) bundled and imported. */
export async function importTs(contents, { name = 'module', plugins = [] } = {}) {
  const root = process.cwd();
  const { outputFiles } = await build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    logLevel: 'silent',
    plugins,
  });
  // Inside node_modules, so that the bundle's package imports resolve.
  const dir = path.join(root, 'node_modules', '.cache', 'import-ts');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}-${process.pid}.mjs`);
  writeFileSync(file, outputFiles[0].text);
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(file, { force: true });
  }
}
