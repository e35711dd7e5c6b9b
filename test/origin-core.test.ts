/**
 * Every operation's example request (the contract table's) on the demo data,
 * then the run-derived operations in detail, through the Worker: 200 bodies
 * valid against the contract.
 */
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../src/contract/enums';
import { operationList } from '../src/contract/operations';
import { lastDays, toDay } from '../src/contract/window';
import { handleOrigin } from '../src/origin/handler';
import { api, DEMO, json, KEYS, rateLimitOf, validPath } from './helpers';
import { zodSide } from '../src/contract/zod-side';

/** The contract's zod side: the response schemas the bodies are checked with. */
const zs = await zodSide();

const today = () => toDay(new Date());
describe.each(operationList)('$id: its example request on the demo data', (op) => {
  it('answers 200 with a body valid against its response schema, naming the brand, market and period read', async () => {
    const response = await api(validPath(op.id));
    const body = await json<unknown>(response);
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(rateLimitOf(response)!.r).toBeLessThan(60);
    const parsed = zs.response(op.id).parse(body) as { generated_at: string; brand_id?: number; market?: unknown; period?: unknown };
    expect(Date.parse(parsed.generated_at)).toBeGreaterThan(Date.now() - 60_000);
    if (op.scope !== 'account') expect(parsed.brand_id).toBe(DEMO.proBrand);
    if (op.scope === 'brand') expect(parsed.market).toEqual({ id: DEMO.proUsMarket, code: 'us' });
    if (op.window.kind !== 'none') expect(parsed.period).toEqual(lastDays(today(), op.window.kind === 'fixed' ? op.window.days : op.window.defaultDays));
  });
});

describe('brands and markets', () => {
  it('lists every brand of the account, brand A first, each with us (primary) and de', async () => {
    const body = zs.response('listBrands').parse(await json(await api('/brands', { key: KEYS.growth })));
    expect(body.brands.map((b) => [b.id, b.name])).toEqual([
      [2, 'Ledgerly'],
      [3, 'Payfold'],
    ]);
    for (const brand of body.brands)
      expect(brand.markets.map((m) => [m.code, m.primary])).toEqual([
        ['us', true],
        ['de', false],
      ]);
  });
  it('reads the primary market by default, and a market by code (any case) or id', async () => {
    const byDefault = await json<{ market: { code: string } }>(await api('/visibility'));
    const byCode = await json<{ market: { id: number } }>(await api('/visibility?market=DE'));
    const byId = await json<{ market: { code: string } }>(await api('/visibility?market=12'));
    expect([byDefault.market.code, byCode.market.id, byId.market.code]).toEqual(['us', 12, 'de']);
  });
});

describe('questions', () => {
  it('lists 42 tracked questions in 6 topics, filterable by topic', async () => {
    const all = zs.response('listAnswers').parse(await json(await api('/answers')));
    expect(all.questions).toHaveLength(42);
    expect(new Set(all.questions.map((q) => q.topic.id)).size).toBe(6);
    const one = zs.response('listAnswers').parse(await json(await api(`/answers?topic_id=${DEMO.proTopic}`)));
    expect(one.questions).toHaveLength(7);
    expect(one.questions.every((q) => q.topic.id === DEMO.proTopic)).toBe(true);
    expect((await api('/answers?topic_id=2101')).status).toBe(404);
  });
});

describe('visibility on the demo data', () => {
  it('has a measured score and 12 weeks of history ending today', async () => {
    const body = zs.response('getVisibility').parse(await json(await api('/visibility')));
    expect(body.score).toBeGreaterThan(0);
    expect(body.score).toBe(Math.round((1000 * body.naming_runs) / body.answered_runs) / 10);
    expect(body.history.at(-1)).toMatchObject({ week_end: today(), score: body.score, answered_runs: body.answered_runs });
    expect(body.history.every((p) => p.score !== null)).toBe(true);
  });
});

describe('prompt matrix on the demo data', () => {
  it('has every question on all six engines, each measured', async () => {
    const body = zs.response('getPromptMatrix').parse(await json(await api('/prompts')));
    expect(body.prompts).toHaveLength(42);
    for (const prompt of body.prompts) {
      expect(prompt.engines.map((e) => e.engine)).toEqual([...ENGINES]);
      // One run a day: 7 runs per engine in the window.
      expect(prompt.engines.every((e) => e.runs === 7 && e.state !== null)).toBe(true);
    }
  });
});

describe('answer runs on the demo data', () => {
  it('returns the exact texts, which name the brand exactly when the run is counted as naming it', async () => {
    const body = zs.response('getAnswerRuns').parse(await json(await api(validPath('getAnswerRuns'))));
    expect(body.runs).toHaveLength(42);
    for (const run of body.runs) {
      expect(run.ran_at.slice(0, 10) >= body.period.from).toBe(true);
      if (run.state === 'no_answer') expect(run.text).toBe('');
      else expect(run.text.includes('Brightdesk')).toBe(run.brand_named);
      for (const citation of run.citations) expect(run.text).toContain(citation.url);
    }
  });
});

describe('won and lost on the demo data', () => {
  it('counts every question once and names the engines that moved', async () => {
    const body = zs.response('getAnswerHistory').parse(await json(await api('/answers/history')));
    expect(body.counts.won + body.counts.lost + body.counts.held).toBe(42);
    for (const q of body.questions) {
      const gained = q.moved.filter((m) => m.direction === 'gained').length;
      const lost = q.moved.length - gained;
      expect(q.engines_naming_now - q.engines_naming_before).toBe(gained - lost);
    }
  });
});

describe('topics on the demo data', () => {
  it('reads a topic of the brand in full and refuses topics of other brands or markets', async () => {
    const body = zs.response('getTopic').parse(await json(await api(`/topics/${DEMO.proTopic}`)));
    expect(body.questions).toHaveLength(7);
    expect(body.head_to_heads.length).toBeGreaterThan(0);
    expect(body.top_sources.some((s) => s.classification === 'own')).toBe(true);
    expect((await api('/topics/2101')).status).toBe(404);
    expect((await api(`/topics/${DEMO.proTopic}?market=de`)).status).toBe(404);
    expect((await api('/topics/abc')).status).toBe(400);
  });
});

describe('a bug inside an operation', () => {
  it('is a 500 internal_error in the error shape, with the request id and no stack trace', async () => {
    const broken = {
      prepare: () => {
        throw new TypeError('boom at secret/path.ts:12');
      },
    } as unknown as D1Database;
    const response = await handleOrigin(new Request('https://x/api/v1/visibility', { headers: { authorization: 'Bearer k', 'x-request-id': 'req-500' } }), { db: broken });
    expect(response.status).toBe(500);
    expect(response.headers.get('x-request-id')).toBe('req-500');
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: { code: 'internal_error', message: expect.stringContaining('request id') } });
    expect(text).not.toMatch(/boom|secret|\.ts/);
  });
});
