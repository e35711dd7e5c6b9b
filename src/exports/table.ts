/**
 * An operation's answer as a table, from the contract table alone: the
 * operation's `csv` entry says which array is the rows (and which array of
 * each row, if any, gives one row per item); its response schema says the
 * columns. Nested objects become dotted columns (`topic.name`), an exploded
 * array's fields are prefixed with its name (`engines.state`), any other
 * array is one cell holding its JSON. A 24th operation with a `csv` entry
 * exports with no list to edit here.
 *
 * Cells, written for spreadsheets (RFC 4180: a header row, CRLF after each
 * record, a field in double quotes when it holds a comma, a quote or a line
 * break, its quotes doubled): null is empty; numbers and booleans as
 * JSON writes them. A text cell that begins with `=`, `+`, `-`, `@`, tab or
 * carriage return gets a `'` in front, so Sheets and Excel show it instead
 * of running it as a formula (OWASP, "CSV injection"). Numbers are exempt: a
 * JSON number is a value, never a formula, and `-3.2` must stay a number a
 * sheet can sum.
 */
import type * as z from 'zod';
import type { CsvRows, OperationId } from '../contract/operations';
import { schemaAtPath, valueAtPath } from '../contract/paths';
import { defOf, unwrapSchema as unwrap } from '../contract/schema-walk';
import type { ZodSide } from '../contract/zod-side';

/** The dotted paths of an object's columns; `each` (at the top only) is the array whose item fields are inlined under its name. */
function columnsOf(schema: z.ZodType, prefix: string, each?: string): string[] {
  const def = defOf(unwrap(schema));
  if (def.type !== 'object' || !def.shape) return [prefix];
  return Object.entries(def.shape).flatMap(([name, field]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    const inner = defOf(unwrap(field));
    if (name === each && inner.type === 'array' && inner.element) return columnsOf(inner.element, path);
    return inner.type === 'object' ? columnsOf(field, path) : [path];
  });
}

const memo = new Map<OperationId, string[]>();

/** The operation's CSV columns, in schema order (memoised per operation). */
export function csvColumns(zs: ZodSide, op: { id: OperationId; csv: CsvRows }): string[] {
  let columns = memo.get(op.id);
  if (!columns) {
    columns = columnsOf(schemaAtPath(zs.response(op.id), `${op.csv.rows}[]`), '', op.csv.each);
    memo.set(op.id, columns);
  }
  return columns;
}

const get = (value: unknown, path: string): unknown => valueAtPath(value, path) ?? null;

/** The answer's rows as flat records keyed by column (values as in the JSON). An empty exploded array still gives its parent one row. */
export function tableRows(csv: CsvRows, columns: readonly string[], body: unknown): Record<string, unknown>[] {
  const items = get(body, csv.rows);
  if (!Array.isArray(items)) return [];
  const flat = (record: unknown) => Object.fromEntries(columns.map((column) => [column, get(record, column)]));
  if (!csv.each) return items.map(flat);
  const each = csv.each;
  return items.flatMap((item: Record<string, unknown>) => {
    const children = Array.isArray(item[each]) ? (item[each] as unknown[]) : [];
    return children.length === 0 ? [flat({ ...item, [each]: null })] : children.map((child) => flat({ ...item, [each]: child }));
  });
}

/** A cell that a spreadsheet would run as a formula starts with one of these. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell's text: see the module comment. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** A field as RFC 4180 writes it: quoted, with its quotes doubled, when it holds a comma, a quote or a line break. */
const field = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

/**
 * RFC 4180 text: the header row, then one line per record, CRLF after each. Written here: the rule is the line
 * above, and csv-stringify, which wrote it before, cost about 11 KiB of the bundle for its options (npm run size).
 */
export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  return [columns, ...rows.map((row) => columns.map((column) => cellText(row[column])))].map((record) => `${record.map(field).join(',')}\r\n`).join('');
}

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';
