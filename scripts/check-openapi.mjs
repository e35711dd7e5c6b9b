#!/usr/bin/env node
// Run by `npm test` before the Worker's tests: both OpenAPI documents are
// valid OpenAPI 3.1 as @apidevtools/swagger-parser reads them (the schema of
// the document, every $ref resolved, parameters and operation ids checked):
// the Read API's (src/contract/openapi.ts, GET /api/v1/openapi.json) and the
// product routes' (src/app/openapi.ts, GET /openapi.json). Fails with the
// validator's errors. test/openapi.test.ts checks what they say.
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { importTs } from './import-ts.mjs';

// Both generators, bundled as the Worker would be; packages stay imports, resolved from node_modules.
const documents = await importTs("export { openApiDocument } from './src/contract/openapi.ts'; export { productDocument } from './src/app/routes.ts'; export { zodSide } from './src/contract/zod-side.ts';", {
  name: 'check-openapi',
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
});

// The contract's zod schemas load at their first use, as in the Worker (src/contract/zod-side.ts).
await documents.zodSide();

/** `$ref` values with more than one `#`: no JSON Pointer of the document, and code generators type such fields wrong. */
function doubleHashRefs(value, at = '#', found = []) {
  if (Array.isArray(value)) value.forEach((v, i) => doubleHashRefs(v, `${at}/${i}`, found));
  else if (value && typeof value === 'object')
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string' && v.split('#').length > 2) found.push(`${at}: ${v}`);
      else doubleHashRefs(v, `${at}/${key}`, found);
    }
  return found;
}

const failures = [];
const summary = [];
for (const [name, make] of [
  ['GET /api/v1/openapi.json (src/contract/openapi.ts)', documents.openApiDocument],
  ['GET /openapi.json (src/app/openapi.ts)', documents.productDocument],
]) {
  let doc;
  try {
    doc = make();
  } catch (error) {
    failures.push(`${name}: not built: ${error.message}`);
    continue;
  }
  const refs = doubleHashRefs(doc);
  if (refs.length > 0) failures.push(`${name}: ${refs.length} $ref(s) with two #, e.g. ${refs.slice(0, 3).join('; ')}`);
  try {
    // validate() dereferences in place: give it a copy.
    await SwaggerParser.validate(structuredClone(doc));
    summary.push(`${name}: ${Object.keys(doc.paths).length} paths`);
  } catch (error) {
    failures.push(`${name}: swagger-parser: ${error.message}`);
  }
}

if (failures.length > 0) {
  console.error(`OpenAPI (scripts/check-openapi.mjs): ${failures.length} problem(s)\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(`OpenAPI 3.1 documents valid (swagger-parser): ${summary.join('; ')}.`);
