import { describe, expect, it } from 'vitest';
import { zodSide } from '../contract/zod-side';
import { proposeOperation } from './propose';
import { CONFIDENCE_THRESHOLD } from './report';

const zs = await zodSide();

const instead = (url: string, domain: string, cls: string, n: number) => ({ qa: url, qb: domain, qc: cls, qd: n });
/** `listPages`' uncited pages under names that say nothing, each page's topic written flat beside its url (`t_id`, `t_name`). */
const uncited = [
  {
    ua: 'https://www.brightdesk.com/guides/what-is-the-most-popular-help-desk-software',
    ub: 'What is the most popular help desk software?',
    t_id: 1101,
    t_name: 'Best help desk software overall',
    uc: [instead('https://www.forbes.com/advisor/help-desk/', 'forbes.com', 'earned', 39), instead('https://www.g2.com/categories/help-desk', 'g2.com', 'earned', 25)],
  },
  {
    ua: 'https://www.brightdesk.com/guides/help-desk-for-a-team-of-five',
    ub: 'What help desk software can a team of five set up in a day?',
    t_id: 1102,
    t_name: 'Small teams and startups',
    uc: [instead('https://www.helpwave.io/small-teams', 'helpwave.io', 'competitor', 33), instead('https://en.wikipedia.org/wiki/help-desk', 'en.wikipedia.org', 'earned', 34)],
  },
];

describe('byShape', () => {
  it("places a list whose items write an object flat (an uncited page's topic as its id and name beside its url)", () => {
    const { report } = proposeOperation(zs, 'listPages', { zz: uncited }, CONFIDENCE_THRESHOLD);
    expect(report.fields.uncited).toMatchObject({ from: 'zz' });
    expect(report.unplaced).not.toContain('uncited');
  });
});
