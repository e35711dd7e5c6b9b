/**
 * Whatever the map, no route of the report answers 500 (issue 43, item 3): a
 * seeded fast-check generator draws upstream maps for the operations the
 * report reads (fields that point anywhere the house style has a name, or
 * nowhere; conversions; enumeration values; envelopes), stores each through
 * `PUT /admin/upstream/map` in front of the house-style service
 * (test/house-style.ts), and reads the report page, its JSON and text forms,
 * send-now and MCP `weekly_report`: each answers the report or a clear error
 * in the API's shape (a page for a browser), never a 500.
 *
 * Each drawn operation keeps the right map or (1 in 10) starts empty, then
 * gets up to two sibling fields read from each other's places (`period` from
 * `previous_period`, a move's `before` from its `now`), up to two fields
 * pointed at any name the house style uses there, a random token or the
 * parent itself, a conversion, enumeration values, and now and then an
 * envelope. Fixed seed (4343), 60 maps.
 *
 * Left out: the service's bodies stay the house style's (only the map is
 * drawn); operations the report does not read; maps the PUT refuses (none
 * with these draws); `fields` names deeper than one dot; the digest and alert
 * runs of the cron, the account's pages and signed `/r/` links (they read
 * through the same `readWeek`, but are not requested here).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SELF } from 'cloudflare:test';
import fc from 'fast-check';
import { afterEach, expect, it, vi } from 'vitest';
import { CONVERSIONS, contractPaths } from '../src/contract/upstream-map';
import type { OperationId } from '../src/contract/operations';
import { zodSide } from '../src/contract/zod-side';
import { MCP_PATH } from '../src/mcp';
import { putUpstreamMap } from './helpers';
import { houseMap, houseStyle } from './house-style';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { call } from './reports-helpers';
import { CASES, ReshapingUpstream } from './reshape';

const zs = await zodSide();

/** What the report, its page and weekly_report read. */
const READ: OperationId[] = ['getVisibility', 'getAnswerHistory', 'getPromptMatrix', 'listTopics', 'listBrands', 'getOverview', 'listMarkets'];
const pathsOf = (id: OperationId) => [...contractPaths(zs, id)];
/** Upstream names a map might give: the house style's own names for any field of the operation (a field read from another's place), the envelope's, or none the service has. */
const namesOf = (id: OperationId) => [...new Set(pathsOf(id).map((p) => CASES.pascal(p.split('.').at(-1)!.replace('[]', ''))))];

const HOUSE = houseMap().operations;
const leaf = (path: string) => path.split('.').at(-1)!.replace('[]', '');
const parentOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('.')));
/** The house style's name of a contract field, relative to its parent: the right map's, or its own name in PascalCase. */
const houseName = (id: OperationId, path: string) => HOUSE[id]?.fields[path] ?? CASES.pascal(leaf(path));
/** Pairs of fields side by side (`period` and `previous_period`, a move's `before` and `now`, `rate` and `runs`): one read from the other's place. */
const siblings = (id: OperationId) =>
  pathsOf(id).flatMap((a) =>
    pathsOf(id)
      .filter((b) => b !== a && parentOf(b) === parentOf(a))
      .map((b) => [a, b] as const),
  );

type Entry = { swaps: (readonly [string, string])[]; envelope?: string; fields: Record<string, string>; convert: Record<string, string>; values: Record<string, Record<string, string>> };

const entryOf = (id: OperationId): fc.Arbitrary<Entry> => {
  const paths = pathsOf(id);
  const upstream = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...namesOf(id)) }, fc.constantFrom('.', 'Meta.Version'), fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,7}$/));
  const values = fc.dictionary(
    fc.constantFrom('recommended', 'won', 'lost', 'openai-chatgpt', 'Gained', 'xai-grok', 'OPENAI'),
    fc.constantFrom('absent', 'held', 'won', 'chatgpt', 'grok', 'recommended'),
    { maxKeys: 2 },
  );
  const rarely = <T>(arb: fc.Arbitrary<T>, none: T) => fc.oneof({ weight: 3, arbitrary: fc.constant(none) }, arb);
  return fc
    .record(
      {
        swaps: fc.array(fc.constantFrom(...siblings(id)), { maxLength: 2 }),
        envelope: fc.constantFrom('Result', 'Meta', 'Status', 'Result.Topics', 'Nowhere'),
        fields: rarely(fc.dictionary(fc.constantFrom(...paths), upstream, { maxKeys: 2 }), {}),
        convert: rarely(fc.dictionary(fc.constantFrom(...paths), fc.constantFrom(...(Object.keys(CONVERSIONS) as (keyof typeof CONVERSIONS)[])), { maxKeys: 1 }), {}),
        values: rarely(fc.dictionary(fc.constantFrom(...paths), values, { maxKeys: 1 }), {}),
      },
      { requiredKeys: ['swaps', 'fields', 'convert', 'values'] },
    )
    .chain((entry) => fc.boolean().map((withEnvelope) => (withEnvelope && entry.envelope ? entry : { ...entry, envelope: undefined })));
};

/** A map: the right house map, with drawn entries laid over it for some of the operations the report reads (and, now and then, in place of it). */
const maps = fc.record(Object.fromEntries(READ.map((id) => [id, fc.option(fc.tuple(fc.nat(9), entryOf(id)), { freq: 2, nil: undefined })]))).map((drawn) => {
  const operations = houseMap().operations;
  for (const [id, entry] of Object.entries(drawn) as [OperationId, [number, Entry] | undefined][]) {
    if (!entry) continue;
    const [roll, { swaps, envelope, fields, convert, values }] = entry;
    const base = roll > 0 ? operations[id]! : { fields: {}, convert: {}, values: {} };
    const swapped = Object.fromEntries(swaps.map(([a, b]) => [a, houseName(id, b)]));
    operations[id] = {
      ...(envelope ? { envelope } : {}),
      fields: { ...base.fields, ...swapped, ...fields },
      convert: { ...base.convert, ...convert },
      values: { ...base.values, ...values },
    } as (typeof operations)[string];
  }
  return { operations };
});

afterEach(async () => {
  restoreUpstream();
  vi.restoreAllMocks();
  await putUpstreamMap({ operations: {} });
});

it('no drawn map makes the report, its JSON and text forms, send-now or weekly_report answer 500', { timeout: 240_000 }, async () => {
  new ReshapingUpstream(houseStyle).install();
  // One key: its bodies are cached as the service sent them, and every map is read over the same ones.
  const key = freshKey('map-fuzz');
  const client = new Client({ name: 'map-fuzz', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://localhost${MCP_PATH}`), {
      fetch: (url, init) => SELF.fetch(new Request(url, init)),
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  // The routes log what failed; a run's logs are its own business here.
  vi.spyOn(console, 'error').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  const seen = { stored: 0, refused: 0, statuses: new Map<number, number>() };
  await fc.assert(
    fc.asyncProperty(maps, async (map) => {
      const put = await putUpstreamMap(map);
      if (put.status === 400) return void seen.refused++;
      expect(put.status, await put.text()).toBe(200);
      seen.stored++;
      const answers = [
        await call('/reports/weekly?market=us', { key, headers: { accept: 'text/html' } }),
        await call('/reports/weekly?market=us&format=json', { key }),
        await call('/reports/weekly?market=us&format=text', { key }),
        await call('/reports/weekly/send?market=us', { key, method: 'POST' }),
      ];
      for (const [i, response] of answers.entries()) {
        const body = await response.text();
        seen.statuses.set(response.status, (seen.statuses.get(response.status) ?? 0) + 1);
        expect(response.status, `${['page', 'json', 'text', 'send-now'][i]}: ${body.slice(0, 300)}\nmap: ${JSON.stringify(map)}`).not.toBe(500);
        if (response.status >= 400) {
          // A clear error: a page for the browser, the API's error shape otherwise, with words.
          if (i === 0 && response.headers.get('content-type')?.startsWith('text/html')) expect(body).toContain('<h1>');
          else expect((JSON.parse(body) as { error: { code: string; message: string } }).error.message.length).toBeGreaterThan(20);
        }
      }
      const tool = (await client.callTool({ name: 'weekly_report', arguments: { market: 'us' } })) as { isError?: boolean; structuredContent: { error?: { code: string } } };
      expect(tool.structuredContent.error?.code, JSON.stringify(map)).not.toBe('internal_error');
    }),
    { seed: 4343, numRuns: 60, endOnFailure: true },
  );
  await client.close();
  // The generator reached both kinds of answer: maps the report reads, and maps it refuses with an error.
  expect(seen.stored).toBeGreaterThan(40);
  expect(seen.statuses.get(200) ?? 0).toBeGreaterThan(0);
  expect([...seen.statuses.keys()].some((status) => status >= 400)).toBe(true);
});
