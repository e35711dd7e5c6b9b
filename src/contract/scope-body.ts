/**
 * `brand_id` and `market` in a JSON body (a subscription, a report link, the
 * upstream check, the account's forms): read by the Read API's own rules
 * (`BRAND_MARKET_PARAMS`), so what a body takes the API takes, with the same
 * words when it does not (`ch-fra` is no market code anywhere).
 *
 * ```ts
 * z.strictObject({ brand_id: BrandIdField, market: MarketField }).parse({ market: 'ch-fr' });
 * ```
 */
import * as z from 'zod';
import { brandIdParam, marketParam, type Param, paramProblem } from './params';

/** A JSON number or text, judged as the query's text of the same value is. */
const scopeField = <T extends z.ZodType>(name: string, param: Param, type: T, expects: string) =>
  type
    .superRefine((value, ctx) => {
      const problem = paramProblem(param, name, String(value));
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional()
    .describe(`${param.description} ${expects}`);

export const BrandIdField = scopeField('brand_id', brandIdParam, z.number({ error: '`brand_id` must be a whole number: a brand id from `GET /brands`.' }), 'A JSON number.');
export const MarketField = scopeField(
  'market',
  marketParam,
  z.union([z.string(), z.number()], { error: '`market` must be a market code such as `us` or `ch-fr`, or a market id.' }),
  'A code, or an id as a number or text.',
);
