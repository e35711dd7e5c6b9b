/**
 * Lists in pages (DESIGN section 13, issue 57 item 3): a service that answers
 * a long list a page at a time says so only by a pointer beside the body (a
 * link with the next page's query, or an opaque token), and no one read can
 * prove a text is one. A probe does: the operation read again with the
 * pointer as its page, and the answer is a page only when it differs from the
 * first in one list alone, whose items are all new.
 *
 * ```ts
 * pointersOf({ data: { topics: [...] }, meta: { next: 'eyJvZmZzZXQiOjV9' } }, '/topics'); // [{ path: 'meta.next', value: 'eyJ…', link: undefined }]
 * pageDiff(first, second, 'meta.next'); // { container: 'data.topics' }
 * ```
 */
import type { Params } from '../contract/params-from';
import { conformBody } from '../contract/conform';
import { valueAtPath } from '../contract/paths';
import type { OperationId } from '../contract/operations';
import type { OperationMap } from '../contract/schemas/upstream-map';
import type { ZodSide } from '../contract/zod-side';
import { contractPaths, timeOf } from '../contract/upstream-map';

/** A text beside the body that may point to the next page. */
export interface Pointer {
  /** Where it stands in the whole answer, dotted. */
  path: string;
  value: string;
  /** When it is a link: the parameters it sets that the request did not (or set otherwise). */
  linkParams?: Params;
}

/**
 * The page parameters real services name, tried in this order for a token no link explains (the one found for one
 * operation is tried first for the others: a service names its pages one way).
 */
export const PAGE_PARAMS = ['cursor', 'page_token', 'pageToken', 'next_token', 'nextToken', 'after', 'starting_after', 'continuation', 'continuation_token', 'token', 'page', 'next'];

/** Pointers probed at most per operation: each costs a read (a token, one per parameter tried). */
export const POINTERS_PROBED = 2;

/** A token as services write them: one opaque text, longer than a word, no date, not only digits, letters and digits both. */
const TOKEN = /^[A-Za-z0-9_\-+/=.~:]{12,2048}$/;
const isToken = (text: string) => TOKEN.test(text) && /\d/.test(text) && /[A-Za-z]/.test(text) && Number.isNaN(timeOf(text));
const isLink = (text: string) => /^(https?:\/\/|\/|\?)/i.test(text) && text.length <= 2048;

/** Words that name a pointer: they only order the candidates, never make one. */
const POINTER_NAME = /next|cursor|token|page|after|continu/i;

/**
 * The texts outside every list of `body` that may point to the next page, likeliest first: a link to this
 * operation's path (or a bare query) that sets a parameter the request did not, then tokens, those named like a
 * pointer first.
 */
export function pointersOf(body: unknown, operationPath: string, asked: Params): Pointer[] {
  const links: Pointer[] = [];
  const tokens: Pointer[] = [];
  const visit = (value: unknown, path: string, depth: number) => {
    if (depth > 3 || value === null || typeof value !== 'object' || Array.isArray(value)) return;
    for (const [key, v] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (typeof v === 'string' && isLink(v)) {
        const linkParams = paramsOfLink(v, operationPath, asked);
        if (linkParams) links.push({ path: at, value: v, linkParams });
      } else if (typeof v === 'string' && isToken(v)) tokens.push({ path: at, value: v });
      else visit(v, at, depth + 1);
    }
  };
  visit(body, '', 0);
  const named = (p: Pointer) => (POINTER_NAME.test(p.path.split('.').at(-1)!) ? 0 : 1);
  return [...links, ...tokens.sort((a, b) => named(a) - named(b))];
}

/** The parameters a link sets that the request did not, or otherwise; undefined for a link to another path or that changes nothing. */
function paramsOfLink(text: string, operationPath: string, asked: Params): Params | undefined {
  let link: URL;
  try {
    link = new URL(text, 'http://service.invalid/');
  } catch {
    return undefined;
  }
  if (!text.startsWith('?') && !link.pathname.replace(/\/+$/, '').endsWith(operationPath)) return undefined;
  const changed: Params = {};
  for (const [name, value] of link.searchParams) if (String(asked[name] ?? '') !== value) changed[name] = value;
  return Object.keys(changed).length > 0 ? changed : undefined;
}

/** The page parameters to try with a token, in order: the one this service was found to use, then those real services use. */
export function paramsToTry(pointer: Pointer, learned: string | undefined): string[] {
  // A pointer named after its parameter (`next_cursor` for `cursor`, `nextPageToken` for `pageToken`).
  const name = pointer.path.split('.').at(-1)!;
  const stripped = name.replace(/^next[_-]?/i, '');
  const own = stripped !== name && stripped.length > 0 ? [stripped.charAt(0).toLowerCase() + stripped.slice(1), stripped] : [];
  return [...new Set([...(learned ? [learned] : []), ...own, ...PAGE_PARAMS])];
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Where a second answer is the next page of the first: the one list (an array, or an object keyed by its items)
 * whose contents changed, every item new and at least one there; undefined when it is not a page (the same answer,
 * a changed figure, two lists changed, an item of the first again). Texts and numbers beside the lists may change
 * (the pointer, a request id, a timing) and prove nothing.
 */
export function pageDiff(first: unknown, second: unknown): { container: string } | undefined {
  const containers: string[] = [];
  let broken = false;
  const visit = (a: unknown, b: unknown, path: string) => {
    if (Array.isArray(a) && Array.isArray(b)) {
      if (!same(a, b)) containers.push(path);
      return;
    }
    if (!isObj(a) || !isObj(b)) {
      if (isObj(a) !== isObj(b) || Array.isArray(a) !== Array.isArray(b)) broken = true;
      return;
    }
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    const lacking = [...keys].filter((k) => !(k in a) || !(k in b));
    // Keys that come and go where every value is an object or a list: a list keyed by its items.
    if (lacking.length > 0 && [...keys].every((k) => isObj(a[k] ?? b[k]) || Array.isArray(a[k] ?? b[k]))) {
      containers.push(path);
      return;
    }
    for (const k of keys) if (k in a && k in b) visit(a[k], b[k], path ? `${path}.${k}` : k);
  };
  visit(first, second, '');
  if (broken || containers.length !== 1) return undefined;
  const container = containers[0]!;
  const [a, b] = [at(first, container), at(second, container)];
  const fresh =
    Array.isArray(a) && Array.isArray(b)
      ? b.length > 0 && b.every((item) => !a.some((old) => same(old, item)))
      : isObj(a) && isObj(b) && Object.keys(b).length > 0 && Object.keys(b).every((k) => !(k in a));
  return fresh ? { container } : undefined;
}

const at = (value: unknown, path: string): unknown => (path === '' ? value : path.split('.').reduce<unknown>((v, k) => (isObj(v) ? v[k] : undefined), value));

/** The first page with the next page's items added to its list (`container`, as `pageDiff` found it). */
export function joinPage(first: Json, next: unknown, container: string): Json {
  const copy = structuredClone(first);
  const parts = container.split('.');
  const holder = parts.length === 1 ? copy : (at(copy, parts.slice(0, -1).join('.')) as Json);
  const key = parts.at(-1)!;
  const [mine, theirs] = [holder[key], at(next, container)];
  holder[key] = Array.isArray(mine) && Array.isArray(theirs) ? [...mine, ...theirs] : isObj(mine) && isObj(theirs) ? { ...mine, ...theirs } : mine;
  return copy;
}

/** Reads of a probe of pages that proved nothing, at most, over one discovery: a service with many opaque texts costs no more. */
export const PAGE_PROBES_WASTED = 24;
/** Any base: a page's request is built as a URL only to read its parameters back. */
export const PAGE_BASE = 'http://service.invalid/api/v1';

/** The contract list a service pages: of the body's lists (not inside another list), the one the whole list holds more of than the first page. */
export function pagedList(zs: ZodSide, id: OperationId, first: unknown, whole: unknown, guess: OperationMap): string | undefined {
  const [a, b] = [conformBody(zs.response(id), first, guess), conformBody(zs.response(id), whole, guess)];
  const grew = [...contractPaths(zs, id)]
    .filter((path) => path.endsWith('[]') && path.indexOf('[]') === path.length - 2)
    .map((path) => path.slice(0, -2))
    .filter((list) => {
      const [before, after] = [valueAtPath(a, list), valueAtPath(b, list)];
      return Array.isArray(before) && Array.isArray(after) && after.length > before.length;
    });
  return grew.length === 1 ? grew[0] : undefined;
}
