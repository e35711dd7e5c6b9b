/** Lists in pages (src/client/pages.ts): the client follows a service's pages for a checked read, and only there. */
import { describe, expect, it } from 'vitest';
import type { OperationMap } from '../contract/schemas/upstream-map';
import { createClient } from './client';
import { MAX_PAGES, nextPage, type Pages } from './pages';

const brand = (id: number) => ({ id, name: `Brand ${id}`, domain: `brand${id}.example`, category: 'software', markets: [] });
const BRANDS = Array.from({ length: 7 }, (_, i) => brand(i + 1));
const PLAN = { id: 'pro', monthly_quota: 1000, includes_pro_operations: true };

/**
 * A service that answers /brands three brands a page: the page's pointer as the style writes it (a token under
 * `meta.cursor`, or a link under `links.next`), and the requests it was asked, by their query.
 */
function pagedService(pointer: (offset: number) => unknown, pageOf: (url: URL) => number) {
  const asked: string[] = [];
  const transport = async (request: Request) => {
    const url = new URL(request.url);
    asked.push(url.search);
    const offset = pageOf(url);
    const next = offset + 3 < BRANDS.length ? pointer(offset + 3) : null;
    const body = { brands: BRANDS.slice(offset, offset + 3), plan: PLAN, generated_at: '2026-12-01T00:00:00Z', meta: { cursor: next }, links: { next } };
    return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  };
  return { transport, asked };
}

const clientOf = (transport: (request: Request) => Promise<Response>, map: OperationMap | undefined) =>
  createClient({ apiKey: 'k', transport, baseUrl: 'https://api.example/api/v1', sleep: async () => {}, upstreamMap: async () => map });

const mapWith = (pages: Pages): OperationMap => ({ fields: {}, convert: {}, values: {}, pages });
const byToken = (url: URL) => Number(atob(url.searchParams.get('cursor') ?? btoa('0')));

describe('lists in pages', () => {
  it('reads every page of a list behind a token, in order, each once', async () => {
    const service = pagedService((offset) => btoa(String(offset)), byToken);
    const { brands } = await clientOf(service.transport, mapWith({ list: 'brands', next: 'meta.cursor', params: ['cursor'] })).listBrands();
    expect(brands.map((b) => b.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(service.asked).toEqual(['', `?${new URLSearchParams({ cursor: btoa('3') })}`, `?${new URLSearchParams({ cursor: btoa('6') })}`]);
  });

  it('takes only the page parameter from a link: never its host, path or other parameters', async () => {
    const service = pagedService(
      (offset) => `https://elsewhere.example/steal?page=${offset}&brand_id=99`,
      (url) => Number(url.searchParams.get('page') ?? 0),
    );
    const api = clientOf(service.transport, mapWith({ list: 'brands', next: 'links.next', params: ['page'] }));
    expect((await api.listBrands()).brands).toHaveLength(7);
    expect(service.asked).toEqual(['', '?page=3', '?page=6']);
  });

  it('passes a page on as it is to a caller of the body as sent (the proxy, the assistants)', async () => {
    const service = pagedService((offset) => btoa(String(offset)), byToken);
    const { data } = await clientOf(service.transport, mapWith({ list: 'brands', next: 'meta.cursor', params: ['cursor'] })).unchecked.listBrands();
    expect(data.brands).toHaveLength(3);
    expect(service.asked).toEqual(['']);
  });

  it('reads one page where the map names no pages', async () => {
    const service = pagedService((offset) => btoa(String(offset)), byToken);
    expect((await clientOf(service.transport, undefined).listBrands()).brands).toHaveLength(3);
  });

  it('refuses a list that never ends, or comes back to a page read, rather than show part of it', async () => {
    const endless = pagedService(
      (offset) => btoa(String(offset % 6)),
      (url) => byToken(url) % 6,
    );
    await expect(clientOf(endless.transport, mapWith({ list: 'brands', next: 'meta.cursor', params: ['cursor'] })).listBrands()).rejects.toThrow(
      'listBrands: the next page is one already read; the list `brands` was not read whole.',
    );
    let calls = 0;
    const many = pagedService(
      () => btoa(String(++calls)),
      () => 0,
    );
    await expect(clientOf(many.transport, mapWith({ list: 'brands', next: 'meta.cursor', params: ['cursor'] })).listBrands()).rejects.toThrow(`runs past ${MAX_PAGES} pages`);
    expect(many.asked).toHaveLength(MAX_PAGES);
  });
});

describe('nextPage', () => {
  const url = new URL('https://api.example/api/v1/topics?days=28');
  const pages: Pages = { list: 'topics', next: 'next', params: ['page', 'per_page'] };
  it('keeps the request and sets the page parameters a link gives', () => {
    expect(String(nextPage(url, { next: '?days=7&page=2&per_page=10&x=1' }, pages))).toBe('https://api.example/api/v1/topics?days=28&page=2&per_page=10');
  });
  it('ends on a pointer that is null, empty, false or absent', () => {
    for (const next of [null, '', false, undefined]) expect(nextPage(url, { next }, pages)).toBeUndefined();
  });
  it('says why a pointer cannot be followed', () => {
    expect(nextPage(url, { next: { page: 2 } }, pages)).toEqual({ problem: 'the pointer to the next page (`next`) is neither a token nor a link' });
    expect(nextPage(url, { next: '/api/v1/topics?offset=10' }, pages)).toEqual({ problem: 'the link to the next page (`next`) names none of its parameters (page, per_page)' });
  });
});
