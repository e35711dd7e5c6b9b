/**
 * The compatibility check's route in the product's OpenAPI document
 * (`GET /openapi.json`, assembled by openapi.ts): its text beside the route
 * (upstream-check.ts), with the schema it answers.
 */
import * as z from 'zod';
import { type FeatureDocs, type Fits, ADMIN_REFUSALS, error, HTML, jsonBody, jsonOf, ok, ref, requestId } from '../contract/product-openapi';
import { type CheckAnswer, CheckBody, UPSTREAM_CHECK_PATH } from './upstream-check';

const count = z.number().int().min(0);
/** `POST /admin/upstream/check`'s answer (src/weekly-report/compat.ts). */
const UpstreamCheck = z.object({
  features: z.array(
    z.object({
      feature: z.enum(['digest', 'report_page', 'alerts', 'csv_exports', 'history', 'weekly_report']),
      label: z.string(),
      status: z.enum(['works', 'works_without', 'cannot_run']),
      missing: z.array(
        z.object({
          part: z.string().describe('A part of the weekly report (`history`, `per_engine`, `moved`, `topics`, `rivals`, `score`, `won_lost`), or a CSV export\'s `rows` or `column`, or `body`.'),
          operation: z.string(),
          field: z.string().nullable().describe('The contract\'s field that is absent or unreadable; null when the operation itself is missing.'),
          answer: z.string().optional().describe('What the service answered instead of the operation (`404 not_found`).'),
          words: z.string(),
          required: z.boolean().describe('Whether the feature (for CSV, that operation\'s export) cannot run without it.'),
          line: z.string().optional().describe('What the feature says where it leaves the section out.'),
        }),
      ),
    }),
  ),
  operations: z.array(
    z.object({
      operation: z.string(),
      status: z.enum(['readable', 'readable_without', 'unreadable', 'not_provided', 'refused', 'not_checked']),
      fields: z.array(z.string()),
      code: z.string().optional(),
      note: z.string().optional(),
    }),
  ),
  reads: count,
  calls: count.describe('Upstream calls the check spent of the key\'s budget; a read served from the cache spends none.'),
  checked_at: z.iso.datetime(),
});

const _answersFit: Fits<CheckAnswer, z.output<typeof UpstreamCheck>> = true;
void _answersFit;

export const upstreamCheckDocs: FeatureDocs = {
  schemas: { UpstreamCheck },
  inputs: { CheckBody },
  routes: {
    [`${UPSTREAM_CHECK_PATH}`]: {
      POST: {
        operationId: 'checkUpstream',
        tag: 'Upstream map',
        summary: 'Check which features work with the service',
        description:
          'Reads each operation the features read with `api_key` (in the body: keys never go in a URL), through the upstream map and the key\'s cache and budget, and says per feature whether it works, works without a section (which, and which field is missing), or cannot run (which operation and field). Each feature needs only what it cannot do without (docs/upstream.md, "What each feature needs"). Operations that need a value (a topic id, a question, a rival) take it from another answer, as the contract\'s `paramsFrom` says; one whose answer has none is `not_checked`, with a note. A page instead of JSON when `Accept` prefers `text/html`. The key is neither logged nor shown.',
        security: 'admin',
        requestBody: jsonBody('CheckBody', '`{"api_key": "...", "brand_id": 2, "market": "us"}`; `brand_id` and `market` as in the Read API (default: the key\'s only brand, its primary market).'),
        responses: {
          '200': ok('The verdicts.', { ...jsonOf('UpstreamCheck'), ...HTML }),
          '400': error('`invalid_parameter`: a field of the body, or `api_key` when the Read API refuses the key'),
          ...ADMIN_REFUSALS,
          '429': {
            ...error('`rate_limited`, `quota_exceeded`: the key\'s budget refused a read; no verdict, and the message says when to check again (the reads made are cached and free then)'),
            headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') },
          },
          '502': error('`upstream_error`: the Read API did not answer'),
        },
      },
    },
  },
};
