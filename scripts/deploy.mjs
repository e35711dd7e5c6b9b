#!/usr/bin/env node
// `npm run deploy [-- --proxy-only]`: from a fresh Cloudflare account (after `npx wrangler login`, or with
// CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID set) to a working deployment, and safe to run again
// (docs/deploy.md). In order: reads what is deployed (its settings and the names of its secrets); takes the
// settings a person gives from the environment, asks for the missing ones on a terminal, keeps the deployed
// ones otherwise; checks them with the Worker's own env rules (src/app/env.ts); creates the D1 database and
// the four queues when missing (each looked up by `wrangler queues info`) and applies the migrations remotely, before the new code goes live; generates
// the random secrets that are unset; then `wrangler deploy`, which creates the KV namespaces it needs (or keeps
// those the Worker has) and uploads the new secrets with the version. Prints the address, the features line
// (the address from the `targets` of wrangler's machine-readable output file, WRANGLER_OUTPUT_FILE_PATH) and what to do next. Secrets go to wrangler in a file of this machine's temporary directory, removed after;
// none is printed except a newly generated ADMIN_TOKEN, once. Nothing is written into the repository.
//
// --proxy-only: the proxy in front of the real service (UPSTREAM_URL required): no D1, no queues, no cron.
// The run deploys a copy of wrangler.toml without those blocks (written beside it and removed after, since
// wrangler resolves the config's paths from its folder).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { importTs } from './import-ts.mjs';

const { values: flags } = parseArgs({ options: { 'proxy-only': { type: 'boolean', default: false }, help: { type: 'boolean', default: false } } });
if (flags.help) {
  console.log('npm run deploy [-- --proxy-only]   (settings from the environment: UPSTREAM_URL, PUBLIC_URL, MCP_ALLOWED_HOSTS, DIGEST_FROM, RESEND_API_KEY; see docs/deploy.md)');
  process.exit(0);
}
const proxyOnly = flags['proxy-only'];

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
/** The settings a person gives: the same words as the Deploy button's prompts (package.json `cloudflare.bindings`). */
const SETTINGS = ['UPSTREAM_URL', 'PUBLIC_URL', 'MCP_ALLOWED_HOSTS', 'DIGEST_FROM', 'RESEND_API_KEY'];
/** Of those, the one that is a secret; the rest are vars, unless the deployment holds one as a secret (docs/digests.md once said `wrangler secret put DIGEST_FROM`): then it stays one. */
const SECRET_SETTINGS = new Set(['RESEND_API_KEY']);
/** What the env check reads for a setting kept as a secret, whose value is not readable: a value of the right form. */
const STAND_IN = {
  UPSTREAM_URL: 'https://deployed.invalid/api/v1',
  PUBLIC_URL: 'https://deployed.invalid',
  MCP_ALLOWED_HOSTS: 'deployed.invalid',
  DIGEST_FROM: 'Deployed <deployed@deployed.invalid>',
};
/** The random secrets, generated when unset, in the form the Worker reads: `ENCRYPTION_KEY` is 32 bytes in base64 (src/lib/sealing.ts). */
const GENERATED = {
  ADMIN_TOKEN: () => randomBytes(32).toString('base64url'),
  SIGNING_SECRET: () => randomBytes(32).toString('base64url'),
  ENCRYPTION_KEY: () => randomBytes(32).toString('base64'),
};
/** The proxy needs ADMIN_TOKEN; SIGNING_SECRET turns OAuth for /mcp on; the reports and digests need all three. */
const generatedHere = proxyOnly ? ['ADMIN_TOKEN', 'SIGNING_SECRET'] : Object.keys(GENERATED);
const SECRET_NAMES = [...Object.keys(GENERATED), ...SETTINGS];

// The Worker's name, for the messages printed before wrangler's reading of wrangler.toml is loaded.
const WORKER_NAME = /^name\s*=\s*"([^"]+)"/m.exec(readFileSync('wrangler.toml', 'utf8'))?.[1];

const say = (line = '') => console.log(line);
const step = (line) => console.log(`\n▸ ${line}`);

/** The terminal as readline writes to it: muted while a secret is typed, so that it is not echoed. */
let muted = false;
const terminal = new Writable({
  write(chunk, encoding, done) {
    if (!muted) process.stdout.write(chunk, encoding);
    done();
  },
});

/** wrangler in a child process with no terminal on stdin: it never prompts, and writes no ids into a config file. */
function wrangler(args, { show = false, config, output } = {}) {
  // The secrets never reach wrangler through its environment (its --secrets-file lets the environment override the file).
  // `output`: where wrangler writes its machine-readable record of the run (one JSON object per line).
  const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', ...(output ? { WRANGLER_OUTPUT_FILE_PATH: output } : {}) };
  for (const name of SECRET_NAMES) delete env[name];
  const child = spawn(process.execPath, [path.join('node_modules', 'wrangler', 'bin', 'wrangler.js'), ...args, ...(config ? ['--config', config] : [])], { stdio: ['ignore', 'pipe', 'pipe'], env });
  running.add(child);
  const texts = { stdout: '', stderr: '' };
  for (const stream of ['stdout', 'stderr']) {
    let shown = 0;
    child[stream].on('data', (chunk) => {
      texts[stream] += chunk;
      // Shown indented, whole lines at a time.
      const end = texts[stream].lastIndexOf('\n') + 1;
      if (show && end > shown) process[stream].write(indent(texts[stream].slice(shown, end)));
      if (show) shown = Math.max(shown, end);
    });
  }
  return new Promise((resolve) =>
    child.on('close', (code) => {
      running.delete(child);
      resolve({ code, out: texts.stdout, err: texts.stderr });
    }),
  );
}
/** The wrangler processes still running: ended when this run fails. */
const running = new Set();
const indent = (chunk) => String(chunk).replace(/^(?=.)/gm, '  ');

function fail(message, result) {
  if (result && !result.shown) process.stderr.write(indent(`${result.out}${result.err}`));
  console.error(`\n✘ ${message}`);
  for (const child of running) child.kill();
  cleanup();
  process.exit(1);
}

// The proxy-only config: wrangler.toml without D1, the queues and the cron, written by `proxyOnlyConfig`.
let config;
const cleanup = () => config && rmSync(config, { force: true });
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

try {
  await main();
} finally {
  cleanup();
}

async function main() {
  say(`Deploying ${WORKER_NAME}${proxyOnly ? ' (proxy only: no D1, no queues, no cron)' : ''}.`);
  // What only reads, at once: each wrangler start, and loading wrangler or the Worker's env rules, costs seconds.
  const reading = readDeployment();
  const databases = proxyOnly ? undefined : wrangler(['d1', 'list', '--json']);
  const rules = importTs("export { parseEnv } from './src/app/env'; export { featuresOf, featuresLine } from './src/app/features';", { name: 'deploy-env' });
  const { experimental_readRawConfig } = await import('wrangler');
  const raw = JSON.parse(JSON.stringify(experimental_readRawConfig({ config: 'wrangler.toml' }).rawConfig));
  const DB_NAME = raw.d1_databases[0].database_name;
  const QUEUES = [...new Set([...(raw.queues?.producers ?? []).map((q) => q.queue), ...(raw.queues?.consumers ?? []).flatMap((q) => [q.queue, q.dead_letter_queue ?? []].flat())])];
  // `queues list` prints only a table (no --json): each queue is looked up by name instead, and `queues info`'s exit status says whether it exists.
  const queueLookups = proxyOnly ? undefined : Promise.all(QUEUES.map((name) => wrangler(['queues', 'info', name])));

  step('What is deployed');
  const deployed = await reading;
  say(deployed ? `  the Worker ${WORKER_NAME} is deployed: its settings are kept unless given again` : `  nothing yet: a first deployment`);

  step('Settings');
  const settings = await resolveSettings(deployed);
  // The other vars of [vars] (CORS_ORIGINS, the tuning ones; the button asks for them too): the environment's, else
  // the deployed value, else wrangler.toml's. DEV_ROUTES and DEMO_DATA always wrangler.toml's: empty in a deployment.
  for (const name of Object.keys(raw.vars ?? {}).filter((name) => !SETTINGS.includes(name) && !['DEV_ROUTES', 'DEMO_DATA'].includes(name))) {
    const given = process.env[name];
    if (given !== undefined) settings[name] = given.trim();
    else if (deployed?.vars[name] && deployed.vars[name] !== raw.vars[name]) settings[name] = deployed.vars[name];
    if (settings[name] !== undefined) say(`  ${name}: ${given !== undefined ? 'given' : 'kept as deployed'}: "${settings[name]}"`);
  }
  const isSecret = (name) => SECRET_SETTINGS.has(name) || Boolean(deployed?.secrets.has(name));
  const secrets = {};
  for (const name of generatedHere) {
    if (process.env[name]?.trim()) secrets[name] = process.env[name].trim();
    else if (!deployed?.secrets.has(name)) secrets[name] = GENERATED[name]();
  }
  for (const name of SETTINGS) if (isSecret(name) && settings[name] !== undefined) secrets[name] = settings[name];
  const { featuresLine } = checkEnv(await rules, raw, settings, deployed, secrets, isSecret);

  if (!proxyOnly) {
    const list = await databases;
    step(`D1 database ${DB_NAME}`);
    if (list.code !== 0) fail('Could not list the D1 databases (are you logged in? `npx wrangler login`, or set CLOUDFLARE_API_TOKEN).', list);
    if (JSON.parse(list.out).some((db) => db.name === DB_NAME)) say('  exists: kept');
    else await must(['d1', 'create', DB_NAME], `Could not create the D1 database ${DB_NAME}.`);

    step(`Queues: ${QUEUES.join(', ')}`);
    const lookups = await queueLookups;
    const missing = QUEUES.filter((_, i) => lookups[i].code !== 0);
    say(missing.length ? `  to create: ${missing.join(', ')}` : '  all exist: kept');
    await Promise.all(missing.map((name) => must(['queues', 'create', name], `Could not create the queue ${name}.`)));

    step('Migrations, applied to the remote database before the new code goes live');
    await must(['d1', 'migrations', 'apply', 'DB', '--remote'], 'The migrations failed: nothing was deployed.');
  }

  step('Secrets');
  const kept = SECRET_NAMES.filter((name) => deployed?.secrets.has(name) && !(name in secrets));
  const generated = Object.keys(secrets).filter((name) => name in GENERATED && !process.env[name]?.trim());
  say(
    `  generated: ${generated.join(', ') || 'none'}; given: ${
      Object.keys(secrets)
        .filter((name) => !generated.includes(name))
        .join(', ') || 'none'
    }; kept as deployed: ${kept.join(', ') || 'none'}`,
  );

  step('Deploy');
  const vars = [...new Set([...SETTINGS, ...Object.keys(settings)])].filter((name) => !isSecret(name)).flatMap((name) => ['--var', `${name}:${settings[name] ?? ''}`]);
  const dir = mkdtempSync(path.join(tmpdir(), 'deploy-secrets-'));
  const secretsFile = path.join(dir, 'secrets.json');
  const outputFile = path.join(dir, 'wrangler-output.ndjson');
  let result;
  let targets = [];
  try {
    writeFileSync(secretsFile, JSON.stringify(secrets), { mode: 0o600 });
    if (proxyOnly) config = proxyOnlyConfig(raw);
    result = await wrangler(['deploy', ...vars, ...(Object.keys(secrets).length ? ['--secrets-file', secretsFile] : [])], { show: true, config, output: outputFile });
    targets = deployTargets(outputFile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (result.code !== 0) {
    // The upload may have set the secrets before a later step failed: a generated admin token would then be lost.
    if (generated.includes('ADMIN_TOKEN')) say(`\n  ADMIN_TOKEN generated for this run (set on the Worker if the upload went through; the next run says "kept" then):\n  ${secrets.ADMIN_TOKEN}`);
    fail('wrangler deploy failed (the migrations, if any, are applied; run again once fixed).', { ...result, shown: true });
  }
  const address = targets.find((target) => /^https:\/\/[\w.-]+\.workers\.dev$/.test(target));

  step('Done');
  say(`  address: ${address ?? '(no workers.dev address: see the routes printed above)'}`);
  say(`  features (what the Worker logs at its first request): ${JSON.stringify(featuresLine)}`);
  if (generated.includes('ADMIN_TOKEN')) {
    say(`\n  ADMIN_TOKEN (shown this once; keep it in a password manager, it is the bearer token of /admin/cache/*):\n  ${secrets.ADMIN_TOKEN}`);
  }
  say('\nNext:');
  const host = address && new URL(address).host;
  if (host && (!settings.PUBLIC_URL || !settings.MCP_ALLOWED_HOSTS)) {
    say(`  - links in mail and /mcp need the address: PUBLIC_URL=${address} MCP_ALLOWED_HOSTS=${host} npm run deploy${proxyOnly ? ' -- --proxy-only' : ''}`);
  }
  if (!proxyOnly && !settings.RESEND_API_KEY && !deployed?.secrets.has('RESEND_API_KEY'))
    say('  - to send mail: RESEND_API_KEY and DIGEST_FROM (a sender on a domain verified in Resend), then npm run deploy again (docs/digests.md)');
  say(`  - check: curl -H "Authorization: Bearer $ADMIN_TOKEN" ${address ?? 'https://<your-worker>'}/admin/cache/stats`);
  say('  - logs: npx wrangler tail (the features line of the first request)');
  say('  - later: npm run deploy again applies new migrations and deploys; it keeps these settings and secrets.');
}

async function must(args, message) {
  const result = await wrangler(args, { show: true });
  if (result.code !== 0) fail(message, { ...result, shown: true });
  return result;
}

/** The addresses and routes of the deployment, from wrangler's output file (its `deploy` record's `targets`). */
function deployTargets(file) {
  if (!existsSync(file)) return [];
  const records = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  return records.findLast((record) => record.type === 'deploy')?.targets ?? [];
}

/** wrangler.toml without what only the full deployment has: D1, the queues and the cron. */
function withoutFullBlocks(raw) {
  const { d1_databases, queues, triggers, ...rest } = raw;
  return rest;
}

/**
 * The proxy-only config, as JSON (which wrangler reads as well), beside wrangler.toml: wrangler resolves the
 * config's paths (main, migrations, assets, aliases) from its folder. Removed when the run ends.
 */
function proxyOnlyConfig(raw) {
  const file = `.wrangler-deploy-proxy-only.${process.pid}.json`;
  writeFileSync(file, JSON.stringify(withoutFullBlocks(raw), null, 2));
  return file;
}

/** The deployed version's settings and secret names, or undefined when the Worker does not exist yet. */
async function readDeployment() {
  const status = await wrangler(['deployments', 'status', '--json']);
  if (status.code !== 0) {
    if (/does not exist|has no deployments|\b10007\b/.test(status.out + status.err)) return undefined;
    fail('Could not read the deployment (are you logged in? `npx wrangler login`, or set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID).', status);
  }
  const versionId = JSON.parse(status.out).versions.toSorted((a, b) => b.percentage - a.percentage)[0].version_id;
  const view = await wrangler(['versions', 'view', versionId, '--json']);
  if (view.code !== 0) fail(`Could not read the deployed version ${versionId}.`, view);
  const bindings = JSON.parse(view.out).resources.bindings;
  return {
    vars: Object.fromEntries(bindings.filter((b) => b.type === 'plain_text').map((b) => [b.name, b.text])),
    secrets: new Set(bindings.filter((b) => b.type === 'secret_text').map((b) => b.name)),
  };
}

/** Each setting: the environment's, else the deployed one, else asked on a terminal, else unset. */
async function resolveSettings(deployed) {
  const settings = {};
  const ask = process.stdin.isTTY ? createInterface({ input: process.stdin, output: terminal, terminal: true }) : undefined;
  try {
    for (const name of SETTINGS) {
      const given = process.env[name];
      const isSecret = SECRET_SETTINGS.has(name) || Boolean(deployed?.secrets.has(name));
      if (given !== undefined && (given.trim() || !isSecret)) {
        settings[name] = given.trim();
        say(`  ${name}: ${isSecret ? 'given (set)' : `given: "${settings[name]}"`}`);
      } else if (deployed && (isSecret ? deployed.secrets.has(name) : name in deployed.vars)) {
        if (!isSecret) settings[name] = deployed.vars[name];
        say(`  ${name}: kept as deployed${isSecret ? ' (set)' : settings[name] ? `: "${settings[name]}"` : ' (empty)'}`);
      } else if (ask && !(isSecret && proxyOnly) && !(name === 'DIGEST_FROM' && proxyOnly)) {
        const question = `  ${name}: ${pkg.cloudflare.bindings[name].description}\n  ${name} (Enter: unset) = `;
        const answer = (isSecret ? await askHidden(ask, question) : await ask.question(question)).trim();
        if (answer) settings[name] = answer;
      } else {
        say(`  ${name}: unset`);
      }
    }
  } finally {
    ask?.close();
  }
  if (proxyOnly && !settings.UPSTREAM_URL) fail("--proxy-only needs UPSTREAM_URL: the real service's base URL, ending in /api/v1 (without it the upstream is the embedded origin, which needs D1).");
  return settings;
}

async function askHidden(ask, question) {
  process.stdout.write(question);
  muted = true;
  try {
    return await ask.question('');
  } finally {
    muted = false;
    process.stdout.write('\n');
  }
}

/**
 * The env the Worker will start with, through its own parser (src/app/env.ts) before anything is changed: a
 * setting it would refuse (PUBLIC_URL not https with Resend, host names with a scheme, ...) stops here, not
 * as a 500 after the deploy. Bindings and secrets stand in by name; their values are not read.
 */
function checkEnv({ parseEnv, featuresOf, featuresLine }, raw, settings, deployed, secrets, isSecret) {
  const binding = {};
  if (proxyOnly) raw = withoutFullBlocks(raw);
  const bindings = [
    ...(raw.kv_namespaces ?? []),
    ...(raw.d1_databases ?? []),
    ...(raw.queues?.producers ?? []),
    ...(raw.durable_objects?.bindings ?? []).map((b) => ({ binding: b.name })),
    ...(raw.ratelimits ?? []).map((b) => ({ binding: b.name })),
    raw.assets ?? [],
  ];
  for (const { binding: name } of bindings.flat()) if (name) binding[name] = {};
  const present = Object.fromEntries(SECRET_NAMES.filter((name) => name in secrets || deployed?.secrets.has(name)).map((name) => [name, secrets[name] ?? STAND_IN[name] ?? `deployed-${name}`]));
  const env = { ...raw.vars, ...Object.fromEntries(Object.entries(settings).filter(([name]) => !isSecret(name))), ...binding, ...present };
  try {
    const features = featuresOf(parseEnv(env));
    return { featuresLine: featuresLine(features) };
  } catch (error) {
    fail(`The Worker would refuse these settings: ${error.message}`);
  }
}
