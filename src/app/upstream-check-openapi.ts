/**
 * The compatibility check's route in the product's OpenAPI document
 * (`GET /openapi.json`, assembled by openapi.ts): its text beside the route
 * (upstream-check.ts), with the schema it answers.
 */
import * as z from 'zod';
import { RULE_IDS } from '../contract/plausibility';
import { type FeatureDocs, type Fits, ADMIN_REFUSALS, error, HTML, jsonBody, jsonOf, ok, ref, requestId } from '../contract/product-openapi';
import { type CheckAnswer, CheckBody, UPSTREAM_CHECK_PATH } from './upstream-check';

const count = z.number().int().min(0);
const Violation = z.object({
  rule: z.enum(RULE_IDS),
  operation: z.string().nullable().describe('The operation whose answer breaks it; null for a rule of what a view counts.'),
  fields: z.array(z.string()).describe("The contract's fields it reads (`topics[].change`)."),
  values: z.record(z.string(), z.unknown()).describe('The values seen.'),
  message: z.string().describe('In words a person can act on: "score 11.0, but 961 of 1,710 answers name the brand (56.2%): is `score` read from the right field?"'),
});
/** `POST /admin/upstream/check`'s answer (src/weekly-report/compat.ts). */
const UpstreamCheck = z.object({
  features: z.array(
    z.object({
      feature: z.enum(['digest', 'report_page', 'alerts', 'csv_exports', 'history', 'weekly_report']),
      label: z.string(),
      status: z
        .enum(['works', 'works_without', 'cannot_run', 'implausible'])
        .describe(
          '`implausible`: it can run, but its reads break a rule the spec implies between fields (`violations`), so its figures would be wrong: the map most likely reads a field from the wrong place or in the wrong unit.',
        ),
      missing: z.array(
        z.object({
          part: z.string().describe("A part of the weekly report (`history`, `per_engine`, `moved`, `topics`, `rivals`, `score`, `won_lost`), or a CSV export's `rows` or `column`, or `body`."),
          operation: z.string(),
          field: z.string().nullable().describe("The contract's field that is absent or unreadable; null when the operation itself is missing."),
          answer: z.string().optional().describe('What the service answered instead of the operation (`404 not_found`).'),
          unmapped: z.string().optional().describe("The value at `field` that is none of the contract's and that no rule or map entry reads as one (`unclaimed`)."),
          words: z.string(),
          required: z.boolean().describe("Whether the feature (for CSV, that operation's export) cannot run without it."),
          line: z.string().optional().describe('What the feature says where it leaves the section out.'),
        }),
      ),
      violations: z.array(Violation).describe('The rules its reads break (src/contract/plausibility.ts); empty unless `implausible` (or `cannot_run` for another reason).'),
    }),
  ),
  operations: z.array(
    z.object({
      operation: z.string(),
      status: z.enum(['readable', 'readable_without', 'unreadable', 'not_provided', 'refused', 'not_checked']),
      fields: z.array(z.string()),
      code: z.string().optional(),
      note: z.string().optional(),
      violations: z.array(Violation).optional().describe('The rules the body breaks, read as its export reads it.'),
    }),
  ),
  reads: count,
  calls: count.describe("Upstream calls the check spent of the key's budget; a read served from the cache spends none."),
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
          "Reads each operation the features read with `api_key` (in the body: keys never go in a URL), through the upstream map and the key's cache and budget, and says per feature whether it works, works without a section (which, and which field is missing), or cannot run (which operation and field), or reads implausible figures: an answer that breaks a rule the spec implies (the score is the share of answered runs naming the brand, shares and scores within 0 to 100, counts whole, won + lost + held the questions compared, a history's weeks consecutive and ending in the period, the change the score less the week before's, our engines under our names), each violation naming the rule, the fields and the values seen. Each feature needs only what it cannot do without (docs/upstream.md, \"What each feature needs\"). Operations that need a value (a topic id, a question, a rival) take it from another answer, as the contract's `paramsFrom` says; one whose answer has none is `not_checked`, with a note. A page instead of JSON when `Accept` prefers `text/html`. The key is neither logged nor shown.",
        security: 'admin',
        requestBody: jsonBody('CheckBody', '`{"api_key": "...", "brand_id": 2, "market": "us"}`; `brand_id` and `market` as in the Read API (default: the key\'s only brand, its primary market).'),
        responses: {
          '200': ok('The verdicts.', { ...jsonOf('UpstreamCheck'), ...HTML }),
          '400': error('`invalid_parameter`: a field of the body, or `api_key` when the Read API refuses the key'),
          ...ADMIN_REFUSALS,
          '429': {
            ...error("`rate_limited`, `quota_exceeded`: the key's budget refused a read; no verdict, and the message says when to check again (the reads made are cached and free then)"),
            headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') },
          },
          '502': error('`upstream_error`: the Read API did not answer'),
        },
      },
    },
  },
};
