/**
 * The admin's routes in the product's OpenAPI document (`GET /openapi.json`,
 * assembled by src/app/openapi.ts): the cache's purge and counters and the
 * upstream map (admin.ts), each route's text beside them, with the schemas
 * they answer.
 */
import * as z from 'zod';
import { DiscoveryReport } from '../discovery/report';
import { type FeatureDocs, type Fits, ADMIN_REFUSALS, error, jsonBody, jsonOf, ok, ref, requestId } from '../contract/product-openapi';
import { upstreamMapSchemas } from '../contract/schemas/upstream-map';
import { ADMIN_BASE, DiscoverBody, MAX_DISCOVER_BODY_BYTES, PurgeBody, UPSTREAM_ADMIN_BASE } from './admin';
import { COUNTERS, type Counts } from './stats';

const Purged = z.object({ purged: z.number().int().min(0).describe("Entries deleted from KV and this location's cache.") });
const { UpstreamMap, UpstreamMapInput } = upstreamMapSchemas();
const StoredUpstreamMap = UpstreamMap.extend({
  version: z.number().int().min(0).describe('Numbered by the Worker at each PUT; 0 before any map is stored.'),
  updated_at: z.iso.datetime().nullable(),
});
const CacheStats = z.object({ ...Object.fromEntries(COUNTERS.map((name) => [name, z.number().int().min(0)])), since: z.iso.datetime() });

const _answersFit: Fits<Counts, Omit<z.output<typeof CacheStats>, 'since'>> = true;
void _answersFit;

export const adminDocs: FeatureDocs = {
  schemas: { Purged, CacheStats, UpstreamMap: StoredUpstreamMap, DiscoveryReport },
  inputs: { PurgeBody, UpstreamMapInput, DiscoverBody },
  routes: {
    [`${ADMIN_BASE}/purge`]: {
      POST: {
        operationId: 'purgeCache',
        tag: 'Cache admin',
        summary: 'Purge cached answers',
        description: "Of one API key, of one brand, or all. Deletes from KV (global) and from this location's Cache API; other locations' copies expire within minutes.",
        security: 'admin',
        requestBody: jsonBody('PurgeBody', 'One of `{"api_key": "..."}`, `{"brand_id": 2}`, `{"all": true}`.'),
        responses: { '200': ok('Purged.', jsonOf('Purged')), '400': error('`invalid_parameter` (`param`: `body`)'), ...ADMIN_REFUSALS },
      },
    },
    [`${ADMIN_BASE}/stats`]: {
      GET: {
        operationId: 'getCacheStats',
        tag: 'Cache admin',
        summary: "Get the cache's counters",
        description: 'Totals since `since`, over every isolate (each adds its counts every few seconds).',
        security: 'admin',
        responses: { '200': ok('The counters.', jsonOf('CacheStats')), ...ADMIN_REFUSALS },
      },
    },
    [`${UPSTREAM_ADMIN_BASE}/map`]: {
      GET: {
        operationId: 'getUpstreamMap',
        tag: 'Upstream map',
        summary: 'Get the upstream map',
        description: "How another implementation's bodies map onto the contract's fields, per operation (docs/upstream.md). Version 0 and no operations before one is stored.",
        security: 'admin',
        responses: { '200': ok('The stored map.', jsonOf('UpstreamMap')), ...ADMIN_REFUSALS },
      },
      PUT: {
        operationId: 'putUpstreamMap',
        tag: 'Upstream map',
        summary: 'Replace the upstream map',
        description:
          "Validated against the contract (every path must be a field of the operation's body) and stored as the next version. Send `version`, the one you read: a map naming another version, or none while a map is stored, is refused (409) and replaces nothing, so that no change is lost.",
        security: 'admin',
        requestBody: jsonBody('UpstreamMapInput', '`{"version": 1, "operations": {"getVisibility": {"fields": {"score": "visibility"}}}}`'),
        responses: {
          '200': ok('The stored map, with its new version.', jsonOf('UpstreamMap')),
          '400': error('`invalid_parameter`: the field at fault named in `param` (`operations.getVisibility.fields.scroe`)'),
          ...ADMIN_REFUSALS,
          '409': error('`map_version_conflict`: `version` is not the stored version, or is missing while a map is stored'),
        },
      },
    },
    [`${UPSTREAM_ADMIN_BASE}/discover`]: {
      POST: {
        operationId: 'discoverUpstreamMap',
        tag: 'Upstream map',
        summary: 'Propose the upstream map from one read of each operation',
        description: `Reads one answer of each operation the key can read (through the edge cache and within the key's budget, like any read: \`calls\` and \`upstream_calls\` say what it cost), the ids and texts some requests need taken from the list operations read first. Proposes the map from the fields' names (case conventions, plurals, synonyms such as \`history\`/\`weeks\`), their types and their values, with a confidence per field: only fields at or above \`threshold\` go into \`map\`; the others are under \`to_confirm\` with their candidates, for a person to add with \`PUT /admin/upstream/map\`. Operations the key cannot read are listed with the API's error. With \`"apply": true\` the proposed map is stored as the next version (docs/upstream.md). Body: JSON, at most ${MAX_DISCOVER_BODY_BYTES} bytes.`,
        security: 'admin',
        requestBody: jsonBody('DiscoverBody', '`{"api_key": "...", "apply": false}`'),
        responses: {
          '200': ok('The proposed map and, per operation, how each field was placed.', jsonOf('DiscoveryReport')),
          '400': error('`invalid_parameter`: the field at fault named in `param` (`api_key` when the Read API refuses the key: nothing could be read)'),
          ...ADMIN_REFUSALS,
          '409': error(
            '`map_version_conflict`: with `apply`, the map was replaced while discovery ran; `discovery_incomplete`: with `apply`, reads were refused for want of a brand (a key with several whose ids discovery could not read from /brands), so nothing was stored (without `apply`, the report says so in `incomplete`)',
          ),
          '429': {
            ...error(
              "`rate_limited`, `quota_exceeded`: the key's budget refused a read. A refused read is no evidence: nothing is proposed or stored, and the message says at which read it stopped and when to go on (the reads made are cached and free then)",
            ),
            headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') },
          },
          '502': error("`upstream_error`: the Read API did not answer discovery's first read; nothing was read"),
        },
      },
    },
  },
};
