/**
 * An operation's answer as a table, from the contract table alone: the
 * operation's `csv` entry says which array is the rows (and which array of
 * each row, if any, gives one row per item); its response schema says the
 * columns. Nested objects become dotted columns (`topic.name`), an exploded
 * array's fields are prefixed with its name (`engines.state`), and any other
 * array is spread over numbered columns, one value per cell
 * (`rivals.1.name`, `rivals.1.share`, `rivals.2.name`…; `spreadLists`), so a
 * sheet can chart it and no cell holds JSON. A 24th operation with a `csv`
 * entry exports with no list to edit here.
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

/** `value` as cells under `name`: itself, or each field of an object under `name.field`, each item of a list under `name.1`, `name.2`… */
function spreadInto(cells: Map<string, unknown>, name: string, value: unknown): void {
  if (Array.isArray(value)) value.forEach((item, i) => spreadInto(cells, `${name}.${i + 1}`, item));
  else if (typeof value === 'object' && value !== null) for (const [field, inner] of Object.entries(value)) spreadInto(cells, `${name}.${field}`, inner);
  else cells.set(name, value);
}

/** The item numbers of a spread column (`rivals.2.name` → [2]), to order the columns item by item. */
const itemNumbers = (name: string) => name.split('.').flatMap((part) => (/^\d+$/.test(part) ? [Number(part)] : []));
const byItem = (a: string, b: string) => {
  const [x, y] = [itemNumbers(a), itemNumbers(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};

/**
 * The rows with every list spread over numbered columns, one value per cell: `rivals` becomes `rivals.1.name`,
 * `rivals.1.share`, `rivals.2.name`… (a list of values `engines.1`, `engines.2`), as many items as the longest
 * row has, item by item in the table's column order. A list empty in every row keeps its one column, empty.
 */
export function spreadLists(columns: readonly string[], rows: readonly Record<string, unknown>[]): { columns: string[]; rows: Record<string, unknown>[] } {
  const cells = rows.map((row) => {
    const out = new Map<string, unknown>();
    for (const column of columns) spreadInto(out, column, row[column]);
    return out;
  });
  const spread = columns.flatMap((column) => {
    const names = new Set<string>();
    for (const row of cells) for (const name of row.keys()) if (name === column || name.startsWith(`${column}.`)) names.add(name);
    // A row without the list (null) adds no column of its own beside the items of the others.
    const items = [...names].filter((name) => name !== column);
    return items.length > 0 ? items.sort(byItem) : [column];
  });
  return { columns: spread, rows: cells.map((row) => Object.fromEntries(spread.map((column) => [column, row.get(column) ?? null]))) };
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
 * above, and csv-stringify, which wrote it before, cost about 11 KiB of the bundle for its options (npm run check -- size).
 */
export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  return [columns, ...rows.map((row) => columns.map((column) => cellText(row[column])))].map((record) => `${record.map(field).join(',')}\r\n`).join('');
}

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';
