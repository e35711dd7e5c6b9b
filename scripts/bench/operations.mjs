// The operations the benchmarks read, as the Worker under test publishes them
// in /api/v1/openapi.json: the document is generated from the contract table
// (src/contract/operations.ts), every operation with its example request (its
// parameters' `example`), a valid request for demo_pro_single's brand (id 1)
// in its primary market on the demo data. A new operation of the table is
// benchmarked with no list here to edit.

/**
 * Every operation of an OpenAPI document, in the table's order: its id, path
 * template, window (`x-window`), parameter names and example request as a
 * path and query under /api/v1 (e.g. `/topics/1101`).
 */
export function operationsOf(doc) {
  return Object.entries(doc.paths).map(([template, item]) => {
    const op = item.get;
    const example = (where) => op.parameters.filter((p) => p.in === where && p.example !== undefined);
    const path = template.replace(/\{(\w+)\}/g, (_, name) => {
      const param = example('path').find((p) => p.name === name);
      if (!param) throw new Error(`${op.operationId}: the OpenAPI document gives no example for the path parameter ${name}`);
      return encodeURIComponent(String(param.example));
    });
    const query = Object.fromEntries(example('query').map((p) => [p.name, p.example]));
    return { id: op.operationId, template, window: op['x-window'], params: op.parameters.map((p) => p.name), example: withQuery(path, query) };
  });
}

/** `path` (which may have a query already) with `params` appended, percent-encoded. */
export function withQuery(path, params) {
  const query = Object.entries(params)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
    .join('&');
  return query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path;
}

/** The operations of the document at `url` (the Worker's /api/v1/openapi.json), via `fetcher` (fetch, or a Miniflare's dispatchFetch). */
export async function fetchOperations(url, fetcher = fetch) {
  const response = await fetcher(url);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  const operations = operationsOf(await response.json());
  if (operations.length === 0) throw new Error(`${url}: no operations`);
  return operations;
}
