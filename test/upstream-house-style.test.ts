/**
 * Discovery uses the evidence in the data (issue 36 items 2 and 7), through
 * the Worker, in front of the house-style service (test/house-style.ts):
 * PascalCase in `{Status, Result, Meta}`, synonyms, 0-1 topic figures, the
 * market written flat, vendor engine ids and an engine that answered
 * nothing. Discovery alone (`apply`, no hand edit) gives the weekly report
 * our origin's figures, leaves nothing for a person, and the
 * check then finds every feature works.
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckAnswer } from '../src/app/upstream-check';
import type { DiscoveryReport } from '../src/discovery/report';
import { putUpstreamMap } from './helpers';
import { houseStyle } from './house-style';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { reportJson } from './reports-helpers';
import { ReshapingUpstream } from './reshape';

const admin = async (path: string, body: unknown) => {
  const response = await SELF.fetch(`https://edge.test/admin/upstream${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
};
const withoutTimes = (value: unknown) => JSON.parse(JSON.stringify(value, (name, v) => (name === 'generated_at' || name === 'read_at' ? undefined : v)));
type Read = Extract<DiscoveryReport['operations'][string], { to_confirm: unknown }>;
const readsOf = (report: DiscoveryReport) => Object.entries(report.operations).filter((entry): entry is [string, Read] => 'to_confirm' in entry[1]);

afterEach(async () => {
  restoreUpstream();
  await putUpstreamMap({ operations: {} });
});

describe('in front of the house-style service, discovery alone', () => {
  it("places what the data says, leaves nothing for a person, and the weekly report has our origin's figures", async () => {
    const ours = (await reportJson('/reports/weekly?market=us')).report;
    new ReshapingUpstream(houseStyle).install();
    const key = freshKey('house-style');
    const report = (await admin('/discover', { api_key: key, apply: true })) as DiscoveryReport;
    expect(report.applied?.version).toBeGreaterThan(0);
    const reads = Object.fromEntries(readsOf(report));
    expect(Object.keys(reads)).toHaveLength(23);

    // The score: the one candidate that is naming over answered (the market id beside it is not).
    expect(reads.getVisibility!.fields.score).toEqual({ from: 'VisibilityIndex', confidence: 0.9, by: 'evidence' });
    // The market written flat, in every operation.
    for (const [id, read] of Object.entries(reads))
      if (read.fields.market)
        expect([id, read.fields.market, read.fields['market.id']?.from, read.fields['market.code']?.from]).toEqual([id, { from: '.', confidence: 0.9, by: 'flat' }, 'MarketId', 'MarketCode']);
    expect(report.map.operations.getAnswerHistory!.fields).toMatchObject({ market: '.', 'market.id': 'MarketId', 'market.code': 'MarketCode' });
    // A renamed list with its children; the unit of a share's siblings.
    expect(reads.getVisibility!.fields.history).toMatchObject({ from: 'WeeklyTrend' });
    expect(report.map.operations.listTopics!.convert).toEqual({ 'topics[].score': 'percent', 'topics[].change': 'percent', 'topics[].rivals[].share': 'percent' });
    // Vendor engine ids are ours; the engine of its own is carried.
    expect(reads.getPromptMatrix!.values['engines[]']).toMatchObject({
      'openai-chatgpt': { to: 'chatgpt', by: 'vendor' },
      'anthropic-claude': { to: 'claude', by: 'vendor' },
      'perplexity-sonar': { to: 'perplexity', by: 'vendor' },
    });
    expect(reads.getPromptMatrix!.carried).toEqual({ 'engines[]': ['xai-grok'], 'prompts[].engines[].engine': ['xai-grok'] });

    // The one topic of getTopic cannot tell a 0-1 share from a small percentage alone: the topic list's figure for
    // the same topic does (src/contract/same-figures.ts), and its change beside it follows. Nothing is left for a person.
    expect(reads.getTopic!.fields['topic.score']).toMatchObject({ convert: 'percent', confidence: 0.9, by: 'evidence' });
    const left = readsOf(report).flatMap(([id, read]) => [...read.to_confirm.map((item) => `${id}: ${item.path}`), ...read.unplaced.map((path) => `${id}: ${path} (unplaced)`)]);
    expect(left).toEqual([]);
    expect(
      readsOf(report)
        .filter(([, read]) => !read.reads.ok)
        .map(([id]) => id),
    ).toEqual([]);

    const theirs = (await reportJson('/reports/weekly?market=us', key)).report;
    expect(withoutTimes(theirs)).toEqual(withoutTimes(ours));

    const check = (await admin('/check', { api_key: key, market: 'us' })) as CheckAnswer;
    expect(Object.fromEntries(check.features.map((f) => [f.feature, f.status]))).toEqual({
      digest: 'works',
      report_page: 'works',
      alerts: 'works',
      csv_exports: 'works',
      history: 'works',
      weekly_report: 'works',
    });
  });
});
