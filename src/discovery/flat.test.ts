/** Objects written flat in their parent (src/discovery/flat.ts): siblings placed together, by names, values and elimination. */
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { flatByShape, flatObjects } from './flat';
import { expectedOf } from './shapes';

const PLAN = z.object({ id: z.enum(['starter', 'pro', 'growth']), monthly_quota: z.number().int(), includes_pro_operations: z.boolean() });
const COMPETITOR = { name: z.string(), domain: z.string() };

describe('flatObjects', () => {
  it('places the fields no name found together by form, once a name found the object: each the one key of its form left', () => {
    const values: Record<string, unknown[]> = { plan_smlm: ['pro'], plan_monthly_quota: [10000], plan_mvw: [true] };
    const found = flatObjects(['plan'], Object.keys(values), { plan: expectedOf(PLAN) }, (key) => values[key] ?? []);
    expect(found.get('plan')?.confidence).toBe(0.9);
    expect(Object.fromEntries(found.get('plan')!.pairs.map((p) => [p.name, p.key]))).toEqual({ id: 'plan_smlm', monthly_quota: 'plan_monthly_quota', includes_pro_operations: 'plan_mvw' });
  });

  it("reads the object's name in the service's own words, where its other answers taught them", () => {
    const values: Record<string, unknown[]> = { TARIFA_TARIFA_IDENTIFICADOR: ['pro'], TARIFA_MENSUAL_CUOTA: [10000], TARIFA_INCLUYE: [true] };
    const read = (houseWords: Map<string, string>) =>
      flatObjects(
        ['plan'],
        Object.keys(values),
        { plan: expectedOf(PLAN) },
        (key) => values[key] ?? [],
        () => false,
        houseWords,
      ).get('plan');
    expect(read(new Map())).toBeUndefined();
    const found = read(
      new Map([
        ['tarifa', 'plan'],
        ['identificador', 'id'],
      ]),
    );
    expect(found?.confidence).toBe(0.9);
    expect(Object.fromEntries(found!.pairs.map((p) => [p.name, p.key]))).toEqual({
      id: 'TARIFA_TARIFA_IDENTIFICADOR',
      monthly_quota: 'TARIFA_MENSUAL_CUOTA',
      includes_pro_operations: 'TARIFA_INCLUYE',
    });
  });

  it('leaves it a question where two keys left read as one field', () => {
    const values: Record<string, unknown[]> = { plan_smlm: ['pro'], plan_monthly_quota: [10000], plan_mvw: [true], plan_xq: [false] };
    expect(flatObjects(['plan'], Object.keys(values), { plan: expectedOf(PLAN) }, (key) => values[key] ?? []).get('plan')?.confidence ?? 0).toBeLessThan(0.75);
  });
});

describe('flatByShape', () => {
  const values: Record<string, unknown[]> = { f_a: ['Deskpilot'], f_b: ['deskpilot.com'], f_c: ['Brightdesk'] };
  const aligned = new Map([
    ['name', 'f_a'],
    ['domain', 'f_b'],
  ]);
  it("proves a field by its join and its sibling as the one free key left of its form (a rival's domain beside its name)", () => {
    const found = flatByShape(aligned, COMPETITOR, ['f_a', 'f_b', 'f_c'], { joins: (field, key) => (field === 'name' ? key === 'f_a' : undefined), words: new Map() }, (key) => values[key] ?? []);
    expect(found.confidence).toBeGreaterThanOrEqual(0.75);
    expect(found.pairs.map((p) => [p.name, p.key, p.by])).toEqual([
      ['name', 'f_a', 'join'],
      ['domain', 'f_b', 'form'],
    ]);
  });

  it('is a question when nothing proves any of them, or two free keys read as the one left', () => {
    expect(flatByShape(aligned, COMPETITOR, ['f_a', 'f_b', 'f_c'], { joins: () => false, words: new Map() }, (key) => values[key] ?? []).confidence).toBe(0.5);
    const twoDomains = { ...values, f_d: ['ticketly.com'] };
    expect(
      flatByShape(
        aligned,
        COMPETITOR,
        ['f_a', 'f_b', 'f_d'],
        { joins: (field, key) => (field === 'name' ? key === 'f_a' : undefined), words: new Map() },
        (key) => twoDomains[key as keyof typeof twoDomains] ?? [],
      ).confidence,
    ).toBe(0.5);
  });

  it("takes keys that share a first word no other key has as the object's, each the one of them of its field's form", () => {
    const plan: Record<string, unknown[]> = { TARIFA_TARIFA_ID: ['pro'], TARIFA_MENSUAL_CUOTA: [20000], TARIFA_INCLUYE: [true], GENERADO: [1796385600] };
    const byForm = new Map([
      ['id', 'TARIFA_TARIFA_ID'],
      ['monthly_quota', 'TARIFA_MENSUAL_CUOTA'],
      ['includes_pro_operations', 'TARIFA_INCLUYE'],
    ]);
    const found = (free: string[], values = plan) => flatByShape(byForm, PLAN.shape, free, { joins: () => undefined, words: new Map() }, (key) => values[key] ?? []);
    expect(found(Object.keys(plan)).confidence).toBe(0.8);
    expect(found(Object.keys(plan)).pairs.map((p) => p.by)).toEqual(['structure', 'structure', 'structure']);
    // Another key with that word, or two of the group of one field's form: a question.
    expect(found([...Object.keys(plan), 'TARIFA_XQ']).confidence).toBe(0.5);
    expect(found(Object.keys(plan), { ...plan, TARIFA_INCLUYE: [30000] }).confidence).toBe(0.5);
  });

  it('never takes by elimination a key its list refutes (a domain the rivals listed do not hold)', () => {
    const joins = (field: string, key: string) => (field === 'name' ? key === 'f_a' : key === 'f_b' ? false : undefined);
    expect(flatByShape(aligned, COMPETITOR, ['f_a', 'f_b', 'f_c'], { joins, words: new Map() }, (key) => values[key] ?? []).confidence).toBe(0.5);
  });
});
