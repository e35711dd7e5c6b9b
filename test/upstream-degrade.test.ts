/**
 * Degrade, do not fail: in front of an implementation of the spec that lacks
 * optional parts (no 12-week history in /visibility, no rivals in /topics,
 * no /prompts at all, and camelCase besides), every feature still runs on
 * what it has, end to end through the Worker: the report page and JSON, the
 * digest sent through the dev outbox, an alert run and its delivery, CSV
 * export links and MCP `weekly_report`. Each leaves out the sections it has
 * no data for and says so in one plain line; the figures it shows are our
 * origin's for the same data; nothing answers 502 for an optional part.
 * A part the service holds with a value no rule maps is not "not provided":
 * its line names the value and its field.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { env, SELF } from 'cloudflare:test';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { spelledValue } from '../src/contract/enum-spelling';
import { STATES } from '../src/contract/enums';
import { API_BASE } from '../src/contract/operations';
import { mintExportLink } from '../src/links/export-links';
import { notProvidedIn, type Report } from '../src/weekly-report/model';
import { clearDigests, deliver, demoMonday, FakeQueue, runCron, seedSubscriptions, sendRecords, testEnv } from './digests-helpers';
import { mintExport, postExport, readCsv } from './exports-helpers';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { call, reportJson, visibleText } from './reports-helpers';
import { alertRunWithFallingScore, CASES, renameFields, ReshapingUpstream } from './reshape';

/** The lines a reader sees where a section is left out (src/weekly-report/parts.ts). */
const LINES = {
  history: 'Your Read API does not provide the 12-week history, so the weekly chart is left out.',
  per_engine: 'Your Read API does not provide per-engine answers, so each engine’s questions naming the brand are left out.',
  rivals: 'Your Read API does not provide rivals per topic, so the rival named most in each topic is left out.',
};

type Body = Record<string, unknown>;
const without = (body: Body, name: string): Body => Object.fromEntries(Object.entries(body).filter(([key]) => key !== name));

/** Our origin's bodies as a service without the optional parts sends them. */
function lacking(body: Body, url: URL): unknown {
  const path = url.pathname.slice(API_BASE.length);
  if (path === '/prompts') return Response.json({ error: { code: 'not_found', message: 'No such endpoint.' } }, { status: 404 });
  let out = body;
  if (path === '/visibility') out = without(body, 'history');
  if (path === '/topics') out = { ...body, topics: (body.topics as Body[]).map((topic) => without(topic, 'rivals')) };
  return renameFields(out, CASES.camel);
}

const install = () => new ReshapingUpstream(lacking).install();

afterEach(() => {
  restoreUpstream();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the report', () => {
  it("as JSON: our origin's figures where the service gives them, and the parts it does not listed with their lines", async () => {
    const ours = (await reportJson('/reports/weekly?market=us')).report;
    install();
    const theirs = (await reportJson('/reports/weekly?market=us', freshKey('degrade'))).report;
    expect(theirs.not_provided.map((p) => [p.part, p.operation, p.fields, p.line])).toEqual([
      ['history', 'getVisibility', ['history'], LINES.history],
      ['per_engine', 'getPromptMatrix', ['engines', 'prompts'], LINES.per_engine],
      ['rivals', 'listTopics', ['topics[].rivals'], LINES.rivals],
    ]);
    const vis = (r: Report) => ({
      score: r.visibility!.score,
      change: r.visibility!.change,
      answered: r.visibility!.answered_runs,
      naming: r.visibility!.naming_runs,
      previous: r.visibility!.previous,
    });
    expect(vis(theirs)).toEqual(vis(ours));
    expect(theirs.visibility!.history).toEqual([]);
    expect(theirs.won_lost).toEqual(ours.won_lost);
    expect(theirs.topics.map(({ top_rival, noise, trend, ...t }) => t)).toEqual(ours.topics.map(({ top_rival, noise, trend, ...t }) => t));
    expect(theirs.topics.every((t) => t.top_rival === null)).toBe(true);
    // Each engine's change from /answers/history is there; its questions naming the brand (from /prompts) are not guessed.
    expect(theirs.engines.map((e) => [e.engine, e.gained, e.lost, e.change])).toEqual(ours.engines.map((e) => [e.engine, e.gained, e.lost, e.change]));
    expect(theirs.engines.every((e) => e.naming === null && e.answered === null)).toBe(true);
    expect(ours.not_provided).toEqual([]);
  });

  it("from a service that leaves out its empty lists: our origin's report, and nothing said to be missing", async () => {
    const ours = (await reportJson('/reports/weekly?market=us')).report;
    const withoutEmpty = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(withoutEmpty)
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (Array.isArray(v) && v.length === 0 ? [] : [[k, withoutEmpty(v)]])))
          : value;
    const upstream = new ReshapingUpstream((body) => withoutEmpty(body)).install();
    const theirs = (await reportJson('/reports/weekly?market=us', freshKey('degrade-empty'))).report;
    expect(upstream.requests.length).toBeGreaterThan(0);
    expect(theirs.not_provided).toEqual([]);
    const withoutTimes = (report: Report) => JSON.parse(JSON.stringify(report, (name, value) => (name === 'generated_at' ? undefined : value)));
    expect(withoutTimes(theirs)).toEqual(withoutTimes(ours));
  });

  it('as a page: 200, the lines where the trend chart, the per-engine table and the rivals were, the rest as ours', async () => {
    install();
    const response = await call('/reports/weekly?market=us', { key: freshKey('degrade-page') });
    expect(response.status).toBe(200);
    const html = await response.text();
    const text = visibleText(html);
    for (const line of Object.values(LINES)) expect(text).toContain(line);
    expect(html).not.toContain('class="chart"');
    expect(html).not.toContain('data-testid="weeks"');
    expect(text).not.toContain('CSV of the 12 weeks');
    expect(/<ul class="topics"[\s\S]*?<\/ul>/.exec(html)![0]).not.toContain('rival named most');
    expect(html).toContain('data-testid="won-list"');
    expect(html).toContain('data-testid="score"');
  });
});

describe('the digest, sent through the dev outbox', () => {
  it("leaves out the chart and the engines' counts, says why in both parts, and keeps the week with empty engine columns", async () => {
    const monday = demoMonday();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(monday);
    await clearDigests();
    install();
    const queue = new FakeQueue();
    const outboxEnv = testEnv(queue, { RESEND_API_KEY: '' });
    const key = freshKey('degrade-digest');
    await seedSubscriptions([{ email: 'lead@example.com', key }]);
    await runCron(monday.toISOString(), outboxEnv);
    await deliver(queue.sent, outboxEnv);
    expect((await sendRecords()).map((r) => [r.status, r.reason])).toEqual([['sent', null]]);

    const { messages } = (await (await SELF.fetch('https://edge.test/dev/outbox?format=json&to=lead@example.com')).json()) as { messages: { id: number; kind: string; text: string }[] };
    expect(messages.map((m) => m.kind)).toEqual(['digest']);
    const { message } = (await (await SELF.fetch(`https://edge.test/dev/outbox/${messages[0]!.id}?format=json`)).json()) as { message: { html: string; text: string; subject: string } };
    for (const part of [message.text, visibleText(message.html)]) {
      expect(part).toContain(LINES.history);
      expect(part).toContain(LINES.per_engine);
      // Rivals and topics are not sections of the digest: nothing to say about them there.
      expect(part).not.toContain(LINES.rivals);
    }
    expect(message.text).not.toContain('Score by week');
    expect(message.html).not.toContain('Score by week');
    expect(message.subject).toMatch(/^Brightdesk: /);

    // The kept history has the week, its engines' columns empty (null), as docs/exports.md says.
    const kept = await env.DB.prepare('SELECT score, won, lost, engines FROM weekly_history WHERE brand_id = 1 AND market_id = 11').first<{ score: number; engines: string }>();
    expect(kept!.score).not.toBeNull();
    expect((JSON.parse(kept!.engines) as { naming: number | null }[]).every((e) => e.naming === null)).toBe(true);
  });
});

describe('an alert run', () => {
  it('watches the score it has, delivers the change with a line for what it could not watch, and looks for no question or rival event', async () => {
    const { snapshot, deliveries, payloads } = await alertRunWithFallingScore(lacking, freshKey('degrade-alerts'));
    expect(snapshot).toMatchObject({ cells: [], not_provided: ['per_engine', 'rivals'] });
    expect(deliveries).toBe(1);
    expect(payloads).toHaveLength(1);
    expect(payloads[0]!.data.events.map((e) => e.type)).toEqual(['visibility_moved']);
    expect(payloads[0]!.data.not_provided).toEqual([
      { part: 'per_engine', line: 'Your Read API does not provide per-engine answers, so lost and won questions are not alerted.' },
      { part: 'rivals', line: 'Your Read API does not provide rivals per topic, so rivals overtaking the brand in a topic are not alerted.' },
    ]);
  });
});

describe('a value no rule maps, met after discovery', () => {
  /** Words of a service's own for an answer state that no spelling rule reads as one of ours (fast-check, seeded). */
  const words = fc.sample(
    fc.stringMatching(/^[a-z][a-z_]{3,12}$/).filter((word) => !(STATES as readonly string[]).includes(word) && spelledValue(word, STATES) === undefined),
    { seed: 45, numRuns: 2 },
  );
  /** Our origin's /prompts with the first answered cell's state written as `word`. */
  const oneCellAs = (word: string) => (body: Body, url: URL) => {
    if (!url.pathname.endsWith('/prompts')) return body;
    const prompts = body.prompts as { engines: { state: string | null }[] }[];
    prompts.flatMap((p) => p.engines).find((c) => c.state !== null)!.state = word;
    return body;
  };
  const named = (word: string) => `with a value the upstream map does not read (\`${word}\` for \`prompts[].engines[].state\`, none of ${STATES.join(', ')})`;

  it.each(words)('`%s` is named in the report where per-engine answers are left out, never said to be missing', async (word) => {
    new ReshapingUpstream(oneCellAs(word)).install();
    const { report } = await reportJson('/reports/weekly?market=us', freshKey(`degrade-value-${word}`));
    const line = notProvidedIn(report, 'per_engine');
    expect(line).toContain(named(word));
    expect(line).not.toContain('does not provide');
    expect(report.engines.every((e) => e.naming === null)).toBe(true);
  });

  it('is named in an alert too', async () => {
    const word = words[0]!;
    const { payloads } = await alertRunWithFallingScore(oneCellAs(word), freshKey('degrade-value-alerts'));
    expect(payloads[0]!.data.not_provided?.find((p) => p.part === 'per_engine')?.line).toContain(named(word));
  });
});

describe('CSV export links', () => {
  it("give empty cells for a column the service does not provide, under the table's own header, and our rows otherwise", async () => {
    const ours = await readCsv((await mintExport({ operation: 'listTopics', params: { market: 'us' } })).url);
    install();
    const theirs = await readCsv((await mintExport({ operation: 'listTopics', params: { market: 'us' } }, freshKey('degrade-csv'))).url);
    expect(theirs.status).toBe(200);
    // The rivals our origin lists are spread over numbered columns (`rivals.1.name`); a list the service never gives is its one column, empty.
    const isRival = (column: string) => column.startsWith('rivals.');
    const at = ours.header.findIndex(isRival);
    expect(at).toBeGreaterThan(0);
    expect(theirs.header).toEqual([...ours.header.slice(0, at), 'rivals', ...ours.header.filter((c, i) => i > at && !isRival(c))]);
    expect(theirs.records.map((r) => r.rivals)).toEqual(ours.records.map(() => ''));
    const withoutRivals = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).filter(([c]) => c !== 'rivals' && !isRival(c)));
    expect(theirs.records.map(withoutRivals)).toEqual(ours.records.map(withoutRivals));
  });

  it("say in plain text, not as an outage, that a table's rows are not provided", async () => {
    install();
    const key = freshKey('degrade-rows');
    // A link minted while the service still gave the 12 weeks, stored as the mint stores it.
    const deps = { db: env.DB, encryptionKey: env.ENCRYPTION_KEY, signingSecret: env.SIGNING_SECRET, publicUrl: 'https://edge.test', now: () => new Date() };
    const minted = await mintExportLink(deps, key, { kind: 'getVisibility', params: { market: 'us' }, brandId: 1, market: { id: 11, code: 'us' } }, 5);
    if (!minted.ok) throw new Error('not minted');
    const read = await readCsv(minted.link.url);
    expect(read.status).toBe(502);
    expect(read.type).toMatch(/^text\/plain/);
    expect(read.text).toContain('does not provide the rows of this table: its answer to getVisibility has no readable `history`');
    expect(read.text).not.toContain('did not answer');
    // Minting one now says the same in the API's shape.
    const mint = await postExport({ operation: 'getVisibility', params: { market: 'us' } }, key);
    expect(mint.status).toBe(502);
    expect(((await mint.json()) as { error: { message: string } }).error.message).toContain('`history`');
  });
});

describe('MCP weekly_report', () => {
  it('answers the report with its not_provided parts, and says their lines in its text', async () => {
    install();
    const client = new Client({ name: 'degrade-test', version: '1.0.0' });
    const headers = { authorization: `Bearer ${freshKey('degrade-mcp')}` };
    await client.connect(new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), { fetch: (url, init) => SELF.fetch(new Request(url, init)), requestInit: { headers } }));
    const result = await client.callTool({ name: 'weekly_report', arguments: { market: 'us' } });
    expect(result.isError).toBeFalsy();
    const { report } = result.structuredContent as { report: Report };
    expect(report.not_provided.map((p) => p.part)).toEqual(['history', 'per_engine', 'rivals']);
    const text = (result.content as { type: string; text: string }[])[0]!.text;
    for (const line of Object.values(LINES)) expect(text).toContain(line);
    await client.close();
  });
});
