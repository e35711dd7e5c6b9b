#!/usr/bin/env node
// `node scripts/build-openapi.mjs`: the two OpenAPI documents, generated at build time into the Worker's static assets
// (git-ignored dist/assets), where the Worker answers them from through the ASSETS binding
// (src/contract/documents.ts): the Read API's, GET /api/v1/openapi.json (src/contract/openapi.ts), and the product
// routes', GET /openapi.json (src/app/openapi.ts over the route tables of src/app/routes.ts, each feature's text in
// the openapi.ts beside its routes). Both are fixed for a build (neither reads a request or the env), so their
// generators (about 65 KiB) need not be in the Worker's bundle. Run by scripts/build-assets.mjs (wrangler.toml's
// `[build]`, `npm test`, `npm test -- browser`); scripts/check-openapi.mjs validates what it writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importTs } from './import-ts.mjs';
import { ASSETS_DIRECTORY } from './assets-dir.mjs';

// The generators, bundled as the Worker would bundle them; packages stay imports, resolved from node_modules.
const generators = await importTs(
  `export { openApiDocument } from './src/contract/openapi.ts';
export { productOpenApiDocument } from './src/app/openapi.ts';
export { documentedRoutes } from './src/app/routes.ts';
export { API_DOCUMENT_ASSET, PRODUCT_DOCUMENT_ASSET } from './src/contract/documents.ts';
export { zodSide } from './src/contract/zod-side.ts';`,
  {
    name: 'build-openapi',
    plugins: [
      {
        // The Durable Object base class of workerd: only subclassed at load time, never run here.
        name: 'cloudflare-stub',
        setup(b) {
          b.onResolve({ filter: /^cloudflare:/ }, (args) => ({ path: args.path, namespace: 'cloudflare-stub' }));
          // A package that imports `cloudflare:workers` itself (the OAuth provider of /mcp, which src/mcp loads with
          // import()) is bundled, so that its import meets the stub instead of Node's loader.
          b.onResolve({ filter: /^@cloudflare\/workers-oauth-provider$/ }, () => ({ path: fileURLToPath(import.meta.resolve('@cloudflare/workers-oauth-provider')) }));
          b.onLoad({ filter: /.*/, namespace: 'cloudflare-stub' }, () => ({
            contents: 'export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } } export class WorkerEntrypoint {} export const env = {};',
            loader: 'js',
          }));
        },
      },
    ],
  },
);

// The contract's zod schemas load at their first use, as in the Worker (src/contract/zod-side.ts).
await generators.zodSide();

const written = [];
for (const [asset, make] of [
  [generators.API_DOCUMENT_ASSET, () => generators.openApiDocument()],
  [generators.PRODUCT_DOCUMENT_ASSET, () => generators.productOpenApiDocument(generators.documentedRoutes)],
]) {
  // The bytes the Worker used to answer: JSON.stringify of the document, no whitespace.
  const text = JSON.stringify(make());
  const out = `${ASSETS_DIRECTORY.replace(/\/$/, '')}${asset}`;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  written.push(`${out} (${(text.length / 1024).toFixed(1)} KiB)`);
}
console.log(`OpenAPI documents: ${written.join(', ')}.`);
