/**
 * Argument completion (`completion/complete`) for the prompts: the brand,
 * market and competitor names this key reads, suggested as the person
 * types. Each is read with the caller's key through `apiFor()`, so a
 * suggestion is a cache hit after its first read: brands and markets from
 * `GET /brands`, competitors from the rivals of `GET /topics` for the brand
 * and market already chosen. Only values that start with what was typed
 * (in any case) are offered, at most `COMPLETION_MAX`. A read the API
 * refuses offers nothing rather than an error: a suggestion is a help, the
 * prompt still takes any value.
 */
import { type ApiClient, ApiClientError } from '../client';
import type { ResponseOf } from '../contract/operations';

/** The most values one completion may carry (the MCP spec's limit). */
export const COMPLETION_MAX = 100;

export type Brand = ResponseOf<'listBrands'>['brands'][number];

/** The values of `values` that start with `typed`, any case, each once, in their order, at most `COMPLETION_MAX`. */
export function matching(values: Iterable<string>, typed = ''): string[] {
  const prefix = typed.trim().toLowerCase();
  return [...new Set(values)].filter((value) => value.toLowerCase().startsWith(prefix)).slice(0, COMPLETION_MAX);
}

/** The brand an argument names, by id or by name in any case; without one, the key's brand when it has only one. */
export function brandNamed(brands: readonly Brand[], value: string | undefined): Brand | undefined {
  const wanted = value?.trim().toLowerCase();
  if (!wanted) return brands.length === 1 ? brands[0] : undefined;
  return brands.find((brand) => String(brand.id) === wanted || brand.name.toLowerCase() === wanted);
}

/** What the prompts' arguments hold so far (`context.arguments` of a completion request). */
export type Chosen = { brand?: string; market?: string };

/** A read that offers nothing when the API refuses it. */
async function orNothing(read: () => Promise<string[]>): Promise<string[]> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ApiClientError) return [];
    throw error;
  }
}

/**
 * The completers of one request, reading with `client`. `brands` reads
 * `GET /brands` once for the request, for the prompts too.
 */
export function completers(client: ApiClient) {
  let brandList: Promise<Brand[]> | undefined;
  const brands = () => (brandList ??= client.listBrands().then((answer) => answer.brands));
  return {
    brands,
    brand: (typed: string) =>
      orNothing(async () =>
        matching(
          (await brands()).map((brand) => brand.name),
          typed,
        ),
      ),
    market: (typed: string, chosen: Chosen = {}) =>
      orNothing(async () => {
        const all = await brands();
        const brand = brandNamed(all, chosen.brand);
        return matching(
          (brand ? [brand] : all).flatMap((b) => b.markets.map((market) => market.code)),
          typed,
        );
      }),
    /** The rivals AI names in the brand's topics, in the market chosen (the primary one by default); none until the brand is known. */
    competitor: (typed: string, chosen: Chosen = {}) =>
      orNothing(async () => {
        const brand = brandNamed(await brands(), chosen.brand);
        if (!brand) return [];
        const { topics } = await client.listTopics({ brand_id: brand.id, ...(chosen.market ? { market: chosen.market } : {}) });
        return matching(
          topics.flatMap((topic) => topic.rivals.map((rival) => rival.name)),
          typed,
        );
      }),
  };
}

export type Completers = ReturnType<typeof completers>;
