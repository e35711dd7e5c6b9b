import { describe, expect, it } from 'vitest';
import { fieldKey } from '../contract/conform';
import { zodSide } from '../contract/zod-side';
import { proposeOperation } from './propose';
import { CONFIDENCE_THRESHOLD, type DiscoveryReport } from './report';
import { extrasOf } from './vocabulary';

const zs = await zodSide();
type Entry = DiscoveryReport['operations'][string];

/** An answer read with each contract field placed as given, and questions and unused keys as given. */
const read = (fields: Record<string, string>, unused: string[], to_confirm: { path: string }[] = []): Entry => ({
  status: 200,
  params: {},
  cache: null,
  envelope: null,
  fields: Object.fromEntries(Object.entries(fields).map(([path, from]) => [path, { from, confidence: 0.9, by: 'name' as const }])),
  values: {},
  to_confirm: to_confirm.map((q) => ({ ...q, reason: '', candidates: [] })),
  unplaced: [],
  unseen: [],
  unused,
  carried: {},
  reads: { ok: true },
});

describe('extrasOf', () => {
  it('takes a key left unused in two objects placed whole, and placed nowhere, for an extra of the service', () => {
    const entries = [read({ 'market.code': 'code' }, ['market.trace_id', 'trace_id']), read({ period: 'window' }, ['period.trace_id', 'sort_key'])];
    expect([...extrasOf(entries)]).toEqual([fieldKey('trace_id')]);
  });

  it('takes none from an object with a question under it, a keyed list repeating its key, or a key placed elsewhere', () => {
    const asked = [read({}, ['market.trace_id'], [{ path: 'market.code' }]), read({}, ['market.trace_id'], [{ path: 'market' }])];
    expect([...extrasOf(asked)]).toEqual([]);
    const keyed = [read({ 'bots[].bot': '(its key)' }, ['bots[].robot']), read({ 'pages[].bots[].bot': '(its key)' }, ['pages[].bots[].robot'])];
    expect([...extrasOf(keyed)]).toEqual([]);
    const placed = [read({}, ['a.region', 'b.region']), read({ 'market.code': 'region' }, [])];
    expect([...extrasOf(placed)]).toEqual([]);
  });
});

describe('settleBesideExtras', () => {
  // The plan's quota beside an extra of the service's, both whole numbers no name relates to `monthly_quota`.
  const body = { brands: [], plan: { id: 'pro', monatlichKontingent: 20000, trace_id: 734, includes_pro_operations: true }, generated_at: '2026-12-06T12:00:00Z' };
  const quota = (extras: string[]) => {
    const { report, map } = proposeOperation(zs, 'listBrands', body, CONFIDENCE_THRESHOLD, { extras: new Set(extras.map(fieldKey)) });
    return { placed: report.fields['plan.monthly_quota'], stored: map.fields['plan.monthly_quota'], asked: report.to_confirm.some((q) => q.path === 'plan.monthly_quota') };
  };

  it('asks which key is the quota while nothing says one is an extra', () => {
    expect(quota([])).toMatchObject({ stored: undefined, asked: true });
  });

  it("takes the one key left once the other is the service's extra", () => {
    expect(quota(['trace_id'])).toMatchObject({ placed: { from: 'monatlichKontingent', by: 'elimination' }, stored: 'monatlichKontingent', asked: false });
    // An extra among neither candidate changes nothing.
    expect(quota(['sort_key'])).toMatchObject({ stored: undefined, asked: true });
  });
});
