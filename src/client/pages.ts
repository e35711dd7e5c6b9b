/**
 * Lists in pages (DESIGN section 13): a service that answers a long list a
 * page at a time, with a pointer to the next page in the answer. The
 * upstream map says where (`pages`, src/contract/upstream-map.ts); the client
 * follows it for the reads whose whole list a feature needs, and the proxy
 * passes each page on as it is.
 *
 * The pointer is a token put in the page's parameter (`"cursor": "b2Zm…"`),
 * or a link to the next page, of which only the page's parameters are taken:
 * the next request is always this request with those parameters, so a link
 * can neither send the key elsewhere nor change what is asked.
 *
 * ```ts
 * nextPage(new URL('https://api.example/v1/topics?days=28'), { meta: { next: '/v1/topics?days=28&page=2' } }, pages); // …/topics?days=28&page=2
 * ```
 */
import { fieldOf, holdersOf, valueAtPath } from '../contract/paths';
import type { OperationMap } from '../contract/schemas/upstream-map';

export type Pages = NonNullable<OperationMap['pages']>;

/** Pages read at most for one call, the first included: each is a read of the key's budget. */
export const MAX_PAGES = 20;

/** A pointer's longest text: a token or link longer than this is no pointer. */
const MAX_POINTER = 2048;

/** The next page's request, `undefined` on the last page, or why the pointer cannot be followed. */
export function nextPage(url: URL, body: unknown, pages: Pick<Pages, 'next' | 'params'>): URL | undefined | { problem: string } {
  const pointer = valueAtPath(body, pages.next);
  if (pointer === undefined || pointer === null || pointer === '' || pointer === false) return undefined;
  if ((typeof pointer !== 'string' && typeof pointer !== 'number') || String(pointer).length > MAX_POINTER)
    return { problem: `the pointer to the next page (\`${pages.next}\`) is neither a token nor a link` };
  const text = String(pointer);
  const next = new URL(url);
  if (!isLink(text)) {
    next.searchParams.set(pages.params[0]!, text);
    return next;
  }
  const link = new URL(text, url);
  const given = pages.params.filter((name) => link.searchParams.has(name));
  if (given.length === 0) return { problem: `the link to the next page (\`${pages.next}\`) names none of its parameters (${pages.params.join(', ')})` };
  for (const name of given) next.searchParams.set(name, link.searchParams.get(name)!);
  return next;
}

/** A link rather than a token: an address, a path or a query. */
const isLink = (text: string) => /^(https?:\/\/|\/|\?)/i.test(text);

/** The first page's body with the list made whole: every page's items in the order read. */
export function joinPages<T>(first: T, rest: readonly T[], list: string): T {
  const field = fieldOf(list);
  const holder = holdersOf(first, list)[0];
  if (!holder || !Array.isArray(holder[field])) return first;
  holder[field] = [
    ...holder[field],
    ...rest.flatMap((page) => {
      const items = valueAtPath(page, list);
      return Array.isArray(items) ? items : [];
    }),
  ];
  return first;
}
