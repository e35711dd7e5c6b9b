/**
 * House styles (issue 43, item 4): discovery alone in front of services the
 * generator draws (test/styles/generator.ts), scored by the harness
 * (test/styles/harness.ts).
 *
 * Always on: the generator is sound (every styled body reads back to the
 * origin's, its true map reads it back too, its synonyms are mostly unknown to
 * discovery, its sample draws every form, its names are stable per field), the
 * harness measures (a service in the contract's own style leaves nothing and
 * gives the origin's report; a wrong map is caught as a wrong figure called
 * right and as wrong stored placements), and the fixed sample of 50 seeds is
 * run in both classes (`open` and `classic`, see `STYLE_OF`).
 *
 * Issue 43's targets hold on the classic class; issue 57's (nothing wrong
 * stored, no wrong figure called right) on both.
 *
 * `npm run test:styles -- --count 500 [--seed N]` (scripts/test-styles.mjs)
 * runs this file with `STYLES_COUNT`: only the run over that many styles, one
 * `STYLE {json}` line each.
 */
import { env } from 'cloudflare:test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_BASE, examplePath, OPERATION_IDS, type OperationId, operations } from '../src/contract/operations';
import { zodSide } from '../src/contract/zod-side';
import { compareNames, valueCandidates } from '../src/discovery/names';
import {
  applyStyle,
  CASE_NAMES,
  classicStyleOf,
  describeStyle,
  type EnumKind,
  type HouseStyle,
  invertStyle,
  NAME_SYNONYMS,
  OPTIONAL_OPERATIONS,
  contractStyle,
  styleOf,
  styleOmits,
  trueMapOf,
  trueOperationMap,
  VALUE_SYNONYMS,
} from './styles/generator';
import { checkResponseBody } from '../src/contract/body';
import type { OperationMap } from '../src/contract/schemas/upstream-map';
import { compareFields, flatten, originAnswer, runStyle, scoreOperations, storedAgainstTruth, type StyleResult, styleLine } from './styles/harness';
import { CONTENT_ACTIONS, OUTCOMES, SOURCE_CLASSES, STATES } from '../src/contract/enums';
import { DAY_MS, HOUR_MS } from '../src/lib/time';

const bindings = env as unknown as Record<string, string | undefined>;
const COUNT = Number(bindings.STYLES_COUNT ?? 0);
/** `npm run test:styles -- --classic`: the styles as issue 43 drew them (English or token names, no codes). */
const drawn = bindings.STYLES_CLASS === 'classic' ? classicStyleOf : styleOf;
const FIRST_SEED = Number(bindings.STYLES_SEED ?? 1);

/** The fixed sample: the styles of seeds 1 to 50. */
export const SAMPLE_SEEDS: readonly number[] = Array.from({ length: 50 }, (_, i) => i + 1);
const REQUIRED: OperationId[] = ['listBrands', 'getVisibility', 'getAnswerHistory'];

const zs = await zodSide();

/** The origin's body of each operation's example request. */
async function originBodies(): Promise<Record<OperationId, unknown>> {
  const out = {} as Record<OperationId, unknown>;
  for (const id of OPERATION_IDS) out[id] = JSON.parse((await originAnswer(env.DB, new URL(`http://x${API_BASE}${examplePath(operations[id])}`))).text);
  return out;
}

/**
 * The two classes of the fixed sample: `open`, the styles the generator draws now (names in English, German, Spanish,
 * French or tokens, stable per field, a share of them vendor codes), and `classic`, the same seeds as issue 43 drew
 * them (English or tokens, no codes), whose targets hold as a floor.
 */
type StyleClass = 'open' | 'classic';
const STYLE_OF: Record<StyleClass, (seed: number) => HouseStyle> = { open: styleOf, classic: classicStyleOf };

/** Each style's result, run once per file run. */
const running = new Map<string, Promise<StyleResult>>();
/**
 * Noon UTC of the run's day (test/run-clock.ts): the instant every style is read at, whatever the hour the file runs.
 * The clock the origin reads is set to it too, so the origin's windows and discovery's `now` agree.
 */
const now = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS + 12 * HOUR_MS);
beforeAll(() => {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(now);
});
afterAll(() => vi.useRealTimers());
function resultOf(seed: number, drawnAs: StyleClass): Promise<StyleResult> {
  const key = `${drawnAs} ${seed}`;
  let result = running.get(key);
  if (!result) running.set(key, (result = runStyle(STYLE_OF[drawnAs](seed), env, now)));
  return result;
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Every number of `value`, and every object key (a list keyed by id or name), as found. */
function leavesAndKeys(value: unknown, into = new Set<unknown>()): Set<unknown> {
  if (Array.isArray(value)) value.forEach((v) => leavesAndKeys(v, into));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      leavesAndKeys(v, into);
    }
  else into.add(value);
  return into;
}
const numbersOf = (value: unknown): number[] => [...leavesAndKeys(value)].filter((v): v is number => typeof v === 'number');

describe.skipIf(COUNT > 0)('the generator', () => {
  const styles = SAMPLE_SEEDS.map(styleOf);

  it('is reproduced from its seed, and writes the same body the same way every time', async () => {
    const bodies = await originBodies();
    expect(styleOf(7)).toEqual(styleOf(7));
    expect(styleOf(7).seed).toBe(7);
    expect(styleOf(7)).not.toEqual(styleOf(8));
    for (const id of ['getVisibility', 'getPromptMatrix'] as const) expect(JSON.stringify(applyStyle(styleOf(7), id, bodies[id]))).toBe(JSON.stringify(applyStyle(styleOf(7), id, bodies[id])));
  });

  it("loses nothing: each styled body of the sample reads back to the origin's (invertStyle), and holds every number in some form", async () => {
    const bodies = await originBodies();
    const lost: string[] = [];
    for (const style of styles)
      for (const id of OPERATION_IDS) {
        const styled = JSON.parse(JSON.stringify(applyStyle(style, id, bodies[id])));
        const { counts, examples } = compareFields(bodies[id], invertStyle(style, id, styled));
        if (counts.equal !== counts.total || counts.extra > 0) lost.push(`seed ${style.seed} ${id}: ${examples.join('; ')}`);
        // Each number of the origin's body is in the styled one as it is, as a share, in basis points, as a percent string, or a key.
        const found = leavesAndKeys(styled);
        for (const n of numbersOf(bodies[id])) {
          const forms = [n, Math.round(n * 100) / 10_000, Math.round(n * 100), `${n}%`, String(n)];
          if (!forms.some((f) => found.has(f)) && !found.has(n * 1000) && !found.has(n / 1000)) lost.push(`seed ${style.seed} ${id}: the number ${n} is nowhere`);
        }
      }
    expect(lost.slice(0, 10)).toEqual([]);
  });

  it("has a true map that reads every styled body of the sample back to the origin's (the measure of stored placements)", async () => {
    const bodies = await originBodies();
    const wrong: string[] = [];
    for (const style of styles)
      for (const id of OPERATION_IDS) {
        const styled = JSON.stringify(applyStyle(style, id, bodies[id]));
        const checked = checkResponseBody(zs, id, styled, trueOperationMap(style, id) as OperationMap);
        if (!checked.ok) wrong.push(`seed ${style.seed} ${id}: ${checked.message}`);
        else {
          const { counts, examples } = compareFields(bodies[id], checked.data);
          if (counts.different + counts.missing > 0) wrong.push(`seed ${style.seed} ${id}: ${examples.join('; ')}`);
        }
      }
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it('names each field one way in every answer: the same field under the same holder, the same name (a real service keeps its words)', () => {
    const seen = new Map<string, Set<string>>();
    for (const style of styles)
      for (const id of OPERATION_IDS) {
        const { fields } = trueMapOf(style, id);
        for (const [path, from] of Object.entries(fields)) {
          if (from === '.' || from.includes('.')) continue;
          const parts = path.split('.');
          const name = parts.at(-1)!;
          // Inside an object written flat, a name carries its object's; elsewhere its holder's entity at most.
          if (parts.length > 1 && fields[parts.slice(0, -1).join('.')] === '.') continue;
          const holder = (parts.at(-2) ?? '').replace('[]', '');
          const key = `${style.seed} ${name} in ${holder}`;
          (seen.get(key) ?? seen.set(key, new Set()).get(key)!).add(from);
        }
      }
    const many = [...seen].filter(([, names]) => names.size > 1);
    // A name taken in one object by another field is written another way there: rare, never the rule.
    expect(many.length / seen.size).toBeLessThan(0.02);
  });

  it("writes bodies that are not the contract's as sent, for most styles", async () => {
    const bodies = await originBodies();
    const passAsSent = (style: HouseStyle) => OPERATION_IDS.filter((id) => !styleOmits(style, id) && zs.response(id).safeParse(applyStyle(style, id, bodies[id])).success).length;
    const mostlyForeign = styles.filter((style) => passAsSent(style) <= OPERATION_IDS.length / 4);
    expect(mostlyForeign.length).toBeGreaterThanOrEqual(styles.length * 0.9);
  });

  it('keeps the operations: the three a report requires always, an omitted one with the operations that take a value from it', () => {
    for (const style of styles) {
      for (const id of REQUIRED) expect(styleOmits(style, id)).toBe(false);
      expect(style.omitted.every((id) => OPTIONAL_OPERATIONS.includes(id))).toBe(true);
      if (styleOmits(style, 'listTopics')) expect([styleOmits(style, 'getTopic'), styleOmits(style, 'getCompetitor')]).toEqual([true, true]);
      if (styleOmits(style, 'listTasks')) expect(styleOmits(style, 'getTask')).toBe(true);
      if (styleOmits(style, 'listAnswers')) expect(styleOmits(style, 'getAnswerRuns')).toBe(true);
    }
    const provided = styles.map((style) => OPERATION_IDS.filter((id) => !styleOmits(style, id)).length);
    expect(Math.min(...provided)).toBeGreaterThanOrEqual(OPERATION_IDS.length - 10);
    expect(provided.filter((n) => n === OPERATION_IDS.length).length).toBeGreaterThan(0);
  });

  it('draws every form in the sample: each case, envelope, unit, date form, enum and engine spelling; flat parents, keyed lists, extras; one style in five token-named', async () => {
    const bodies = await originBodies();
    const seen = (pick: (s: HouseStyle) => string) => new Set(styles.map(pick));
    expect(seen((s) => s.caseName)).toEqual(new Set(CASE_NAMES));
    expect(seen((s) => (s.envelope.kind === 'none' ? 'none' : `${s.envelope.data}${s.envelope.status ? '+status' : ''}`)).size).toBeGreaterThanOrEqual(5);
    expect(styles.some((s) => s.envelope.kind === 'wrap' && s.envelope.movedTimestamp)).toBe(true);
    expect(seen((s) => s.unit)).toEqual(new Set(['points', 'fraction', 'string', 'bps']));
    expect(seen((s) => s.dayForm)).toEqual(new Set(['date', 'midnight', 'epoch_s', 'epoch_ms']));
    expect(seen((s) => s.timeForm)).toEqual(new Set(['iso', 'epoch_s', 'epoch_ms']));
    expect(seen((s) => s.engines.form).size).toBe(5);
    expect(seen((s) => s.enums.state.spelling).size).toBeGreaterThanOrEqual(5);
    const tokenNamed = styles.filter((s) => s.tokenNamed).length;
    expect(tokenNamed).toBeGreaterThanOrEqual(5);
    expect(tokenNamed).toBeLessThanOrEqual(20);
    // In the bodies: a list keyed by name, the market written flat, an engine of its own, an extra field.
    const texts = styles.filter((s) => !s.tokenNamed).map((s) => JSON.stringify(applyStyle(s, 'listTopics', bodies.listTopics)));
    expect(texts.some((t) => t.includes('"Deskpilot":') || t.includes('"Best help desk software overall":'))).toBe(true);
    expect(texts.some((t) => /"(market_?id|MarketId|market-id|MARKET_ID)":11/.test(t))).toBe(true);
    expect(styles.some((s) => s.extraEngines.length > 0 && JSON.stringify(applyStyle(s, 'getPromptMatrix', bodies.getPromptMatrix)).includes('"runs":0'))).toBe(true);
    expect(styles.some((s) => s.extra > 0)).toBe(true);
    expect(seen((s) => (s.pages.kind === 'none' ? 'none' : `${s.pages.kind} ${s.pages.size}`))).toEqual(new Set(['none', 'cursor 5', 'cursor 10', 'link 5', 'link 10']));
    // A token-named style names nothing by the contract's names.
    const token = styles.find((s) => s.tokenNamed)!;
    const names = [...leavesAndKeys(applyStyle(token, 'getVisibility', bodies.getVisibility))].filter((k) => typeof k === 'string' && /^f_[0-9a-z]{4}$/.test(k));
    expect(names.length).toBeGreaterThan(10);
    expect(Object.keys(applyStyle(token, 'getVisibility', bodies.getVisibility) as object).every((k) => /^f_[0-9a-z]{4}$/.test(k))).toBe(true);
  });

  it("has its own synonyms: at least half of them are unknown to discovery's tables (src/discovery/names.ts)", () => {
    const pairs = Object.entries(NAME_SYNONYMS).flatMap(([name, synonyms]) => synonyms.map((synonym) => [name, synonym] as const));
    const unknown = pairs.filter(([name, synonym]) => compareNames(name, synonym) === undefined);
    expect(unknown.length / pairs.length).toBeGreaterThanOrEqual(0.5);
    const closed: Record<EnumKind, readonly string[]> = { state: STATES, outcome: OUTCOMES, action: CONTENT_ACTIONS, class: SOURCE_CLASSES, direction: ['gained', 'lost'] };
    const values = Object.entries(VALUE_SYNONYMS).flatMap(([kind, byValue]) => Object.entries(byValue).flatMap(([value, synonyms]) => synonyms.map((s) => [kind as EnumKind, value, s] as const)));
    const unknownValues = values.filter(([kind, value, synonym]) => !valueCandidates(closed[kind], synonym).some((c) => c.to === value && c.confidence >= 0.75));
    expect(unknownValues.length / values.length).toBeGreaterThanOrEqual(0.5);
  });

  it('describes a style in one line', () => {
    for (const style of styles) expect(describeStyle(style)).toMatch(/^[^\n]+$/);
    expect(describeStyle(styles.find((s) => s.tokenNamed)!)).toMatch(/^token names/);
  });
});

describe.skipIf(COUNT > 0)('the harness', () => {
  const plain = contractStyle();

  it("in front of the contract's own style: nothing left, the report and every body the origin's", async () => {
    const result = await runStyle(plain, env, now);
    expect(result).toMatchObject({ entriesLeft: 0, unread: [], reportEqual: true, wrongCalledRight: [] });
    expect(result.reportFields.total).toBeGreaterThan(100);
    expect(result.provided).toEqual(OPERATION_IDS);
    expect(Object.values(result.operations).every((op) => op.passes && op.equal)).toBe(true);
  });

  it.each([
    ['a token', { kind: 'cursor', size: 5, param: 'page_token' }],
    ['a link', { kind: 'link', size: 10, param: 'page' }],
  ] as const)("in the contract's own style with its long lists in pages behind %s: each found, read whole, stored, and the report the origin's", async (_, pages) => {
    const result = await runStyle({ ...plain, pages }, env, now);
    expect(result).toMatchObject({ entriesLeft: 0, reportEqual: true, wrongCalledRight: [], wrongStored: [], pagesMissed: [] });
    // Lists a report reads are among those longer than a page: pages were found, not assumed away.
    expect(result.pagesStored).toEqual(expect.arrayContaining(['getAnswerHistory', 'getPromptMatrix']));
  });

  it('in PascalCase inside an envelope, which the client reads with no map: the same', async () => {
    const result = await runStyle({ ...plain, caseName: 'pascal', envelope: { kind: 'wrap', data: 'data', status: false, movedTimestamp: false } }, env, now);
    expect(result).toMatchObject({ entriesLeft: 0, reportEqual: true, wrongCalledRight: [] });
  });

  it("counts a wrong map's figures as wrong figures called right, and an omitted operation as not provided", async () => {
    // (A body that passes as sent is never read through the map: PascalCase, so the map is asked.)
    const swapped = { fields: { naming_runs: 'AnsweredRuns', answered_runs: 'NamingRuns' }, convert: {}, values: {} };
    const { scores, wrongCalledRight } = await scoreOperations(env.DB, { ...plain, caseName: 'pascal' }, ['getVisibility', 'listTopics'], (id) => (id === 'getVisibility' ? swapped : undefined));
    expect(scores.getVisibility).toMatchObject({ passes: true, equal: false, fields: { different: 2 } });
    expect(scores.listTopics).toMatchObject({ passes: true, equal: true });
    expect(wrongCalledRight).toEqual([{ operation: 'getVisibility', different: 2, examples: expect.arrayContaining([expect.stringMatching(/^naming_runs: \d+ vs origin \d+$/)]) }]);
    const omitted = await runStyle({ ...plain, omitted: ['listPages', 'getAiVisitors'] }, env, now);
    expect(omitted.provided).toEqual(OPERATION_IDS.filter((id) => id !== 'listPages' && id !== 'getAiVisitors'));
    expect(omitted.reportEqual).toBe(true);
  });

  it("counts a stored placement the style's true map contradicts, and none of a true map written out", () => {
    const style = styleOf(3);
    const truth = trueMapOf(style, 'getVisibility');
    const right = { fields: truth.fields, convert: {}, values: {}, ...(truth.envelope ? { envelope: truth.envelope } : {}) };
    // The true map itself, with the conversions its leaves need: nothing wrong.
    const convert = Object.fromEntries(Object.entries(truth.leaves).flatMap(([path, leaf]) => (leaf.convert && truth.fields[path] !== undefined ? [[path, leaf.convert]] : [])));
    expect(storedAgainstTruth(style, { getVisibility: { ...right, convert } }).wrong).toEqual([]);
    const swapped = { ...right, convert, fields: { ...truth.fields, naming_runs: truth.fields.answered_runs!, answered_runs: truth.fields.naming_runs! } };
    expect(storedAgainstTruth(style, { getVisibility: swapped }).wrong).toEqual(
      [expect.stringMatching(/^getVisibility fields answered_runs: /), expect.stringMatching(/^getVisibility fields naming_runs: /)].sort(),
    );
    expect(storedAgainstTruth(style, { getVisibility: { ...right, convert, envelope: 'elsewhere' } }).wrong).toEqual([expect.stringMatching(/^getVisibility envelope : "elsewhere"/)]);
  });

  it('flattens reports and bodies to fields, timestamps as instants', () => {
    expect([...flatten({ a: [{ b: 1 }, { b: null }], t: '2026-11-27T06:05:55Z', e: [] })]).toEqual([
      ['a[0].b', 1],
      ['a[1].b', null],
      ['t', `@${Date.parse('2026-11-27T06:05:55.000Z')}`],
      ['e', '[]'],
    ]);
    expect(compareFields({ a: 1, b: 2 }, { a: 1, c: 3 }).counts).toEqual({ total: 2, equal: 1, different: 0, missing: 1, extra: 1 });
  });

  // Chunks of 5: each runs in a few seconds, far from its timeout on a machine twice as slow.
  const chunks = (['open', 'classic'] as const).flatMap((drawnAs) => Array.from({ length: 10 }, (_, i) => [drawnAs, SAMPLE_SEEDS.slice(i * 5, i * 5 + 5)] as const));
  it.each(chunks.map(([drawnAs, seeds]) => [drawnAs, seeds[0], seeds.at(-1), seeds] as const))(
    'runs the fixed sample (%s), seeds %i to %i, and scores each',
    async (drawnAs, _, __, seeds) => {
      for (const seed of seeds) {
        const result = await resultOf(seed, drawnAs);
        expect(result.seed).toBe(seed);
        expect(result.reportFields.total).toBeGreaterThan(100);
        for (const id of REQUIRED) expect(result.provided).toContain(id);
        expect(result.provided.length + result.omitted.length).toBe(OPERATION_IDS.length);
      }
    },
    120_000,
  );
});

/**
 * Issue 43's targets on the fixed sample, met since 2026-11-28 and held as of 2026-12-31, 2027-02-10, 2027-04-13,
 * 2027-06-15 and 2027-09-01 too (`TEST_DAY`; the demo data moves with the day: an answer state seen one day and not
 * the next): for named styles at most 10 entries left each (median at most 2, below the issue's 3: a floor that
 * fails the day it is lost), every operation provided read, and every weekly report equal to the origin's; for
 * token-named styles no wrong figure called right. The 500 styles of `npm run test:styles -- --count 500` meet them
 * too (docs/benchmarks.md).
 */
describe.runIf(COUNT === 0)('issue 43 targets, on the fixed sample as issue 43 drew it (classic)', () => {
  const all = () => Promise.all(SAMPLE_SEEDS.map((seed) => resultOf(seed, 'classic')));

  it('named styles: discovery alone leaves at most 10 entries each, median at most 2, and reads every operation provided', async () => {
    const named = (await all()).filter((r) => !r.tokenNamed);
    expect(named.filter((r) => r.entriesLeft > 10).map((r) => styleLine(r.seed, r))).toEqual([]);
    expect(median(named.map((r) => r.entriesLeft))).toBeLessThanOrEqual(2);
    expect(named.filter((r) => r.unread.length > 0).map((r) => `${r.seed}: ${r.unread.join(', ')}`)).toEqual([]);
  }, 120_000);

  it("named styles: with its map the weekly report equals the origin's, field by field", async () => {
    const named = (await all()).filter((r) => !r.tokenNamed);
    expect(named.filter((r) => !r.reportEqual).map((r) => `${styleLine(r.seed, r)}: ${r.reportError ?? r.reportExamples.join('; ')}`)).toEqual([]);
  }, 120_000);

  it('token-named styles: no wrong figure called right, and the entries left are stated', async () => {
    const tokens = (await all()).filter((r) => r.tokenNamed);
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.flatMap((r) => r.wrongCalledRight.map((w) => `seed ${r.seed} ${w.operation}: ${w.examples.join('; ')}`))).toEqual([]);
    for (const r of tokens) expect(Number.isInteger(r.entriesLeft)).toBe(true);
  }, 120_000);
});

/**
 * Issue 57 on the fixed sample in both classes, other languages, codes and tokens among them: every placement the
 * map stores is the style's own, no wrong figure is called right, every operation provided is read.
 */
/**
 * Run first (the tests shuffled), one of these reads every style of both classes itself, not from the groups above:
 * 100 styles at about 4 s each on this machine, twice that loaded, and a margin of as much again.
 */
const WHOLE_SAMPLE = 1_600_000;

describe.runIf(COUNT === 0)('issue 57: nothing wrong stored, on the fixed sample in both classes', () => {
  const both = () => Promise.all((['open', 'classic'] as const).flatMap((drawnAs) => SAMPLE_SEEDS.map((seed) => resultOf(seed, drawnAs).then((r) => ({ drawnAs, r })))));

  it(
    "every style: each placement the map stores is the style's own (its true map)",
    async () => {
      const results = await both();
      expect(results.flatMap(({ drawnAs, r }) => r.wrongStored.map((w) => `${drawnAs} seed ${r.seed} ${w}`))).toEqual([]);
      // Something is stored in every style: the check above is not met by storing nothing.
      for (const { r } of results) expect(r.stored).toBeGreaterThan(r.tokenNamed ? 200 : 50);
    },
    WHOLE_SAMPLE,
  );

  it(
    'every style: no wrong figure called right, and every operation provided read',
    async () => {
      const results = await both();
      expect(results.flatMap(({ drawnAs, r }) => r.wrongCalledRight.map((w) => `${drawnAs} seed ${r.seed} ${w.operation}: ${w.examples.join('; ')}`))).toEqual([]);
      expect(results.filter(({ r }) => r.unread.length > 0).map(({ drawnAs, r }) => `${drawnAs} ${r.seed}: ${r.unread.join(', ')}`)).toEqual([]);
      // A list in pages is found wherever it is longer than a page: nothing reads part of a list as the whole.
      expect(results.filter(({ r }) => r.pagesMissed.length > 0).map(({ drawnAs, r }) => `${drawnAs} ${r.seed}: ${r.pagesMissed.join(', ')}`)).toEqual([]);
      expect(results.filter(({ r }) => r.pagesStored.length > 0).length).toBeGreaterThanOrEqual(10);
    },
    WHOLE_SAMPLE,
  );

  it(
    "the open class's floors, each failing the day it is lost: named styles median at most 1 entry left and at most 5 each, token-named median at most 15, the weekly report equal to the origin's in 98% of styles, and the report and every body in all once the entries left are answered from the true map (issue 57's targets)",
    async () => {
      const open = await Promise.all(SAMPLE_SEEDS.map((seed) => resultOf(seed, 'open')));
      // Median 1 since 2026-12-04 (25 of 41 named styles at 1 or none).
      expect(median(open.filter((r) => !r.tokenNamed).map((r) => r.entriesLeft))).toBeLessThanOrEqual(1);
      // The most left in one named style: 3 since 2026-12-06 (on two days of the demo data), held to the target.
      const most = open.filter((r) => !r.tokenNamed).sort((a, b) => b.entriesLeft - a.entriesLeft)[0]!;
      expect(most.entriesLeft, `${styleLine(most.seed, most)}: ${most.leftEntries.join(', ')}`).toBeLessThanOrEqual(5);
      expect(median(open.filter((r) => r.tokenNamed).map((r) => r.entriesLeft))).toBeLessThanOrEqual(15);
      // 50 of 50 since 2026-12-04; one style may differ on a day the demo data shows it a value no other read does.
      const unequal = open.filter((r) => !r.reportEqual).map((r) => `${styleLine(r.seed, r)}: ${r.reportError ?? r.reportExamples.slice(0, 2).join('; ')}`);
      expect(unequal.length, unequal.join('\n')).toBeLessThanOrEqual(Math.floor(open.length * 0.02));
      // Once a person answers each entry left from the style's true map, every report and every body is the origin's,
      // token-named too: what discovery left were the right questions, and nothing it stored stands in the way.
      const unanswered = open.filter((r) => !r.answeredReportEqual).map((r) => `${styleLine(r.seed, r)}: ${r.answeredReportExamples.slice(0, 2).join('; ')}`);
      expect(unanswered, unanswered.join('\n')).toEqual([]);
      expect(open.flatMap((r) => r.answeredUnequal.map((line) => `seed ${r.seed} ${line}`))).toEqual([]);
    },
    WHOLE_SAMPLE,
  );

  it('the open class draws other languages, codes and tokens', () => {
    const styles = SAMPLE_SEEDS.map(styleOf);
    expect(new Set(styles.filter((s) => !s.tokenNamed).map((s) => s.language ?? 'en'))).toEqual(new Set(['en', 'de', 'es', 'fr']));
    expect(styles.filter((s) => !s.tokenNamed && s.codes > 0).length).toBeGreaterThanOrEqual(10);
    expect(styles.filter((s) => s.tokenNamed).length).toBeGreaterThanOrEqual(5);
  });
});

describe.runIf(COUNT > 0)('npm run test:styles', () => {
  it(`runs ${COUNT} styles from seed ${FIRST_SEED}`, async () => {
    for (let seed = FIRST_SEED; seed < FIRST_SEED + COUNT; seed++) {
      let line: Record<string, unknown>;
      try {
        const r = await runStyle(drawn(seed), env, now);
        line = {
          seed,
          description: r.description,
          tokenNamed: r.tokenNamed,
          entriesLeft: r.entriesLeft,
          unread: r.unread.length,
          reportEqual: r.reportEqual,
          reportFields: r.reportFields,
          reportFailed: r.reportError !== undefined,
          answeredReportEqual: r.answeredReportEqual,
          answeredUnequal: r.answeredUnequal.length,
          wrongCalledRight: r.wrongCalledRight.length,
          stored: r.stored,
          wrongStored: r.wrongStored.length,
          ms: r.ms,
          ...(bindings.STYLES_DETAIL === 'on'
            ? {
                left: r.leftEntries,
                leftWhy: r.leftWhy,
                unreadOps: r.unread,
                reportError: r.reportError,
                reportExamples: r.reportExamples.slice(0, 6),
                answeredReportExamples: r.answeredReportExamples.slice(0, 6),
                answeredUnequalOps: r.answeredUnequal,
                wrong: r.wrongCalledRight,
                wrongStoredEntries: r.wrongStored,
              }
            : {}),
        };
      } catch (error) {
        line = { seed, error: String(error) };
      }
      console.log(`STYLE ${JSON.stringify(line)}`);
    }
  }, 0);
});
