#!/usr/bin/env node
// Run by `npm test` before the Worker's tests: `npm run upstream:discover` end to end, against a small
// service on loopback that answers as another implementation might (an envelope, camelCase, its own words),
// refuses the Pro operations and checks the key. The CLI must read every operation of the contract (the topic
// id from the topics it read), print a report that proposes `weeks` for `history`, write the map to --out,
// exit 1 with a plain message for a refused key, stop and say when to go on (proposing nothing) when the key's
// budget is refused for longer than it waits, and print the key nowhere. Its summary on stderr must count what it
// leaves to a person (fields and values to confirm, unplaced fields, unseen paths) as the report's fields list them.
// Fails with one line per problem.
import { leftForAPerson } from './discovery-left.mjs';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const KEY = `cli_check_${process.pid}_key`;
const at = '2026-11-25T08:00:00Z';
const market = { id: 11, code: 'us' };
const period = { from: '2026-11-19', to: '2026-11-25' };
const week = (i) => ({ from: `2026-09-${String(3 + i).padStart(2, '0')}`, to: `2026-09-${String(9 + i).padStart(2, '0')}`, score: 50 + i, answeredRuns: 1700 });

/** What the service answers, by path under /api/v1; anything else is a Pro operation the key's plan lacks. */
const ANSWERS = {
  '/brands': {
    data: {
      brands: [{ id: 1, name: 'Brightdesk', domain: 'brightdesk.com', category: 'help desk', markets: [{ ...market, name: 'United States', language: 'en', country: 'US', primary: true }] }],
      plan: { id: 'starter', monthlyQuota: 1000, includesProOperations: false },
    },
    meta: { generatedAt: at },
  },
  '/visibility': {
    data: { brandId: 1, market, period, score: 57.1, change: 0.9, answeredRuns: 1716, namingRuns: 980, weeks: Array.from({ length: 12 }, (_, i) => week(i)) },
    meta: { generatedAt: at },
  },
  '/topics': {
    data: { brandId: 1, market, period, topics: [{ id: 1101, name: 'Best help desk software', score: 55.6, change: 2.2, rank: 1, questions: 7, rivals: [{ name: 'Helpwave', share: 37.8 }] }] },
    meta: { generatedAt: at },
  },
  '/topics/1101': { data: { brandId: 1, market, period } },
  // The questions' outcomes in the service's own words, one of them no rule or evidence can read ("meh": its engines say
  // won, which `WON` already stands for), and no engine moved.
  '/answers/history': {
    data: {
      brandId: 1,
      market,
      period,
      previousPeriod: { from: '2026-11-12', to: '2026-11-18' },
      counts: { won: 1, lost: 1, held: 1 },
      questions: [
        { questionId: 1, text: 'Best help desk software?', topicId: 1101, outcome: 'WON', enginesNamingNow: 3, enginesNamingBefore: 3, moved: [] },
        { questionId: 2, text: 'Cheapest help desk?', topicId: 1101, outcome: 'LOST', enginesNamingNow: 3, enginesNamingBefore: 3, moved: [] },
        { questionId: 3, text: 'Help desk for startups?', topicId: 1101, outcome: 'meh', enginesNamingNow: 4, enginesNamingBefore: 3, moved: [] },
      ],
    },
    meta: { generatedAt: at },
  },
};

const requests = [];
const server = createServer((request, response) => {
  const url = new URL(request.url, 'http://127.0.0.1');
  requests.push(url.pathname + url.search);
  const send = (status, body) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  // A key whose budget is spent for an hour: a 429 longer than the CLI waits.
  if (request.headers.authorization === `Bearer ${KEY}_spent` && url.pathname.endsWith('/topics')) {
    response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' });
    return response.end(JSON.stringify({ error: { code: 'rate_limited', message: 'More than 60 requests in a minute.' } }));
  }
  if (![`Bearer ${KEY}`, `Bearer ${KEY}_spent`].includes(request.headers.authorization))
    return send(401, { error: { code: 'invalid_api_key', message: 'The API key is missing, revoked or unknown.' } });
  const body = ANSWERS[url.pathname.replace(/^\/api\/v1/, '')];
  if (body) return send(200, body);
  return send(403, { error: { code: 'feature_not_in_plan', message: 'Your plan does not include this data.' } });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}/api/v1`;

const dir = mkdtempSync(path.join(tmpdir(), 'upstream-discover-'));
const out = path.join(dir, 'map.json');
const run = (args) =>
  promisify(execFile)(process.execPath, ['scripts/upstream-discover.mjs', ...args], { env: { ...process.env, READ_API_KEY: '' }, timeout: 60_000 }).then(
    (done) => ({ code: 0, ...done }),
    (failed) => ({ code: failed.code, stdout: failed.stdout, stderr: failed.stderr }),
  );

const failures = [];
let leftLine = '';
const check = (ok, what) => ok || failures.push(what);
try {
  const started = performance.now();
  const good = await run(['--base', base, '--key', KEY, '--out', out]);
  check(good.code === 0, `exit code ${good.code}: ${good.stderr}`);
  let report;
  try {
    report = JSON.parse(good.stdout);
  } catch {
    failures.push(`the report is not JSON: ${good.stdout.slice(0, 200)}`);
  }
  if (report) {
    check(Object.keys(report.operations).length === 23, `operations in the report: ${Object.keys(report.operations).length}`);
    check(report.operations.getVisibility?.fields?.history?.from === 'weeks', `history placed as ${JSON.stringify(report.operations.getVisibility?.fields?.history)}`);
    check(report.operations.listTasks?.error?.code === 'feature_not_in_plan', `listTasks: ${JSON.stringify(report.operations.listTasks)}`);
    check(report.calls === requests.length, `${report.calls} calls reported, ${requests.length} made`);
    // The summary on stderr counts everything the report leaves to a person, by the report's own fields.
    const expected = leftForAPerson(report);
    const said = /left for a person: (\d+) fields? to confirm, (\d+) values? to confirm, (\d+) unplaced fields?, (\d+) unseen paths?/.exec(good.stderr);
    check(said !== null, `the summary does not count what is left: ${good.stderr}`);
    if (said) {
      leftLine = said[0];
      const counts = { fields: Number(said[1]), values: Number(said[2]), unplaced: Number(said[3]), unseen: Number(said[4]) };
      check(JSON.stringify(counts) === JSON.stringify(expected), `the summary counts ${JSON.stringify(counts)}, the report ${JSON.stringify(expected)}`);
    }
    // The topic's answer lacks most of its fields and the questions' outcome is a word of the service's own: each count has something to count.
    check(expected.unplaced > 0, `no unplaced field in the report: ${JSON.stringify(report.operations.getTopic)}`);
    check(expected.values > 0, `no value to confirm in the report: ${JSON.stringify(report.operations.getAnswerHistory?.to_confirm)}`);
  }
  check(requests.includes('/api/v1/topics/1101'), `the topic id from the topics read: ${requests.join(' ')}`);
  let map;
  try {
    map = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    failures.push('--out holds no JSON');
  }
  check(map?.operations?.getVisibility?.fields?.history === 'weeks', `the map written: ${JSON.stringify(map?.operations?.getVisibility)}`);

  const refused = await run(['--base', base, '--key', `${KEY}_wrong`]);
  check(refused.code === 1, `a refused key: exit code ${refused.code}`);
  check(/refuses this key \(401 invalid_api_key\)/.test(refused.stderr), `a refused key: ${refused.stderr}`);
  for (const [name, text] of [
    ['stdout', good.stdout],
    ['stderr', good.stderr],
    ['stdout (refused)', refused.stdout],
    ['stderr (refused)', refused.stderr],
  ])
    check(!text.includes(KEY), `the key is printed on ${name}`);

  const spentOut = path.join(dir, 'spent.json');
  const spent = await run(['--base', base, '--key', `${KEY}_spent`, '--out', spentOut]);
  check(spent.code === 1, `a spent budget: exit code ${spent.code}`);
  check(/for the key's budget \(429 rate_limited\).*nothing is proposed from refused reads\. Go on at \d{4}-\d\d-\d\dT/.test(spent.stderr), `a spent budget: ${spent.stderr}`);
  let spentReport;
  try {
    spentReport = JSON.parse(spent.stdout);
  } catch {
    failures.push(`a spent budget: the report is not JSON: ${spent.stdout.slice(0, 200)}`);
  }
  check(
    spentReport?.stopped?.retry_after === 3600 && Object.keys(spentReport?.map?.operations ?? { x: 1 }).length === 0,
    `a spent budget: ${JSON.stringify(spentReport?.stopped)}, map ${JSON.stringify(spentReport?.map)}`,
  );
  check(!existsSync(spentOut), 'a spent budget: --out was written');

  const usage = await run(['--key', KEY]);
  check(usage.code === 2 && usage.stderr.includes('usage:'), `no --base: exit code ${usage.code}`);
  if (failures.length === 0)
    console.log(`upstream:discover works end to end against a service on loopback (${requests.length} requests, ${((performance.now() - started) / 1000).toFixed(1)} s; ${leftLine}).`);
} finally {
  server.close();
  rmSync(dir, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`upstream:discover (scripts/check-upstream-discover.mjs): ${failures.length} problem(s)\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
