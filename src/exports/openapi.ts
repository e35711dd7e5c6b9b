/**
 * The export links' routes in the product's OpenAPI document
 * (`GET /openapi.json`, assembled by src/app/openapi.ts): minting, listing
 * and revoking CSV links (routes.ts) and reading one (`/x/<token>.csv`), each
 * route's text beside them, with the schemas they answer.
 */
import * as z from 'zod';
import { parametersOf } from '../contract/openapi';
import { type FeatureDocs, type Fits, error, jsonBody, jsonOf, keyed, Market, ok, READS_BRAND, ref, requestId, TEXT } from '../contract/product-openapi';
import { EXPORT_LINK_BASE, EXPORT_LINK_ID, EXPORTS_BASE, type ExportLink as ExportLinkType } from '../links/export-links';
import { LINK_DAYS } from '../links/keyed-routes';
import { MAX_LIVE_LINKS } from '../links/link-store';
import { MintBody } from './routes';
import { EXPORT_KINDS } from './target';

const ExportLinkId = z.string().regex(EXPORT_LINK_ID);
const ExportLinkShape = z.object({
  id: ExportLinkId.describe('Revoke the link with `DELETE /exports/links/{id}`.'),
  url: z.url().describe('`/x/<token>.csv`: RFC 4180 CSV, what `=IMPORTDATA(url)` reads.'),
  json_url: z.url().describe('`/x/<token>.json`: the same rows as a JSON array of flat objects.'),
  operation: z.string().describe("The operation id, `history` (the kept weekly history) or `plan` (the week's plan, one row per question)."),
  params: z.record(z.string(), z.string()).describe('The parameters as given (a relative `days` stays relative).'),
  brand_id: z.number().int().nullable(),
  market: Market.nullable(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
});
const ExportLink = z.object({ link: ExportLinkShape });
const ExportLinkList = z.object({
  links: z.array(ExportLinkShape).describe("The key's live export links (not revoked, not expired), oldest first, with their URLs."),
  max_live: z.number().int().describe('The most live export links a key may have.'),
});
const _exportFits: Fits<ExportLinkType, z.output<typeof ExportLinkShape>> = true;
void _exportFits;

const ExportRows = z.array(z.record(z.string(), z.unknown())).describe('One flat object per row, keyed by column.');

export const exportDocs: FeatureDocs = {
  schemas: { ExportLink, ExportLinkList, ExportRows },
  inputs: { MintBody },
  routes: {
    [`${EXPORTS_BASE}/links`]: {
      POST: {
        operationId: 'createExportLink',
        tag: 'Export links',
        summary: 'Create a CSV export link',
        description: `A link to one operation's rows with its parameters (\`operation\`: ${EXPORT_KINDS.map((k) => `\`${k}\``).join(', ')}), for ${LINK_DAYS.min} to ${LINK_DAYS.max} days (default ${LINK_DAYS.default}). The operation and \`params\` are checked with the Read API's own rules (400 naming \`operation\` or \`params.<name>\`), and the key must be able to make the read (the API's own errors). A relative window (\`days\`) stays relative: the link gives the latest figures whenever it is read. At most ${MAX_LIVE_LINKS} live export links per key: past that, 409 \`too_many_links\`.`,
        security: 'key',
        requestBody: jsonBody('MintBody', 'Which operation, its parameters, and for how long.'),
        responses: {
          '201': ok('The link (also in `Location`).', jsonOf('ExportLink'), { Location: { description: 'The CSV link.', schema: { type: 'string', format: 'uri' } } }),
          ...READS_BRAND,
          '409': error(`\`too_many_links\`: the key has ${MAX_LIVE_LINKS} live export links already; revoke one (\`DELETE ${EXPORTS_BASE}/links/{id}\`) or wait until one expires`),
        },
      },
      GET: {
        operationId: 'listExportLinks',
        tag: 'Export links',
        summary: "List the key's live export links",
        description: `The export links this key made that still work, oldest first, at most ${MAX_LIVE_LINKS}, with their URLs. Only the key that made a link lists it.`,
        security: 'key',
        responses: { '200': ok('The links.', jsonOf('ExportLinkList')), ...keyed('400', '401', '405', '429', '502') },
      },
    },
    [`${EXPORTS_BASE}/links/{id}`]: {
      DELETE: {
        operationId: 'revokeExportLink',
        tag: 'Export links',
        summary: 'Revoke an export link',
        description: "The link stops working at once (410). Another key's link, an expired one or an unknown id: 404.",
        security: 'key',
        parameters: parametersOf('path', { id: ExportLinkId.meta({ description: "The link's id, from `POST /exports/links` or `GET /exports/links`." }) }),
        responses: { '204': { description: 'Revoked.', headers: requestId }, ...keyed('400', '401', '405', '429', '502'), '404': error('`not_found`: no such live export link for this key') },
      },
    },
    [`${EXPORT_LINK_BASE}/{file}`]: {
      GET: {
        operationId: 'readExportLink',
        tag: 'Export links',
        summary: 'Read an export link as CSV or JSON',
        description:
          "No key: the link reads with the key that minted it, through the edge cache and within that key's budget. `.csv`: RFC 4180 (`text/csv; charset=utf-8`, a header row, CRLF, quotes where needed), nested objects as dotted columns, text cells that begin with `=`, `+`, `-`, `@`, tab or carriage return prefixed with `'` (numbers are not). `.json`: the same rows as an array of flat objects. Errors are plain text.",
        security: 'none',
        parameters: [{ name: 'file', in: 'path', required: true, description: "The link's token followed by `.csv` or `.json`.", schema: { type: 'string', minLength: 1 } }],
        responses: {
          '200': ok('The rows.', { 'text/csv': { schema: { type: 'string' } }, ...jsonOf('ExportRows') }),
          '400': { description: 'A malformed link.', headers: requestId, content: TEXT },
          '403': { description: "A forged or changed link, or the key behind it can no longer read the data (the API's 401 or 403).", headers: requestId, content: TEXT },
          '404': { description: "Not `.csv` or `.json`, or the API found nothing for the link's parameters.", headers: requestId, content: TEXT },
          '410': { description: "An expired or revoked link, or a report page's link whose report link or subscription ended, or whose key was revoked.", headers: requestId, content: TEXT },
          '429': { description: "The key behind the link is over the API's limit.", headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') }, content: TEXT },
          '502': { description: 'The Read API did not answer.', headers: requestId, content: TEXT },
        },
      },
    },
  },
};
