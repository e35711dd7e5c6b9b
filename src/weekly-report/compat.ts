/**
 * The compatibility check (`POST /admin/upstream/check`, DESIGN section 13):
 * with one API key, each operation the features read is read through the
 * upstream map, as the features read it (`readParts`, `readTableBody`), and
 * each feature is said to work, to work without a section (which one, and
 * which field is missing), not to run (which operation and field), or to
 * read implausible figures: a read that breaks a rule of the contract's
 * table (src/contract/plausibility.ts), named with the fields and values.
 *
 * ```ts
 * const result = await checkCompatibility(api(key, address), { market: 'us' });
 * result.features; // [{ feature: 'digest', status: 'works_without', missing: [{ part: 'history', operation: 'getVisibility', field: 'history', words, line }] }, ...]
 * ```
 *
 * Every feature's verdict comes from the parts table (parts.ts) and the same
 * lenient reads the feature makes, so the check cannot say "works" of a read
 * the feature would fail. Reads after the first of an operation are cache
 * hits; operations that need a value (a topic's id, a question's text, a
 * rival's name) take it from another answer (`paramsFrom`), as discovery does.
 */
import { type ApiClient, ApiClientError } from '../client';
import { type OperationId, operationList, operations } from '../contract/operations';
import { atOrUnder } from '../contract/paths';
import { fillParams, type Params } from '../contract/params-from';
import { type RuleContext, type Violation, violationsOf } from '../contract/plausibility';
import { type Feature, NEEDS, type Needs, notProvidedLine, operationMissing, PARTS, PART_IDS, type PartId, readParts, readTableBody } from './parts';
import { scopeParams, type WeekTarget } from './read';

export type FeatureStatus = 'works' | 'works_without' | 'cannot_run' | 'implausible';

/** Something a feature reads that the service does not provide. */
export interface Missing {
  /** A part of the table (parts.ts), `rows` of a CSV export, or `column` of one. */
  part: PartId | 'rows' | 'column' | 'body';
  operation: OperationId;
  /** The contract's field that is absent or unreadable; null when the operation itself is missing (`answer` says what answered). */
  field: string | null;
  /** What the service answered instead of the operation (`404 not_found`). */
  answer?: string;
  /** The value at `field` that is none of the contract's and that no rule or map entry reads as one (`unclaimed`). */
  unmapped?: string;
  words: string;
  /** Whether the feature (or, for CSV, that operation's export) cannot run without it. */
  required: boolean;
  /** What the feature says where it leaves the section out; absent where it cannot run. */
  line?: string;
}

export interface FeatureVerdict {
  feature: Feature;
  label: string;
  status: FeatureStatus;
  missing: Missing[];
  /** The rules its reads break (`implausible`): the figures would be wrong. */
  violations: Violation[];
}

export type OperationStatus = 'readable' | 'readable_without' | 'unreadable' | 'not_provided' | 'refused' | 'not_checked';

export interface OperationVerdict {
  operation: OperationId;
  status: OperationStatus;
  /** Fields of the contract the body lacks (`readable_without`), or the one it breaks (`unreadable`). */
  fields: string[];
  /** The API's answer when it refused the read (`refused`: the key's plan or integrations), or said there is no such operation. */
  code?: string;
  note?: string;
  /** The rules the body breaks, read as its export reads it. */
  violations?: Violation[];
}

export interface CompatibilityResult {
  features: FeatureVerdict[];
  /** Each operation as a CSV export reads it: the most lenient read, so every field it lacks is listed. */
  operations: OperationVerdict[];
  /** Reads made through the key's cache (each at most one upstream call). */
  reads: number;
}

export const FEATURE_LABELS: Record<Feature, string> = {
  digest: 'The weekly digest',
  report_page: 'The report page',
  alerts: 'Change alerts',
  csv_exports: 'CSV exports',
  history: 'The kept history',
  weekly_report: 'MCP weekly_report',
};

/** The brand and market to check, as the Read API takes them (its defaults where not given). */
export type CheckTarget = Pick<WeekTarget, 'brand_id' | 'market'>;

/** An error that says nothing about the service's bodies (an outage, the key's budget): the check cannot answer, and says so. */
export class CheckInterrupted extends Error {
  override readonly name = 'CheckInterrupted';
  constructor(readonly failure: ApiClientError) {
    super(failure.message);
  }
}

/** `history.3.score` as the contract writes it: `history[].score`. */
const contractField = (field: string) => field.replace(/\.\d+(?=\.|$)/g, '[]');

/** The field a read failed on, or, for an operation the service does not have, what it answered instead. */
const whyMissing = (error: ApiClientError): { field: string | null; answer?: string; unmapped?: string } =>
  error.kind === 'parse'
    ? { field: error.field ? contractField(error.field) : null, ...(error.unmapped !== undefined ? { unmapped: error.unmapped } : {}) }
    : { field: null, answer: `${error.status} ${error.code}` };

/** The part a broken field belongs to: the one whose field holds it (`questions[].outcome` is the won and lost list's). */
function partOfField(id: OperationId, field: string): PartId | undefined {
  return PART_IDS.find((part) => PARTS[part].operation === id && PARTS[part].fields.some((outer) => atOrUnder(field, outer)));
}

const OPERATIONS_OF = (needs: Needs) => [...new Set(PART_IDS.filter((part) => needs[part] !== undefined).map((part) => PARTS[part].operation))];

/** What a feature with `needs` lacks, and the rules its reads break, from the same reads it makes. */
async function missingFor(client: ApiClient, needs: Needs, params: Record<string, unknown>, counter: { reads: number }, context: RuleContext): Promise<Findings> {
  const missing: Missing[] = [];
  const violations: Violation[] = [];
  for (const id of OPERATIONS_OF(needs)) {
    counter.reads++;
    try {
      // An operation of the account (`/brands`) is read as the features read it: without the brand and market.
      const read = await readParts(client, needs, id, operations[id].scope === 'account' ? {} : params);
      violations.push(...violationsOf(id, read.data, context));
      for (const part of read.notProvided) {
        const need = needs[part];
        if (need === undefined || need === 'required') continue;
        const about = { part, operation: id, words: PARTS[part].words, required: false, line: notProvidedLine(part, need, read.misses) };
        if (read.missing) missing.push({ ...about, ...whyMissing(read.missing) });
        else for (const field of PARTS[part].fields.filter((f) => read.absent.includes(f))) missing.push({ ...about, field });
      }
    } catch (error) {
      if (!(error instanceof ApiClientError)) throw error;
      if (!operationMissing(error)) throw new CheckInterrupted(error);
      const why = whyMissing(error);
      const part = why.field === null ? undefined : partOfField(id, why.field);
      missing.push({ part: part ?? 'body', operation: id, ...why, words: part ? PARTS[part].words : why.field === null ? `the operation ${id}` : `its field ${why.field}`, required: true });
    }
  }
  return { missing, violations };
}

interface Findings {
  missing: Missing[];
  violations: Violation[];
}

/** A feature that cannot run says so first; one that runs on figures breaking a rule is implausible, whatever it leaves out. */
const statusOf = ({ missing, violations }: Findings): FeatureStatus =>
  missing.some((m) => m.required) ? 'cannot_run' : violations.length > 0 ? 'implausible' : missing.length > 0 ? 'works_without' : 'works';

const verdict = (feature: Feature, findings: Findings, status: FeatureStatus = statusOf(findings)): FeatureVerdict => ({
  feature,
  label: FEATURE_LABELS[feature],
  status,
  ...findings,
});

/** Required parameters the request still lacks: these operations are not read by the check. */
const needsParameter = (op: (typeof operationList)[number], params: Params) =>
  [
    ...Object.keys(op.params.path),
    ...Object.entries(op.params.query)
      .filter(([, param]) => param.presence === 'required')
      .map(([name]) => name),
  ].filter((name) => !(name in params));

/**
 * Every CSV operation read as its export reads it. Those that need a value
 * (a topic's id, a question's text, a rival's name) take it from an answer
 * read before, as the contract's table says (`paramsFrom`), so they are read last.
 */
async function operationVerdicts(client: ApiClient, target: CheckTarget, counter: { reads: number }, context: RuleContext): Promise<OperationVerdict[]> {
  const verdicts = new Map<OperationId, OperationVerdict>();
  /** Each answer read, on the contract's names, and why an operation gave none: where the later requests find their values. */
  const answers = new Map<OperationId, unknown>();
  const failed = new Map<OperationId, string>();
  const csvOperations = operationList.filter((op) => op.csv);
  for (const op of [...csvOperations.filter((o) => !o.paramsFrom), ...csvOperations.filter((o) => o.paramsFrom)]) {
    const params: Params = {};
    if (op.scope !== 'account' && target.brand_id !== undefined) params.brand_id = String(target.brand_id);
    if (op.scope === 'brand' && target.market !== undefined) params.market = target.market;
    const lacking = fillParams(op, params, answers, failed);
    const needed = needsParameter(op, params);
    if (lacking !== undefined || needed.length > 0) {
      verdicts.set(op.id, { operation: op.id, status: 'not_checked', fields: [], note: lacking ?? `needs ${needed.join(' and ')}, which only a person can give` });
      continue;
    }
    counter.reads++;
    try {
      const { data, absent } = await readTableBody(client, op.id, op.csv!, Object.fromEntries(Object.entries(params).map(([name, value]) => [name, String(value)])));
      answers.set(op.id, data);
      const violations = violationsOf(op.id, data, context);
      verdicts.set(op.id, { operation: op.id, status: absent.length > 0 ? 'readable_without' : 'readable', fields: absent, ...(violations.length > 0 ? { violations } : {}) });
    } catch (error) {
      if (!(error instanceof ApiClientError)) throw error;
      failed.set(op.id, `answered ${error.kind === 'parse' ? 'a body it cannot read' : `${error.status} ${error.code}`}`);
      if (error.kind === 'parse') verdicts.set(op.id, { operation: op.id, status: 'unreadable', fields: error.field ? [contractField(error.field)] : [] });
      else if (operationMissing(error)) verdicts.set(op.id, { operation: op.id, status: 'not_provided', fields: [], code: `${error.status} ${error.code}` });
      // The key's plan or integrations, not the service's bodies: said, and no verdict on the export.
      else if (error.code === 'feature_not_in_plan' || error.code === 'integration_not_connected') verdicts.set(op.id, { operation: op.id, status: 'refused', fields: [], code: error.code });
      else throw new CheckInterrupted(error);
    }
  }
  return csvOperations.map((op) => verdicts.get(op.id)!);
}

/**
 * CSV exports, from the operations' reads: each export needs its rows; a field of a row the body lacks is an empty
 * column. A field beside the rows (a body's own `score` or `period`) is in no column: its absence changes nothing.
 */
function csvVerdict(operations: OperationVerdict[]): FeatureVerdict {
  const missing: Missing[] = operations.flatMap((op): Missing[] => {
    const { rows, each } = operationList.find((o) => o.id === op.operation)!.csv!;
    const rowsOf = { part: 'rows', operation: op.operation, words: `the rows of the ${op.operation} export`, required: true } as const;
    if (op.status === 'unreadable') return [{ ...rowsOf, field: op.fields[0] ?? rows }];
    if (op.status === 'not_provided') return [{ ...rowsOf, field: null, ...(op.code ? { answer: op.code } : {}) }];
    if (op.status !== 'readable_without') return [];
    return op.fields.flatMap((field) => {
      if (!field.startsWith(`${rows}[].`)) return [];
      // The CSV's own column name: `rivals`, or `engines.state` for a field of the items a row is exploded into.
      const inRow = field.slice(rows.length + 3);
      const column = each && inRow.startsWith(`${each}[].`) ? `${each}.${inRow.slice(each.length + 3)}` : inRow;
      return [
        {
          part: 'column',
          operation: op.operation,
          field,
          words: `the ${column} column of the ${op.operation} export`,
          required: false,
          line: `The ${op.operation} export leaves its ${column} column empty.`,
        },
      ];
    });
  });
  // A rule that blames (its first field) a field of an export's rows makes a column wrong; one beside the rows is in no column.
  const violations = operations.flatMap((op) => {
    const { rows } = operationList.find((o) => o.id === op.operation)!.csv!;
    return (op.violations ?? []).filter((v) => v.fields[0]!.startsWith(`${rows}[]`));
  });
  // One export that cannot run leaves the others: the feature works without it.
  const readable = operations.some((op) => op.status === 'readable' || op.status === 'readable_without');
  return verdict('csv_exports', { missing, violations }, !readable ? 'cannot_run' : violations.length > 0 ? 'implausible' : missing.length > 0 ? 'works_without' : 'works');
}

/** The check; see the module comment. `context.today`, from the caller's clock, is the day the fixed windows end on. Throws `CheckInterrupted` when a read fails for a reason that says nothing about the bodies. */
export async function checkCompatibility(client: ApiClient, target: CheckTarget, context: RuleContext = {}): Promise<CompatibilityResult> {
  const counter = { reads: 0 };
  const params = scopeParams(target);
  const operations = await operationVerdicts(client, target, counter, context);
  // The digest, the page and weekly_report have one table of needs: checked once.
  const byNeeds = new Map<Needs, Findings>();
  const features: FeatureVerdict[] = [];
  for (const feature of ['digest', 'report_page', 'alerts', 'csv_exports', 'history', 'weekly_report'] as const) {
    if (feature === 'csv_exports') {
      features.push(csvVerdict(operations));
      continue;
    }
    const needs = NEEDS[feature];
    if (!byNeeds.has(needs)) byNeeds.set(needs, await missingFor(client, needs, params, counter, context));
    features.push(verdict(feature, byNeeds.get(needs)!));
  }
  return { features, operations, reads: counter.reads };
}
