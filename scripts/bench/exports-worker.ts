/**
 * The Worker the export benchmark runs: the origin benchmark's Worker (the
 * reference origin and its /__bench/seed route), plus `/__bench/csv`, which
 * reads one operation from the origin in-process and answers its CSV as
 * `/x/<token>.csv` builds it (src/exports/table.ts). Never part of the product.
 */
import { csvColumns, tableRows, toCsv } from '../../src/exports/table';
import { type CsvRows, operationList } from '../../src/contract/operations';
import { zodSide } from '../../src/contract/zod-side';
import origin from './origin-worker';

export default {
  async fetch(request: Request, env: { DB: D1Database }, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== '/__bench/csv') return origin.fetch(request, env, ctx);
    // The table operations as src/exports/target.ts lists them (that module also reaches the Worker's bindings).
    const op = operationList.find((o): o is (typeof operationList)[number] & { csv: CsvRows } => o.id === url.searchParams.get('op') && o.csv !== undefined);
    if (!op) return new Response('unknown op', { status: 400 });
    const read = await origin.fetch(new Request(`http://bench/api/v1${url.searchParams.get('path')}`, { headers: request.headers }), env, ctx);
    if (!read.ok) return read;
    const columns = csvColumns(await zodSide(), op);
    return new Response(toCsv(columns, tableRows(op.csv, columns, await read.json())), { headers: { 'content-type': 'text/csv; charset=utf-8' } });
  },
};
