/**
 * Proposing the upstream map (src/discovery): our origin's bodies need
 * nothing; plurals and synonyms are placed at 0.8, a guess by type alone is
 * never placed; a share from 0 to 1 is a percentage only when many values say
 * so; enumeration values are mapped by spelling and synonyms, open ones
 * carried; two readings as likely as each other are asked, not chosen. The
 * run: the order of reads, values for requests from earlier answers, a key
 * refused at the first read, the calls counted.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { type DiscoveryRead, discoverUpstreamMap, readingOrder } from '../src/discovery/discover';
import { wholeLists } from '../src/discovery/probes';
import { valuesAt } from '../src/contract/params-from';
import { compareNames, singular, valueCandidates, wordsOf } from '../src/discovery/names';
import { brandNamesByAnswers, type Known, paramsFromKnown } from '../src/discovery/joins';
import { proposeOperation } from '../src/discovery/propose';
import { CONFIDENCE_THRESHOLD } from '../src/discovery/report';
import { API_BASE, examplePath, OPERATION_IDS, type OperationId, operationList, operations } from '../src/contract/operations';
import { originTransport } from '../src/origin/transport';
import { KEYS } from './helpers';
import { renameAt } from './reshape';
import { vocabularyOf } from '../src/discovery/vocabulary';
import { checkResponseBody } from '../src/contract/body';
import { expectedOf, fitOf } from '../src/discovery/shapes';
import { schemaAtPath } from '../src/contract/paths';
import { zodSide } from '../src/contract/zod-side';
import { Walk } from '../src/discovery/walk';
import { settleGroups } from '../src/discovery/rules';
import { placeLeftOver } from '../src/discovery/taken';
import { addDays, lastDays, type Period, previousPeriod } from '../src/contract/window';
import { SOURCE_CLASSES, STATES } from '../src/contract/enums';
import { meaningByWords } from '../src/discovery/value-words';
import { enumKey, settleValues } from '../src/discovery/values';

/** The contract's zod side: the response schemas the bodies are checked with. */
const zs = await zodSide();

const origin = originTransport(env.DB);
const bodies = new Map<OperationId, Record<string, unknown>>();

/** Our origin's answer to the operation's example request, read once. */
async function ours(id: OperationId): Promise<Record<string, unknown>> {
  if (!bodies.has(id)) {
    const response = await origin(new Request(`http://origin.internal${API_BASE}${examplePath(operations[id])}`, { headers: { authorization: `Bearer ${KEYS.pro}` } }));
    bodies.set(id, (await response.json()) as Record<string, unknown>);
  }
  return structuredClone(bodies.get(id)!);
}

const propose = (id: OperationId, body: Record<string, unknown>) => proposeOperation(zs, id, body, CONFIDENCE_THRESHOLD);
/** The body with each contract path's field renamed as `names` says. */
const renamedAll = (body: unknown, names: Record<string, string>) => Object.entries(names).reduce((b, [path, to]) => renameAt(b, path, to), body);
const emptyMap = { fields: {}, convert: {}, values: {} };

describe('names', () => {
  it('are split into words in any convention, and read in the singular', () => {
    expect(wordsOf('weekStart')).toEqual(['week', 'start']);
    expect(wordsOf('Google-AI_Overviews')).toEqual(['google', 'ai', 'overviews']);
    expect(wordsOf('ChatGPT')).toEqual(['chat', 'gpt']);
    expect(['weeks', 'rivals', 'statuses', 'status', 'analysis', 'entries', 'as'].map(singular)).toEqual(['week', 'rival', 'status', 'status', 'analysis', 'entry', 'as']);
  });

  it('match as the same name, a plural or a synonym, and nothing else', () => {
    expect(compareNames('brand_id', 'BrandID')).toEqual({ by: 'name', confidence: 1 });
    expect(compareNames('rivals', 'rival')).toEqual({ by: 'plural', confidence: 0.8 });
    expect(compareNames('history', 'weeks')).toEqual({ by: 'synonym', confidence: 0.8 });
    expect(compareNames('generated_at', 'asOf')).toEqual({ by: 'synonym', confidence: 0.8 });
    expect(compareNames('rival_share', 'competitorPct')).toEqual({ by: 'synonym', confidence: 0.8 });
    expect(compareNames('question_id', 'promptId')).toEqual({ by: 'synonym', confidence: 0.8 });
    expect(compareNames('naming_runs', 'hits')).toBeUndefined();
    expect(compareNames('score', 'rank')).toBeUndefined();
  });

  it('map values by spelling, synonyms and well-known aliases, and hint at one that begins another', () => {
    expect(valueCandidates(['won', 'lost', 'held'], 'WON')).toEqual([{ to: 'won', by: 'name', confidence: 0.95 }]);
    expect(valueCandidates(['won', 'lost', 'held'], 'gain')).toEqual([{ to: 'won', by: 'synonym', confidence: 0.8 }]);
    expect(valueCandidates(['gained', 'lost'], 'up')).toEqual([{ to: 'gained', by: 'synonym', confidence: 0.8 }]);
    expect(valueCandidates(['chatgpt', 'google_ai_overviews'], 'google_aio')).toEqual([{ to: 'google_ai_overviews', by: 'synonym', confidence: 0.8 }]);
    expect(valueCandidates(['recommended', 'mentioned'], 'recommend')).toEqual([{ to: 'recommended', by: 'similar', confidence: 0.6 }]);
    expect(valueCandidates(['chatgpt'], 'grok')).toEqual([]);
    // An open value of ours under a vendor's prefix or suffix; never in a closed enumeration, nor where a name says more.
    expect(valueCandidates(['chatgpt', 'perplexity'], 'perplexity-sonar', true)).toEqual([{ to: 'perplexity', by: 'vendor', confidence: 0.8 }]);
    expect(valueCandidates(['recommended', 'mentioned', 'absent'], 'not_mentioned')).toEqual([{ to: 'absent', by: 'synonym', confidence: 0.8 }]);
    expect(valueCandidates(['recommended', 'mentioned', 'absent'], 'not_mentioned', true)).toEqual([{ to: 'absent', by: 'synonym', confidence: 0.8 }]);
  });
});

describe("our origin's bodies", () => {
  it.each(operationList.map((op) => [op.id] as const))('%s: nothing to map, every field by its name', async (id) => {
    const { report, map } = propose(id, await ours(id));
    expect(map).toEqual(emptyMap);
    expect({ to_confirm: report.to_confirm, unplaced: report.unplaced, unused: report.unused, carried: report.carried, reads: report.reads, envelope: report.envelope }).toEqual({
      to_confirm: [],
      unplaced: [],
      unused: [],
      carried: {},
      reads: { ok: true },
      envelope: null,
    });
    expect(Object.values(report.fields).every((f) => f.by === 'name' && f.confidence === 1 && !f.convert)).toBe(true);
  });
});

describe('fields', () => {
  it('place a plural and a synonym at 0.8, in the map', async () => {
    let body: unknown = await ours('listTopics');
    body = renameAt(renameAt(body, 'topics[].rivals', 'rival'), 'topics[].score', 'visibility');
    const { report, map } = propose('listTopics', body as Record<string, unknown>);
    expect(report.fields['topics[].rivals']).toEqual({ from: 'rival', confidence: 0.8, by: 'plural' });
    expect(report.fields['topics[].score']).toEqual({ from: 'visibility', confidence: 0.8, by: 'synonym' });
    expect(map.fields).toEqual({ 'topics[].rivals': 'rival', 'topics[].score': 'visibility' });
    expect(report.reads).toEqual({ ok: true });
  });

  it("settle a signal's value and weight by the readiness score, whichever way its two texts go, and its texts by their values", async () => {
    const body = renamedAll(await ours('getOverview'), {
      'readiness.signals[].value': 'v',
      'readiness.signals[].weight': 'w',
      'readiness.signals[].signal': 's1',
      'readiness.signals[].note': 's2',
    });
    const { report } = propose('getOverview', body as Record<string, unknown>);
    expect(report.fields['readiness.signals[].value']).toEqual({ from: 'v', confidence: 0.9, by: 'evidence' });
    expect(report.fields['readiness.signals[].weight']).toEqual({ from: 'w', confidence: 0.9, by: 'evidence' });
    // A note is sentences, a signal one word each (`answer_coverage`): the only key of sentences is the note's.
    expect(report.fields['readiness.signals[].note']).toMatchObject({ from: 's2', by: 'form' });
    expect(report.fields['readiness.signals[].signal']).toMatchObject({ from: 's1', by: 'form' });
    expect(report.to_confirm.filter((item) => item.path.startsWith('readiness.'))).toEqual([]);
  });

  it('ask two texts as a pair where neither their values nor their names tell them apart', async () => {
    const body = renamedAll(await ours('getTask'), { 'task.title': 't1', 'task.why': 't2' });
    const { report, map } = propose('getTask', body as Record<string, unknown>);
    expect(report.to_confirm.filter((item) => item.path.startsWith('task.')).map((item) => [item.path, item.with, item.candidates.map((c) => c.from).sort()])).toEqual([
      ['task.title', ['task.why'], ['t1', 't2']],
    ]);
    expect(map.fields['task.title']).toBeUndefined();
  });

  it('read an open enumeration only from values most of which spell as ours: not from titles that begin with one', async () => {
    const body = renamedAll(await ours('listActivity'), { 'entries[].category': 'k1', 'entries[].title': 'k2', 'entries[].detail': 'k3' });
    const { report, map } = propose('listActivity', body as Record<string, unknown>);
    expect(map.fields['entries[].category']).toBe('k1');
    expect(report.fields['entries[].category']).toMatchObject({ from: 'k1', by: 'form' });
  });

  it('take no code for a sentence: a task’s why is the text of words beside a cache key', async () => {
    const { task, ...rest } = (await ours('getTask')) as { task: Record<string, unknown> } & Record<string, unknown>;
    const { why, ...fields } = task;
    const { report, map } = propose('getTask', { ...rest, task: { ...fields, w9: why, ck: 'x3f9k' } });
    expect(map.fields['task.why']).toBe('w9');
    expect(report.fields['task.why']).toMatchObject({ by: 'form' });
    expect(report.unused).toContain('task.ck');
  });

  it('place the one list left, empty in this answer, where one list field is left', async () => {
    const { topics_won: _, ...rest } = (await ours('getCompetitor')) as Record<string, unknown>;
    const { report, map } = propose('getCompetitor', { ...rest, gewonnen: [] });
    expect(map.fields.topics_won).toBe('gewonnen');
    expect(report.fields.topics_won).toMatchObject({ from: 'gewonnen', by: 'form', confidence: 0.8 });
    expect(report.unplaced).toEqual([]);
    expect(report.unseen).toContain('topics_won[]');
    // A list written as an object, with no item: `{}` is as empty a list; an object field takes no such value.
    expect(propose('getCompetitor', { ...rest, gewonnen: {} }).map.fields.topics_won).toBe('gewonnen');
    // Two empty lists left for it: a question between them.
    const two = propose('getCompetitor', { ...rest, gewonnen: [], verloren: [] });
    expect(two.map.fields.topics_won).toBeUndefined();
    expect(two.report.to_confirm.find((item) => item.path === 'topics_won')?.candidates.map((c) => c.from)).toEqual(['gewonnen', 'verloren']);
  });

  it("place the overview's parts in one of several shapes where their contents alone say which is which", async () => {
    const body = renamedAll(await ours('getOverview'), { perception: 'p1', ai_traffic: 'p2', tasks: 'p3' });
    const { report, map } = propose('getOverview', body as Record<string, unknown>);
    expect(report.to_confirm.filter((item) => /^(perception|ai_traffic|tasks)$/.test(item.path))).toEqual([]);
    expect(map.fields).toMatchObject({ perception: 'p1', ai_traffic: 'p2', tasks: 'p3' });
    expect(report.fields.perception).toMatchObject({ from: 'p1', by: 'form' });
    expect(report.reads).toEqual({ ok: true });
  });

  it('overturn a guess that gives other figures than another answer settled: a vendor code taken for an abbreviation', async () => {
    const body = (await ours('listTopics')) as { topics: { id: number; questions: number }[] } & Record<string, unknown>;
    // `qt` (the service's code for the rank) reads as an abbreviation of `questions`; `phqkf` holds the counts.
    const styled = renameAt(renameAt(body, 'topics[].rank', 'qt'), 'topics[].questions', 'phqkf') as Record<string, unknown>;
    const alone = proposeOperation(zs, 'listTopics', styled, CONFIDENCE_THRESHOLD);
    expect(alone.map.fields['topics[].questions']).toBe('qt');
    // /prompts settled how many questions name each topic: those are the counts, so `qt` is not them.
    const counts = new Map(body.topics.map((t) => [String(t.id), t.questions] as const));
    const { map, report } = proposeOperation(zs, 'listTopics', styled, CONFIDENCE_THRESHOLD, { figures: [{ path: 'topics[].questions', key: 'topics[].id', expected: counts }] });
    expect(map.fields['topics[].questions']).toBe('phqkf');
    expect(report.fields['topics[].questions']).toMatchObject({ from: 'phqkf', by: 'evidence' });
    // The rank was placed by what was left; it is asked again, with the key the counts freed.
    expect(map.fields['topics[].rank']).toBeUndefined();
    expect(report.to_confirm.find((item) => item.path === 'topics[].rank')?.candidates.map((c) => c.from)).toEqual(['qt']);
  });

  it('read a list written as columns and rows, and a list keyed by a value the contract does not hold', async () => {
    const body = (await ours('listTopics')) as { topics: Record<string, unknown>[] } & Record<string, unknown>;
    const order = Object.keys(body.topics[0]!);
    // Column names as objects, the way one real vendor answers: a list of headers beside a list of rows.
    const table = { headers: order.map((name) => ({ label: name, kind: 'x' })), rows: body.topics.map((t) => order.map((k) => t[k])) };
    const columns = propose('listTopics', { ...body, topics: table });
    expect(columns.map.columns).toEqual({ topics: { names: 'headers', rows: 'rows', name: 'label' } });
    expect(columns.report.reads).toEqual({ ok: true });
    expect(checkResponseBody(zs, 'listTopics', JSON.stringify({ ...body, topics: table }), columns.map)).toMatchObject({ ok: true, data: { topics: body.topics } });

    // Each topic's rivals keyed by a domain the contract does not hold; each rival keeps its own name.
    const byDomain = { ...body, topics: body.topics.map((t) => ({ ...t, rivals: Object.fromEntries((t.rivals as { name: string }[]).map((r) => [`${r.name.toLowerCase()}.example`, r])) })) };
    const keyed = propose('listTopics', byDomain);
    expect(keyed.map.keyed).toEqual({ 'topics[].rivals': { extra: 'key' } });
    expect(checkResponseBody(zs, 'listTopics', JSON.stringify(byDomain), keyed.map)).toMatchObject({ ok: true, data: { topics: body.topics } });
  });

  it('read dates in the order their values allow: a day over 12 says day first, a year first says so; where none can say, a question', async () => {
    const body = (await ours('getVisibility')) as { history: { week_start: string; week_end: string }[] } & Record<string, unknown>;
    const written = (order: 'dmy' | 'mdy' | 'ymd') => (d: string) => {
      const [y, m, dd] = d.split('-');
      return order === 'dmy' ? `${dd}/${m}/${y}` : order === 'mdy' ? `${m}/${dd}/${y}` : `${y}.${m}.${dd}`;
    };
    const styled = (order: 'dmy' | 'mdy' | 'ymd', history = body.history) => ({
      ...body,
      history: history.map((w) => ({ ...w, week_start: written(order)(w.week_start), week_end: written(order)(w.week_end) })),
    });
    // Twelve weeks of days: some past the 12th, so the order is plain.
    expect(body.history.some((w) => Number(w.week_start.slice(8)) > 12)).toBe(true);
    for (const [order, convert] of [
      ['dmy', 'date-dmy'],
      ['mdy', 'date-mdy'],
      ['ymd', 'date-ymd'],
    ] as const) {
      const { map, report } = propose('getVisibility', styled(order));
      expect(map.convert['history[].week_start'], order).toBe(convert);
      expect(report.reads, order).toEqual({ ok: true });
    }
    // Only days up to the 12th: 02/12 may be 2 December or 12 February, and a person is asked, both readings given.
    const fit = fitOf(expectedOf(schemaAtPath(zs.response('getVisibility'), 'history[].week_start')), ['02/12/2026', '09/11/2026', '12/10/2026']);
    expect(fit.readings).toEqual([
      { convert: 'date-dmy', confidence: 0.5 },
      { convert: 'date-mdy', confidence: 0.5 },
    ]);
    expect(fit.reason).toMatch(/day first or month first/);
  });

  it('the only value of its form left on both sides is placed by form; several are a question at 0.3; a rule the data keeps settles them', async () => {
    const one = propose('getAnswerHistory', renameAt(await ours('getAnswerHistory'), 'questions[].topic_id', 'group') as Record<string, unknown>);
    expect(one.report.to_confirm).toEqual([]);
    expect(one.report.fields['questions[].topic_id']).toEqual({ from: 'group', confidence: 0.8, by: 'form' });
    expect(one.map.fields).toEqual({ 'questions[].topic_id': 'group' });
    expect(one.report.reads).toEqual({ ok: true });

    // The only candidate for the runs naming the brand keeps score = 100 × naming / answered: evidence, not a guess.
    const settled = propose('getVisibility', renameAt(await ours('getVisibility'), 'naming_runs', 'hits') as Record<string, unknown>);
    expect(settled.report.to_confirm).toEqual([]);
    expect(settled.report.fields.naming_runs).toEqual({ from: 'hits', confidence: 0.9, by: 'evidence' });
    expect(settled.map.fields).toEqual({ naming_runs: 'hits' });

    // Two counts as likely by type, told apart by the outcomes: only one way round keeps won = more engines naming the brand now.
    const two = propose(
      'getAnswerHistory',
      renameAt(renameAt(await ours('getAnswerHistory'), 'questions[].engines_naming_now', 'count_a'), 'questions[].engines_naming_before', 'count_b') as Record<string, unknown>,
    );
    expect(two.report.to_confirm).toEqual([]);
    expect(two.map.fields).toMatchObject({ 'questions[].engines_naming_now': 'count_a', 'questions[].engines_naming_before': 'count_b' });
    expect(two.report.fields['questions[].engines_naming_now']).toEqual({ from: 'count_a', confidence: 0.9, by: 'evidence' });

    // With nothing to tell them apart (no outcome beside them), they stay one question, of the pair, candidates at 0.3.
    const bare = renameAt(renameAt(await ours('getAnswerHistory'), 'questions[].engines_naming_now', 'count_a'), 'questions[].engines_naming_before', 'count_b') as {
      questions: Record<string, unknown>[];
    };
    for (const q of bare.questions) delete q.outcome;
    const asked = propose('getAnswerHistory', bare as unknown as Record<string, unknown>).report.to_confirm.filter((item) => item.path.includes('engines_naming'));
    expect(asked).toEqual([
      {
        path: 'questions[].engines_naming_now',
        with: ['questions[].engines_naming_before'],
        reason: expect.any(String),
        candidates: [
          { from: 'count_a', confidence: 0.3, by: 'type' },
          { from: 'count_b', confidence: 0.3, by: 'type' },
        ],
      },
    ]);
    expect(asked[0]!.reason).toBe(
      '`questions[].engines_naming_now` and `questions[].engines_naming_before` are `count_a` and `count_b`, one each, and nothing in the answers tells which is which: choose the one of `questions[].engines_naming_now`.',
    );

    // Two as likely by type, told apart by the data: only `total` as the answered runs keeps score = 100 × naming / answered.
    const pair = propose('getVisibility', renameAt(renameAt(await ours('getVisibility'), 'naming_runs', 'hits'), 'answered_runs', 'total') as Record<string, unknown>);
    expect(pair.report.to_confirm).toEqual([]);
    expect(pair.map.fields).toEqual({ answered_runs: 'total', naming_runs: 'hits' });
    expect([pair.report.fields.answered_runs?.by, pair.report.fields.naming_runs?.by]).toEqual(['evidence', 'evidence']);
  });

  it('are a question when two upstream fields are as likely as each other', async () => {
    const { score, ...body } = await ours('getVisibility');
    const { report, map } = propose('getVisibility', { ...body, visibility: score, value: score });
    expect(report.to_confirm).toEqual([
      {
        path: 'score',
        reason: expect.stringContaining('two readings'),
        candidates: [
          { from: 'visibility', confidence: 0.5, by: 'synonym' },
          { from: 'value', confidence: 0.5, by: 'synonym' },
        ],
      },
    ]);
    expect(map.fields).toEqual({});
  });

  it('holding a list under another name are placed by what its items hold', async () => {
    const body = renameAt(await ours('getAnswerHistory'), 'questions', 'items') as Record<string, unknown>;
    const { report, map } = propose('getAnswerHistory', body);
    expect(report.fields.questions).toEqual({ from: 'items', confidence: 0.85, by: 'structure' });
    expect(map.fields).toEqual({ questions: 'items' });
  });

  it("in an envelope the contract's names do not find are read from it through the map, and what it lacks from beside it", async () => {
    const { brand_id, market, generated_at, ...rest } = await ours('getVisibility');
    let payload: unknown = rest;
    for (const [name, to] of [
      ['score', 'visibility'],
      ['history', 'weeks'],
      ['change', 'delta'],
      ['answered_runs', 'answered'],
      ['naming_runs', 'mentions'],
    ])
      payload = renameAt(payload, name!, to!);
    const body = { brand_id, market, generated_at, payload };
    const { report, map } = propose('getVisibility', body);
    expect(report.envelope).toEqual({ at: 'payload', confidence: 0.9, in_map: true });
    expect(map).toMatchObject({ envelope: 'payload', fields: { score: 'visibility', history: 'weeks', change: 'delta', answered_runs: 'answered', naming_runs: 'mentions' } });
    expect(report.fields.brand_id).toEqual({ from: 'brand_id', confidence: 1, by: 'name' });
    expect(report.reads).toEqual({ ok: true });
  });

  it("an answer's time guessed by type among the days inside the envelope is taken from beside it, where a time is; a count is never taken so", async () => {
    const { generated_at, period, total_citations, domains_cited, ...rest } = await ours('listSources');
    const { from, to } = period as { from: string; to: string };
    const result = { ...rest, zeitraumAb: Date.parse(from), zeitraumBis: Date.parse(to), summe: total_citations, domaenen: domains_cited };
    const meta = { requestId: 'req_1', tookMs: 12, stand: Date.parse(String(generated_at)) };
    const without = propose('listSources', { result, meta: { requestId: 'req_1', tookMs: 12 } });
    // Without the time beside, the days inside are the only guesses: a question, never a placement.
    expect(without.report.to_confirm.find((item) => item.path === 'generated_at')?.candidates.map((c) => c.by)).toEqual(['type', 'type']);
    const { report, map } = propose('listSources', { result, meta });
    expect(report.fields.generated_at).toEqual({ from: 'meta.stand', confidence: 0.8, by: 'form', convert: 'date-time' });
    expect(map.fields.generated_at).toBe('meta.stand');
    // Neither a count beside nor the epoch (it fits a count too) stands for a count guessed by type.
    for (const count of ['total_citations', 'domains_cited']) expect(['meta.tookMs', 'meta.stand']).not.toContain(map.fields[count]);
  });

  it('an object the shape reads written flat is placed when each of its fields joins what another operation lists, and stays a question otherwise', async () => {
    const { market, ...rest } = await ours('listSources');
    const { id, code } = market as { id: number; code: string };
    // Names that say nothing: only the values tell the market's id and code from the counts beside them.
    const body = { ...rest, qx: id, zv: code };
    const known: Known = new Map([
      ['market_id', new Set<string | number>([id, id + 1])],
      ['market_code', new Set<string | number>([code, 'de'])],
    ] as const);
    const proven = proposeOperation(zs, 'listSources', body, CONFIDENCE_THRESHOLD, { known });
    expect(proven.map.fields).toMatchObject({ market: '.', 'market.id': 'qx', 'market.code': 'zv' });
    expect(proven.report.to_confirm.map((item) => item.path)).not.toContain('market');
    // Without what `/markets` lists, the form alone: a question, nothing stored.
    const alone = propose('listSources', body);
    expect(alone.report.to_confirm.map((item) => item.path)).toContain('market');
    expect(alone.map.fields.market).toBeUndefined();
    // A market id `/markets` does not list: no join, no placement.
    const other = proposeOperation(zs, 'listSources', body, CONFIDENCE_THRESHOLD, {
      known: new Map([
        ['market_id', new Set<string | number>([id + 1])],
        ['market_code', new Set<string | number>([code])],
      ] as const),
    });
    expect(other.map.fields.market).toBeUndefined();
  });

  it('a task list written flat under names that say nothing: the market by its joins whichever keys the shape paired, matching by the rule of the tasks listed among every count', async () => {
    const {
      market,
      open_counts: open,
      matching,
      filter,
      ...rest
    } = (await ours('listTasks')) as {
      market: { id: number; code: string };
      open_counts: Record<string, number>;
      matching: number;
      filter: object;
    };
    // Names that say nothing, the market and the open counts written flat beside each other and `matching`.
    const body = { ...rest, qx: market.id, zv: market.code, ua: open.content, ub: open.technical, uc: open.authority, ud: open.brand, um: matching, fl: filter };
    const known: Known = new Map([
      ['market_id', new Set<string | number>([market.id, 12])],
      ['market_code', new Set<string | number>([market.code, 'de'])],
    ] as const);
    const proposal = proposeOperation(zs, 'listTasks', body, CONFIDENCE_THRESHOLD, { known, context: { query: {} } });
    expect(proposal.map.fields).toMatchObject({ market: '.', 'market.id': 'qx', 'market.code': 'zv', matching: 'um' });
    expect(proposal.report.fields.matching).toMatchObject({ by: 'evidence' });
    // The shape gave \`matching\`'s key to the open counts: they stay one question, and nothing is stored for them.
    expect(proposal.report.to_confirm.map((item) => item.path)).toEqual(['open_counts']);
    expect(proposal.map.fields['open_counts.content']).toBeUndefined();
  });
});

describe('values', () => {
  it('convert numbers written as text, date-times where the contract has a date, and other spellings of a date-time', async () => {
    let body: unknown = await ours('getVisibility');
    body = { ...(body as object), answered_runs: '1716', generated_at: '2026-11-25 08:00:00' };
    body = { ...(body as object), history: (body as { history: Record<string, unknown>[] }).history.map((w) => ({ ...w, score: String(w.score), week_start: `${w.week_start}T00:00:00Z` })) };
    const { report, map } = propose('getVisibility', body as Record<string, unknown>);
    expect(map.convert).toEqual({ answered_runs: 'integer', generated_at: 'date-time', 'history[].score': 'number', 'history[].week_start': 'date' });
    expect(report.fields['history[].week_start']).toEqual({ from: 'week_start', confidence: 0.95, by: 'name', convert: 'date' });
    expect(report.reads).toEqual({ ok: true });
  });

  it('from 0 to 1 where the contract has a percentage: shares when many say so, a question when one cannot tell, as they are above 1', async () => {
    const topics = await ours('listTopics');
    const shares = { ...topics, topics: (topics.topics as { score: number | null }[]).map((t) => ({ ...t, score: t.score === null ? null : t.score / 100 })) };
    expect(propose('listTopics', shares).report.fields['topics[].score']).toEqual({ from: 'score', confidence: 0.85, by: 'name', convert: 'percent' });

    // (A score no run count agrees with: no rule settles it, and the change beside it may share its unit.)
    const one = propose('getVisibility', { ...(await ours('getVisibility')), score: 0.571, change: 0.4 });
    expect(one.report.to_confirm).toEqual([
      {
        path: 'score',
        reason: expect.stringContaining('one value from 0 to 1 (0.571)'),
        candidates: [
          { from: 'score', convert: 'percent', confidence: 0.5, by: 'name' },
          { from: 'score', confidence: 0.5, by: 'name' },
        ],
      },
      {
        path: 'change',
        reason: expect.stringContaining('its siblings are read a share from 0 to 1'),
        candidates: [
          { convert: 'percent', confidence: 0.5, by: 'type' },
          { confidence: 0.5, by: 'type' },
        ],
      },
    ]);
    expect(one.map.convert).toEqual({});
    expect(propose('getVisibility', { ...(await ours('getVisibility')), score: 1 }).report.to_confirm).toEqual([]);
  });

  it('of an enumeration are mapped by spelling and synonyms; a value like none is asked, with the values not seen', async () => {
    const history = await ours('getAnswerHistory');
    const outcomes: Record<string, string> = { won: 'gain', lost: 'LOST', held: 'meh' };
    const body = { ...history, questions: (history.questions as { outcome: string }[]).map((q) => ({ ...q, outcome: outcomes[q.outcome] })) };
    const { report, map } = propose('getAnswerHistory', body);
    expect(map.values).toEqual({ 'questions[].outcome': { gain: 'won', LOST: 'lost' } });
    expect(report.values['questions[].outcome']).toEqual({ gain: { to: 'won', confidence: 0.8, by: 'synonym' }, LOST: { to: 'lost', confidence: 0.95, by: 'name' } });
    expect(report.to_confirm).toEqual([
      { path: 'questions[].outcome', value: 'meh', reason: expect.stringContaining('no value like `meh`'), candidates: [{ to: 'held', confidence: 0.4, by: 'elimination' }] },
    ]);
  });

  it("an answer state no answer's text tells is read by its words, only among the states the evidence leaves it", async () => {
    /** Our matrix and won/lost questions with each state spelled by `words` (words of no house style the suite generates). */
    const spelled = async (words: Record<string, string>) => {
      const respell = (text: string) => Object.entries(words).reduce((t, [state, word]) => t.replaceAll(`"${state}"`, `"${word}"`), text);
      const read = (await Promise.all((['getPromptMatrix', 'getAnswerHistory'] as const).map(async (id) => [id, JSON.parse(respell(JSON.stringify(await ours(id))))] as const))) as [
        OperationId,
        unknown,
      ][];
      const shown = new Set(read.flatMap(([, body]) => [...JSON.stringify(body).matchAll(/"(?:state|before|now)":"([^"]+)"/g)].map((m) => m[1]!)));
      return { hints: settleValues(read, (id) => zs.response(id)).get(enumKey(STATES)) ?? new Map(), shown };
    };
    const words = { recommended: 'preferred', mentioned: 'referenced', absent: 'excluded', open: 'unbranded', no_answer: 'timeout' };
    const { hints, shown } = await spelled(words);
    const read = Object.entries(words).filter(([, word]) => shown.has(word));
    expect(read.length).toBeGreaterThanOrEqual(3);
    for (const [state, word] of read) expect([word, hints.get(word)?.to]).toEqual([word, state]);
    expect(hints.get('unbranded')).toMatchObject({ by: 'synonym', reason: expect.stringContaining('its words say `open`') });

    // Words never overrule the evidence: `listed` (words of mentioned) stands where the brand is no longer named.
    const against = await spelled({ ...words, absent: 'listed' });
    expect(against.hints.get('listed')?.to).not.toBe('mentioned');
    // Two values whose words say one state say nothing: never two values onto one.
    const twice = await spelled({ ...words, open: 'omitted' });
    expect([twice.hints.get('excluded')?.by, twice.hints.get('omitted')?.by]).not.toContain('synonym');
  });

  it('a value says what its words say, a negation included; words saying two values or none say nothing', () => {
    const said = (values: string[], ours: readonly string[]) => Object.fromEntries(values.map((value) => [value, meaningByWords(value, ours)]));
    expect(said(['TOP_PICK', 'NAMED', 'not-present', 'unseen', 'Unclaimed', 'NoResponse', 'unanswered', 'not_recommended', 'none'], STATES)).toEqual({
      TOP_PICK: 'recommended',
      NAMED: 'mentioned',
      'not-present': 'absent',
      unseen: 'absent',
      Unclaimed: 'open',
      NoResponse: 'no_answer',
      unanswered: 'no_answer',
      not_recommended: undefined,
      none: undefined,
    });
    expect(said(['Competition', 'external', 'owned'], SOURCE_CLASSES)).toEqual({ Competition: 'competitor', external: 'third_party', owned: 'own' });
  });

  it('of an open enumeration are carried when nothing names them, and mapped when a well-known alias does', async () => {
    const matrix = JSON.parse(
      JSON.stringify(await ours('getPromptMatrix'))
        .replaceAll('"copilot"', '"grok"')
        .replaceAll('"chatgpt"', '"openai"'),
    );
    const { report, map } = propose('getPromptMatrix', matrix);
    expect(report.carried).toEqual({ 'engines[]': ['grok'], 'prompts[].engines[].engine': ['grok'] });
    expect(map.values).toEqual({ 'engines[]': { openai: 'chatgpt' }, 'prompts[].engines[].engine': { openai: 'chatgpt' } });
    expect(report.to_confirm).toEqual([]);
  });

  it("of an open enumeration that are ours under a vendor's prefix or suffix are mapped to ours; one of its own is carried", async () => {
    const vendor = JSON.stringify(await ours('getPromptMatrix'))
      .replaceAll('"chatgpt"', '"openai-chatgpt"')
      .replaceAll('"perplexity"', '"perplexity-sonar"')
      .replaceAll('"copilot"', '"xai-grok"');
    const { report, map } = propose('getPromptMatrix', JSON.parse(vendor));
    expect(map.values['engines[]']).toEqual({ 'openai-chatgpt': 'chatgpt', 'perplexity-sonar': 'perplexity' });
    expect(report.values['engines[]']!['openai-chatgpt']).toEqual({ to: 'chatgpt', confidence: 0.8, by: 'vendor' });
    expect(report.carried['engines[]']).toEqual(['xai-grok']);
    expect(report.to_confirm).toEqual([]);
  });
});

describe('the evidence in the data', () => {
  it('an object written flat in its parent is "." with its fields; half of them is a question', async () => {
    const { market, ...rest } = await ours('listTopics');
    const { id, code } = market as { id: number; code: string };
    const flat = propose('listTopics', { ...rest, MarketId: id, MarketCode: code });
    expect(flat.map.fields).toEqual({ market: '.', 'market.id': 'MarketId', 'market.code': 'MarketCode' });
    expect(flat.report.fields.market).toEqual({ from: '.', confidence: 0.9, by: 'flat' });
    expect([flat.report.unused, flat.report.reads]).toEqual([[], { ok: true }]);
    const half = propose('listTopics', { ...rest, MarketId: id });
    expect(half.report.to_confirm).toEqual([{ path: 'market', reason: expect.stringContaining('`MarketId`'), candidates: [{ from: '.', confidence: 0.5, by: 'flat' }] }]);
    expect(half.report.unplaced).toEqual(['market.code']);
  });

  it('a period written flat under names that say nothing of its ends is settled by the window the read asked for, in any date form', async () => {
    const { period, ...rest } = (await ours('listTopics')) as { period: { from: string; to: string } } & Record<string, unknown>;
    const epoch = (day: string) => Date.parse(`${day}T00:00:00Z`);
    const context = { today: period.to, window: period };
    for (const [form, at] of [
      ['dates', (day: string) => day],
      ['epoch ms', epoch],
    ] as const) {
      // `Vers` (towards) and `Depuis` (since): the names read them the wrong way round.
      const body = { ...rest, PeriodeVers: at(period.to), PeriodeDepuis: at(period.from) };
      const { map, report } = proposeOperation(zs, 'listTopics', body, CONFIDENCE_THRESHOLD, { context });
      expect([form, map.fields.period, map.fields['period.from'], map.fields['period.to']]).toEqual([form, '.', 'PeriodeDepuis', 'PeriodeVers']);
      expect(report.fields['period.from']).toMatchObject({ by: 'evidence' });
      expect(report.to_confirm).toEqual([]);
      // Asked for another window (the one before), no way of reading them keeps it: one question, nothing stored.
      const before = { from: addDays(period.from, -7), to: addDays(period.to, -7) };
      const off = proposeOperation(zs, 'listTopics', body, CONFIDENCE_THRESHOLD, { context: { ...context, window: before } });
      expect([off.map.fields.period, off.map.fields['period.from']]).toEqual([undefined, undefined]);
      expect(off.report.to_confirm.map((item) => item.path)).toEqual(['period']);
    }
  });

  it('of fields asked together, only one a rule reads and keeps is settled: what the others leave over is no evidence', async () => {
    const { totals, ...rest } = (await ours('listPages')) as { totals: Record<string, number> } & Record<string, unknown>;
    // The totals under names that say nothing, the change not among them: `c` is another count (a market's id).
    const body = { ...rest, totals: { a: totals.citations, b: totals.previous_citations, c: 11 } };
    const walk = new Walk(CONFIDENCE_THRESHOLD);
    const candidates = ['a', 'b', 'c'].map((from) => ({ from, confidence: 0.3, by: 'type' as const }));
    for (const field of ['citations', 'previous_citations', 'change']) walk.toConfirm.push({ path: `totals.${field}`, reason: 'by type', candidates });
    settleGroups('listPages', zs.response('listPages'), body, walk);
    // The citations add up to the pages' (citations_add_up): settled. The change breaks change_of_counts whichever it is: asked.
    expect(walk.sure.fields).toEqual({ 'totals.citations': 'a', 'totals.previous_citations': 'b' });
    expect(walk.toConfirm.map((item) => item.path)).toEqual(['totals.change']);
  });

  it('fields asked together take only candidates offered to a field of their form: two times told apart, never a count for one', async () => {
    const { tasks, ...rest } = (await ours('listTasks')) as { tasks: Record<string, unknown>[] } & Record<string, unknown>;
    const epoch = (t: unknown) => Date.parse(String(t)) / 1000;
    // The gain, made and updated under names that say nothing, the times as epoch seconds (as seed 12 of the styles).
    const body = { ...rest, tasks: tasks.map(({ expected_gain, created_at, updated_at, ...task }) => ({ ...task, g: expected_gain, m: epoch(created_at), u: epoch(updated_at) })) };
    const walk = new Walk(CONFIDENCE_THRESHOLD);
    const asked = (path: string, froms: string[], convert?: 'date-time') =>
      walk.toConfirm.push({ path, reason: 'by type', candidates: froms.map((from) => ({ from, ...(convert ? { convert } : {}), confidence: 0.3, by: 'type' as const })) });
    asked('tasks[].expected_gain', ['g', 'm', 'u']);
    asked('tasks[].created_at', ['m', 'u'], 'date-time');
    asked('tasks[].updated_at', ['u'], 'date-time');
    settleGroups('listTasks', zs.response('listTasks'), body, walk);
    // updated_not_before_created tells the times apart; no rule reads the gain, so it is still asked.
    expect(walk.sure.fields).toEqual({ 'tasks[].created_at': 'm', 'tasks[].updated_at': 'u' });
    expect(walk.sure.convert).toEqual({ 'tasks[].created_at': 'date-time', 'tasks[].updated_at': 'date-time' });
    expect(walk.toConfirm.map((item) => item.path)).toEqual(['tasks[].expected_gain']);
  });

  it('a number reads as a time only where the contract has one: epoch seconds are never a title', () => {
    const at = (path: string) => expectedOf(schemaAtPath(zs.response('listTasks'), path));
    expect(fitOf(at('tasks[].created_at'), [1793264400, 1794474000]).readings.map((r) => r.convert)).toEqual(['date-time']);
    expect(fitOf(at('tasks[].title'), [1793264400, 1794474000]).readings).toEqual([]);
  });

  it('a period and the window before, both written flat and paired wrongly by their names, are told apart by the window asked', async () => {
    const {
      period,
      previous_period: previous,
      ...rest
    } = (await ours('getAnswerHistory')) as { period: { from: string; to: string }; previous_period: { from: string; to: string } } & Record<string, unknown>;
    const body = { ...rest, PeriodeDepuis: period.from, PeriodeVers: period.to, PrecedentPeriodeDepuis: previous.from, PrecedentPeriodeVers: previous.to };
    const { map } = proposeOperation(zs, 'getAnswerHistory', body, CONFIDENCE_THRESHOLD, { context: { today: period.to, window: period } });
    const at = (path: string) => map.fields[path];
    expect(['period', 'period.from', 'period.to', 'previous_period', 'previous_period.from', 'previous_period.to'].map(at)).toEqual([
      '.',
      'PeriodeDepuis',
      'PeriodeVers',
      '.',
      'PrecedentPeriodeDepuis',
      'PrecedentPeriodeVers',
    ]);
  });

  it('a key the evidence took leaves the questions beside it; one left with a single key no other asks for takes it by its form', async () => {
    const { generated_at, period, ...rest } = (await ours('listTopics')) as { generated_at: string; period: { from: string; to: string } } & Record<string, unknown>;
    // Its time and its period's days under names that say nothing of them, the period written flat.
    const body = { ...rest, genere_a: generated_at, periode_depuis: period.from, periode_vers: period.to };
    const context = { today: period.to, window: period };
    const { map, report } = proposeOperation(zs, 'listTopics', body, CONFIDENCE_THRESHOLD, { context });
    // The window settles the days; the time is then the only date-time left on both sides.
    expect([map.fields.period, map.fields['period.from'], map.fields['period.to'], map.fields.generated_at]).toEqual(['.', 'periode_depuis', 'periode_vers', 'genere_a']);
    expect(report.fields.generated_at).toMatchObject({ by: 'form', confidence: 0.8 });
    expect(report.to_confirm).toEqual([]);
    // Asked for another window, nothing takes the days: the time is still asked among them, and nothing is stored.
    const before = { from: addDays(period.from, -7), to: addDays(period.to, -7) };
    const off = proposeOperation(zs, 'listTopics', body, CONFIDENCE_THRESHOLD, { context: { ...context, window: before } });
    expect(off.map.fields.generated_at).toBeUndefined();
    expect(off.report.to_confirm.find((item) => item.path === 'generated_at')?.candidates.map((c) => c.from)).toEqual(['genere_a', 'periode_depuis', 'periode_vers']);
  });

  it('a question narrowed to one key it lists takes it only when it listed all its options', () => {
    const asked = (crowded: boolean) => {
      const walk = new Walk(CONFIDENCE_THRESHOLD);
      // The period written flat: its days are keys of the body itself, beside the count.
      walk.fields.period = { from: '.', confidence: 0.9, by: 'evidence' };
      walk.fields['period.from'] = { from: 'a', confidence: 0.9, by: 'evidence' };
      walk.fields['period.to'] = { from: 'b', confidence: 0.9, by: 'evidence' };
      walk.toConfirm.push({ path: 'total_citations', reason: 'by type', candidates: ['c', 'a', 'b'].map((from) => ({ from, confidence: 0.3, by: 'type' as const })) });
      if (crowded) walk.crowded.add('total_citations');
      placeLeftOver(walk, () => undefined);
      return walk;
    };
    // The days are the period's: `c` is the only count left, placed by its form.
    expect(asked(false).fields.total_citations).toEqual({ from: 'c', confidence: 0.8, by: 'form' });
    // More options than it listed: a fourth may be the field; `c` stays one candidate of a question.
    const crowded = asked(true);
    expect(crowded.fields.total_citations).toBeUndefined();
    expect(crowded.toConfirm.map((item) => [item.path, item.candidates.map((c) => c.from)])).toEqual([['total_citations', ['c']]]);
  });

  it('a percentage narrowed to one key takes it only in the unit of a share placed surely beside it', () => {
    const asked = (sibling: 'points' | 'percent' | 'change', offered?: 'percent') => {
      const walk = new Walk(CONFIDENCE_THRESHOLD);
      walk.fields['overall.answered_runs'] = { from: 'n', confidence: 0.9, by: 'evidence' };
      walk.fields['overall.brand_share'] = { from: 'b', confidence: 0.9, by: 'evidence', ...(sibling === 'percent' ? { convert: 'percent' as const } : {}) };
      walk.toConfirm.push({
        path: 'overall.rival_share',
        reason: 'by type',
        candidates: ['r', 'b'].map((from) => ({ from, confidence: 0.3, by: 'type' as const, ...(offered ? { convert: offered } : {}) })),
      });
      placeLeftOver(walk, (path) => (path.endsWith('_share') ? (sibling === 'change' && path.endsWith('brand_share') ? 'change' : 'percent') : undefined));
      return walk.fields['overall.rival_share'];
    };
    expect(asked('points')).toEqual({ from: 'r', confidence: 0.8, by: 'form' });
    expect(asked('percent', 'percent')).toEqual({ from: 'r', confidence: 0.8, by: 'form', convert: 'percent' });
    // The share beside it in another unit than the one offered, or no share beside it (a change's unit is its own): asked.
    expect(asked('percent')).toBeUndefined();
    expect(asked('points', 'percent')).toBeUndefined();
    expect(asked('change')).toBeUndefined();
  });

  it('beside shares read from 0 to 1, a change within -1 to 1 is read from 0 to 1 too', async () => {
    const topics = await ours('listTopics');
    const fractions = (topics.topics as { score: number | null; change: number | null }[]).map((t) => ({
      ...t,
      score: t.score === null ? null : t.score / 100,
      change: t.change === null ? null : t.change / 100,
    }));
    const { report, map } = propose('listTopics', { ...topics, topics: fractions });
    expect(map.convert).toMatchObject({ 'topics[].score': 'percent', 'topics[].change': 'percent' });
    expect(report.fields['topics[].change']).toMatchObject({ from: 'change', convert: 'percent' });
    // As points, the same changes stay as they are.
    expect(propose('listTopics', topics).map.convert).toEqual({});
  });

  it('an object half named is settled by the rules that read inside it: the counts that add up to the outcomes', async () => {
    const { counts, ...rest } = (await ours('getAnswerHistory')) as { counts: { won: number; lost: number; held: number } } & Record<string, unknown>;
    const { report, map } = propose('getAnswerHistory', { ...rest, tally: { tally_won: counts.won, lost: counts.lost, held: counts.held, cache_key: 'x1' }, shard: { id: 3, region: 'x' } });
    expect(map.fields.counts).toBe('tally');
    // The shape places it (three whole counts beside an id and a region): the rules that read inside it keep it.
    expect(report.fields.counts).toMatchObject({ from: 'tally' });
    expect(report.fields.counts!.confidence).toBeGreaterThanOrEqual(CONFIDENCE_THRESHOLD);
    // Moved out of the week (the counts of another body), the same object breaks outcomes_add_up and stays a question.
    const off = propose('getAnswerHistory', { ...rest, tally: { tally_won: counts.won + 3, lost: counts.lost, held: counts.held, cache_key: 'x1' }, shard: { id: 3, region: 'x' } });
    expect(off.map.fields.counts).toBeUndefined();
  });

  it('an envelope whose fields are written flat is found by the objects they spell', async () => {
    const {
      market,
      period,
      previous_period: before,
      generated_at: at,
      ...rest
    } = (await ours('getAnswerHistory')) as Record<string, { id?: number; code?: string; from?: string; to?: string }> & { generated_at: string };
    const result = { ...rest, market_id: market!.id, market_code: market!.code, period_from: period!.from, period_to: period!.to, previous_period_from: before!.from, previous_period_to: before!.to };
    const { report } = propose('getAnswerHistory', { status: 'ok', result, meta: { as_of: at, took_ms: 12 } });
    expect(report.envelope).toMatchObject({ at: 'result' });
  });

  it("a lone share from 0 to 1 is read by the service's own precision: more decimals than its percentages have is a share", async () => {
    const competitor = await ours('getCompetitor');
    const overall = competitor.overall as { rival_share: number; brand_share: number };
    const body = { ...competitor, overall: { ...overall, rival_share: overall.rival_share / 100, brand_share: 0.3 } };
    const alone = proposeOperation(zs, 'getCompetitor', body, CONFIDENCE_THRESHOLD);
    expect(alone.report.to_confirm.map((item) => item.path)).toEqual(expect.arrayContaining(['overall.rival_share', 'overall.brand_share']));
    // The service writes its percentages to one decimal (55.9): 0.267 as points has three, as a share 26.7 has one.
    const { report, map } = proposeOperation(zs, 'getCompetitor', body, CONFIDENCE_THRESHOLD, { precision: 1 });
    expect(map.convert['overall.rival_share']).toBe('percent');
    expect(report.fields['overall.rival_share']).toMatchObject({ by: 'evidence', convert: 'percent' });
    // 0.3 keeps one decimal either way (30.0, or 0.3 points): not the precision's to say; its sibling's unit says it (units.ts).
    expect(report.fields['overall.brand_share']).toMatchObject({ by: 'form', convert: 'percent' });
    const lone = proposeOperation(zs, 'getCompetitor', { ...competitor, overall: { ...overall, rival_share: 0.3, brand_share: 0.3 } }, CONFIDENCE_THRESHOLD, { precision: 1 });
    expect(lone.report.to_confirm.map((item) => item.path)).toEqual(expect.arrayContaining(['overall.rival_share', 'overall.brand_share']));
    // A count is no unit: a layer's 0 open tasks beside a sample's 509, neither named, is not the precision's to settle.
    const { open_counts: counts, ...tasks } = (await ours('listTasks')) as { open_counts: Record<string, number> } & Record<string, unknown>;
    const { brand: _, ...others } = counts;
    const opaque = { ...tasks, open_counts: { ...others, zq: 0, sample: 509 } };
    const counted = proposeOperation(zs, 'listTasks', opaque, CONFIDENCE_THRESHOLD, { precision: 1 });
    expect(counted.map.fields['open_counts.brand']).toBeUndefined();
  });

  it('an engine is the field whose values spell as our engines: `mode`, a word of `model`, is the state beside a `provider` holding `chatgpt`', async () => {
    const cells = renameAt(renameAt(await ours('getPromptMatrix'), 'prompts[].engines[].engine', 'provider'), 'prompts[].engines[].state', 'mode') as Record<string, unknown>;
    const { map } = propose('getPromptMatrix', cells);
    expect(map.fields).toMatchObject({ 'prompts[].engines[].engine': 'provider', 'prompts[].engines[].state': 'mode' });
  });

  it("the service's own word: a key evidence placed for a field in one answer is that field where no name places it", async () => {
    // Two counts beside the URL a page is cited instead of, both most first: nothing but the service's word for citations tells them apart.
    const pages = (await ours('listPages')) as { uncited: { cited_instead: Record<string, unknown>[] }[] } & Record<string, unknown>;
    for (const page of pages.uncited) page.cited_instead = page.cited_instead.map(({ citations, ...rest }, i) => ({ ...rest, cites: citations, trace_id: 1000 - i * 37 }));
    expect(propose('listPages', structuredClone(pages)).report.to_confirm.map((item) => item.path)).toContain('uncited[].cited_instead[].citations');
    const taught = vocabularyOf([['pages[].by_topic[].citations', 'cites', 'evidence']]);
    const { map, report } = proposeOperation(zs, 'listPages', pages, CONFIDENCE_THRESHOLD, { vocabulary: taught });
    expect(map.fields['uncited[].cited_instead[].citations']).toBe('cites');
    expect(report.fields['uncited[].cited_instead[].citations']).toMatchObject({ from: 'cites', by: 'vocabulary' });
    // A name teaches nothing (it reads the same anywhere); the only value of its form does; a key placed for two fields says nothing.
    expect([
      ...vocabularyOf([
        ['a.citations', 'cites', 'synonym'],
        ['b.title', 'hdr', 'form'],
      ]),
    ]).toEqual([['hdr', 'title']]);
    expect(
      vocabularyOf([
        ['a.citations', 'n', 'evidence'],
        ['b.answered_runs', 'n', 'join'],
      ]).size,
    ).toBe(0);
  });

  it("a field the service's word places is joined too, so the word keeps being taught: the next round's vocabulary still holds it", async () => {
    const { brand_id, ...rest } = await ours('listSources');
    const body = { ...rest, kb: brand_id };
    const known: Known = new Map([['brand', new Set<string | number>([brand_id as number])]] as const);
    const vocabulary = vocabularyOf([['brand_id', 'kb', 'join']]);
    const { report } = proposeOperation(zs, 'listSources', body, CONFIDENCE_THRESHOLD, { known, vocabulary });
    expect(report.fields.brand_id).toMatchObject({ from: 'kb', by: 'join' });
    expect(vocabularyOf(Object.entries(report.fields).map(([path, placed]) => [path, placed.from, placed.by] as const)).get('kb')).toBe('brand_id');
    // With nothing to join it, the word alone places it: a word, which teaches nothing in the round after.
    expect(proposeOperation(zs, 'listSources', body, CONFIDENCE_THRESHOLD, { vocabulary }).report.fields.brand_id).toMatchObject({ from: 'kb', by: 'vocabulary' });
  });

  it("the contract's order: of two counts in a list it orders most cited first, the one in that order in every list", async () => {
    const pages = (await ours('listPages')) as { uncited: { cited_instead: Record<string, unknown>[] }[] } & Record<string, unknown>;
    const lists = pages.uncited.filter((page) => page.cited_instead.length > 1).length;
    expect(lists).toBeGreaterThan(1);
    // A shard beside the citations, in no order: `refs` is the one most cited first in every list.
    for (const page of pages.uncited) page.cited_instead = page.cited_instead.map(({ citations, ...rest }, i) => ({ ...rest, refs: citations, shard: [5, 90, 40][i % 3] }));
    const { map, report } = propose('listPages', structuredClone(pages));
    expect(map.fields['uncited[].cited_instead[].citations']).toBe('refs');
    expect(report.fields['uncited[].cited_instead[].citations']).toMatchObject({ from: 'refs', by: 'evidence' });
    // Both in order (a count that falls with the citations): the order tells them apart no more, and a person chooses.
    for (const page of pages.uncited) page.cited_instead = page.cited_instead.map((item, i) => ({ ...item, shard: 100 - i }));
    expect(propose('listPages', pages).report.to_confirm.map((item) => item.path)).toContain('uncited[].cited_instead[].citations');
  });

  it("the brand's name by the answers that name it: of the words /brands holds, the one every naming answer writes and no other", async () => {
    const brands = (await ours('listBrands')) as { brands: { name: string; id: number }[] };
    const runs = await ours('getAnswerRuns');
    const name = brands.brands[0]!.name;
    // Keyed by name, beside a token and the brand's category (which every answer writes, naming the brand or not).
    const keyed = { BRANDS: Object.fromEntries(brands.brands.map((b) => [b.name, { ...b, name: undefined, TRACE: 'xkq7z' }])) };
    expect([...brandNamesByAnswers(keyed, runs)]).toEqual([name]);
    // Runs that tell nothing (none naming the brand, or none not naming it): no name.
    const naming = { runs: valuesAt(runs, 'runs[]').filter((r) => (r as { brand_named: boolean }).brand_named) };
    expect(naming.runs.length).toBeGreaterThan(0);
    expect(brandNamesByAnswers(keyed, naming).size).toBe(0);
  });

  it("names break what a join leaves: of two fields whose values are the brand ids, the one sharing a word with brand_id, or the service's word for it", async () => {
    const { brand_id: brand, ...rest } = (await ours('listTasks')) as { brand_id: number } & Record<string, unknown>;
    const known = new Map([['brand', new Set([brand])]]) as Known;
    const body = { ...rest, brand_ref: brand, region: brand };
    const { map, report } = proposeOperation(zs, 'listTasks', body, CONFIDENCE_THRESHOLD, { known });
    expect(map.fields.brand_id).toBe('brand_ref');
    expect(report.fields.brand_id).toMatchObject({ by: 'join' });
    // Neither shares a word: the service's word from its other answers, or else a question.
    const unnamed = { ...rest, owner: brand, region: brand };
    expect(proposeOperation(zs, 'listTasks', unnamed, CONFIDENCE_THRESHOLD, { known }).report.to_confirm.map((item) => item.path)).toContain('brand_id');
    const taught = vocabularyOf([['brand_id', 'owner', 'join']]);
    expect(proposeOperation(zs, 'listTasks', unnamed, CONFIDENCE_THRESHOLD, { known, vocabulary: taught }).map.fields.brand_id).toBe('owner');
  });

  it("a flat object's fields may carry its entity too, and a name whose values cannot be the field's holds neither it nor its key", async () => {
    const { previous_period: before, ...rest } = (await ours('getAnswerHistory')) as { previous_period: { from: string; to: string } } & Record<string, unknown>;
    const flat = propose('getAnswerHistory', { ...rest, previous_period_period_from: before.from, previous_period_period_to: before.to });
    expect(flat.map.fields).toMatchObject({ previous_period: '.', 'previous_period.from': 'previous_period_period_from', 'previous_period.to': 'previous_period_period_to' });
    // `trend_pts` (text) is named like the history (`trend`) but cannot be a list: the history is the list that holds weeks, the change the text.
    const { history, change, ...visibility } = (await ours('getVisibility')) as { history: unknown[]; change: number } & Record<string, unknown>;
    const renamed = propose('getVisibility', { ...visibility, trend_pts: `${change}%`, weekly_trend: history });
    expect(renamed.map.fields).toMatchObject({ history: 'weekly_trend', change: 'trend_pts' });
    expect(renamed.map.convert.change).toBe('percent-text');
  });

  it('a request whose value the contract takes from an answer that lacks it takes one of the same resource from any answer read', () => {
    const known = new Map([
      ['question_text', new Set(['Which help desk software is best for startups?'])],
      ['rival', new Set(['Deskpilot'])],
    ]) as Known;
    expect(paramsFromKnown('getAnswerRuns', known)).toEqual({ prompt: 'Which help desk software is best for startups?' });
    expect(paramsFromKnown('getCompetitor', known)).toEqual({ name: 'Deskpilot' });
    // No topic is known: getTopic stays unread, as the contract's table says.
    expect(paramsFromKnown('getTopic', known)).toBeUndefined();
  });

  it("a list written as an object is keyed by its items' identity: the one identifier left its keys read as takes them", async () => {
    const { entries, ...rest } = (await ours('listActivity')) as { entries: { id: number }[] } & Record<string, unknown>;
    // Keyed by id, with a number beside each item that no name relates either: the key is the id, the number left unused.
    const byId = Object.fromEntries(entries.map(({ id, ...entry }, i) => [String(id), { ...entry, ui_hint: 100 + 37 * i }]));
    const { report, map } = propose('listActivity', { ...rest, entries: byId });
    expect(map.keyed).toEqual({ entries: 'id' });
    expect(report.fields['entries[].id']).toMatchObject({ from: '(its key)', by: 'form' });
    expect(report.to_confirm).toEqual([]);
    // Markets keyed by a name where both their code and their name are left: two identifiers the keys read as, a question.
    const { markets, ...others } = (await ours('listMarkets')) as { markets: { name: string; code: string }[] } & Record<string, unknown>;
    const byName = Object.fromEntries(markets.map(({ name, code, ...market }) => [name, { ...market, slug: code }]));
    expect(propose('listMarkets', { ...others, markets: byName }).map.keyed ?? {}).toEqual({});
  });

  it('an empty list written as an empty object is nothing to judge by, and reads as an empty list', async () => {
    const competitor = { ...(await ours('getCompetitor')), topics_won: {} };
    const { report, map } = propose('getCompetitor', competitor);
    expect(report.to_confirm.map((item) => item.path)).not.toContain('topics_won');
    expect(report.unseen).toContain('topics_won[]');
    expect(checkResponseBody(zs, 'getCompetitor', JSON.stringify(competitor), map)).toMatchObject({ ok: true });
  });

  it('a change written as a share, under a name nothing relates, is not taken for another number beside it that breaks no rule as it is', async () => {
    const topics = await ours('listTopics');
    const items = (topics.topics as { score: number | null; change: number | null }[]).map((t, i) => {
      const { change, ...rest } = t;
      return { ...rest, score: t.score === null ? null : t.score / 100, trend: change === null ? null : change / 100, weight: 4.3 + 7 * i };
    });
    const { report, map } = propose('listTopics', { ...topics, topics: items });
    // Read as they are the trend's values are shares (points_not_fractions), read as shares they break nothing: as likely as `weight`.
    expect(map.fields['topics[].change']).toBeUndefined();
    expect(report.fields['topics[].change']).toBeUndefined();
    expect(report.to_confirm.map((item) => item.path)).toContain('topics[].change');
  });
});

describe('a discovery run', () => {
  type Answer = DiscoveryRead | ((params: Record<string, string | number>) => DiscoveryRead);
  async function run(answers: Partial<Record<OperationId, Answer>>, today?: string) {
    const calls: [OperationId, Record<string, string | number>][] = [];
    const report = await discoverUpstreamMap(
      async (id, params) => {
        calls.push([id, params]);
        const answer = answers[id] ?? { status: 200, body: await ours(id), cache: 'MISS' };
        return typeof answer === 'function' ? answer(params) : answer;
      },
      today ? { now: () => new Date(`${today}T09:30:00Z`) } : {},
    );
    return { report, calls };
  }

  it('reads the brands first and the operations that need a value last, each value from an answer read before', async () => {
    expect(readingOrder().slice(0, 1)).toEqual(['listBrands']);
    expect(readingOrder().slice(-4).sort()).toEqual(['getAnswerRuns', 'getCompetitor', 'getTask', 'getTopic']);
    // The topics under another name: the id still comes from them, read through the map proposed for them.
    const topics = renameAt(await ours('listTopics'), 'topics', 'results');
    const { report, calls } = await run({ listTopics: { status: 200, body: topics, cache: 'HIT' } });
    expect(calls.map(([id]) => id).sort()).toEqual([...OPERATION_IDS].sort());
    // A list the request limits is asked for at its most (the contract's `limit`), whole.
    const limited = Object.fromEntries(OPERATION_IDS.flatMap((id) => (Object.keys(wholeLists(id)).length > 0 ? [[id, wholeLists(id)]] : [])));
    expect(Object.keys(limited).length).toBeGreaterThan(3);
    expect(Object.fromEntries(calls.filter(([, params]) => Object.keys(params).length > 0))).toEqual({
      ...limited,
      getTopic: { id: 1101 },
      getAnswerRuns: { prompt: valuesAt(await ours('listAnswers'), 'questions[].text')[0] },
      getCompetitor: { name: valuesAt(await ours('listTopics'), 'topics[].rivals[].name')[0] },
      getTask: { id: valuesAt(await ours('listTasks'), 'tasks[].id')[0] },
    });
    expect(report).toMatchObject({ calls: OPERATION_IDS.length, upstream_calls: OPERATION_IDS.length - 1, brand_id: null });
  });

  it('gives `brand_id` to every brand read for a key with several brands', async () => {
    const brands = await ours('listBrands');
    const two = { ...brands, brands: [...(brands.brands as object[]), { ...(brands.brands as object[])[0], id: 7 }] };
    const { calls, report } = await run({ listBrands: { status: 200, body: two } });
    expect(report.brand_id).toBe(1);
    expect(calls.find(([id]) => id === 'listMarkets')![1]).toEqual({ brand_id: 1 });
    expect(calls.find(([id]) => id === 'getTopic')![1]).toEqual({ brand_id: 1, id: 1101 });
  });

  it("reads the answers holding enumeration values for a key's other brands too, and maps a value only another brand shows", async () => {
    const brands = await ours('listBrands');
    const two = { ...brands, brands: [...(brands.brands as object[]), { ...(brands.brands as object[])[0], id: 7 }] };
    const history = (await ours('getAnswerHistory')) as { questions: { outcome: string }[] };
    // The first brand has no question of one outcome; the other brand's are written in the service's own word.
    const outcome = history.questions[0]!.outcome;
    const first = { ...history, questions: history.questions.filter((q) => q.outcome !== outcome) };
    const other = { ...history, brand_id: 7, questions: history.questions.map((q) => (q.outcome === outcome ? { ...q, outcome: 'this-week-x' } : q)) };
    const { calls, report } = await run({ listBrands: { status: 200, body: two }, getAnswerHistory: (params) => ({ status: 200, body: params.brand_id === 7 ? other : first }) });
    expect(report.other_brands_read).toEqual([7]);
    const extra = calls.filter(([, params]) => params.brand_id === 7).map(([id]) => id);
    expect(extra).toContain('getAnswerHistory');
    expect(extra).not.toContain('getTopic');
    expect(report.calls).toBe(OPERATION_IDS.length + extra.length);
    expect(report.map.operations.getAnswerHistory?.values['questions[].outcome']).toEqual({ 'this-week-x': outcome });
  });

  it('probes an echo no read can place: the one key that took the layer asked is `filter.layer`; two keys, or none, leave it', async () => {
    const tasks = (await ours('listTasks')) as { filter: { status: string }; tasks: { layer: string }[] };
    // The filter under words that say nothing: its layer null when none is asked, as the spec's echo is.
    const service =
      (echo: (layer: string | null) => Record<string, unknown>) =>
      (params: Record<string, string | number>): DiscoveryRead => {
        const layer = typeof params.layer === 'string' ? params.layer : null;
        const { filter: _, ...rest } = tasks;
        return { status: 200, body: { ...rest, qz: { st: tasks.filter.status, ...echo(layer) }, tasks: tasks.tasks.filter((t) => layer === null || t.layer === layer) } };
      };
    const once = await run({ listTasks: service((layer) => ({ kv: layer })) });
    const asked = once.calls.filter(([id, params]) => id === 'listTasks' && params.layer !== undefined);
    expect(asked).toEqual([['listTasks', { ...wholeLists('listTasks'), layer: tasks.tasks[0]!.layer }]]);
    expect(once.report.map.operations.listTasks?.fields).toMatchObject({ filter: 'qz', 'filter.layer': 'kv' });
    expect(once.report.operations.listTasks).toMatchObject({ fields: { 'filter.layer': { from: 'kv', by: 'evidence' } }, unplaced: [] });
    expect(once.report.probes).toEqual([
      { purpose: `the echo of \`layer\`: listTasks read with \`layer=${tasks.tasks[0]!.layer}\``, reads: 1, settled: '`filter.layer` is `kv`: the only field that took what it predicts' },
    ]);
    expect(once.report.calls).toBe(OPERATION_IDS.length + 1);
    // Two keys took it, or the service never echoes it: nothing proven, nothing stored.
    for (const echo of [(layer: string | null) => ({ kv: layer, kw: layer }), () => ({ kv: null })]) {
      const { report } = await run({ listTasks: service(echo) });
      expect(report.map.operations.listTasks?.fields['filter.layer']).toBeUndefined();
      expect(report.probes?.map((p) => p.settled)).toEqual(['nothing: no one field took what it predicts']);
    }
  });

  it('probes the window, the market and the limit where one read cannot say, and stores only what the probe proves', async () => {
    // Early in a month every day of the window is 12 or less: a date written day first reads month first as well.
    const today = '2026-03-11';
    const dayFirst = (day: string) => `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}`;
    const pages = await ours('listPages');
    const markets = (await ours('listMarkets')) as { markets: { id: number; code: string }[] };
    expect(markets.markets.length).toBeGreaterThan(1);
    // Both windows under words that say nothing, their dates day first; the market too, beside the key's home market.
    const listPages = (params: Record<string, string | number>): DiscoveryRead => {
      const period = typeof params.from === 'string' ? { from: params.from, to: String(params.to ?? today) } : lastDays(today, Number(params.days ?? 7));
      const market = markets.markets.find((m) => m.code === params.market) ?? markets.markets[0]!;
      const { period: _, previous_period: __, market: ___, ...rest } = pages;
      const written = (p: Period) => ({ qa: dayFirst(p.from), qb: dayFirst(p.to) });
      return {
        status: 200,
        body: { ...rest, zq: written(period), zr: written(previousPeriod(period)), mk: { n1: market.id, n2: market.code, h1: markets.markets[0]!.id, h2: markets.markets[0]!.code } },
      };
    };
    const sources = (await ours('listSources')) as { sources: unknown[] };
    expect(sources.sources.length).toBeGreaterThan(1);
    // Two lists of the same shape: the one `limit` cuts is the sources.
    const listSources = (params: Record<string, string | number>): DiscoveryRead => {
      const { sources: list, ...rest } = sources;
      return { status: 200, body: { ...rest, l1: list.slice(0, Number(params.limit ?? 15)), l2: list } };
    };
    const { report, calls } = await run({ listPages, listSources }, today);
    const asked = (id: OperationId) => calls.filter(([op]) => op === id).map(([, params]) => params);
    expect(report.map.operations.listPages).toMatchObject({
      fields: {
        period: 'zq',
        'period.from': 'qa',
        'period.to': 'qb',
        previous_period: 'zr',
        'previous_period.from': 'qa',
        'previous_period.to': 'qb',
        market: 'mk',
        'market.id': 'n1',
        'market.code': 'n2',
      },
      convert: { 'period.from': 'date-dmy', 'period.to': 'date-dmy', 'previous_period.to': 'date-dmy' },
    });
    // The window ends on the last 25th to 28th before today, 12 days long.
    expect(asked('listPages')).toEqual([{}, { from: '2026-02-17', to: '2026-02-28' }, { market: markets.markets[1]!.code }]);
    expect(report.probes?.filter((p) => /listPages|window|market/.test(p.purpose)).map((p) => [p.purpose, p.settled])).toEqual([
      // The day before the window (4 March) is the one date no other value told the order of.
      ['the window: read with `from=2026-02-17&to=2026-02-28`', '`previous_period.to` is `qb`: the only field that took what it predicts'],
      [`the market: read with \`market=${markets.markets[1]!.code}\`, another of the key's markets`, '`market.id` is `n1`, `market.code` is `n2`: the only field that took what it predicts'],
    ]);
    expect(report.map.operations.listSources?.fields).toMatchObject({ sources: 'l1' });
    expect(asked('listSources')).toEqual([wholeLists('listSources'), { ...wholeLists('listSources'), limit: 1 }]);
  });

  it('reports an operation the key cannot read, and skips what needs a value from it', async () => {
    const refused = { status: 403, error: { code: 'feature_not_in_plan', message: 'listTasks: not in your plan' } };
    const { report, calls } = await run({ listTasks: refused });
    expect(report.operations.listTasks).toEqual({ status: 403, params: wholeLists('listTasks'), error: refused.error });
    expect(report.operations.getTask).toEqual({ status: null, skipped: 'needs `id` from listTasks (`tasks[].id`), which answered 403 feature_not_in_plan' });
    expect(calls.map(([id]) => id)).not.toContain('getTask');
  });

  it('stops at the first read when the key reads nothing, or the service does not answer', async () => {
    const { report, calls } = await run({ listBrands: { status: 401, error: { code: 'invalid_api_key', message: 'listBrands: unknown key' } } });
    expect(calls).toHaveLength(1);
    expect(report.stopped).toEqual({ status: 401, code: 'invalid_api_key', message: 'listBrands: unknown key' });
    expect(Object.keys(report.operations)).toEqual(OPERATION_IDS);
    const down = await run({ listBrands: { status: 0, error: { code: 'network_error', message: 'listBrands: connection refused' } } });
    expect([down.calls.length, down.report.stopped?.code]).toEqual([1, 'network_error']);
  });
});

describe("the key's budget", () => {
  const NOW = new Date('2026-11-25T10:00:00.000Z');
  const limited = (retryAfter: number): DiscoveryRead => ({ status: 429, error: { code: 'rate_limited', message: 'More than 60 requests in a minute.' }, retryAfter });

  /** A discovery whose reads answer `script(id, nth read of id)`, or our body; the waits it asks for are recorded, never slept. */
  async function budgeted(script: (id: OperationId, nth: number) => DiscoveryRead | undefined, paced: boolean) {
    const reads: OperationId[] = [];
    const waits: number[] = [];
    const report = await discoverUpstreamMap(
      async (id) => {
        reads.push(id);
        return script(id, reads.filter((r) => r === id).length) ?? { status: 200, body: await ours(id), cache: 'MISS' };
      },
      { now: () => NOW, ...(paced ? { pace: { sleep: async (ms: number) => void waits.push(ms), maxWaitSeconds: 65 } } : {}) },
    );
    return { report, reads, waits };
  }

  it('stops at a refused read, proposes nothing, and says when it can go on', async () => {
    const { report, reads } = await budgeted((id) => (id === 'listTopics' ? limited(42) : undefined), false);
    expect(report.stopped).toEqual({
      status: 429,
      code: 'rate_limited',
      message: 'More than 60 requests in a minute.',
      operation: 'listTopics',
      retry_after: 42,
      resume_at: '2026-11-25T10:00:42.000Z',
    });
    expect(report.map).toEqual({ operations: {} });
    expect(reads.at(-1)).toBe('listTopics');
    expect(reads).not.toContain('getTopic');
    expect(report.operations.getTopic).toEqual({ status: null, skipped: 'not read: discovery stopped (see `stopped`)' });
  });

  it('paced: waits for the window a 429 names, reads again, and proposes from real answers only', async () => {
    const { report, reads, waits } = await budgeted((id, nth) => (id === 'listTopics' && nth === 1 ? limited(30) : undefined), true);
    expect(waits).toEqual([30_000]);
    expect(reads.filter((id) => id === 'listTopics')).toHaveLength(2);
    expect(report.stopped).toBeUndefined();
    expect(report.waited_seconds).toBe(30);
    expect(report.operations.listTopics).toMatchObject({ status: 200 });
    expect(report.calls).toBe(OPERATION_IDS.length + 1);
  });

  it('paced: waits before a read when the last answer said nothing is left, and stops when the wait is too long', async () => {
    const spent = (id: OperationId) => (id === 'listMarkets' ? { status: 200, body: undefined, rateLimit: { limit: 60, remaining: 0, resetSeconds: 12 } } : undefined);
    const { waits } = await budgeted((id) => {
      const answer = spent(id);
      return answer ? { ...answer, body: { brand_id: 1, markets: [] } } : undefined;
    }, true);
    expect(waits).toEqual([12_000]);
    const { report, waits: none } = await budgeted((id) => (id === 'getVisibility' ? limited(3600) : undefined), true);
    expect(none).toEqual([]);
    expect(report.stopped).toMatchObject({ operation: 'getVisibility', retry_after: 3600, resume_at: '2026-11-25T11:00:00.000Z' });
    expect(report.map).toEqual({ operations: {} });
  });
});
