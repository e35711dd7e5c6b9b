/** Lists in pages (src/discovery/pages.ts): what may point to a next page, and when a second answer proves to be one. */
import { describe, expect, it } from 'vitest';
import { joinPage, pageDiff, paramsToTry, pointersOf } from './pages';

const page = (ids: number[], extra: Record<string, unknown> = {}) => ({
  data: { topics: ids.map((id) => ({ id, name: `Topic ${id}` })), engines: ['chatgpt', 'gemini'] },
  meta: { request_id: `r${ids[0]}`, ...extra },
});

describe('pointersOf', () => {
  it('offers a link to this path that changes the query, then tokens, those named like a pointer first; never a date, a word or a list item', () => {
    const body = {
      data: { topics: [{ cursor: 'eyJvZmZzZXQiOjV9aaaa1' }], generated_at: '2026-12-01T10:00:00Z', name: 'Brightdesk Support' },
      meta: { trace: 'a1b2c3d4e5f6g7h8', next_page_token: 'eyJvZmZzZXQiOjV9', self: '/api/v1/topics?days=28', next: '/api/v1/topics?days=28&page=2', other: '/api/v1/pages?page=2' },
    };
    expect(pointersOf(body, '/topics', { days: 28 })).toEqual([
      { path: 'meta.next', value: '/api/v1/topics?days=28&page=2', linkParams: { page: '2' } },
      { path: 'meta.next_page_token', value: 'eyJvZmZzZXQiOjV9' },
      { path: 'meta.trace', value: 'a1b2c3d4e5f6g7h8' },
    ]);
  });

  it('tries the parameter found elsewhere first, then the one the pointer is named after, then the usual ones', () => {
    const tried = paramsToTry({ path: 'meta.nextPageToken', value: 'x' }, 'after');
    expect(tried.slice(0, 3)).toEqual(['after', 'pageToken', 'PageToken']);
    expect(tried).toContain('cursor');
    expect(new Set(tried).size).toBe(tried.length);
  });
});

describe('pageDiff', () => {
  it('finds the one list whose items are all new, whatever else beside it changed (the pointer, a request id)', () => {
    expect(pageDiff(page([1, 2, 3], { next: 'a' }), page([4, 5], { next: 'b' }))).toEqual({ container: 'data.topics' });
  });

  it('is no page: the same answer, an item again, two lists changed, a figure changed, or an empty list', () => {
    expect(pageDiff(page([1, 2]), page([1, 2]))).toBeUndefined();
    expect(pageDiff(page([1, 2]), page([2, 3]))).toBeUndefined();
    expect(pageDiff(page([1, 2]), { ...page([3]), data: { ...page([3]).data, engines: ['grok'] } })).toBeUndefined();
    expect(pageDiff(page([1, 2]), page([]))).toBeUndefined();
    expect(pageDiff({ score: 1, list: [1] }, { score: { value: 1 }, list: [2] })).toBeUndefined();
  });

  it('reads a list keyed by its items, and the rows of a table beside its unchanged columns', () => {
    expect(pageDiff({ rivals: { Acme: { share: 4 } } }, { rivals: { Zeno: { share: 2 } } })).toEqual({ container: 'rivals' });
    expect(pageDiff({ t: { cols: ['id'], rows: [[1]] } }, { t: { cols: ['id'], rows: [[2]] } })).toEqual({ container: 't.rows' });
  });
});

describe('joinPage', () => {
  it("adds the next page's items to the first's list, leaving the first page as it was", () => {
    const first = page([1, 2]);
    const joined = joinPage(first, page([3]), 'data.topics');
    expect((joined.data as { topics: { id: number }[] }).topics.map((t) => t.id)).toEqual([1, 2, 3]);
    expect(first.data.topics).toHaveLength(2);
    expect(joinPage({ rivals: { Acme: 1 } }, { rivals: { Zeno: 2 } }, 'rivals')).toEqual({ rivals: { Acme: 1, Zeno: 2 } });
  });
});
