import { describe, expect, it } from 'vitest';
import { zodSide } from '../contract/zod-side';
import type { FigureEvidence } from './figures';
import { proposeOperation } from './propose';
import { CONFIDENCE_THRESHOLD } from './report';

const zs = await zodSide();

/** The overview's standing against its top rivals, each rival's visibility under an abbreviation (`vis`). */
const rival = (name: string, vis: number, share: number) => ({ name, vis, share_of_voice: share, position: 1.8, citations: 120 });
const overview = {
  competition: {
    brand: { name: 'Brightdesk', visibility: 55.9, share_of_voice: 29.6, position: 1.7, citations: 518 },
    rivals: [rival('SupportHero', 27.1, 14.4), rival('Caseflow', 26.8, 14.2), rival('Helpwave', 26.7, 14.1)],
  },
};
/** `getCompetitor`'s share for one rival, as the overview's rivals' visibility (src/contract/same-figures.ts). */
const rivalShare = (name: string, share: number): FigureEvidence => ({
  path: 'competition.rivals[].visibility',
  key: 'competition.rivals[].name',
  expected: new Map([[name, share]]),
});
const visibilityOf = (figures: FigureEvidence[]) => {
  const { report } = proposeOperation(zs, 'getOverview', overview, CONFIDENCE_THRESHOLD, { figures });
  return { placed: report.fields['competition.rivals[].visibility'], asked: report.to_confirm.some((q) => q.path === 'competition.rivals[].visibility') };
};

describe('overturnByFigures', () => {
  it("keeps a guess the other answer's figures say nothing of: the rival it read is not among these top rivals", () => {
    expect(visibilityOf([])).toMatchObject({ placed: { from: 'vis' }, asked: false });
    expect(visibilityOf([rivalShare('Deskpilot', 26)])).toMatchObject({ placed: { from: 'vis' }, asked: false });
  });

  it('overturns a guess that gives a rival another figure than the other answer has for it', () => {
    expect(visibilityOf([rivalShare('SupportHero', 27.1)])).toMatchObject({ placed: { from: 'vis' }, asked: false });
    expect(visibilityOf([rivalShare('SupportHero', 14.4)])).toMatchObject({ placed: { from: 'share_of_voice' } });
    expect(visibilityOf([rivalShare('SupportHero', 61)])).toMatchObject({ placed: undefined, asked: true });
  });
});
