/**
 * One declaration per input (issue 46 item 4): every JSON body that takes a
 * brand or a market (a subscription, a report link, the upstream check) and
 * an export link's `params` take exactly what the Read API's parser takes
 * (`readParams` over `BRAND_MARKET_PARAMS`), value for value, with its words.
 * The values are drawn by a seeded generator: codes of every length and case,
 * separators, ids of every size, numbers that are not whole, other types.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors';
import { BRAND_MARKET_PARAMS, readParams } from './params';
import { CheckBody } from '../app/upstream-check';
import { checkTarget } from '../exports/target';
import { LinkBody } from '../reports/routes';
import { SubscribeBody } from '../subscriptions/api-routes';
import { parseJsonObject } from './json-body';

/** The API's verdict on the value as the query would carry it: undefined when taken, else its message. */
function apiSays(name: 'brand_id' | 'market', value: unknown): string | undefined {
  try {
    readParams(BRAND_MARKET_PARAMS, { [name]: String(value) });
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error.message;
    throw error;
  }
}

const bodies = {
  subscribe: (field: Record<string, unknown>) => ({ email: 'a@example.com', ...field }),
  link: (field: Record<string, unknown>) => field,
  check: (field: Record<string, unknown>) => ({ api_key: 'demo_pro_single', ...field }),
} as const;
const schemas = { subscribe: SubscribeBody, link: LinkBody, check: CheckBody } as const;

/** What a body's parse says: undefined when taken, else the message its 400 carries. */
function bodySays(which: keyof typeof bodies, field: Record<string, unknown>): string | undefined {
  try {
    parseJsonObject(schemas[which], bodies[which](field));
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error.message;
    throw error;
  }
}

const letters = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ');
const word = (min: number, max: number) => fc.array(letters, { minLength: min, maxLength: max }).map((cs) => cs.join(''));
const marketText = fc.oneof(
  word(1, 4),
  fc.tuple(word(1, 3), fc.constantFrom('-', '_', ' ', '.'), word(1, 4)).map(([a, s, b]) => `${a}${s}${b}`),
  fc.nat({ max: 99_999_999_999 }).map(String),
  fc.string({ maxLength: 8 }),
);
const marketValue = fc.oneof(marketText, fc.nat({ max: 99_999_999_999 }), fc.double({ min: -10, max: 1e12, noNaN: true }));
const brandValue = fc.oneof(fc.integer({ min: -5, max: 3_000_000_000 }), fc.double({ min: -10, max: 1e10, noNaN: true }));

describe('a brand and a market in a body are what the API takes', () => {
  for (const which of Object.keys(bodies) as (keyof typeof bodies)[]) {
    it(`${which}: market, value for value (fast-check, seeded)`, () => {
      fc.assert(
        fc.property(marketValue, (market) => {
          const api = apiSays('market', market);
          const body = bodySays(which, { market });
          expect(body === undefined, `market ${JSON.stringify(market)}: API ${api ?? 'takes it'}, body ${body ?? 'takes it'}`).toBe(api === undefined);
          if (api !== undefined) expect(body).toBe(api);
        }),
        { seed: 4601, numRuns: 400 },
      );
    });
    it(`${which}: brand_id, value for value (fast-check, seeded)`, () => {
      fc.assert(
        fc.property(brandValue, (brand_id) => {
          const api = apiSays('brand_id', brand_id);
          const body = bodySays(which, { brand_id });
          expect(body === undefined, `brand_id ${brand_id}: API ${api ?? 'takes it'}, body ${body ?? 'takes it'}`).toBe(api === undefined);
        }),
        { seed: 4602, numRuns: 300 },
      );
    });
  }

  it("the issue's case: `ch-fra` is refused by subscribe as by the API, `ch-fr` taken by both", () => {
    expect(bodySays('subscribe', { market: 'ch-fra' })).toBe('`market` must be a market code such as `us` or `ch-fr`, or a market id.');
    expect(apiSays('market', 'ch-fra')).toBe('`market` must be a market code such as `us` or `ch-fr`, or a market id.');
    expect(bodySays('subscribe', { market: 'ch-fr' })).toBeUndefined();
    expect(bodySays('check', { market: 11 })).toBeUndefined();
  });

  it('an export link of the history or the plan: its params by the same rules, named under params', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    expect(() => checkTarget('history', { market: 'ch-fra' }, now)).toThrow('`market` must be a market code such as `us` or `ch-fr`, or a market id.');
    expect(() => checkTarget('plan', { brand_id: '0' }, now)).toThrow('`brand_id` must be at least 1.');
    expect(() => checkTarget('plan', { days: 7 }, now)).toThrow('`days` is not a parameter of the plan: it takes `brand_id` and `market`.');
    expect(checkTarget('history', { brand_id: 1, market: 'US' }, now).params).toEqual({ brand_id: '1', market: 'US' });
  });
});
