/**
 * The rule of src/contract/plausibility.ts (the table, `RULES`) that holds a
 * market's code against its country: the spec's `market` parameter reads a
 * market's code as "a country code plus a language suffix, or just the
 * country code", so the code begins with the country, in any case.
 */
import { valuesAtPath } from './paths';
import type { Rule } from './plausibility-rule';
import { type Finding, list } from './plausibility-words';

/** `[code, country]` of one list of markets (`markets[].code`, `markets[].country`): each code begins with its country. */
export function checkCodeIsCountry(body: unknown, fields: readonly string[]): Finding[] {
  const [codePath, countryPath] = fields as [string, string];
  const holder = codePath.slice(0, codePath.lastIndexOf('.'));
  const [code, country] = [codePath.slice(holder.length + 1), countryPath.slice(holder.length + 1)];
  const off = valuesAtPath(body, holder).filter((market) => {
    const [c, n] = [valuesAtPath(market, code)[0], valuesAtPath(market, country)[0]];
    return typeof c === 'string' && typeof n === 'string' && !(n !== '' && c.toLowerCase().startsWith(n.toLowerCase()));
  });
  if (off.length === 0) return [];
  const countries = off.map((market) => valuesAtPath(market, country)[0]);
  return [
    {
      fields: [countryPath],
      values: { markets: off.length, [countryPath]: countries.slice(0, 3) },
      message: `${off.length} market code${off.length === 1 ? ' does' : 's do'} not begin with ${off.length === 1 ? 'its' : 'their'} country (${list(countries)}): is \`${countryPath}\` read from the right field?`,
    },
  ];
}

export const MARKET_RULES: readonly Rule[] = [
  {
    id: 'market_code_is_its_country',
    // A market's code is its country code, alone or with a language suffix (the spec's `market` parameter), in any case.
    reads: { listBrands: ['brands[].markets[].code', 'brands[].markets[].country'], listMarkets: ['markets[].code', 'markets[].country'] },
    check: checkCodeIsCountry,
  },
];
