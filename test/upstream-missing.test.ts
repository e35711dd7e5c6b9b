/**
 * A missing operation is named where it shows (DESIGN section 13): in front
 * of a service without `/answers/history` (404 "no such operation") the
 * report page is an HTML page that names the operation and what the report
 * needs it for, its JSON and `weekly_report` name it as `operation_missing`,
 * the digest is skipped with that reason, which the account sees as the last
 * delivery of its subscription (`GET /digests/subscriptions`), logged once a
 * day per operation. An unknown market, which answers 404 on every
 * operation, is still the API's own 404. The compatibility check reads the
 * operations that take a value from another answer (`paramsFrom`) and names
 * each one the service lacks.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CheckAnswer } from '../src/app/upstream-check';
import { API_BASE } from '../src/contract/operations';
import { clearDigests, deliver, demoMonday, FakeQueue, runCron, seedSubscriptions, sendRecords, testEnv } from './digests-helpers';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { call, mintLink, visibleText } from './reports-helpers';
import { ReshapingUpstream } from './reshape';
import { checkVerdicts } from './helpers';

const NO_SUCH_OPERATION = () => Response.json({ error: { code: 'not_found', message: 'This service has no such operation.' } }, { status: 404 });

/** Our origin's bodies, from a service that has no route at the given paths (below /api/v1). */
const withoutRoutes = (...paths: string[]) => new ReshapingUpstream((body, url) => (paths.includes(url.pathname.slice(API_BASE.length)) ? NO_SUCH_OPERATION() : body)).install();

const NAMED = 'The Read API has no getAnswerHistory operation (GET /answers/history answered 404 not_found), which the weekly report needs for the won and lost questions.';

afterEach(() => {
  restoreUpstream();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('the report, without /answers/history', () => {
  it('is a page for a reader that names the operation and what the report needs it for; JSON names it for a client', async () => {
    withoutRoutes('/answers/history');
    const key = freshKey('missing-page');
    const page = await call('/reports/weekly?market=us', { key });
    expect(page.status).toBe(502);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const text = visibleText(await page.text());
    expect(text).toContain('This report needs getAnswerHistory, which the Read API does not have');
    expect(text).toContain(NAMED);

    const api = await call('/reports/weekly?market=us&format=json', { key });
    expect(api.status).toBe(502);
    expect(await api.json()).toEqual({ error: { code: 'operation_missing', message: NAMED, operation: 'getAnswerHistory' } });
  });

  it('through a signed link: the same page, and the same JSON with ?format=json', async () => {
    withoutRoutes('/answers/history');
    const key = freshKey('missing-link');
    // Minting reads only /visibility: the link is made, and says what is missing when opened.
    const link = await mintLink({}, key);
    const page = await call(link.path);
    expect([page.status, page.headers.get('content-type')]).toEqual([502, 'text/html; charset=utf-8']);
    expect(visibleText(await page.text())).toContain(NAMED);
    const api = await call(`${link.path}?format=json`);
    expect(api.status).toBe(502);
    expect(await api.json()).toMatchObject({ error: { code: 'operation_missing', operation: 'getAnswerHistory' } });
  });

  it("names /visibility when it is the one missing; an unknown market (404 everywhere) stays the API's own 404", async () => {
    withoutRoutes('/visibility');
    const key = freshKey('missing-visibility');
    const api = await call('/reports/weekly?market=us&format=json', { key });
    expect(await api.json()).toMatchObject({ error: { code: 'operation_missing', operation: 'getVisibility' } });
    expect(((await (await call('/reports/weekly?market=us&format=json', { key })).json()) as { error: { message: string } }).error.message).toContain('needs for the visibility score');
    restoreUpstream();
    new ReshapingUpstream((body) => body).install();
    const unknown = await call('/reports/weekly?market=zz&format=json', { key: freshKey('missing-market') });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('MCP weekly_report, without /answers/history', () => {
  it('is an error result naming the operation', async () => {
    withoutRoutes('/answers/history');
    const client = new Client({ name: 'missing-test', version: '1.0.0' });
    const headers = { authorization: `Bearer ${freshKey('missing-mcp')}` };
    await client.connect(new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), { fetch: (url, init) => SELF.fetch(new Request(url, init)), requestInit: { headers } }));
    const result = await client.callTool({ name: 'weekly_report', arguments: { market: 'us' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ error: { code: 'operation_missing', message: NAMED, operation: 'getAnswerHistory' }, status: 502 });
    expect((result.content as { text: string }[])[0]!.text).toBe(`502 operation_missing: ${NAMED}`);
    await client.close();
  });
});

describe('the digest, without /answers/history', () => {
  it("is skipped with the reason, shown as the subscription's last delivery, and logged once a day per operation", async () => {
    const monday = demoMonday();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(monday);
    await clearDigests();
    withoutRoutes('/answers/history');
    const warned: string[] = [];
    vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warned.push(args.map(String).join(' ')));
    const queue = new FakeQueue();
    const outboxEnv = testEnv(queue, { RESEND_API_KEY: '' });
    // Two keys: two groups, each read on its own, the same operation missing in both.
    const [first, second] = [freshKey('missing-digest-a'), freshKey('missing-digest-b')];
    const [firstId] = await seedSubscriptions([
      { email: 'lead@example.com', key: first },
      { email: 'cmo@example.com', key: second },
    ]);
    await runCron(monday.toISOString(), outboxEnv);
    expect(queue.sent).toHaveLength(2);
    await deliver(queue.sent.slice(0, 1), outboxEnv);
    await deliver(queue.sent.slice(1), outboxEnv);
    expect((await sendRecords()).map((r) => [r.status, r.reason])).toEqual([
      ['skipped', NAMED],
      ['skipped', NAMED],
    ]);
    const logged = warned.filter((line) => line.includes('lacks an operation'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({ operation: 'getAnswerHistory', answer: '404 not_found' });
    expect(logged[0]).not.toContain(first);

    const listing = await call('/digests/subscriptions', { key: first });
    expect(listing.status).toBe(200);
    const { subscriptions } = (await listing.json()) as { subscriptions: { id: string; last_delivery: unknown }[] };
    expect(subscriptions.find((s) => s.id === firstId)!.last_delivery).toEqual({ kind: 'digest', at: monday.toISOString(), result: 'skipped', reason: NAMED });
  });

  it('a subscription with nothing delivered yet lists last_delivery null, one sent lists it with no reason', async () => {
    const monday = demoMonday();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(monday);
    await clearDigests();
    new ReshapingUpstream((body) => body).install();
    const queue = new FakeQueue();
    const outboxEnv = testEnv(queue, { RESEND_API_KEY: '' });
    const key = freshKey('missing-none');
    const [id] = await seedSubscriptions([{ email: 'lead@example.com', key }]);
    const before = (await (await call('/digests/subscriptions', { key })).json()) as { subscriptions: { id: string; last_delivery: unknown }[] };
    expect(before.subscriptions.find((s) => s.id === id)!.last_delivery).toBeNull();
    await runCron(monday.toISOString(), outboxEnv);
    await deliver(queue.sent, outboxEnv);
    const after = (await (await call('/digests/subscriptions', { key })).json()) as { subscriptions: { id: string; last_delivery: unknown }[] };
    expect(after.subscriptions.find((s) => s.id === id)!.last_delivery).toEqual({ kind: 'digest', at: monday.toISOString(), result: 'sent', reason: null });
  });
});

describe('the compatibility check', () => {
  const check = checkVerdicts;
  const statusOf = (answer: CheckAnswer, id: string) => answer.operations.find((op) => op.operation === id)!;

  it('reads getTopic, getAnswerRuns and getCompetitor with values from other answers, and names each one the service lacks', async () => {
    new ReshapingUpstream((body, url) => (/^\/(topics\/\d+|answers\/runs|competitors\/.+)$/.test(url.pathname.slice(API_BASE.length)) ? NO_SUCH_OPERATION() : body)).install();
    const answer = await check(freshKey('missing-check'));
    for (const id of ['getTopic', 'getAnswerRuns', 'getCompetitor']) expect(statusOf(answer, id)).toMatchObject({ status: 'not_provided', code: '404 not_found' });
    const csv = answer.features.find((f) => f.feature === 'csv_exports')!;
    expect(csv.status).toBe('works_without');
    expect(csv.missing.map((m) => [m.operation, m.answer, m.required])).toEqual([
      ['getTopic', '404 not_found', true],
      ['getAnswerRuns', '404 not_found', true],
      ['getCompetitor', '404 not_found', true],
    ]);
  });

  it('with only the competitor route missing, says so instead of "every feature works"', async () => {
    new ReshapingUpstream((body, url) => (url.pathname.startsWith(`${API_BASE}/competitors/`) ? NO_SUCH_OPERATION() : body)).install();
    const answer = await check(freshKey('missing-competitor'));
    expect(statusOf(answer, 'getCompetitor')).toMatchObject({ status: 'not_provided' });
    expect(statusOf(answer, 'getTopic').status).toBe('readable');
    expect(answer.features.find((f) => f.feature === 'csv_exports')).toMatchObject({
      status: 'works_without',
      missing: [{ part: 'rows', operation: 'getCompetitor', field: null, answer: '404 not_found', required: true }],
    });
  });

  it('says which value it lacked when the answer it comes from has none', async () => {
    // Topics without rivals: no rival's name to ask /competitors/{name} about.
    new ReshapingUpstream((body, url) =>
      url.pathname === `${API_BASE}/topics` ? { ...body, topics: (body.topics as Record<string, unknown>[]).map(({ rivals, ...topic }) => ({ ...topic, rivals: [] })) } : body,
    ).install();
    const answer = await check(freshKey('missing-value'));
    expect(statusOf(answer, 'getCompetitor')).toMatchObject({ status: 'not_checked', note: 'needs `name` from listTopics (`topics[].rivals[].name`), which has none' });
  });
});
