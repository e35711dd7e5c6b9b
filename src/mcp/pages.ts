/**
 * Long lists, compact: a tool result holds at most `ROW_LIMIT` rows of its
 * list, so one call never floods the assistant's context (a 90-day overview
 * or a 1,000-row search report would be tens of kilobytes). The rows are
 * those the CSV export counts (`csv.rows` of the contract table: `prompts`,
 * `questions`, `competition.daily`...). A longer list comes back as its first
 * rows and `page`, which says how many there are and where the next page
 * starts; the next call passes `offset`. Every page is the same cached read:
 * `offset` is never sent to the API.
 */
import type { JsonObject } from '../contract/openapi';
import { valueAtPath } from '../contract/paths';

/** Rows per result: a 42-question list is two pages, and the largest page stays a few tens of kilobytes. */
export const ROW_LIMIT = 25;

/** The argument that asks for the next page. */
export const OFFSET_ARG = 'offset';

/** The field a paged result adds to the body; no response of the contract has a top-level field of this name (schemas.ts checks). */
export const PAGE_FIELD = 'page';

export interface Page {
  /** The paged list, as a dotted path of the body (`competition.daily`). */
  rows: string;
  offset: number;
  limit: number;
  /** Rows in the whole list. */
  total: number;
  /** The `offset` of the next page; null on the last. */
  next_offset: number | null;
}

/** `page` in an output schema: an object (`Page`), its fields said once, in the server's instructions and docs/mcp.md, not in every tool's schema. */
export const PAGE_SCHEMA: JsonObject = { type: 'object' };

/** The input property of `offset`: the server's instructions say how paging works, once for every tool. */
export const OFFSET_INPUT: JsonObject = { type: 'integer', minimum: 0, description: 'Next page: `page.next_offset`.' };

/**
 * `body` with the list at `rows` cut to the page at `offset`, and `page`; the
 * body itself, unchanged, when it holds the whole list in one page (which
 * is what `/api/v1` answers, exactly).
 */
export function pageOf(body: Record<string, unknown>, rows: string, offset = 0): Record<string, unknown> {
  const list = listAt(body, rows);
  if (!list || (offset === 0 && list.length <= ROW_LIMIT)) return body;
  const end = offset + ROW_LIMIT;
  const page: Page = { rows, offset, limit: ROW_LIMIT, total: list.length, next_offset: end < list.length ? end : null };
  return { ...withListAt(body, rows.split('.'), list.slice(offset, end)), [PAGE_FIELD]: page };
}

function listAt(body: unknown, rows: string): unknown[] | undefined {
  const value = valueAtPath(body, rows);
  return Array.isArray(value) ? value : undefined;
}

function withListAt(body: Record<string, unknown>, [name, ...rest]: string[], list: unknown[]): Record<string, unknown> {
  return { ...body, [name!]: rest.length === 0 ? list : withListAt(body[name!] as Record<string, unknown>, rest, list) };
}
