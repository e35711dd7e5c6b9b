/**
 * What an export link may name, checked with the contract's own schemas: an
 * operation of the table that has rows (`csv`), and parameters its path and
 * query schemas accept (window rules included, against today). Every problem
 * is a 400 naming the field: `operation`, or `params.<name>`.
 */
import * as z from 'zod';
import { ApiError, invalidParameter } from '../contract/errors';
import { type AnyOperation, type CsvRows, type OperationId, operationList } from '../contract/operations';
import { BRAND_MARKET_PARAMS, readParams } from '../contract/params';
import { parseRequest } from '../contract/request';
import { toDay } from '../contract/window';
import { HISTORY_KIND, PLAN_KIND, SCOPE_KINDS } from '../links/export-links';

/** An operation with rows: one that exports to CSV. */
export type TableOperation = AnyOperation & { id: OperationId; csv: CsvRows };

/** The list-shaped operations, from the table. */
export const TABLE_OPERATIONS: readonly TableOperation[] = operationList.filter((op): op is TableOperation => op.csv !== undefined);
const byId = new Map(TABLE_OPERATIONS.map((op) => [op.id as string, op]));

/** What `operation` may be: a list-shaped operation id, `history` or `plan`. */
export const EXPORT_KINDS: readonly string[] = [...byId.keys(), HISTORY_KIND, PLAN_KIND];

export const tableOperation = (id: string): TableOperation | undefined => byId.get(id);

/** `params`: parameter values by name, as JSON scalars (sent as text in the query string). */
export const ParamsField = z
  .record(z.string().max(64), z.union([z.string().max(1000), z.number(), z.boolean()]), { error: '`params` must be an object of parameter values (strings, numbers or booleans).' })
  .default({});

/**
 * Checks the operation and its parameters. Returns the operation (undefined
 * for `history` and `plan`) and the parameters as text. A relative window (`days`)
 * stays as given: it is resolved whenever the link is read.
 */
export function checkTarget(kind: string, params: Record<string, string | number | boolean>, now: Date): { op: TableOperation | undefined; params: Record<string, string> } {
  const text = Object.fromEntries(Object.entries(params).map(([name, value]) => [name, String(value)]));
  if (SCOPE_KINDS.includes(kind)) {
    // The Read API's own rules for the brand and the market: a link takes what the API takes.
    try {
      readParams(BRAND_MARKET_PARAMS, text, { hint: (name) => `\`${name}\` is not a parameter of the ${kind === PLAN_KIND ? 'plan' : 'history'}: it takes \`brand_id\` and \`market\`.` });
    } catch (error) {
      if (error instanceof ApiError && error.param !== undefined) throw invalidParameter(`params.${error.param}`, error.message);
      throw error;
    }
    return { op: undefined, params: text };
  }
  const op = tableOperation(kind);
  if (!op) throw invalidParameter('operation', `\`operation\` must be an operation with rows: ${EXPORT_KINDS.join(', ')}.`);
  const pathNames = Object.keys(op.params.path);
  const rawPath: Record<string, string> = {};
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(text)) {
    if (pathNames.includes(name)) rawPath[name] = encodeURIComponent(value);
    else query.set(name, value);
  }
  const missing = pathNames.find((name) => rawPath[name] === undefined);
  if (missing) throw invalidParameter(`params.${missing}`, `\`${missing}\` is required: ${op.id} reads ${op.path}.`);
  try {
    parseRequest({ op, rawPath }, query, toDay(now));
  } catch (error) {
    if (error instanceof ApiError && error.param !== undefined) throw invalidParameter(`params.${error.param}`, error.message);
    throw error;
  }
  return { op, params: text };
}
