// The Worker as `wrangler deploy` builds it, for `npm run check -- size` and `npm run bench -- startup`: `wrangler deploy
// --dry-run --outdir` (no account needed) with esbuild's metafile, in a temporary directory.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Builds the Worker of the checkout at `cwd` (this one by default). Returns its JavaScript modules as wrangler
 * uploads them (`main` names the main module), esbuild's metafile, and the wrangler.toml it was built with.
 */
export function buildAsDeployed(cwd = process.cwd()) {
  const outdir = mkdtempSync(path.join(tmpdir(), 'worker-deployed-'));
  try {
    const metafile = path.join(outdir, 'bundle-meta.json');
    const built = spawnSync('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', outdir, '--metafile', metafile], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    });
    if (built.status !== 0) throw new Error(`wrangler deploy --dry-run failed in ${cwd}:\n${built.stdout}\n${built.stderr}`);
    const modules = readdirSync(outdir)
      .filter((name) => /\.m?js$/.test(name))
      .map((name) => ({ name, content: readFileSync(path.join(outdir, name)) }));
    const main = path.basename(readFileSync(path.join(cwd, 'wrangler.toml'), 'utf8').match(/^main\s*=\s*"([^"]+)"/m)[1]).replace(/\.tsx?$/, '.js');
    return { modules, main, meta: JSON.parse(readFileSync(metafile, 'utf8')) };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** The built modules as Miniflare takes them, rooted at `/` (with `modulesRoot: '/'`), the main module among them. */
export const miniflareModules = (modules) => modules.map((m) => ({ type: 'ESModule', path: `/${m.name}`, contents: m.content }));
