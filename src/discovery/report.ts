/**
 * What discovering the upstream map answers (`POST /admin/upstream/discover`,
 * `npm run upstream:discover`): the proposed map, ready to `PUT`, and per
 * operation how each contract field was placed and how sure that is. Written
 * as zod schemas so the product's OpenAPI document shows the same shape the
 * code builds.
 */
import * as z from 'zod';
import { CONVERSIONS, type Conversion } from '../contract/upstream-map';
import { upstreamMapSchemas } from '../contract/schemas/upstream-map';

/** Fields placed at or above this confidence go into the proposed map; the others wait for a person. */
export const CONFIDENCE_THRESHOLD = 0.75;

const Confidence = z.number().min(0).max(1);
const ConversionName = z.enum(Object.keys(CONVERSIONS) as [Conversion, ...Conversion[]]);

export const Placement = z.object({
  from: z.string().describe("The upstream's name for the field, in the upstream object that holds it."),
  confidence: Confidence,
  by: z
    .enum(['name', 'plural', 'synonym', 'entity', 'abbreviation', 'vocabulary', 'structure', 'type', 'form', 'join', 'flat', 'evidence', 'resemblance', 'elimination'])
    .describe(
      "`name`: the same name in any case convention (read with no map); `plural`, `synonym`: a word of the other; `entity`: after the name of the entity holding it (`BrandId` in a brand); `abbreviation`: word by word abbreviated (`DeltaPts`); `vocabulary`: the word the service uses for the same field in another object, where it was placed surely (`cites` for citations); `join`: its values are those another operation lists for it (a topic id of `/topics`, a question's text of `/answers`); `form`: the only field on both sides whose values are written as the contract's are (a date-time, a percentage); `structure`: an object holding most of the contract's fields; `type`: only the type of its values; `flat`: an object written flat in its parent (`\".\"`: `MarketId`, `MarketCode`), or one of its fields so found; `evidence`: the one candidate whose values keep a rule that fixes them (the score that is naming over answered, src/contract/plausibility.ts), or the order the contract gives its list (most cited first, src/contract/list-orders.ts); `resemblance`: of fields the evidence left tied on the same keys (two texts), the way of giving them their keys whose names clearly best resemble the contract's (`Titre` for `title`), never an id; `elimination`: the one candidate left once the others are keys the service writes unused beside objects placed whole (`trace_id`).",
    ),
  convert: ConversionName.optional(),
});
export type Placement = z.infer<typeof Placement>;

export const ValueProposal = z.object({ to: z.string(), confidence: Confidence, by: z.enum(['name', 'synonym', 'vendor', 'similar', 'evidence', 'elimination']) });
export type ValueProposal = z.infer<typeof ValueProposal>;

export const Candidate = z.object({
  from: z.string().optional().describe('For a field: the upstream field.'),
  convert: ConversionName.optional(),
  to: z.string().optional().describe("For a value: the contract's value it may stand for."),
  confidence: Confidence,
  by: z.enum(['name', 'plural', 'synonym', 'entity', 'abbreviation', 'vocabulary', 'structure', 'type', 'form', 'join', 'flat', 'evidence', 'resemblance', 'vendor', 'similar', 'elimination']),
});
export type Candidate = z.infer<typeof Candidate>;

export const ToConfirm = z.object({
  path: z.string().describe('The contract\'s path of the field (`history[].week_start`); `""` for the body itself (its envelope).'),
  value: z.string().optional().describe('For an enumeration: the upstream value to map.'),
  with: z
    .array(z.string())
    .optional()
    .describe(
      'Fields asked together with `path`, which the evidence cannot tell apart from it (a prompt and its answer, both text): the candidates are theirs too, one each, so choosing the one of `path` settles them.',
    ),
  reason: z.string(),
  candidates: z.array(Candidate).describe('Best first. Confirm one by adding it to the map and `PUT /admin/upstream/map`.'),
});
export type ToConfirm = z.infer<typeof ToConfirm>;

const Params = z.record(z.string(), z.union([z.string(), z.number()]));

export const OperationRead = z.object({
  status: z.literal(200),
  params: Params,
  cache: z.string().nullable().describe('`X-Cache` of the read: `HIT` cost the upstream nothing.'),
  envelope: z.object({ at: z.string(), confidence: Confidence, in_map: z.boolean().describe("False when it is found with no map, as every envelope the contract's names identify.") }).nullable(),
  fields: z.record(z.string(), Placement).describe('Every contract field placed at or above the threshold, by its contract path.'),
  values: z.record(z.string(), z.record(z.string(), ValueProposal)).describe("Enumeration values mapped onto the contract's, by path and upstream value."),
  to_confirm: z.array(ToConfirm).describe('Fields and values placed below the threshold, or two ways: left out of the map for a person to choose.'),
  unplaced: z.array(z.string()).describe('Contract fields nothing in the body may stand for.'),
  unseen: z.array(z.string()).describe('Contract paths with no value to judge by (an empty array, null everywhere).'),
  unused: z.array(z.string()).describe("Upstream fields nothing used, at their place in the contract's body (`history[].extra`)."),
  carried: z.record(z.string(), z.array(z.string())).describe('Values of open enumerations the contract does not list, carried as they are (an engine `grok`).'),
  reads: z.object({ ok: z.boolean(), problem: z.string().optional() }).describe("Whether the body reads as the contract's with the proposed map; the first field at fault otherwise."),
});
export type OperationRead = z.infer<typeof OperationRead>;

export const OperationRefused = z
  .object({ status: z.number().int(), params: Params, error: z.object({ code: z.string(), message: z.string() }) })
  .describe('The upstream refused the read (403 plan, 409 integration, 404): not a failure of discovery.');
export const OperationSkipped = z.object({ status: z.null(), skipped: z.string().describe('Which value the request lacked, and why.') });

export const DiscoveryReport = z.object({
  threshold: z.number(),
  calls: z.number().int().min(0).describe('Reads made with the key, each counted against its budget like any read.'),
  upstream_calls: z.number().int().min(0).describe('Reads the edge cache did not answer (not `HIT` or `STALE`): at most this many went upstream.'),
  brand_id: z.number().int().nullable().describe('The brand read, for a key with several brands (the first `GET /brands` lists); null otherwise.'),
  map: upstreamMapSchemas().UpstreamMapInput.describe('The proposed map: what `PUT /admin/upstream/map` takes, with only the entries at or above the threshold.'),
  operations: z.record(z.string(), z.union([OperationRead, OperationRefused, OperationSkipped])).describe('Every operation of the contract, in its order.'),
  stopped: z
    .object({
      status: z.number().int(),
      code: z.string(),
      message: z.string(),
      operation: z.string().optional().describe('For a 429: the read that was refused.'),
      retry_after: z.number().int().optional().describe('For a 429: seconds until the key may read again.'),
      resume_at: z.iso.datetime().optional().describe('For a 429: when discovery can go on (now plus `retry_after`).'),
    })
    .optional()
    .describe(
      "Discovery stopped: at its first read, the key reads nothing (`invalid_api_key`, `plan_inactive`) or the service did not answer (status 0 or 5xx); at any read, a 429 (the key's budget or quota): then `map` is empty, as nothing is proposed from refused reads.",
    ),
  other_brands_read: z
    .array(z.number().int())
    .optional()
    .describe(
      'A key with several brands: the brands besides `brand_id` whose answers holding enumeration values (answer states, outcomes, actions, classes) were read too, so values only another brand shows are mapped.',
    ),
  probes: z
    .array(z.object({ purpose: z.string(), reads: z.number().int().min(0), settled: z.string() }))
    .optional()
    .describe('Reads discovery chose to settle what one read of each operation could not, each with what it settled.'),
  incomplete: z
    .object({ code: z.literal('brand_required'), operations: z.array(z.string()), message: z.string() })
    .optional()
    .describe("Operations the service refused for a reason of discovery's own making (no brand given to a key with several): not a success, and `apply` stores nothing."),
  waited_seconds: z.number().optional().describe("The command line only: seconds it waited for the key's budget between reads."),
  applied: z.object({ version: z.number().int() }).nullable().optional().describe('With `"apply": true`: the version the proposed map was stored as; null when nothing was read.'),
});
export type DiscoveryReport = z.infer<typeof DiscoveryReport>;
