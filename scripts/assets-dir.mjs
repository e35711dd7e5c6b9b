// The Worker's static assets directory, as wrangler.toml's `[assets] directory` names it: where the build scripts
// write (the MCP App's view, the OpenAPI documents) and what the checks and benchmarks read or bind.
import { readFileSync } from 'node:fs';

export const ASSETS_DIRECTORY = /^\[assets\]\s*\n(?:(?!\[).*\n)*?directory\s*=\s*"([^"]+)"/m.exec(readFileSync('wrangler.toml', 'utf8'))?.[1];
if (!ASSETS_DIRECTORY) throw new Error('wrangler.toml has no [assets] directory');
