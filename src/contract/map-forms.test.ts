/**
 * Every form a real service writes a value the contract holds, said by the
 * upstream map (src/contract/upstream-map.ts, conform.ts) and by the
 * enumeration spelling rules (src/contract/enum-spelling.ts), tried on
 * seeded generators of values rather than on examples: a percentage as a
 * share, as text with a % sign, in basis points; a date or a time as a
 * date-time, epoch seconds or milliseconds; a list keyed as an object; a
 * field beside the envelope; an enumeration's value in any case, with
 * other separators, under a vendor's name or a synonym, never seen before.
 *
 * Left out by the generators: percentages with more than one decimal (the
 * contract writes one), dates before 1973 in epoch milliseconds (read as
 * seconds), and keys of a keyed list that are whole numbers out of order (a
 * JSON object puts those first, in order, whatever the service wrote).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conformBody } from './conform';
import { oursUnderVendor, spelledValue, VALUE_SYNONYMS } from './enum-spelling';
import { ACTIVITY_CATEGORIES, ENGINES, OUTCOMES, STATES } from './enums';
import { convertValue } from './upstream-map';
import { upstreamMapSchemas } from './schemas/upstream-map';
import { zodSide } from './zod-side';

const zs = await zodSide();
const SEED = 4301;
const runs = { seed: SEED, numRuns: 300 };

/** A percentage as the contract writes it: 0 to 100, one decimal. */
const percentage = fc.integer({ min: 0, max: 1000 }).map((tenths) => tenths / 10);
/** A UTC day from 1990 to 2100. */
const day = fc.integer({ min: Date.UTC(1990, 0, 1) / 86_400_000, max: Date.UTC(2100, 0, 1) / 86_400_000 }).map((d) => new Date(d * 86_400_000).toISOString().slice(0, 10));
const instant = fc.integer({ min: Date.UTC(1990, 0, 1) / 1000, max: Date.UTC(2100, 0, 1) / 1000 }).map((s) => new Date(s * 1000).toISOString());

describe('a percentage', () => {
  it('reads back from a share, text with a % sign, and basis points', () => {
    fc.assert(
      fc.property(percentage, (p) => {
        expect(convertValue('percent', Number((p / 100).toFixed(4)))).toBe(p);
        expect(convertValue('percent', String(p / 100))).toBe(p);
        expect(convertValue('percent-text', `${p}%`)).toBe(p);
        expect(convertValue('percent-text', ` ${p.toFixed(1)} %`)).toBe(p);
        expect(convertValue('basis-points', Math.round(p * 100))).toBe(p);
      }),
      runs,
    );
  });

  it('is left as it is, for the contract to refuse, when it is not in the form the map says', () => {
    expect(convertValue('percent-text', '55.9')).toBe('55.9');
    expect(convertValue('percent-text', 'n/a')).toBe('n/a');
    expect(convertValue('basis-points', 'lots')).toBe('lots');
    expect(convertValue('percent', null)).toBeNull();
  });
});

describe('a date and a time', () => {
  it('read back from a date-time at midnight, epoch seconds and epoch milliseconds, as numbers or digits', () => {
    fc.assert(
      fc.property(day, (d) => {
        const ms = Date.parse(`${d}T00:00:00Z`);
        for (const form of [`${d}T00:00:00Z`, `${d}T00:00:00.000Z`, ms, ms / 1000, String(ms), String(ms / 1000)]) expect(convertValue('date', form), String(form)).toBe(d);
      }),
      runs,
    );
    fc.assert(
      fc.property(instant, (t) => {
        const ms = Date.parse(t);
        for (const form of [t, t.replace('T', ' ').replace('.000Z', ''), ms, ms / 1000, String(ms)]) expect(convertValue('date-time', form), String(form)).toBe(t);
      }),
      runs,
    );
  });

  it('reads a date in any order of year, month and day, with any separator, and a date-time with an offset as the day it names', () => {
    const separator = fc.constantFrom('/', '.', '-', ' ');
    const pad = fc.boolean();
    fc.assert(
      fc.property(day, separator, pad, fc.option(fc.constantFrom(' 08:30', 'T23:59:59', ', 00:00')), (d, sep, padded, time) => {
        const [y, m, dd] = d.split('-') as [string, string, string];
        const p = (part: string) => (padded ? part : String(Number(part)));
        const at = time ?? '';
        expect(convertValue('date-dmy', `${p(dd)}${sep}${p(m)}${sep}${y}${at}`)).toBe(d);
        expect(convertValue('date-mdy', `${p(m)}${sep}${p(dd)}${sep}${y}${at}`)).toBe(d);
        expect(convertValue('date-ymd', `${y}${sep}${p(m)}${sep}${p(dd)}${at}`)).toBe(d);
        expect(convertValue('date-ymd', `${y}${m}${dd}`)).toBe(d);
      }),
      runs,
    );
    // The day written before the time, whatever the offset: 01:30 at +02:00 is 23:30 UTC the day before, and still this day.
    fc.assert(
      fc.property(day, fc.integer({ min: -12, max: 14 }), fc.integer({ min: 0, max: 23 }), (d, offset, hour) => {
        const zone = `${offset < 0 ? '-' : '+'}${String(Math.abs(offset)).padStart(2, '0')}:00`;
        expect(convertValue('date', `${d}T${String(hour).padStart(2, '0')}:30:00${zone}`)).toBe(d);
        expect(convertValue('date-time', `${d}T00:00:00${zone}`)).toBe(new Date(Date.parse(`${d}T00:00:00Z`) - offset * 3_600_000).toISOString());
      }),
      runs,
    );
  });

  it('refuses what is no calendar day in the order named, leaving it for the contract to refuse', () => {
    // The 25th read month first is month 25; day first, 2 December is not 12 February.
    expect(convertValue('date-mdy', '25/12/2026')).toBe('25/12/2026');
    expect(convertValue('date-dmy', '25/12/2026')).toBe('2026-12-25');
    expect(convertValue('date-dmy', '02/12/2026')).toBe('2026-12-02');
    expect(convertValue('date-mdy', '02/12/2026')).toBe('2026-02-12');
    for (const v of ['31/11/2026', '29/02/2026', '12/12/26', '2026/13/01', 'soon', 20261301]) expect(convertValue(v === '2026/13/01' || v === 20261301 ? 'date-ymd' : 'date-dmy', v)).toBe(v);
    expect(convertValue('date-dmy', '29/02/2028')).toBe('2028-02-29');
  });

  it('is left as it is past what a date can be, never a thrown error', () => {
    for (const v of [9e20, -9e20, 'tomorrow', '', true]) {
      expect(convertValue('date', v)).toBe(v);
      expect(convertValue('date-time', v)).toBe(v);
    }
  });
});

describe('an enumeration value', () => {
  const spellings: fc.Arbitrary<(words: string[]) => string> = fc.constantFrom(
    (w) => w.join('_'),
    (w) => w.join('-').toUpperCase(),
    (w) => w.map((x) => x[0]!.toUpperCase() + x.slice(1)).join(''),
    (w) =>
      w[0]! +
      w
        .slice(1)
        .map((x) => x[0]!.toUpperCase() + x.slice(1))
        .join(''),
    (w) => w.join(' '),
    (w) => w.join('_').toUpperCase(),
  );

  it('in any case and with any separators is ours, closed or open', () => {
    fc.assert(
      fc.property(fc.constantFrom(...STATES, ...OUTCOMES), spellings, (value, spell) => {
        const ours = (STATES as readonly string[]).includes(value) ? STATES : OUTCOMES;
        const written = spell(value.split('_'));
        expect(spelledValue(written, ours) ?? written).toBe(value);
      }),
      runs,
    );
  });

  it("under a vendor's prefix or suffix is one of our engines, in any spelling; another vendor's engine is carried", () => {
    const vendors = fc.constantFrom('openai', 'anthropic', 'google', 'microsoft', 'perplexity', 'acme', 'ai');
    fc.assert(
      fc.property(fc.constantFrom(...ENGINES), vendors, fc.boolean(), spellings, (engine, vendor, before, spell) => {
        const words = before ? [vendor, ...engine.split('_')] : [...engine.split('_'), vendor];
        // A vendor word that is itself one of our engines makes the value two of ours: not guessed.
        if (words.join('') !== engine.replaceAll('_', '') && !ENGINES.some((e) => e !== engine && words.join('').includes(e.replaceAll('_', ''))))
          expect(spelledValue(spell(words), ENGINES, true)).toBe(engine);
      }),
      runs,
    );
    expect(spelledValue('xai-grok', ENGINES, true)).toBeUndefined();
    expect(oursUnderVendor('GROK_4', ENGINES)).toBeUndefined();
    expect(spelledValue('OPENAI_CHATGPT', ENGINES, true)).toBe('chatgpt');
  });

  it('of a synonym is ours in any spelling; a value like none is left for the contract to name', () => {
    for (const row of VALUE_SYNONYMS) for (const word of row.slice(1)) expect(spelledValue(word.toUpperCase(), [row[0]!]), word).toBe(row[0]);
    expect(spelledValue('meh', OUTCOMES)).toBeUndefined();
  });
});

describe('a map', () => {
  const { OperationMap, UpstreamMapInput } = upstreamMapSchemas();

  it("reads a list keyed as an object, in the object's order, the key into the field the map names", () => {
    const map = OperationMap.parse({ keyed: { topics: 'name', 'topics[].rivals': 'name' }, fields: { 'topics[].id': 'ref' } });
    const body = {
      brand_id: 1,
      topics: {
        Zeta: { ref: 7, rivals: { Acme: { share: 40 }, Bolt: { share: 10 } } },
        Alpha: { ref: 3, rivals: {} },
      },
    };
    const read = conformBody(zs.response('listTopics'), body, map) as { topics: { id: number; name: string; rivals: { name: string; share: number }[] }[] };
    expect(read.topics.map((t) => [t.id, t.name])).toEqual([
      [7, 'Zeta'],
      [3, 'Alpha'],
    ]);
    expect(read.topics[0]!.rivals).toEqual([
      { name: 'Acme', share: 40 },
      { name: 'Bolt', share: 10 },
    ]);
  });

  it('puts a whole-number key into a number field as a number', () => {
    const map = OperationMap.parse({ keyed: { topics: 'id' } });
    const read = conformBody(zs.response('listTopics'), { topics: { '3': { name: 'a' }, '7': { name: 'b' } } }, map) as { topics: { id: number }[] };
    expect(read.topics.map((t) => t.id)).toEqual([3, 7]);
  });

  it('reads a renamed field beside the envelope by its path in the whole answer', () => {
    const map = OperationMap.parse({ envelope: 'payload', fields: { generated_at: 'meta.asOf' }, convert: { generated_at: 'date-time' } });
    const read = conformBody(zs.response('getVisibility'), { payload: { brand_id: 1, score: 50 }, meta: { asOf: 1795392000 } }, map) as Record<string, unknown>;
    expect(read.generated_at).toBe(new Date(1795392000 * 1000).toISOString());
    expect(read.brand_id).toBe(1);
  });

  it('reads a list written as columns and rows, the names as text or as objects, in front of the list or in its parent (fast-check, seeded)', () => {
    const topic = fc.record({
      id: fc.integer({ min: 1, max: 1e6 }),
      name: fc.string({ minLength: 1, maxLength: 12 }),
      score: percentage,
      change: fc.integer({ min: -1000, max: 1000 }).map((t) => t / 10),
      rank: fc.integer({ min: 1, max: 50 }),
      questions: fc.integer({ min: 0, max: 100 }),
      rivals: fc.constant([]),
    });
    const ORDER = ['id', 'name', 'score', 'change', 'rank', 'questions', 'rivals'] as const;
    fc.assert(
      fc.property(fc.array(topic, { maxLength: 8 }), fc.boolean(), fc.boolean(), (topics, asObjects, inParent) => {
        const names = ORDER.map((k) => (asObjects ? { label: k, type: 'x' } : k));
        const table = { cols: names, data: topics.map((t) => ORDER.map((k) => t[k])) };
        const body = inParent ? { brand_id: 1, ...table } : { brand_id: 1, topics: table };
        const map = OperationMap.parse({
          fields: inParent ? { topics: '.' } : {},
          columns: { topics: { names: 'cols', rows: 'data', ...(asObjects ? { name: 'label' } : {}) } },
        });
        expect((conformBody(zs.response('listTopics'), body, map) as { topics: unknown }).topics).toEqual(topics);
      }),
      runs,
    );
    // A row of another length than the names is no table: left for the contract to refuse, not read askew.
    const map = OperationMap.parse({ columns: { topics: { names: 'cols', rows: 'data' } } });
    const askew = conformBody(zs.response('listTopics'), { topics: { cols: ['id', 'name'], data: [[1]] } }, map) as { topics: unknown };
    expect(askew.topics).toEqual({ cols: ['id', 'name'], data: [[1]] });
  });

  it('reads a list keyed by a value the contract does not hold: each item keeps its own name, the key kept beside it', () => {
    const map = OperationMap.parse({ keyed: { 'topics[].rivals': { extra: 'domain' } } });
    const body = { topics: [{ id: 1, name: 'Pricing', rivals: { 'ticketly.com': { name: 'Ticketly', share: 40 }, 'caseflow.io': { name: 'Caseflow', share: 30 } } }] };
    const read = conformBody(zs.response('listTopics'), body, map) as { topics: { rivals: unknown[] }[] };
    expect(read.topics[0]!.rivals).toEqual([
      { name: 'Ticketly', share: 40, domain: 'ticketly.com' },
      { name: 'Caseflow', share: 30, domain: 'caseflow.io' },
    ]);
    // The key named as a field of the items is that field, written as such.
    const clash = UpstreamMapInput.safeParse({ operations: { listTopics: { keyed: { 'topics[].rivals': { extra: 'name' } } } } });
    expect(clash.error?.issues[0]?.message).toMatch(/write `"name"`/);
  });

  it('is refused when it keys a list the contract does not have, naming it', () => {
    const parsed = UpstreamMapInput.safeParse({ operations: { listTopics: { keyed: { topicz: 'name' } } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['operations', 'listTopics', 'keyed', 'topicz']);
  });
});

describe("one of our engines under a vendor's name (oursUnderVendor)", () => {
  it('finds one of ours under a vendor prefix or suffix, or respelled; never in another word', () => {
    expect(
      ['openai-chatgpt', 'anthropic-claude', 'perplexity-sonar', 'google-ai-overviews', 'Microsoft_Copilot', 'chatgpt', 'grok', 'chatgpt4', 'xai-grok'].map((v) => oursUnderVendor(v, ENGINES)),
    ).toEqual(['chatgpt', 'claude', 'perplexity', 'google_ai_overviews', 'copilot', undefined, undefined, undefined, undefined]);
  });

  it('takes a word or two around ours for a vendor, not a sentence that begins with one of ours', () => {
    expect(oursUnderVendor('open-ai-chatgpt', ENGINES)).toBe('chatgpt');
    expect(oursUnderVendor('Visibility in Small teams and startups moved', ACTIVITY_CATEGORIES)).toBeUndefined();
    expect(oursUnderVendor('Citation of a page', ACTIVITY_CATEGORIES)).toBeUndefined();
  });
});
