#!/usr/bin/env node
// `npm run dev`: applies the D1 migrations to the local database, starts
// `wrangler dev` with the demo dataset loaded when the database is empty, and
// makes the first request so the load happens now, not on your first curl.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { importTs } from './import-ts.mjs';

const port = process.env.PORT ?? '8787';
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' };

// .dev.vars.example leaves the secrets empty (the Deploy button prompts for them from it); here each empty one gets
// its public dev value, which the Worker accepts only with DEV_ROUTES=on (src/app/env.ts EXAMPLE_SECRETS).
if (!existsSync('.dev.vars') && existsSync('.dev.vars.example')) {
  const { EXAMPLE_SECRETS } = await importTs("export { EXAMPLE_SECRETS } from './src/app/env';", { name: 'dev-secrets' });
  const text = readFileSync('.dev.vars.example', 'utf8').replace(/^([A-Z][A-Z0-9_]*)=[ \t]*$/gm, (line, name) => (name in EXAMPLE_SECRETS ? `${name}=${EXAMPLE_SECRETS[name]}` : line));
  writeFileSync('.dev.vars', text);
  console.log('Created .dev.vars from .dev.vars.example, with the public dev secrets (local only).');
}

// DEV_ROUTES=on: the /dev/* routes (the outbox, the planner at a chosen time) and the example secrets of .dev.vars;
// never set in a deployment (wrangler.toml leaves it empty).
// Links in mail and pages point at the port this server listens on, unless PUBLIC_URL is set (environment or .dev.vars).
const devVars = existsSync('.dev.vars') ? readFileSync('.dev.vars', 'utf8') : '';
const inDevVars = (name) => new RegExp(`^\\s*${name}\\s*=\\s*\\S`, 'm').test(devVars);
const publicUrlSet = Boolean(process.env.PUBLIC_URL?.trim()) || inDevVars('PUBLIC_URL');
const vars = ['DEMO_DATA:on-empty', 'DEV_ROUTES:on', ...(publicUrlSet ? [] : [`PUBLIC_URL:http://localhost:${port}`])];

// The vars of wrangler.toml's [vars] given in the environment (`UPSTREAM_URL=https://… npm run dev`): wrangler dev
// reads wrangler.toml and .dev.vars, never the process environment, so without this they were silently ignored.
// Each goes as `--var`, which wins over both; an empty value unsets it, as with `npm run deploy`. DEV_ROUTES and
// DEMO_DATA stay this script's.
for (const name of varsOfConfig().filter((name) => !['DEV_ROUTES', 'DEMO_DATA'].includes(name))) {
  const given = process.env[name];
  if (given === undefined) continue;
  const value = given.trim();
  // Empty, PUBLIC_URL keeps its default: this server's own address.
  if (name === 'PUBLIC_URL' && !value) continue;
  if (name === 'UPSTREAM_URL' && value && !isHttpUrl(value)) {
    // The Worker would start and answer every request 500 "misconfigured" (src/proxy/env.ts): said here instead.
    console.error(`UPSTREAM_URL must be an http(s) URL ending in /api/v1 (the service's base address), not "${value}". Unset it for the embedded origin.`);
    process.exit(1);
  }
  vars.push(`${name}:${value}`);
  const over = inDevVars(name) ? ' (over the line in .dev.vars)' : '';
  if (name === 'UPSTREAM_URL')
    console.log(
      value
        ? `UPSTREAM_URL from the environment${over}: the proxy reads ${value}; the embedded origin is off.`
        : `UPSTREAM_URL is empty in the environment${over}: the embedded origin is the upstream.`,
    );
  else console.log(`${name} from the environment${over}: "${value}".`);
}
const migrate = spawnSync('npx', ['wrangler', 'd1', 'migrations', 'apply', 'DB', '--local'], { stdio: 'inherit', env: { ...env, CI: 'true' } });
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const dev = spawn('npx', ['wrangler', 'dev', '--port', port, ...vars.flatMap((v) => ['--var', v]), ...process.argv.slice(2)], { stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => dev.kill(signal));
dev.on('exit', (code) => process.exit(code ?? 0));

/** The names of wrangler.toml's [vars] (its top-level table; the dev config has no environments). */
function varsOfConfig() {
  const toml = readFileSync('wrangler.toml', 'utf8');
  const table = /^\[vars\][^\n]*\n([\s\S]*?)(?=^\[)/m.exec(toml)?.[1] ?? '';
  return [...table.matchAll(/^([A-Z][A-Z0-9_]*)\s*=/gm)].map((m) => m[1]);
}

function isHttpUrl(text) {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

// Warm up: the first request loads the demo data when the database is empty.
const started = Date.now();
for (let attempt = 0; attempt < 240; attempt++) {
  await new Promise((r) => setTimeout(r, 500));
  try {
    const response = await fetch(`http://localhost:${port}/api/v1/openapi.json`);
    if (response.ok) {
      console.log(
        `\nReady in ${((Date.now() - started) / 1000).toFixed(1)} s: http://localhost:${port}/api/v1 (try: curl -H 'Authorization: Bearer demo_pro_single' http://localhost:${port}/api/v1/visibility)\n`,
      );
      break;
    }
  } catch {
    // not listening yet
  }
}
