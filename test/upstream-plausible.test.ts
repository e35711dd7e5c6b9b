/**
 * The check judges the figures (issue 36 item 1), through the Worker, in
 * front of the house-style service (test/house-style.ts): with the right map
 * every feature works; with a map that reads a field from the wrong place or
 * in the wrong unit, the features that read it are "implausible", naming the
 * rule, the fields and the values seen.
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CheckAnswer } from '../src/app/upstream-check';
import { deliveryRecords, seedAlertSubscriptions } from './alerts-helpers';
import { clearDigests, deliver, demoMonday, FakeQueue, plusDays, runCron, seedSubscriptions, sendRecords, testEnv } from './digests-helpers';
import { putUpstreamMap } from './helpers';
import { houseMap, houseStyle } from './house-style';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { mintExport } from './exports-helpers';
import { call, clearReports, visibleText } from './reports-helpers';
import { ALERT_WEBHOOK, alertDay, ReshapingUpstream } from './reshape';

type HouseMap = ReturnType<typeof houseMap>;

async function check(accept = 'application/json'): Promise<Response> {
  return SELF.fetch('https://edge.test/admin/upstream/check', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${env.ADMIN_TOKEN}`, accept },
    body: JSON.stringify({ api_key: freshKey('plausible'), market: 'us' }),
  });
}

async function checkWith(map: HouseMap): Promise<CheckAnswer> {
  const put = await putUpstreamMap(map);
  expect(put.status, await put.clone().text()).toBe(200);
  const response = await check();
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as CheckAnswer;
}

const byFeature = (answer: CheckAnswer) => Object.fromEntries(answer.features.map((f) => [f.feature, f.status]));
const rulesOf = (answer: CheckAnswer, feature: string) => answer.features.find((f) => f.feature === feature)!.violations.map((v) => [v.rule, v.operation, v.fields]);

afterEach(async () => {
  restoreUpstream();
  vi.useRealTimers();
  vi.restoreAllMocks();
  await putUpstreamMap({ operations: {} });
});

describe('in front of the house-style service', () => {
  it('with the right map every feature works, and no rule is broken', async () => {
    new ReshapingUpstream(houseStyle).install();
    const answer = await checkWith(houseMap());
    expect(byFeature(answer)).toEqual({ digest: 'works', report_page: 'works', alerts: 'works', csv_exports: 'works', history: 'works', weekly_report: 'works' });
    expect(answer.features.flatMap((f) => f.violations)).toEqual([]);
  });

  it('the score read from the market id: implausible, with the rule, the fields and the figures that say so', async () => {
    new ReshapingUpstream(houseStyle).install();
    const map = houseMap();
    map.operations.getVisibility!.fields.score = 'MarketId';
    const answer = await checkWith(map);
    expect(byFeature(answer)).toEqual({ digest: 'implausible', report_page: 'implausible', alerts: 'implausible', csv_exports: 'works', history: 'implausible', weekly_report: 'implausible' });
    const [violation] = answer.features.find((f) => f.feature === 'digest')!.violations;
    expect(violation).toMatchObject({ rule: 'score_is_share_named', operation: 'getVisibility', fields: ['score', 'naming_runs', 'answered_runs'] });
    const { score, naming_runs, answered_runs } = violation!.values as Record<string, number>;
    const share = ((100 * naming_runs!) / answered_runs!).toFixed(1);
    expect(violation!.message).toBe(
      `score ${score!.toFixed(1)}, but ${naming_runs!.toLocaleString('en-US')} of ${answered_runs!.toLocaleString('en-US')} answers name the brand (${share}%): is \`score\` read from the right field?`,
    );
    // The same on the page, for a person.
    const text = visibleText(await (await check('text/html')).text());
    expect(text).toContain('The weekly digest Implausible figures');
    expect(text).toContain(`The weekly digest Implausible figures ${violation!.message} getVisibility: score , naming_runs , answered_runs break score_is_share_named`);
  });

  it('a topic change written as a 0-1 fraction and read as points: implausible, naming topics[].change', async () => {
    new ReshapingUpstream(houseStyle).install();
    const map = houseMap();
    delete map.operations.listTopics!.convert['topics[].change'];
    const answer = await checkWith(map);
    expect(byFeature(answer)).toMatchObject({ digest: 'implausible', alerts: 'implausible', weekly_report: 'implausible', history: 'works' });
    expect(rulesOf(answer, 'digest')).toEqual([['points_not_fractions', 'listTopics', ['topics[].change']]]);
    expect(answer.features.find((f) => f.feature === 'digest')!.violations[0]!.message).toMatch(
      /^topics\[\]\.change -?0\.\d+, .*: every value is below one point .* is `topics\[\]\.change` read without `convert: percent`\?$/,
    );
    // The CSV of /topics has a change column: its export is implausible too.
    expect(byFeature(answer).csv_exports).toBe('implausible');
  });

  it('vendor engine ids the map lists no value for are ours by its spelling rules: no engine is split', async () => {
    new ReshapingUpstream(houseStyle).install();
    const map = houseMap();
    for (const op of Object.values(map.operations)) for (const path of Object.keys(op.values)) if (path !== 'questions[].outcome') delete op.values[path];
    const answer = await checkWith(map);
    const violations = answer.features.flatMap((f) => f.violations);
    expect(violations.filter((v) => v.rule === 'engines_by_our_names')).toEqual([]);
    expect(byFeature(answer)).toMatchObject({ digest: 'works', report_page: 'works', weekly_report: 'works' });
  });
});

/** What was logged, each line joined, while `run` runs. */
async function logsOf(run: () => Promise<void>): Promise<string[]> {
  const logged: string[] = [];
  for (const method of ['log', 'error', 'warn', 'info'] as const) vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
  await run();
  vi.restoreAllMocks();
  return logged;
}

describe('the guard on what is sent', () => {
  it('a digest whose score is not the share named is not sent: the send record says why, logged once without the key', async () => {
    const monday = demoMonday();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(monday);
    new ReshapingUpstream(houseStyle).install();
    const map = houseMap();
    map.operations.getVisibility!.fields.score = 'MarketId';
    await putUpstreamMap(map);
    await clearDigests();
    const key = freshKey('guard-digest');
    const queue = new FakeQueue();
    const outboxEnv = testEnv(queue, { RESEND_API_KEY: '' });
    await seedSubscriptions([{ email: 'guard-digest@example.com', key }]);
    const logged = await logsOf(async () => {
      await runCron(monday.toISOString(), outboxEnv);
      await deliver(queue.sent, outboxEnv);
    });
    const [record] = await sendRecords();
    expect(record!.status).toBe('skipped');
    expect(record!.reason).toMatch(
      /^not sent: the Read API's figures are implausible: getVisibility score_is_share_named: score 11\.0, but [\d,]+ of [\d,]+ answers name the brand \([\d.]+%\): is `score` read from the right field\?/,
    );
    const { messages } = (await (await SELF.fetch('https://edge.test/dev/outbox?format=json&to=guard-digest@example.com')).json()) as { messages: unknown[] };
    expect(messages).toEqual([]);
    const lines = logged.filter((line) => line.includes('not sent: implausible figures'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      msg: 'digest not sent: implausible figures',
      rules: [{ rule: 'score_is_share_named', operation: 'getVisibility', fields: ['score', 'naming_runs', 'answered_runs'] }],
    });
    expect(logged.join('\n')).not.toContain(key);
    // Nor is the week kept in the history, where a kept week stays as it was.
    expect((await env.DB.prepare('SELECT count(*) AS n FROM weekly_history').first<{ n: number }>())!.n).toBe(0);
  });

  it('the kept history keeps no such week: the hourly pass records why, as a miss tried again', async () => {
    const monday = demoMonday();
    vi.useFakeTimers({ toFake: ['Date'] });
    new ReshapingUpstream(houseStyle).install();
    const map = houseMap();
    map.operations.getVisibility!.fields.score = 'MarketId';
    await putUpstreamMap(map);
    await clearDigests();
    await clearReports();
    // An export link names the brand and market: the hourly pass keeps their week.
    vi.setSystemTime(plusDays(monday, 0, -7));
    // A key of its own: the reshaped answers are never the demo key's cached ones.
    await mintExport({ operation: 'listTopics', params: { market: 'us' } }, freshKey('guard-history'));
    vi.setSystemTime(plusDays(monday, 0, -6));
    await runCron(plusDays(monday, 0, -6).toISOString(), testEnv(new FakeQueue()));
    expect((await env.DB.prepare('SELECT count(*) AS n FROM weekly_history').first<{ n: number }>())!.n).toBe(0);
    const miss = await env.DB.prepare('SELECT tries, last_reason FROM weekly_history_misses').first<{ tries: number; last_reason: string }>();
    expect(miss?.tries).toBe(1);
    expect(miss?.last_reason).toMatch(/^not kept: the Read API's figures are implausible: getVisibility score_is_share_named: score 11\.0, but /);
    await clearReports();
  });

  it('send-now: the digest is not sent either, and the answer says why', async () => {
    new ReshapingUpstream(houseStyle).install();
    const map = houseMap();
    map.operations.getVisibility!.fields.score = 'MarketId';
    await putUpstreamMap(map);
    await clearDigests();
    const key = freshKey('guard-send');
    await seedSubscriptions([{ email: 'guard-send@example.com', key }]);
    const response = await call('/reports/weekly/send?market=us', { key, method: 'POST' });
    expect(response.status).toBe(202);
    const { send } = (await response.json()) as { send: { sent: number; note: string; violations: { rule: string }[] } };
    expect(send.sent).toBe(0);
    expect(send.note).toMatch(/^The Read API's figures are implausible, so no digest is sent, as on the weekly run: score 11\.0, but /);
    expect(send.violations.map((v) => v.rule)).toEqual(['score_is_share_named']);
    const { messages } = (await (await SELF.fetch('https://edge.test/dev/outbox?format=json&to=guard-send@example.com')).json()) as { messages: unknown[] };
    expect(messages).toEqual([]);
  });

  it('an alert whose topic changes are 0-1 fractions read as points is not sent: a skipped record per subscription says why', async () => {
    const { monday, endpoints, alertQueue, alertEnv } = await alertDay(houseStyle);
    const map = houseMap();
    delete map.operations.listTopics!.convert['topics[].change'];
    await putUpstreamMap(map);
    const key = freshKey('guard-alert');
    await seedAlertSubscriptions([{ channel: 'webhook', ...ALERT_WEBHOOK, key, quiet: { start: 0, end: 0 } }]);
    const logged = await logsOf(async () => {
      await runCron(monday.toISOString(), alertEnv);
      // Later the same day: the group was evaluated, so it is neither read nor logged again.
      await runCron(plusDays(monday, 0, 3).toISOString(), alertEnv);
      await deliver(alertQueue.take(), alertEnv, { queue: 'alert-deliveries' });
    });
    const records = await deliveryRecords();
    expect(records.map((r) => [r.status, r.enqueued_at])).toEqual([['skipped', null]]);
    expect(records[0]!.reason).toMatch(/^not sent: the Read API's figures are implausible: listTopics points_not_fractions: topics\[\]\.change /);
    expect(endpoints.posts).toEqual([]);
    expect(logged.filter((line) => line.includes('alert not sent: implausible figures'))).toHaveLength(1);
    expect(logged.join('\n')).not.toContain(key);
  });
});
