/**
 * The two OpenAPI documents as the Worker serves them: the Read API's
 * (`GET /api/v1/openapi.json`, generated from openapi.ts) and the product
 * routes' (`GET /openapi.json`, src/app/openapi.ts). Both are fixed for a
 * build, so scripts/build-openapi.mjs generates them at build time into the
 * static assets (wrangler.toml `[assets]`, `run_worker_first`: no public URL
 * of their own), and the Worker answers from the ASSETS binding: their
 * generators (about 65 KiB of code) stay out of its bundle.
 */
import { ApiError, JSON_HEADERS } from './errors';

/** Where the Worker serves the product routes' document. */
export const PRODUCT_OPENAPI = '/openapi.json';

/** Where the build writes each document in the static assets. */
export const API_DOCUMENT_ASSET = '/openapi/api-v1.json';
export const PRODUCT_DOCUMENT_ASSET = '/openapi/product.json';

/** Each document's text, read once per isolate. */
const texts = new Map<string, string>();

/** A document's answer (`headers` added to its JSON type and caching); without the binding or the built file, a 500 whose log says why. */
export async function documentResponse(assets: Fetcher | undefined, asset: string, headers: Record<string, string> = {}): Promise<Response> {
  let text = texts.get(asset);
  if (text === undefined) {
    const response = assets ? await assets.fetch(new Request(`https://assets.invalid${asset}`)) : undefined;
    if (!response?.ok) {
      await response?.body?.cancel();
      const why = assets ? `the static assets answer ${response!.status} for ${asset} (is it built? scripts/build-openapi.mjs)` : 'no ASSETS binding (wrangler.toml [assets])';
      console.warn(JSON.stringify({ msg: 'openapi document unavailable', why }));
      throw new ApiError('internal_error', 'The OpenAPI document is not available on this deployment.');
    }
    text = await response.text();
    texts.set(asset, text);
  }
  return new Response(text, { headers: { ...JSON_HEADERS, 'cache-control': 'public, max-age=300', ...headers } });
}
