import { describe, expect, it } from 'vitest';
import { type AnyOperation, OPERATION_IDS, type OperationId, operations } from '../contract/operations';
import { contractPaths } from '../contract/upstream-map';
import { zodSide } from '../contract/zod-side';
import { holds, limitPrediction, marketPrediction, previousWindowPrediction, provenKey, windowPrediction } from './probes';

const zs = await zodSide();

describe('probes', () => {
  it('ask a window whose days are over 12 and whose length no default has, ending before today', () => {
    for (const today of ['2026-12-04', '2026-03-11', '2026-02-27', '2026-01-01']) {
      const dated = windowPrediction({ kind: 'dated', defaultDays: 7 }, today)!;
      const { from, to } = dated.params as { from: string; to: string };
      expect(to < today).toBe(true);
      for (const day of [from, to, dated.expect[3]!.path === 'previous_period.to' ? (dated.expect[3] as { value: string }).value : '']) expect(Number(day.slice(8, 10))).toBeGreaterThan(12);
      expect(dated.expect.map((e) => e.path)).toEqual(['period.from', 'period.to', 'previous_period.from', 'previous_period.to']);
    }
    const trailing = windowPrediction({ kind: 'trailing', defaultDays: 28 }, '2026-12-04')!;
    expect(trailing.params).toEqual({ days: 35 });
    expect(trailing.expect).toEqual([{ path: 'period.from', value: '2026-10-31' }]);
    expect(windowPrediction({ kind: 'fixed', days: 7 }, '2026-12-04')).toBeUndefined();
  });

  it("ask the first read's window before, where its figures of that window are the probe's of its own", () => {
    const windowBefore = (id: OperationId, asked = {}) => previousWindowPrediction((operations[id] as unknown as AnyOperation).window, asked, '2026-12-04', contractPaths(zs, id));
    expect(windowBefore('getAiCrawlers')).toMatchObject({ params: { from: '2026-11-21', to: '2026-11-27' }, expect: [{ path: 'previous_hits', sameAs: 'total_hits' }] });
    expect(windowBefore('getAiVisitors')?.expect).toEqual([{ path: 'previous_visits', sameAs: 'total_visits' }]);
    expect(windowBefore('getOverview')?.expect).toEqual([{ path: 'ai_traffic.previous_visits', sameAs: 'ai_traffic.visits' }]);
    expect(windowBefore('listPages', { from: '2026-11-01', to: '2026-11-10' })).toMatchObject({
      params: { from: '2026-10-22', to: '2026-10-31' },
      expect: [{ path: 'totals.previous_citations', sameAs: 'totals.citations' }],
    });
    // No figure of the window before, or no dates to ask: no probe.
    expect(windowBefore('listTopics')).toBeUndefined();
    expect(windowBefore('getVisibility')).toBeUndefined();
  });

  it('read a predicted day in any form the map converts, and nothing else', () => {
    const day = { path: 'period.from', value: '2026-11-17' };
    for (const raw of ['17/11/2026', '11-17-2026', '2026.11.17', '2026-11-17T00:00:00Z', Date.parse('2026-11-17T00:00:00Z') / 1000]) expect([raw, holds(day, undefined, raw)]).toEqual([raw, true]);
    for (const raw of ['16/11/2026', 17, '2026-11-18']) expect([raw, holds(day, undefined, raw)]).toEqual([raw, false]);
    expect(holds({ path: 'sources', length: 1 }, [{}], undefined)).toBe(true);
    expect(holds({ path: 'sources', length: 1 }, [{}, {}], undefined)).toBe(false);
  });

  it('prove the one key that holds the prediction after the probe and did not before; none where two or none do', () => {
    const expected = { path: 'market.code', value: 'de' };
    const read = (values: Record<string, unknown>) => (key: string) => ({ value: values[key], raw: values[key] });
    expect(provenKey(expected, ['a', 'b'], read({ a: 'us', b: 'us' }), read({ a: 'de', b: 'us' }))).toBe('a');
    expect(provenKey(expected, ['a', 'b'], read({ a: 'us', b: 'us' }), read({ a: 'de', b: 'de' }))).toBeUndefined();
    // A key that already held it proves nothing.
    expect(provenKey(expected, ['a', 'b'], read({ a: 'de', b: 'us' }), read({ a: 'de', b: 'us' }))).toBeUndefined();
  });

  it('ask another market by its code, and cut each limited list of the table to one', () => {
    const markets = [
      { id: 11, code: 'us' },
      { id: 12, code: 'de' },
    ];
    expect(marketPrediction(markets, { market: { id: 11, code: 'us' } })?.params).toEqual({ market: 'de' });
    expect(marketPrediction(markets.slice(0, 1), { market: { id: 11, code: 'us' } })).toBeUndefined();
    expect(limitPrediction('listSources', { sources: [{}, {}] })).toMatchObject({ params: { limit: 1 }, expect: [{ path: 'sources', length: 1 }] });
    expect(limitPrediction('listSources', { sources: [{}] })).toBeUndefined();
    // Every list a `limit` cuts is a list of its answer.
    const limited = OPERATION_IDS.flatMap((id) => {
      const rule = (operations[id] as unknown as AnyOperation).params.query.limit?.rule;
      return rule?.kind === 'int' ? [[id, rule.list] as const] : [];
    });
    expect(limited.length).toBeGreaterThan(3);
    for (const [id, list] of limited) expect([id, list, contractPaths(zs, id).has(`${list}[]`) || contractPaths(zs, id).has(list!)]).toEqual([id, list, true]);
  });
});
