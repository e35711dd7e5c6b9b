import { describe, expect, it } from 'vitest';
import { zodSide } from '../contract/zod-side';
import { proposeOperation } from './propose';
import { CONFIDENCE_THRESHOLD } from './report';

const zs = await zodSide();

const source = (domain: string, citations: number, classification: string, rival: string | null) => ({ domain, citations, share: citations, classification, rival });
/** `listSources` whose counts beside the list have names that say nothing: the total, the domains and each class's. */
const sources = {
  brand_id: 1,
  market: { id: 11, code: 'us' },
  generated_at: '2026-12-04T12:00:00.000Z',
  period: { from: '2026-11-28', to: '2026-12-04' },
  qa: 100,
  qb: 4,
  qc: { ka: 50, kb: 30, kc: 20 },
  sources: [source('brightdesk.com', 50, 'own', null), source('ticketly.com', 30, 'competitor', 'Ticketly'), source('g2.com', 15, 'third_party', null), source('reddit.com', 5, 'third_party', null)],
};

describe('settleGroups', () => {
  it("settles questions of two objects one rule reads together (a total and its classes' counts), none of them alone", () => {
    const { report } = proposeOperation(zs, 'listSources', sources, CONFIDENCE_THRESHOLD);
    expect(report.to_confirm.map((item) => item.path)).toEqual([]);
    expect(report.fields).toMatchObject({
      total_citations: { from: 'qa' },
      domains_cited: { from: 'qb' },
      'by_class.own': { from: 'ka' },
      'by_class.competitor': { from: 'kb' },
      'by_class.third_party': { from: 'kc' },
    });
  });
});
