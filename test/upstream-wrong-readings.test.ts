/**
 * Wrong readings the check once called "works" (issue 43, item 3), through
 * the Worker, in front of the house-style service (test/house-style.ts): a
 * map that swaps a move's before and now, reads a rate from its runs, reads
 * /answers/history's period from its comparison window, or leaves an engine
 * under a vendor's upper-case alias is "implausible", naming the fields; the
 * report of such figures says so on its page, in its JSON, its text form and
 * MCP `weekly_report`; and every route answers a clear error, never a 500.
 * The check reads `/brands` as the report does.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CheckAnswer } from '../src/app/upstream-check';
import { MCP_PATH } from '../src/mcp';
import type { Violation } from '../src/contract/plausibility';
import { checkVerdicts, putUpstreamMap } from './helpers';
import { houseMap, houseStyle, VENDOR_ENGINES } from './house-style';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { call, type ReportJson, visibleText } from './reports-helpers';
import { ReshapingUpstream } from './reshape';

type HouseMap = ReturnType<typeof houseMap>;
type Body = Record<string, unknown>;

const check = checkVerdicts;

const byFeature = (answer: CheckAnswer) => Object.fromEntries(answer.features.map((f) => [f.feature, f.status]));
const violationsOf = (answer: CheckAnswer, feature = 'report_page') => answer.features.find((f) => f.feature === feature)!.violations;

/** The house style with `map` changed by `change`, stored; a key of its own. */
async function inFront(change: (map: HouseMap) => void, shape: (body: Body, url: URL) => unknown = houseStyle): Promise<string> {
  new ReshapingUpstream(shape).install();
  const map = houseMap();
  change(map);
  const put = await putUpstreamMap(map);
  expect(put.status, await put.clone().text()).toBe(200);
  return freshKey('wrong-reading');
}

async function weeklyReportTool(key: string) {
  const client = new Client({ name: 'wrong-readings', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://localhost${MCP_PATH}`), {
      fetch: (url, init) => SELF.fetch(new Request(url, init)),
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  const result = await client.callTool({ name: 'weekly_report', arguments: { market: 'us' } });
  await client.close();
  return result as { isError?: boolean; content: { text: string }[]; structuredContent: { report?: { implausible: Violation[] }; error?: { code: string; message: string } } };
}

afterEach(async () => {
  restoreUpstream();
  vi.restoreAllMocks();
  await putUpstreamMap({ operations: {} });
});

describe('wrong readings are implausible, naming the fields', () => {
  it("a move's before and now swapped: each outcome counted apart, blaming moved[].before and moved[].now", async () => {
    const key = await inFront((map) => Object.assign(map.operations.getAnswerHistory!.fields, { 'questions[].moved[].before': 'Now', 'questions[].moved[].now': 'Before' }));
    const answer = await check(key);
    expect(byFeature(answer)).toMatchObject({ digest: 'implausible', report_page: 'implausible', weekly_report: 'implausible' });
    const [violation, ...others] = violationsOf(answer);
    expect(others).toEqual([]);
    expect(violation).toMatchObject({ rule: 'moves_follow_outcome', operation: 'getAnswerHistory', fields: ['questions[].moved[].before', 'questions[].moved[].now'] });
    // Counted right: the won and the lost questions of the report itself, each apart.
    const { report } = (await (await call('/reports/weekly?market=us&format=json', { key })).json()) as ReportJson;
    const moved = (q: { engines: unknown[] }) => q.engines.length > 0;
    const [won, lost] = [report.won_lost!.won.filter(moved).length, report.won_lost!.lost.filter(moved).length];
    expect(won).toBeGreaterThan(0);
    expect(violation!.values).toEqual({ questions: won + lost, won, lost });
    expect(violation!.message).toMatch(
      new RegExp(
        `^${won} questions? (is|are) won though their moved engines name the brand less now than before \\(question \\d+: [a-z_]+ (recommended|mentioned) → \\w+\\), ${lost} lost though their moved engines name the brand more now than before .*\\(each from the other’s\\)\\?$`,
      ),
    );
  });

  it('the counts of engines naming the brand swapped: outcome_follows_engines counts each outcome apart and blames the counts', async () => {
    const key = await inFront((map) =>
      Object.assign(map.operations.getAnswerHistory!.fields, { 'questions[].engines_naming_now': 'EnginesNamingBefore', 'questions[].engines_naming_before': 'EnginesNamingNow' }),
    );
    const [violation, ...others] = violationsOf(await check(key));
    expect(others).toEqual([]);
    const { report } = (await (await call('/reports/weekly?market=us&format=json', { key })).json()) as ReportJson;
    const { won, lost } = report.won_lost!.counts;
    expect(violation).toMatchObject({ rule: 'outcome_follows_engines', fields: ['questions[].engines_naming_now', 'questions[].engines_naming_before'], values: { questions: won + lost, won, lost } });
    expect(violation!.message).toMatch(new RegExp(`^${won} questions are won though fewer engines name the brand now than before .*, ${lost} lost though more engines`));
  });

  it("a prompt's rate read from its runs: implausible for the report, as it was for get_prompt_matrix", async () => {
    const key = await inFront((map) => void (map.operations.getPromptMatrix!.fields['prompts[].engines[].rate'] = 'Runs'));
    const answer = await check(key);
    expect(byFeature(answer)).toMatchObject({ digest: 'implausible', report_page: 'implausible', csv_exports: 'implausible' });
    const [violation] = violationsOf(answer);
    expect(violation).toMatchObject({ rule: 'rate_is_share_of_runs', operation: 'getPromptMatrix', fields: ['prompts[].engines[].rate'] });
    expect(violation!.message).toMatch(
      /^prompts\[\]\.engines\[\]\.rate is not the share of its cell's runs in (\d+) of \1 cells .*, and equals its cell's runs in all \1: is `rate` read from the right field \(it reads `runs`\)\?$/,
    );
  });

  it("/answers/history's period read from its comparison window: implausible, and the report a 502 that says so, never a 500", async () => {
    const key = await inFront((map) => void (map.operations.getAnswerHistory!.fields.period = 'PreviousPeriod'));
    const [violation] = violationsOf(await check(key));
    expect(violation).toMatchObject({ rule: 'fixed_windows', operation: 'getAnswerHistory', fields: ['period.from', 'period.to'] });
    expect(violation!.message).toMatch(
      /^\/answers\/history period \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d ends 7 days before today \(\d{4}-\d\d-\d\d\), .*is `period` read from the comparison window \(`previous_period`\)\?$/,
    );
    for (const format of ['json', 'text']) {
      const response = await call(`/reports/weekly?market=us&format=${format}`, { key });
      expect(response.status).toBe(502);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        /fixed windows do not cover the same 7 days \(\/visibility covers .*, \/answers\/history .*\).*`period` is most likely read from the wrong field/,
      );
    }
    const page = await call('/reports/weekly?market=us', { key, headers: { accept: 'text/html' } });
    expect([page.status, page.headers.get('content-type')]).toEqual([502, 'text/html; charset=utf-8']);
    expect(visibleText(await page.text())).toContain('The report’s figures do not cover the same week');
    expect((await call('/reports/weekly/send?market=us', { key, method: 'POST' })).status).toBe(502);
    const tool = await weeklyReportTool(key);
    expect([tool.isError, tool.structuredContent.error?.code]).toEqual([true, 'upstream_error']);
    expect(tool.structuredContent.error!.message).toContain('`period` is most likely read from the wrong field');
  });

  const alias = (to: string) => (body: Body, url: URL) => JSON.parse(JSON.stringify(houseStyle(body, url)).replaceAll(`"${VENDOR_ENGINES.chatgpt}"`, `"${to}"`));

  it("an engine under a vendor's upper-case alias is ours by the map's spelling rules", async () => {
    // `OPENAI` is a well-known alias of ChatGPT: with a map kept, the spelling rules read it as ours.
    expect(Object.values(byFeature(await check(await inFront(() => {}, alias('OPENAI')))))).toEqual(['works', 'works', 'works', 'works', 'works', 'works']);
  });

  it('an engine under an alias no spelling rule reads is named, until the map says it', async () => {
    const upper = alias('OPENAI_GPT4O');
    const key = await inFront(() => {}, upper);
    const violations = violationsOf(await check(key));
    expect(violations.map((v) => [v.rule, v.operation, v.fields[0]])).toContainEqual(['engines_ours_or_declared', 'getPromptMatrix', 'prompts[].engines[].engine']);
    const matrix = violations.find((v) => v.rule === 'engines_ours_or_declared' && v.operation === 'getPromptMatrix')!;
    expect(matrix.message).toMatch(/^prompts\[\]\.engines\[\]\.engine `OPENAI_GPT4O`: an engine that answered, under a name neither ours nor declared, .*\("OPENAI_GPT4O": "openai_gpt4o"\)\?$/);
    // Mapped in `values`, it is ours again and every feature works.
    const mapped = await inFront((map) => {
      for (const op of Object.values(map.operations)) for (const values of Object.values(op.values)) if (values[VENDOR_ENGINES.chatgpt!]) values.OPENAI_GPT4O = 'chatgpt';
    }, upper);
    expect(Object.values(byFeature(await check(mapped)))).toEqual(['works', 'works', 'works', 'works', 'works', 'works']);
  });
});

describe('a report whose figures break a rule says so wherever it shows', () => {
  it('on the page, in its JSON, its text form and weekly_report, with the rule and its message; none with the right map', async () => {
    const key = await inFront((map) => void (map.operations.getVisibility!.fields.score = 'MarketId'));
    const json = (await (await call('/reports/weekly?market=us&format=json', { key })).json()) as ReportJson;
    expect(json.report.implausible.map((v) => v.rule)).toEqual(['score_is_share_named']);
    const { message } = json.report.implausible[0]!;
    expect(message).toMatch(/^score 11\.0, but /);
    const page = visibleText(await (await call('/reports/weekly?market=us', { key, headers: { accept: 'text/html' } })).text());
    expect(page).toMatch(/Warning: these figures break a rule the Read API’s answers keep, so some of them are wrong/);
    expect(page).toContain(`getVisibility score_is_share_named: ${message}`);
    // The warning comes before the figures it warns about, from the lead on.
    expect(page.indexOf('Warning:')).toBeLessThan(page.indexOf(json.report.lead.headline));
    const text = await (await call('/reports/weekly?market=us&format=text', { key })).text();
    expect(text.startsWith('Warning: these figures break a rule')).toBe(true);
    expect(text).toContain(`- getVisibility score_is_share_named: ${message}`);
    const tool = await weeklyReportTool(key);
    expect(tool.structuredContent.report!.implausible.map((v) => v.message)).toEqual([message]);
    expect(tool.content[0]!.text.split('\n').slice(0, 2)).toEqual([expect.stringMatching(/^Warning: these figures break a rule/), `- getVisibility score_is_share_named: ${message}`]);

    const right = await inFront(() => {});
    expect(((await (await call('/reports/weekly?market=us&format=json', { key: right })).json()) as ReportJson).report.implausible).toEqual([]);
    expect(visibleText(await (await call('/reports/weekly?market=us', { key: right, headers: { accept: 'text/html' } })).text())).not.toContain('Warning:');
  });
});

describe('/brands and the other reads, as the report makes them', () => {
  const withBrands = (answer: (body: Body) => unknown) => (body: Body, url: URL) => (url.pathname.endsWith('/brands') ? answer(body) : houseStyle(body, url));

  it('a /brands without the plan the report does not need: the report and the check both work', async () => {
    const key = await inFront(
      () => {},
      withBrands(({ plan, ...rest }) => ({ ...rest, Tier: plan })),
    );
    expect(Object.values(byFeature(await check(key)))).toEqual(['works', 'works', 'works', 'works', 'works', 'works']);
    expect(((await (await call('/reports/weekly?market=us&format=json', { key })).json()) as ReportJson).report.brand.name).toBe('Brightdesk');
  });

  it('a service without /brands: the report page and weekly_report cannot run, named by the check; a browser gets a page', async () => {
    const key = await inFront(
      () => {},
      withBrands(() => Response.json({ error: { code: 'not_found', message: 'No such endpoint.' } }, { status: 404 })),
    );
    const answer = await check(key);
    expect(byFeature(answer)).toMatchObject({ digest: 'works', report_page: 'cannot_run', weekly_report: 'cannot_run' });
    expect(answer.features.find((f) => f.feature === 'report_page')!.missing).toEqual([
      { part: 'body', operation: 'listBrands', field: null, answer: '404 not_found', words: 'the operation listBrands', required: true },
    ]);
    const page = await call('/reports/weekly?market=us', { key, headers: { accept: 'text/html' } });
    expect([page.status, page.headers.get('content-type')]).toEqual([502, 'text/html; charset=utf-8']);
    expect(visibleText(await page.text())).toContain('The Read API has no listBrands operation (GET /brands answered 404 not_found), which the weekly report needs for the brand’s name.');
    const json = await call('/reports/weekly?market=us&format=json', { key });
    expect([json.status, ((await json.json()) as { error: { code: string } }).error.code]).toEqual([502, 'operation_missing']);
  });

  it('per-engine answers under a name the map misses: the map does not place them, it is not said that the service lacks them', async () => {
    const key = await inFront(
      () => {},
      (body, url) => {
        const styled = houseStyle(body, url) as { Result: Body };
        if (!url.pathname.endsWith('/prompts')) return styled;
        const { Prompts, ...rest } = styled.Result;
        return { ...styled, Result: { ...rest, Matrix: Prompts } };
      },
    );
    const line =
      'The upstream map does not place per-engine answers in the Read API’s answer to getPromptMatrix, which holds `Matrix` under a name the map does not name, so each engine’s questions naming the brand are left out.';
    const answer = await check(key);
    expect(answer.features.find((f) => f.feature === 'digest')!.missing.map((m) => m.line)).toEqual([line]);
    const { report } = (await (await call('/reports/weekly?market=us&format=json', { key })).json()) as ReportJson;
    expect(report.not_provided.map((p) => p.line)).toEqual([line]);
    expect(JSON.stringify(report)).not.toContain('does not provide per-engine answers');
  });

  it('a body that cannot be read is said as such, not as "did not answer, try again"', async () => {
    const key = await inFront(
      () => {},
      (body, url) => (url.pathname.endsWith('/visibility') ? { Result: { Nothing: 1 } } : houseStyle(body, url)),
    );
    const page = await call('/reports/weekly?market=us', { key, headers: { accept: 'text/html' } });
    expect(page.status).toBe(502);
    const words = visibleText(await page.text());
    expect(words).toContain('The Read API’s answer to getVisibility cannot be read');
    expect(words).toContain('The Read API answered getVisibility with a body this product cannot read (its field `brand_id`)');
    expect(words).not.toContain('did not answer');
  });
});
