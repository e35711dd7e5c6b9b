/**
 * CSV export links through the Worker: every list-shaped operation of the
 * contract table exports to CSV with the columns its table entry and schema
 * give, and the CSV parses back to the API's own JSON; formula cells are
 * neutralised; a relative window stays relative; mint checks, listing,
 * revocation, expiry and bad tokens; and the minting key's budget is spent
 * once for repeated reads (the edge cache).
 */
import { env } from 'cloudflare:test';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { operationUrl } from '../src/client';
import { valuesAt } from '../src/contract/params-from';
import { API_BASE, examplePath, type OperationId, operationList, operations } from '../src/contract/operations';
import { cellText, csvColumns, spreadLists, toCsv } from '../src/exports/table';
import { TABLE_OPERATIONS } from '../src/exports/target';
import { mintExportLink } from '../src/links/export-links';
import { accountKey, gateOf, mintExport, pathOf, postExport, readCsv } from './exports-helpers';
import { call, clearReports, postForm } from './reports-helpers';
import { useServicesForTests } from './seams';
import { zodSide } from '../src/contract/zod-side';

/** The contract's zod side: the response schemas the bodies are checked with. */
const zs = await zodSide();

const DAY_MS = 86_400_000;

beforeEach(clearReports);
// No export link outlives this file: the cron of another file would keep their brands' history.
afterAll(clearReports);
afterEach(() => {
  useServicesForTests();
  vi.useRealTimers();
});

/** The example request's parameters as a flat object (path and query), as `params` takes them. */
function exampleParams(op: (typeof operationList)[number]): Record<string, string | number> {
  return { ...op.example.path, ...op.example.query };
}

/** What a cell of the CSV must say for a JSON value (the rules of docs/exports.md, written out again here). */
function expectedCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** The value at a column's path: dotted fields, and a list's items by number from 1 (`rivals.2.name`), as the export spreads them. */
const at = (value: unknown, path: string) =>
  path
    .split('.')
    .reduce<unknown>((v, name) => (Array.isArray(v) && /^\d+$/.test(name) ? v[Number(name) - 1] : v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[name] : undefined), value);

/** The records a CSV export of `body` has: the items at the table's `rows`, each spread over its `each` list. */
function rowsOf(op: (typeof TABLE_OPERATIONS)[number], body: Record<string, unknown>): Record<string, unknown>[] {
  const items = (at(body, op.csv.rows) ?? []) as Record<string, unknown>[];
  const each = op.csv.each;
  if (!each) return items;
  return items.flatMap((item) => ((item[each] as unknown[]).length ? (item[each] as unknown[]).map((child) => ({ ...item, [each]: child })) : [{ ...item, [each]: null }]));
}

/** The API's own answer to `params`, read with the key that mints the links. */
async function apiBody(op: (typeof TABLE_OPERATIONS)[number], params: Record<string, string | number>): Promise<Record<string, unknown>> {
  return (await (await call(operationUrl(API_BASE, op.id, params), { key: 'demo_pro_single' })).json()) as Record<string, unknown>;
}

/**
 * The parameters to export with: the example's, unless its answer has no rows in this day's demo data (whether a
 * rival wins a question this week depends on the day); then the first value of a path parameter the table reads
 * from another operation (`paramsFrom`) whose answer has rows. Without one, the example's: the test fails there.
 */
async function paramsWithRows(op: (typeof TABLE_OPERATIONS)[number]): Promise<Record<string, string | number>> {
  const example = exampleParams(op);
  if (rowsOf(op, await apiBody(op, example)).length > 0) return example;
  for (const [name, source] of Object.entries(op.paramsFrom ?? {})) {
    const from = (await (await call(`${API_BASE}${examplePath(operations[source.operation as OperationId])}`, { key: 'demo_pro_single' })).json()) as Record<string, unknown>;
    for (const value of new Set(valuesAt(from, source.path))) {
      const params = { ...example, [name]: value as string | number };
      if (rowsOf(op, await apiBody(op, params)).length > 0) return params;
    }
  }
  return example;
}

/** The scalar leaves of an object as dotted paths (arrays are leaves: one JSON cell). */
function leaves(value: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(value).flatMap(([name, v]) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? leaves(v as Record<string, unknown>, `${prefix}${name}.`) : [`${prefix}${name}`]));
}

describe('a list inside a row', () => {
  it('spreadLists: every value of any nesting in a cell of its own, under a name that leads to it (fast-check, seeded)', () => {
    const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
    const item = fc.oneof(leaf, fc.dictionary(fc.constantFrom('name', 'share', 'engine'), leaf, { maxKeys: 3 }));
    const row = fc.record({ id: fc.integer(), list: fc.array(item, { maxLength: 4 }), tags: fc.oneof(fc.constant(null), fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 })) });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 6 }), (rows) => {
        const { columns, rows: spread } = spreadLists(['id', 'list', 'tags'], rows);
        expect(new Set(columns).size).toBe(columns.length);
        spread.forEach((cells, i) => {
          for (const column of columns) {
            const cell = cells[column];
            expect(typeof cell === 'object' && cell !== null).toBe(false);
            const value = at(rows[i], column);
            // A list or object left under its own name holds no value at all (empty, or items without fields): an empty cell.
            expect(cell).toEqual(value === undefined || (typeof value === 'object' && value !== null) ? null : value);
          }
        });
        // Item by item: every column of item n before those of item n + 1.
        const numbers = columns.filter((c) => c.startsWith('list.')).map((c) => Number(c.split('.')[1]));
        expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
      }),
      { seed: 45, numRuns: 200 },
    );
  });

  it('is spread over numbered columns, one value per cell: the moves of a question, the rivals of a topic', async () => {
    const moves = await readCsv((await mintExport({ operation: 'getAnswerHistory', params: { market: 'us' } })).url);
    expect(moves.header).toEqual(expect.arrayContaining(['moved.1.engine', 'moved.1.before', 'moved.1.now', 'moved.1.direction', 'moved.1.top_rival', 'moved.2.engine']));
    expect(moves.header).not.toContain('moved');
    const history = (await apiBody(TABLE_OPERATIONS.find((op) => op.id === 'getAnswerHistory')!, { market: 'us' })) as { questions: { moved: { engine: string; top_rival: string | null }[] }[] };
    const widest = Math.max(...history.questions.map((q) => q.moved.length));
    expect(moves.header.filter((h) => h.endsWith('.engine'))).toHaveLength(widest);
    expect(moves.records[0]!['moved.1.engine']).toBe(history.questions[0]!.moved[0]!.engine);
    const rivals = await readCsv((await mintExport({ operation: 'listTopics', params: { market: 'us' } })).url);
    expect(rivals.header.indexOf('rivals.1.name')).toBeLessThan(rivals.header.indexOf('rivals.2.name'));
    expect(rivals.records.flatMap((r) => Object.values(r)).some((cell) => /^[[{]"/.test(cell))).toBe(false);
  });
});

describe('every list-shaped operation exports to CSV', () => {
  it('the table says which operations have rows: all of them but the single-item reads', () => {
    expect(TABLE_OPERATIONS.length).toBeGreaterThan(operationList.length / 2);
    for (const op of operationList.filter((o) => !o.csv)) expect(op.path).toMatch(/\{/);
  });

  it.each(TABLE_OPERATIONS.map((op) => [op.id, op] as const))('%s: header from the table, rows equal to the JSON', async (_, op) => {
    const params = await paramsWithRows(op);
    const link = await mintExport({ operation: op.id, params });
    expect(link.url).toMatch(/^http:\/\/localhost:8787\/x\/v1\.[\w-]+\.[\w-]+\.csv$/);
    const csv = await readCsv(link.url);
    expect(csv.status).toBe(200);
    expect(csv.type).toBe('text/csv; charset=utf-8');
    expect(csv.disposition).toMatch(new RegExp(`^inline; filename="${op.id}${op.scope === 'brand' ? '-us' : ''}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    expect(csv.text.endsWith('\r\n')).toBe(true);
    // Every record ends in CRLF: read with CRLF as the only record delimiter, the same records come back.
    expect(parse(csv.text, { columns: true, record_delimiter: ['\r\n'] })).toEqual(csv.records);
    // The table's columns in order, a list's spread over numbered ones (`rivals.1.name`): one value per cell, never JSON.
    const tableColumns = csvColumns(zs, op);
    const spreadOf = (column: string) => tableColumns.findLast((c) => column === c || column.startsWith(`${c}.`));
    expect(csv.header.map(spreadOf)).toEqual(tableColumns.flatMap((c) => csv.header.filter((h) => spreadOf(h) === c).map(() => c)));
    expect(new Set(csv.header.map(spreadOf))).toEqual(new Set(tableColumns));
    for (const column of csv.header.filter((h) => !tableColumns.includes(h))) expect(column).toMatch(/^[\w.]+\.\d+(\.[\w.]+)?$/);

    // The API's own answer, read with the same key (a cache hit: read above to choose the parameters).
    const expected = rowsOf(op, await apiBody(op, params));
    const each = op.csv.each;
    expect(csv.records).toHaveLength(expected.length);
    expect(expected.length).toBeGreaterThan(0);
    expected.forEach((item, i) => {
      for (const column of csv.header) {
        const found = at(item, column) ?? null;
        const value = Array.isArray(found) && found.length === 0 ? null : found;
        expect([i, column, typeof value === 'object' && value !== null ? 'a list or object in one cell' : csv.records[i]![column]]).toEqual([i, column, expectedCell(value)]);
      }
    });
    // No field of a row is left out: every scalar leaf of the first row is a column.
    const first = expected[0]!;
    for (const leaf of leaves(first as Record<string, unknown>)) if (!(each && leaf === each)) expect([leaf, csv.header.some((c) => c === leaf || c.startsWith(`${leaf}.`))]).toEqual([leaf, true]);

    // The JSON form: the same rows, values as the API gave them.
    const asJson = (await (await call(pathOf(link.json_url))).json()) as Record<string, unknown>[];
    expect(asJson).toHaveLength(expected.length);
    expect(Object.keys(asJson[0]!)).toEqual(csv.header);
  });
});

describe('cells', () => {
  it('neutralises text that a spreadsheet would run as a formula, and leaves numbers alone', () => {
    const cells = ['=HYPERLINK("http://evil.example","x")', '+1+1', '-2+3', '@SUM(A1)', '\tlead', '\rcr', 'plain', 'a "quoted", text\nwith a line'];
    for (const text of cells.slice(0, 6)) expect(cellText(text)).toBe(`'${text}`);
    expect(cellText('plain')).toBe('plain');
    expect(cellText(-3.2)).toBe('-3.2');
    expect(cellText(0)).toBe('0');
    expect(cellText(null)).toBe('');
    expect(cellText(false)).toBe('false');
    expect(cellText(['a', 'b'])).toBe('["a","b"]');
    const csv = toCsv(
      ['text', 'n'],
      cells.map((text, i) => ({ text, n: -i })),
    );
    const back = parse(csv, { columns: true }) as { text: string; n: string }[];
    expect(back.map((r) => r.text)).toEqual(cells.map((c, i) => (i < 6 ? `'${c}` : c)));
    expect(back.map((r) => r.n)).toEqual(cells.map((_, i) => String(-i)));
    expect(csv.startsWith('text,n\r\n')).toBe(true);
  });
});

describe('the CSV writer (RFC 4180)', () => {
  it('reads back every field exactly with a real CSV parser, whatever it holds (fast-check, seeded)', () => {
    // Quotes, commas, CR, LF and CRLF inside a field, empty fields, leading and trailing spaces, any Unicode.
    const text = fc.oneof(fc.string({ unit: fc.constantFrom('"', ',', '\r', '\n', ' ', 'a', 'é', '🙂', ';', "'") }), fc.string({ unit: 'grapheme' }));
    fc.assert(
      fc.property(fc.array(fc.array(text, { minLength: 2, maxLength: 2 }), { maxLength: 8 }), (cells) => {
        const rows = cells.map(([a, b]) => ({ a: `x${a}`, b: `y${b}` }));
        const csv = toCsv(['a', 'b'], rows);
        expect(csv.endsWith('\r\n')).toBe(true);
        expect(parse(csv, { columns: true })).toEqual(rows);
      }),
      { seed: 4180, numRuns: 300 },
    );
  });
});

describe('relative windows stay relative', () => {
  it('a link for days=7 read on two days gives two windows, each ending on its day', async () => {
    const today = new Date();
    const dayOne = new Date(today.getTime() - 3 * DAY_MS);
    const dayTwo = new Date(today.getTime() - 1 * DAY_MS);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(dayOne);
    const link = await mintExport({ operation: 'getOverview', params: { days: 7 } });
    expect(link.params).toEqual({ days: '7' });
    const windowOn = async (day: Date) => {
      vi.setSystemTime(day);
      const rows = (await (await call(pathOf(link.json_url))).json()) as { day: string }[];
      return rows.map((r) => r.day);
    };
    const first = await windowOn(dayOne);
    const second = await windowOn(dayTwo);
    const iso = (d: Date) => d.toISOString().slice(0, 10);
    expect(first).toHaveLength(7);
    expect(second).toHaveLength(7);
    expect(first.at(-1)).toBe(iso(dayOne));
    expect(second.at(-1)).toBe(iso(dayTwo));
    expect(second[0]).toBe(iso(new Date(dayTwo.getTime() - 6 * DAY_MS)));
  });
});

describe('POST /exports/links', () => {
  it.each([
    ['an unknown operation', { operation: 'getEverything' }, 'operation'],
    ['an operation without rows', { operation: 'getTask', params: { id: 1 } }, 'operation'],
    ['no operation', { params: {} }, 'operation'],
    ['an unknown parameter', { operation: 'listTopics', params: { colour: 'red' } }, 'params.colour'],
    ['a window out of range', { operation: 'listTopics', params: { days: 0 } }, 'params.days'],
    ['dates on a fixed window', { operation: 'getVisibility', params: { days: 7 } }, 'params.days'],
    ['a missing path parameter', { operation: 'getTopic', params: {} }, 'params.id'],
    ['params not an object', { operation: 'listTopics', params: [1] }, 'params'],
    ['expires_in_days 91', { operation: 'listTopics', expires_in_days: 91 }, 'expires_in_days'],
    ['an unknown field', { operation: 'listTopics', url: 'x' }, 'url'],
  ])('%s: 400 naming the field, no link', async (_, body, param) => {
    const response = await postExport(body);
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; param: string } };
    expect([error.code, error.param]).toEqual(['invalid_parameter', param]);
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM report_links').first('n')).toBe(0);
  });

  it("passes the API's own refusal: a plan without the operation, another account's brand", async () => {
    expect((await postExport({ operation: 'listTasks' }, 'demo_starter')).status).toBe(403);
    expect((await postExport({ operation: 'listTopics', params: { brand_id: 2 } })).status).toBe(404);
    expect((await postExport({ operation: 'listTopics' }, null)).status).toBe(401);
  });

  it('defaults to 30 days, lists the live links with their URLs, and only the minting key revokes', async () => {
    const link = await mintExport({ operation: 'listTopics', params: { days: 28 } });
    expect(Math.round((Date.parse(link.expires_at) - Date.now()) / DAY_MS)).toBe(30);
    const listed = (await (await call('/exports/links', { key: 'demo_pro_single' })).json()) as { links: { id: string; url: string }[]; max_live: number };
    expect(listed.links.map((l) => [l.id, l.url])).toEqual([[link.id, link.url]]);
    expect(listed.max_live).toBe(100);
    expect((await call(`/exports/links/${link.id}`, { key: 'demo_growth_multi', method: 'DELETE' })).status).toBe(404);
    expect((await readCsv(link.url)).status).toBe(200);
  });
});

describe('reading a link', () => {
  it('revoked: 410 in plain text; expired: 410; changed: 403; cut: 400; no extension: 404', async () => {
    const link = await mintExport({ operation: 'listSources', expires_in_days: 1 });
    const token = pathOf(link.url).slice(3, -4);
    const changed = `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.at(-1)}`;
    const forged = await call(`/x/${changed}.csv`);
    expect([forged.status, forged.headers.get('content-type')]).toEqual([403, 'text/plain; charset=utf-8']);
    expect((await call(`/x/${token.slice(0, 20)}.csv`)).status).toBe(400);
    expect((await call(`/x/${token}.xlsx`)).status).toBe(404);

    useServicesForTests({ now: () => new Date(Date.now() + 2 * DAY_MS) });
    const expired = await call(pathOf(link.url));
    expect([expired.status, await expired.text()]).toEqual([410, expect.stringContaining('expired')]);
    useServicesForTests();

    expect((await call(`/exports/links/${link.id}`, { key: 'demo_pro_single', method: 'DELETE' })).status).toBe(204);
    const revoked = await call(pathOf(link.url));
    expect([revoked.status, revoked.headers.get('content-type'), await revoked.text()]).toEqual([410, 'text/plain; charset=utf-8', expect.stringContaining('revoked')]);
  });

  it('a revoked API key behind the link: 403 in plain text', async () => {
    const deps = { db: env.DB, encryptionKey: env.ENCRYPTION_KEY, signingSecret: env.SIGNING_SECRET, publicUrl: 'https://edge.test', now: () => new Date() };
    const minted = await mintExportLink(deps, 'demo_revoked', { kind: 'listTopics', params: {}, brandId: 1, market: { id: 11, code: 'us' } }, 5);
    if (!minted.ok) throw new Error('cap');
    const response = await call(pathOf(minted.link.url));
    expect([response.status, response.headers.get('content-type')]).toEqual([403, 'text/plain; charset=utf-8']);
    expect(await response.text()).toMatch(/can no longer read/);
  });

  it("spends the minting key's budget once for repeated reads: the edge cache answers the rest", async () => {
    const key = await accountKey('budget');
    const link = await mintExport({ operation: 'getContentGaps' }, key);
    const gate = await gateOf(key);
    const before = await gate.remaining();
    for (let i = 0; i < 3; i++) expect((await readCsv(link.url)).status).toBe(200);
    // The mint made the read first; the three reads of the link were cache hits.
    expect(before - (await gate.remaining())).toBe(0);
    const fresh = await accountKey('budget-fresh');
    const deps = { db: env.DB, encryptionKey: env.ENCRYPTION_KEY, signingSecret: env.SIGNING_SECRET, publicUrl: 'https://edge.test', now: () => new Date() };
    const stored = await mintExportLink(deps, fresh, { kind: 'listSources', params: { limit: '7' }, brandId: 1, market: { id: 11, code: 'us' } }, 5);
    if (!stored.ok) throw new Error('cap');
    const freshGate = await gateOf(fresh);
    const start = await freshGate.remaining();
    for (let i = 0; i < 3; i++) expect((await readCsv(stored.link.url)).status).toBe(200);
    expect(start - (await freshGate.remaining())).toBe(1);
  });
});

describe('"Copy CSV link" on the report page', () => {
  it('a signed report link gets CSV links of its tables, minted once, read with its key, none outliving the report link', async () => {
    const { mintLink } = await import('./reports-helpers');
    const report = await mintLink({ expires_in_days: 2 });
    // Opening the link makes none; the page's form does.
    expect(await (await call(report.path)).text()).not.toContain('class="copy-csv"');
    const html = async () => (await postForm(`${report.path}/csv`)).text();
    const urls = (page: string) => [...page.matchAll(/class="copy-csv" data-url="([^"]+)"/g)].map((m) => m[1]!);
    const first = urls(await html());
    expect(first.length).toBeGreaterThanOrEqual(4);
    // A second ask hands out the same links: no new row per ask.
    expect(urls(await html())).toEqual(first);
    const rows = await env.DB.prepare("SELECT kind, expires_at FROM report_links WHERE purpose = 'export' ORDER BY kind").all<{ kind: string; expires_at: string }>();
    expect(rows.results.map((r) => r.kind)).toEqual(['getAnswerHistory', 'getOverview', 'getPromptMatrix', 'getVisibility', 'history', 'plan']);
    for (const row of rows.results) expect(Date.parse(row.expires_at)).toBeLessThanOrEqual(Date.parse(report.expires_at));
    // Each reads without a key, as the page's tables do.
    for (const url of first) expect((await readCsv(url)).status).toBe(200);
  });
});
