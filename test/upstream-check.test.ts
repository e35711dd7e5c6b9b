/**
 * `POST /admin/upstream/check` through the Worker: in front of our own origin
 * every feature works; in front of a service without the optional parts
 * (no history, no rivals, no /prompts) each feature works without the
 * sections it names, with the field; in front of one without the score the
 * features that need it cannot run, naming the operation and the field. As
 * JSON and as a page. The key comes in the body, is never logged or shown,
 * and its reads spend its budget once (a second check is all cache hits).
 * A missing operation per feature: test/upstream-missing.test.ts.
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { API_BASE } from '../src/contract/operations';
import type { CheckAnswer } from '../src/app/upstream-check';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { mintExport, readCsv } from './exports-helpers';
import { call, visibleText } from './reports-helpers';
import { CASES, renameFields, ReshapingUpstream } from './reshape';

type Body = Record<string, unknown>;
const without = (body: Body, name: string): Body => Object.fromEntries(Object.entries(body).filter(([key]) => key !== name));

function check(body: unknown, o: { token?: string | null; accept?: string } = {}): Promise<Response> {
  const token = o.token === undefined ? env.ADMIN_TOKEN : o.token;
  return SELF.fetch('https://edge.test/admin/upstream/check', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(o.accept ? { accept: o.accept } : {}) },
    body: JSON.stringify(body),
  });
}

async function verdicts(body: unknown): Promise<CheckAnswer> {
  const response = await check(body);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as CheckAnswer;
}

const byFeature = (answer: CheckAnswer) => Object.fromEntries(answer.features.map((f) => [f.feature, f.status]));
const missingOf = (answer: CheckAnswer, feature: string) => answer.features.find((f) => f.feature === feature)!.missing.map((m) => [m.part, m.operation, m.field ?? m.answer, m.required]);
const operationOf = (answer: CheckAnswer, id: string) => answer.operations.find((op) => op.operation === id)!;

/** The service without the optional parts (as test/upstream-degrade.test.ts). */
function lacking(body: Body, url: URL): unknown {
  const path = url.pathname.slice(API_BASE.length);
  if (path === '/prompts') return Response.json({ error: { code: 'not_found', message: 'No such endpoint.' } }, { status: 404 });
  if (path === '/visibility') return renameFields(without(body, 'history'), CASES.camel);
  if (path === '/topics') return renameFields({ ...body, topics: (body.topics as Body[]).map((topic) => without(topic, 'rivals')) }, CASES.camel);
  return renameFields(body, CASES.camel);
}

afterEach(() => {
  restoreUpstream();
  vi.restoreAllMocks();
});

describe('in front of our own origin', () => {
  it('every feature works, every operation is read in full, and a second check spends nothing', async () => {
    new ReshapingUpstream((body) => body).install();
    const key = freshKey('check-ours');
    const first = await verdicts({ api_key: key, market: 'us' });
    expect(byFeature(first)).toEqual({ digest: 'works', report_page: 'works', alerts: 'works', csv_exports: 'works', history: 'works', weekly_report: 'works' });
    expect(first.features.every((f) => f.missing.length === 0)).toBe(true);
    // getTopic, getAnswerRuns and getCompetitor too: their id, question and rival come from other answers (paramsFrom).
    expect(first.operations.filter((op) => op.status !== 'readable').map((op) => [op.operation, op.status])).toEqual([]);
    expect(first.operations.map((op) => op.operation)).toEqual(expect.arrayContaining(['getTopic', 'getAnswerRuns', 'getCompetitor']));
    expect(first.calls).toBeGreaterThan(0);
    expect(first.calls).toBeLessThanOrEqual(first.reads);
    const second = await verdicts({ api_key: key, market: 'us' });
    expect(second.calls).toBe(0);
    expect(byFeature(second)).toEqual(byFeature(first));
  });
});

describe('in front of a service without the optional parts', () => {
  it('each feature works without what it names, with the operation and the field; CSV names the export that cannot run', async () => {
    new ReshapingUpstream(lacking).install();
    const answer = await verdicts({ api_key: freshKey('check-lacking') });
    expect(byFeature(answer)).toEqual({
      digest: 'works_without',
      report_page: 'works_without',
      alerts: 'works_without',
      csv_exports: 'works_without',
      history: 'works_without',
      weekly_report: 'works_without',
    });
    expect(missingOf(answer, 'digest')).toEqual([
      ['history', 'getVisibility', 'history', false],
      ['per_engine', 'getPromptMatrix', '404 not_found', false],
      ['rivals', 'listTopics', 'topics[].rivals', false],
    ]);
    expect(answer.features.find((f) => f.feature === 'digest')!.missing[0]!.line).toBe('Your Read API does not provide the 12-week history, so the weekly chart is left out.');
    expect(missingOf(answer, 'weekly_report')).toEqual(missingOf(answer, 'digest'));
    expect(missingOf(answer, 'alerts')).toEqual([
      ['per_engine', 'getPromptMatrix', '404 not_found', false],
      ['rivals', 'listTopics', 'topics[].rivals', false],
    ]);
    expect(missingOf(answer, 'history')).toEqual([['per_engine', 'getPromptMatrix', '404 not_found', false]]);
    expect(missingOf(answer, 'csv_exports')).toEqual([
      ['rows', 'getVisibility', 'history', true],
      ['column', 'listTopics', 'topics[].rivals', false],
      ['rows', 'getPromptMatrix', '404 not_found', true],
    ]);
    expect(operationOf(answer, 'getVisibility')).toMatchObject({ status: 'unreadable', fields: ['history'] });
    expect(operationOf(answer, 'listTopics')).toMatchObject({ status: 'readable_without', fields: ['topics[].rivals'] });
    expect(operationOf(answer, 'getPromptMatrix')).toMatchObject({ status: 'not_provided', code: '404 not_found' });
  });
});

describe('in front of a service without the score', () => {
  it('the features that need it cannot run, naming the operation and the field; the others run', async () => {
    new ReshapingUpstream((body, url) => (url.pathname.endsWith('/visibility') ? without(body, 'score') : body)).install();
    const answer = await verdicts({ api_key: freshKey('check-no-score'), market: 'us' });
    expect(byFeature(answer)).toEqual({ digest: 'cannot_run', report_page: 'cannot_run', alerts: 'cannot_run', csv_exports: 'works', history: 'cannot_run', weekly_report: 'cannot_run' });
    expect(missingOf(answer, 'digest')).toEqual([['score', 'getVisibility', 'score', true]]);
    expect(answer.features.find((f) => f.feature === 'digest')!.missing[0]).toMatchObject({ words: 'the visibility score' });
    // /visibility's CSV is its 12 weeks: the body's own score is in no column, so every export works.
    expect(operationOf(answer, 'getVisibility')).toMatchObject({ status: 'readable_without', fields: ['score'] });
    expect(missingOf(answer, 'csv_exports')).toEqual([]);
  });
});

describe('in front of a service with a value no rule maps where a feature needs it', () => {
  /** /answers/history with the first question's outcome in the service's own word (no spelling rule reads `seesaw` as won, lost or held). */
  const oddOutcome = (body: Body, url: URL) => {
    if (url.pathname.endsWith('/answers/history')) (body.questions as Body[])[0]!.outcome = 'seesaw';
    return body;
  };

  it('names the value and its field, in the check as JSON and as a page, the report and the CSV of the table', async () => {
    new ReshapingUpstream(oddOutcome).install();
    const key = freshKey('check-odd-value');
    const answer = await verdicts({ api_key: key, market: 'us' });
    expect(byFeature(answer).report_page).toBe('cannot_run');
    expect(answer.features.find((f) => f.feature === 'report_page')!.missing).toContainEqual(
      expect.objectContaining({ operation: 'getAnswerHistory', field: 'questions[].outcome', unmapped: 'seesaw', required: true }),
    );
    const page = visibleText(await (await check({ api_key: key, market: 'us' }, { accept: 'text/html' })).text());
    expect(page).toMatch(/questions\[\]\.outcome is seesaw ?, none of the contract's values/);

    const report = await call('/reports/weekly?market=us&format=json', { key });
    expect(report.status).toBe(502);
    expect(((await report.json()) as { error: { message: string } }).error.message).toContain("is `seesaw`, none of the contract's values (won, lost, held)");

    // A CSV carries the service's value as it is, in its own cell: never dropped, never read as one of ours.
    expect(operationOf(answer, 'getAnswerHistory').status).toBe('readable');
    const csv = await readCsv((await mintExport({ operation: 'getAnswerHistory', params: { market: 'us' } }, key)).url);
    expect(csv.records.filter((r) => r.outcome === 'seesaw')).toHaveLength(1);
  });
});

describe('the page', () => {
  it('is the same answer for a reader, when the browser asks for HTML, and shows no key', async () => {
    new ReshapingUpstream(lacking).install();
    const key = freshKey('check-page');
    const response = await check({ api_key: key }, { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).not.toContain(key);
    const text = visibleText(html);
    expect(text).toContain('The weekly digest Works without a section');
    expect(text).toContain('Your Read API does not provide the 12-week history, so the weekly chart is left out. getVisibility: history not provided');
    expect(text).toContain('Needs the rows of the getVisibility export. getVisibility: history missing or unreadable');
    expect(text).toContain('The listTopics export leaves its rivals column empty.');
    expect(text).toContain('getPromptMatrix: answers 404 not_found');
    expect(html).toContain('data-feature="digest" data-status="works_without"');
    // curl's */* and an explicit JSON get JSON.
    for (const accept of ['*/*', 'application/json', 'text/html;q=0.5, application/json'])
      expect((await check({ api_key: key }, { accept })).headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('what it refuses', () => {
  it('needs the admin token, a JSON body with the key, and a key the API knows; never logs the key', async () => {
    const logged: string[] = [];
    for (const method of ['log', 'error', 'warn'] as const) vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    for (const token of [null, 'wrong', 'demo_pro_single']) expect((await check({ api_key: 'demo_pro_single' }, { token })).status).toBe(401);
    const noKey = await check({ market: 'us' });
    expect(noKey.status).toBe(400);
    expect(await noKey.json()).toMatchObject({ error: { code: 'invalid_parameter', param: 'api_key' } });
    const extra = await check({ api_key: 'demo_pro_single', apiKey: 'x' });
    expect(await extra.json()).toMatchObject({ error: { code: 'invalid_parameter', param: 'apiKey' } });
    const refused = await check({ api_key: 'demo_revoked' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: 'invalid_parameter', param: 'api_key' } });
    const get = await SELF.fetch('https://edge.test/admin/upstream/check', { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } });
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    // A foreign body that breaks the contract is logged (once per operation), without the key that read it.
    new ReshapingUpstream((body, url) => (url.pathname.endsWith('/visibility') ? without(body, 'score') : body)).install();
    const key = freshKey('check-secret');
    await verdicts({ api_key: key });
    expect(logged.join('\n')).not.toContain(key);
    expect(logged.join('\n')).not.toContain('demo_revoked');
  });
});

describe('a key no header can carry (issue 34 item 3)', () => {
  it('is a 400 naming api_key at /admin/upstream/check and /admin/upstream/discover, never a 500 and never in a log line', async () => {
    const logged: string[] = [];
    for (const method of ['log', 'error', 'warn', 'info', 'debug'] as const) vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    const bad = ['demo_pro\r\nsingle', 'demo_pro\nx-injected: 1', 'demo\0pro', 'demo\u200bpro_single', '\u201cdemo_pro_single\u201d', 'demo pro'];
    for (const path of ['check', 'discover']) {
      for (const api_key of bad) {
        const response = await SELF.fetch(`https://edge.test/admin/upstream/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${env.ADMIN_TOKEN}` },
          body: JSON.stringify({ api_key }),
        });
        const text = await response.text();
        expect([path, api_key, response.status]).toEqual([path, api_key, 400]);
        expect(JSON.parse(text)).toMatchObject({ error: { code: 'invalid_parameter', param: 'api_key' } });
        expect(text).toContain('characters an API key never has');
      }
    }
    for (const api_key of bad) expect(logged.join('\n')).not.toContain(api_key);
  });
});
