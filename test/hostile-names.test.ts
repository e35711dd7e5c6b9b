/**
 * Names an upstream chooses that are members of every plain object (issue 58 item 4): each string the contract
 * lets the service choose (rivals, engines, topics, domains, questions...) becomes one of `__proto__`,
 * `constructor`, `toString`... (every own name of `Object.prototype`), in an order fast-check draws, and one day of
 * the overview leaves one of its rivals out. Through the Worker: each view as JSON and as a page with the key, the
 * rivals view by share link, the account's overview, report, history and views, the weekly report (page, JSON,
 * text), every CSV link those pages hand out, and every MCP tool. No lookup by such a name may read an inherited member: no answer is a 5xx.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SELF } from 'cloudflare:test';
import fc from 'fast-check';
import { afterEach, expect, it, vi } from 'vitest';
import { operationList } from '../src/contract/operations';
import { RATE_WINDOW_MS } from '../src/contract/rate-limit';
import { MCP_PATH } from '../src/mcp';
import { toolName } from '../src/mcp/tools';
import { VIEW_KINDS } from '../src/views';
import { get as accountGet, signIn } from './account-helpers';
import { clearDigests } from './digests-helpers';
import { hostileWorld, installPrototypeNames } from './hostile';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { call, clearReports } from './reports-helpers';

afterEach(async () => {
  vi.useRealTimers();
  restoreUpstream();
  await clearDigests();
  await clearReports();
});

/** Every key of the service reads the origin as one demo key (60 reads a minute): each run starts a minute later. */
function nextMinute(): void {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + RATE_WINDOW_MS + 1_000);
}

const csvLinksOf = (html: string) => [...html.matchAll(/href="(https?:\/\/[^"]+\/x\/[^"]+\.csv)"/g)].map((m) => new URL(m[1]!.replaceAll('&amp;', '&')).pathname);

/** Each of these reads what the key reads: 200, never an error page (a 5xx least of all). */
async function expectAnswered(what: string, response: Response): Promise<string> {
  const text = await response.text();
  expect([what, response.status === 200 ? 'answered' : `${response.status} ${text.slice(0, 300)}`]).toEqual([what, 'answered']);
  return text;
}

it('pages, JSON, text and CSV answer every prototype name, a rival left out of a day included', async () => {
  await fc.assert(
    fc.asyncProperty(hostileWorld, async (world) => {
      nextMinute();
      installPrototypeNames(world);
      const key = freshKey('protonames');
      const scope = 'brand_id=1&market=us';
      const csv: string[] = [];
      for (const kind of VIEW_KINDS) {
        await expectAnswered(`${kind} JSON`, await call(`/reports/views/${kind}?${scope}&format=json`, { key }));
        await expectAnswered(`${kind} page`, await call(`/reports/views/${kind}?${scope}`, { key }));
        csv.push(...csvLinksOf(await expectAnswered(`${kind} page and its CSV links`, await call(`/reports/views/${kind}?${scope}`, { key, method: 'POST' }))));
      }
      for (const format of ['json', 'text', 'html']) {
        const page = await expectAnswered(`weekly ${format}`, await call(`/reports/weekly?${scope}&format=${format}`, { key }));
        if (format === 'html') csv.push(...csvLinksOf(page));
      }
      const minted = await call('/reports/links', { key, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ brand_id: 1, market: 'us', kind: 'rivals' }) });
      const link = new URL(((await minted.json()) as { link: { url: string } }).link.url).pathname;
      await expectAnswered('rivals share link', await call(link));
      const { cookie } = await signIn(key);
      for (const page of ['/account', `/account/report?${scope}`, `/account/history?${scope}`, ...VIEW_KINDS.map((kind) => `/account/views/${kind}?${scope}`)])
        await expectAnswered(`account ${page}`, await accountGet(page, cookie));
      expect(csv.length).toBeGreaterThan(0);
      for (const path of csv) await expectAnswered(`CSV ${path}`, await call(path));
    }),
    { seed: 20261202, numRuns: 3 },
  );
});

it('every MCP tool answers every prototype name without an internal error', async () => {
  await fc.assert(
    fc.asyncProperty(hostileWorld, async (world) => {
      nextMinute();
      installPrototypeNames(world);
      const client = new Client({ name: 'hostile-names', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`http://localhost${MCP_PATH}`), {
        fetch: (url, init) => SELF.fetch(new Request(url, init)),
        requestInit: { headers: { authorization: `Bearer ${freshKey('protomcp')}` } },
      });
      await client.connect(transport);
      try {
        let ok = 0;
        for (const name of [...operationList.map((op) => toolName(op.id)), 'weekly_report']) {
          const op = operationList.find((o) => toolName(o.id) === name);
          const args = op ? { ...op.example.path, ...op.example.query } : { brand_id: 1, market: 'us' };
          const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text?: string }[] };
          const said = result.isError ? (result.content[0]?.text ?? '') : 'ok';
          expect([name, said]).toEqual([name, expect.not.stringMatching(/^5\d\d (?!upstream_error)/)]);
          if (!result.isError) ok++;
        }
        // Most tools read the service's names (the rest are refused by the plan or name an example that is not there).
        expect(ok).toBeGreaterThan(operationList.length / 2);
      } finally {
        await client.close();
      }
    }),
    { seed: 20261203, numRuns: 2 },
  );
});
