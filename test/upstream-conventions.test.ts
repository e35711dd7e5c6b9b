/**
 * The features in front of another implementation of the spec that spells
 * its fields in another case convention, or wraps its bodies in an envelope,
 * with no configuration: the report (page and JSON) reads the same figures
 * as from our own origin for the same data, and /api/v1 still passes the
 * bodies through as sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { operationList } from '../src/contract/operations';
import { mintExport, readCsv } from './exports-helpers';
import { restoreUpstream } from './proxy-upstream';
import { call, reportJson, visibleText } from './reports-helpers';
import { CASES, type CaseName, envelope, renameFields, ReshapingUpstream } from './reshape';
import { freshKey } from './proxy-upstream';

afterEach(() => restoreUpstream());

const withoutTimes = (report: unknown) => JSON.parse(JSON.stringify(report, (name, value) => (name === 'generated_at' ? undefined : value)));

const SHAPES: Record<string, (body: Record<string, unknown>, url: URL) => unknown> = {
  ...Object.fromEntries((Object.keys(CASES) as CaseName[]).map((name) => [name, (body: Record<string, unknown>) => renameFields(body, CASES[name])])),
  'camel in an envelope': (body, url) => envelope(renameFields(body, CASES.camel) as Record<string, unknown>, url.pathname),
};

describe.each(Object.entries(SHAPES))('an upstream answering %s', (_, reshape) => {
  it('gives the weekly report of our own origin, figure for figure, on the page and as JSON', async () => {
    const ours = await reportJson('/reports/weekly?market=us');
    new ReshapingUpstream(reshape).install();
    const key = freshKey('conventions');
    const theirs = await reportJson('/reports/weekly?market=us', key);
    // Everything but when the origin computed each body.
    expect(withoutTimes(theirs.report)).toEqual(withoutTimes(ours.report));
    const page = await call('/reports/weekly?market=us', { key });
    expect(page.status).toBe(200);
    expect(visibleText(await page.text())).toContain('Brightdesk in AI answers');
  });

  it('is passed through /api/v1 as it sent it', async () => {
    const upstream = new ReshapingUpstream(reshape).install();
    const key = freshKey('conventions-api');
    const response = await call('/api/v1/visibility', { key });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).not.toHaveProperty('brand_id');
    expect(upstream.requests).toHaveLength(1);
  });
});

describe('CSV export links in front of a camelCase upstream', () => {
  it.each(operationList.filter((op) => op.csv).map((op) => [op.id, op] as const))('%s: the same rows as from our origin', async (_, op) => {
    const params = { ...op.example.path, ...op.example.query };
    const ours = await readCsv((await mintExport({ operation: op.id, params })).url);
    new ReshapingUpstream((body) => renameFields(body, CASES.camel)).install();
    const theirs = await readCsv((await mintExport({ operation: op.id, params }, freshKey('conventions-csv'))).url);
    expect(theirs.status).toBe(200);
    expect(theirs.text).toBe(ours.text);
  });
});
