#!/usr/bin/env node
// Run by `npm test`: `npm run deploy` (scripts/deploy.mjs) end to end, with the real wrangler, against a fake of
// the Cloudflare API on loopback (test/fakes/cloudflare-api.mjs; wrangler reads CLOUDFLARE_API_BASE_URL, and
// CLOUDFLARE_API_TOKEN with CLOUDFLARE_ACCOUNT_ID spare it the login). No account, no outside traffic.
//   - a fresh account: the database, the four queues and both KV namespaces created, every migration applied
//     before the Worker is uploaded, the three random secrets set in the form the Worker reads, the admin token
//     printed once and no other secret anywhere in the output, nor a secrets file left in the temporary directory;
//   - a second run, with one migration new since: that migration applied before the upload, nothing created,
//     no secret generated or sent again, the KV namespaces, a setting given the first time and a var set on the
//     Worker kept, DIGEST_FROM held as a secret left one, and the output saying so;
//   - --proxy-only on another fresh account: no D1, no queue, no cron, only the proxy's secrets.
//   - settings the Worker would refuse (mail with an http PUBLIC_URL): stopped before anything changes;
//   - a bare `wrangler deploy` (the Deploy button's): every resource provisioned, no migration applied.
// The fresh accounts deploy side by side, then the second run. Fails with one line per problem.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ACCOUNT_ID, FakeCloudflare } from '../test/fakes/cloudflare-api.mjs';

const NAME = 'brand-ai-visibility-edge';
const ADDRESS = `https://${NAME}.deploy-check.workers.dev`;
const TOKEN = `deploy_check_${process.pid}`;
const MIGRATIONS = readdirSync('migrations')
  .filter((file) => file.endsWith('.sql'))
  .sort();
const QUEUES = ['digest-sends', 'digest-sends-dlq', 'alert-deliveries', 'alert-deliveries-dlq'];
const SETTINGS = ['UPSTREAM_URL', 'PUBLIC_URL', 'MCP_ALLOWED_HOSTS', 'DIGEST_FROM', 'RESEND_API_KEY', 'ADMIN_TOKEN', 'SIGNING_SECRET', 'ENCRYPTION_KEY'];

// The deploys' temporary directory: the secrets file must be gone from it after each run.
const TMP = mkdtempSync(path.join(tmpdir(), 'check-deploy-'));
const failures = [];
const check = (ok, what) => ok || failures.push(what);

/** `npm run deploy` against `fake`, with `env` as the settings given; no terminal, as in CI. */
const deploy = (fake, args = [], env = {}) => run(fake, ['scripts/deploy.mjs', ...args], env);

/** A node script against `fake`. */
function run(fake, args, env = {}) {
  fake.calls = [];
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SETTINGS.includes(name) && !name.startsWith('CLOUDFLARE_')));
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    // WRANGLER_HIDE_BANNER: the banner's update check would ask the npm registry.
    env: {
      ...clean,
      ...env,
      CLOUDFLARE_API_BASE_URL: fake.baseUrl,
      CLOUDFLARE_API_TOKEN: TOKEN,
      CLOUDFLARE_ACCOUNT_ID: ACCOUNT_ID,
      TMPDIR: TMP,
      WRANGLER_SEND_METRICS: 'false',
      WRANGLER_HIDE_BANNER: 'true',
      NO_COLOR: '1',
    },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output, calls: fake.calls })));
}

const count = (text, part) => text.split(part).length - 1;
const created = (calls, path) => calls.filter((call) => call === `POST ${path}`).length;
const upload = (calls) => calls.findIndex((call) => call === `PUT /workers/scripts/${NAME}` || call === `POST /workers/scripts/${NAME}/versions`);
/** The index of the last D1 query that applied a migration: wrangler sends one query per migration. */
const lastQuery = (calls) => calls.findLastIndex((call) => /^POST \/d1\/database\/[^/]+\/query$/.test(call));
const secretsSent = (fake) =>
  fake.uploads
    .at(-1)
    .bindings.filter((binding) => binding.type === 'secret_text')
    .map((binding) => binding.name)
    .sort();

const [full, proxy, other, button] = await Promise.all([1, 2, 3, 4].map(() => new FakeCloudflare().start()));
for (const fake of [full, proxy, other, button]) fake.token = TOKEN;
const started = performance.now();
try {
  // Settings the Worker would refuse (real mail needs an https PUBLIC_URL) are run beside the two fresh deployments.
  // And a bare `wrangler deploy`, as the Deploy to Cloudflare button runs it (Workers Builds' default deploy command).
  const [first, proxyRun, refused, bare] = await Promise.all([
    deploy(full, [], { MCP_ALLOWED_HOSTS: 'edge.example.com' }),
    deploy(proxy, ['--proxy-only'], { UPSTREAM_URL: 'https://api.example.com/api/v1' }),
    deploy(other, [], { RESEND_API_KEY: 're_deploy_check_key', DIGEST_FROM: 'Digest <digest@example.com>', PUBLIC_URL: 'http://edge.example.com' }),
    run(button, ['node_modules/wrangler/bin/wrangler.js', 'deploy']),
  ]);

  // The button's deploy provisions every resource of wrangler.toml on a fresh account, but applies no migration.
  check(bare.code === 0, `bare wrangler deploy: exit code ${bare.code}\n${bare.output.slice(-2000)}`);
  check(button.unknown.length === 0, `bare wrangler deploy: calls the fake does not know: ${button.unknown.join(', ')}`);
  check(
    button.kv.length === 2 && button.d1.length === 1 && JSON.stringify(button.queues.map((queue) => queue.queue_name).sort()) === JSON.stringify([...QUEUES].sort()),
    `bare wrangler deploy: provisioned ${button.kv.length} KV, ${button.d1.length} D1, queues ${button.queues.map((queue) => queue.queue_name)}`,
  );
  check(button.d1[0]?.migrations.length === 0, 'bare wrangler deploy: applied migrations');

  // Refused: stopped before anything changes, the key nowhere in the output.
  check(refused.code === 1 && /PUBLIC_URL must be the Worker's public https address/.test(refused.output), `refused: exit ${refused.code}: ${refused.output.slice(-600)}`);
  check(refused.calls.every((call) => call.startsWith('GET ')) && !other.script, `refused: changed something: ${refused.calls.join(' | ')}`);
  check(!refused.output.includes('re_deploy_check_key'), 'refused: the Resend key is in the output');

  // A fresh account.
  check(first.code === 0, `fresh: exit code ${first.code}\n${first.output.slice(-3000)}`);
  check(full.unknown.length === 0, `fresh: calls the fake does not know: ${full.unknown.join(', ')}`);
  check(created(first.calls, '/d1/database') === 1 && full.d1.map((db) => db.name).join() === 'brand-ai-visibility', `fresh: D1 databases ${JSON.stringify(full.d1.map((db) => db.name))}`);
  check(JSON.stringify(full.queues.map((queue) => queue.queue_name).sort()) === JSON.stringify([...QUEUES].sort()), `fresh: queues ${full.queues.map((queue) => queue.queue_name)}`);
  check(JSON.stringify(full.kv.map((ns) => ns.title).sort()) === JSON.stringify([`${NAME}-cache`, `${NAME}-oauth-kv`]), `fresh: KV namespaces ${full.kv.map((ns) => ns.title)}`);
  check(JSON.stringify(full.d1[0]?.migrations) === JSON.stringify(MIGRATIONS), `fresh: migrations applied ${full.d1[0]?.migrations}`);
  check(lastQuery(first.calls) >= 0 && lastQuery(first.calls) < upload(first.calls), `fresh: the migrations ran before the upload: ${first.calls.join(' | ')}`);
  check(JSON.stringify(Object.keys(full.secrets).sort()) === '["ADMIN_TOKEN","ENCRYPTION_KEY","SIGNING_SECRET"]', `fresh: secrets set ${Object.keys(full.secrets)}`);
  const { ADMIN_TOKEN, SIGNING_SECRET, ENCRYPTION_KEY } = full.secrets;
  check(/^[\w-]{43}$/.test(ADMIN_TOKEN ?? '') && /^[\w-]{43}$/.test(SIGNING_SECRET ?? '') && ADMIN_TOKEN !== SIGNING_SECRET, 'fresh: ADMIN_TOKEN and SIGNING_SECRET are 32 random bytes, base64url');
  check(/^[A-Za-z0-9+/]{43}=$/.test(ENCRYPTION_KEY ?? '') && Buffer.from(ENCRYPTION_KEY ?? '', 'base64').length === 32, 'fresh: ENCRYPTION_KEY is 32 bytes in base64 (src/lib/sealing.ts)');
  check(count(first.output, ADMIN_TOKEN) === 1, `fresh: the admin token printed ${count(first.output, ADMIN_TOKEN)} times, not once`);
  check(!first.output.includes(SIGNING_SECRET) && !first.output.includes(ENCRYPTION_KEY), 'fresh: a secret other than the admin token is in the output');
  check(first.output.includes(`address: ${ADDRESS}`), 'fresh: the address is not printed');
  check(
    /features \(.*\): \{"msg":"features","on":\["proxy","admin","origin","reports","exports","digests","alerts"\]/.test(first.output),
    'fresh: the features line is not printed, or not every feature is on',
  );
  const vars = Object.fromEntries(
    full.uploads
      .at(-1)
      ?.bindings.filter((binding) => binding.type === 'plain_text')
      .map((binding) => [binding.name, binding.text]) ?? [],
  );
  check(vars.DEV_ROUTES === '' && vars.DEMO_DATA === '' && vars.UPSTREAM_URL === '' && vars.MCP_ALLOWED_HOSTS === 'edge.example.com', `fresh: vars deployed ${JSON.stringify(vars)}`);
  check(JSON.stringify(full.script?.schedules) === '[{"cron":"0 * * * *"}]', `fresh: cron ${JSON.stringify(full.script?.schedules)}`);

  // A second run, with a migration added since the first (the fake forgets the last one applied).
  const kvBefore = JSON.stringify(full.kv);
  const secretsBefore = JSON.stringify(full.secrets);
  const newMigration = full.d1[0]?.migrations.pop();
  // And DIGEST_FROM held as a secret, as `wrangler secret put DIGEST_FROM` leaves it: it must stay one.
  full.script?.bindings.push({ type: 'secret_text', name: 'DIGEST_FROM', text: 'Digest <digest@example.com>' });
  // And CORS_ORIGINS set on the Worker (the button asks for every var): kept, not reset to wrangler.toml's empty one.
  const cors = full.script?.bindings.find((binding) => binding.name === 'CORS_ORIGINS');
  if (cors) cors.text = 'https://dash.example.com';
  const second = await deploy(full);
  check(second.code === 0, `second: exit code ${second.code}\n${second.output.slice(-3000)}`);
  for (const path of ['/d1/database', '/queues', '/storage/kv/namespaces']) check(created(second.calls, path) === 0, `second: created again: POST ${path}`);
  check(JSON.stringify(full.kv) === kvBefore, 'second: the KV namespaces changed');
  check(
    JSON.stringify(full.d1[0]?.migrations) === JSON.stringify(MIGRATIONS) && second.output.includes(newMigration),
    `second: the new migration ${newMigration} applied: ${full.d1[0]?.migrations.at(-1)}`,
  );
  check(lastQuery(second.calls) < upload(second.calls), `second: the new migration ran before the upload: ${second.calls.join(' | ')}`);
  check(secretsSent(full).length === 0 && JSON.stringify(full.secrets) === secretsBefore, `second: secrets sent again: ${secretsSent(full)}`);
  check(!second.output.includes(ADMIN_TOKEN), 'second: the admin token printed again');
  check(/generated: none; given: none; kept as deployed: ADMIN_TOKEN, SIGNING_SECRET, ENCRYPTION_KEY, DIGEST_FROM\n/.test(second.output), 'second: does not say the secrets are kept');
  check(full.script.bindings.find((binding) => binding.name === 'CORS_ORIGINS')?.text === 'https://dash.example.com', 'second: CORS_ORIGINS, set on the Worker, reset');
  const digestFrom = full.script.bindings.filter((binding) => binding.name === 'DIGEST_FROM').map((binding) => binding.type);
  check(JSON.stringify(digestFrom) === '["secret_text"]' && /DIGEST_FROM: kept as deployed \(set\)/.test(second.output), `second: DIGEST_FROM, a secret, deployed as ${digestFrom}`);
  check(/exists: kept/.test(second.output) && /all exist: kept/.test(second.output), 'second: does not say the database and the queues are kept');
  const kept = full.script.bindings.find((binding) => binding.name === 'MCP_ALLOWED_HOSTS');
  check(
    kept?.text === 'edge.example.com' && /MCP_ALLOWED_HOSTS: kept as deployed: "edge.example.com"/.test(second.output),
    `second: the setting given the first time not kept: ${JSON.stringify(kept)}`,
  );
  const kvIds = (fake) =>
    fake.script.bindings
      .filter((binding) => binding.type === 'kv_namespace')
      .map((binding) => binding.namespace_id)
      .sort()
      .join();
  check(
    kvIds(full) ===
      full.kv
        .map((ns) => ns.id)
        .sort()
        .join(),
    'second: the Worker is not bound to the same KV namespaces',
  );

  // Proxy only.
  check(proxyRun.code === 0, `proxy-only: exit code ${proxyRun.code}\n${proxyRun.output.slice(-3000)}`);
  check(proxy.unknown.length === 0, `proxy-only: calls the fake does not know: ${proxy.unknown.join(', ')}`);
  check(
    !proxyRun.calls.some((call) => / \/(d1|queues)\b/.test(call)) && proxy.d1.length === 0 && proxy.queues.length === 0,
    `proxy-only: D1 or queues touched: ${proxyRun.calls.filter((call) => / \/(d1|queues)\b/.test(call))}`,
  );
  const types = new Set(proxy.uploads.at(-1)?.bindings.map((binding) => binding.type));
  check(!types.has('d1') && !types.has('queue'), `proxy-only: bound ${[...types]}`);
  check(!proxy.script?.schedules?.length, `proxy-only: cron ${JSON.stringify(proxy.script?.schedules)}`);
  check(JSON.stringify(Object.keys(proxy.secrets).sort()) === '["ADMIN_TOKEN","SIGNING_SECRET"]', `proxy-only: secrets ${Object.keys(proxy.secrets)}`);
  check(/"on":\["proxy","admin"\]/.test(proxyRun.output) && count(proxyRun.output, proxy.secrets.ADMIN_TOKEN) === 1, 'proxy-only: the features line or the admin token, once');
  check(!readdirSync('.').some((file) => file.startsWith('.wrangler-deploy-')), 'proxy-only: its generated config was left in the repository');
  check(!readdirSync(TMP).some((file) => file.startsWith('deploy-secrets-')), `a secrets file was left in the temporary directory: ${readdirSync(TMP)}`);
  check(!readFileSync('wrangler.toml', 'utf8').match(/\bid\s*=|database_id/), 'wrangler.toml holds an id after the runs');
} finally {
  await Promise.all([full, proxy, other, button].map((fake) => fake.stop()));
  rmSync(TMP, { recursive: true, force: true });
}

if (failures.length) {
  console.error(`check-deploy: ${failures.length} problem(s):\n- ${failures.join('\n- ')}`);
  process.exit(1);
}
console.log(`check-deploy: npm run deploy against the fake Cloudflare API: fresh, again, refused, proxy-only, and a bare wrangler deploy, in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
