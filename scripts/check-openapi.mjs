#!/usr/bin/env node
// Run by `npm test` before the Worker's tests, after the build (scripts/build-assets.mjs): both OpenAPI
// documents, as built into the static assets and served byte for byte (scripts/build-openapi.mjs), are valid
// OpenAPI 3.1 as @apidevtools/swagger-parser reads them (the schema of the document, every $ref resolved,
// parameters and operation ids checked): the Read API's (src/contract/openapi.ts, GET /api/v1/openapi.json) and
// the product routes' (src/app/openapi.ts, GET /openapi.json). Fails with the validator's errors.
// test/openapi.test.ts checks what they say, through the Worker.
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { ASSETS_DIRECTORY } from './assets-dir.mjs';

/** The built document at `asset` (src/contract/documents.ts), parsed. */
const built = (asset) => () => JSON.parse(readFileSync(`${ASSETS_DIRECTORY.replace(/\/$/, '')}${asset}`, 'utf8'));

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
  ['GET /api/v1/openapi.json (src/contract/openapi.ts)', built('/openapi/api-v1.json')],
  ['GET /openapi.json (src/app/openapi.ts)', built('/openapi/product.json')],
]) {
  let doc;
  try {
    doc = make();
  } catch (error) {
    failures.push(`${name}: not built (node scripts/build-assets.mjs): ${error.message}`);
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
