/**
 * No GET writes (issue 58 item 5): the weekly report and the kept history, keyed, in the account and behind a share
 * link, offer their CSV links by a form. A GET of any of them writes no `report_links` row; the form's POST makes
 * the links (which read), from this site only, once the upstream confirms the key now: a revoked key's POST makes
 * nothing, while its pages are still served from the cache.
 */
import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import { post as accountPost, get as accountGet, signIn } from './account-helpers';
import { readCsv } from './exports-helpers';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { BASE, call } from './reports-helpers';
import { revocableUpstream } from './reshape';

afterEach(() => restoreUpstream());

const reportLinkRows = async () => Number(await env.DB.prepare('SELECT COUNT(*) AS n FROM report_links').first('n'));

/** A key of its own reading the Pro demo account. */
function ownKey(label: string): string {
  revocableUpstream();
  return freshKey(label);
}

/** The CSV links a page shows (`/x/…`), each once. */
const csvLinks = (html: string) => [...new Set([...html.matchAll(/href="([^"]*\/x\/[^"]+\.csv)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&')))];

/** A form posted to `path` without a key, as a browser on `origin` sends it. */
const postFrom = (path: string, origin = BASE) => call(path, { method: 'POST', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });

async function shareLink(key: string): Promise<string> {
  const minted = await call('/reports/links', { key, method: 'POST', body: JSON.stringify({ market: 'us' }), headers: { 'content-type': 'application/json' } });
  expect(minted.status).toBe(201);
  return new URL(((await minted.json()) as { link: { url: string } }).link.url).pathname;
}

const SCOPE = 'brand_id=1&market=us';

describe('the weekly report and the kept history make their CSV links only when asked', () => {
  it('a GET of every such page, in every form, writes no link row, and offers the form instead', async () => {
    const key = ownKey('reads');
    const { cookie } = await signIn(key);
    const link = await shareLink(key);
    const before = await reportLinkRows();
    for (const format of ['html', 'json', 'text']) {
      expect((await call(`/reports/weekly?${SCOPE}&format=${format}`, { key })).status).toBe(200);
      expect((await call(`${link}?format=${format}`, { key: null })).status).toBe(200);
    }
    const pages = [
      await call(`/reports/weekly?${SCOPE}`, { key }),
      await call(`/reports/history?${SCOPE}`, { key }),
      await call(`${link}/history`, { key: null }),
      await accountGet(`/account/report?${SCOPE}`, cookie),
      await accountGet(`/account/history?${SCOPE}`, cookie),
    ];
    for (const page of pages) {
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(csvLinks(html)).toEqual([]);
      expect(html).toContain('data-testid="csv-form"');
      // Its form may post: a page whose CSP said `form-action 'none'` would show a button that does nothing.
      expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    }
    expect(await reportLinkRows()).toBe(before);
  });

  it("the form's POST makes the links, which read; from another site it is refused and makes none", async () => {
    const key = ownKey('made');
    const { cookie, csrf } = await signIn(key);
    const link = await shareLink(key);
    const before = await reportLinkRows();
    expect((await postFrom(`${link}/csv`, 'https://evil.test')).status).toBe(403);
    expect((await postFrom(`${link}/history/csv`, 'https://evil.test')).status).toBe(403);
    expect((await accountPost(`/account/report?${SCOPE}`, { csrf }, { cookie, origin: 'https://evil.test' })).status).toBe(403);
    expect(await reportLinkRows()).toBe(before);
    const made = [
      await call(`/reports/weekly?${SCOPE}`, { key, method: 'POST' }),
      await call(`/reports/history?${SCOPE}`, { key, method: 'POST' }),
      await postFrom(`${link}/csv`),
      await postFrom(`${link}/history/csv`),
      await accountPost(`/account/report?${SCOPE}`, { csrf }, { cookie }),
      await accountPost(`/account/history?${SCOPE}`, { csrf }, { cookie }),
    ];
    for (const page of made) {
      expect(page.status).toBe(200);
      const html = await page.text();
      const links = csvLinks(html);
      expect(links.length).toBeGreaterThan(0);
      expect(html).not.toContain('data-testid="csv-form"');
      for (const url of links) expect((await readCsv(url)).status).toBe(200);
    }
    expect(await reportLinkRows()).toBeGreaterThan(before);
  });

  it("a revoked key's POSTs make nothing, though its pages are still served from the cache", async () => {
    const upstream = revocableUpstream();
    const key = freshKey('revoked');
    const { cookie, csrf } = await signIn(key);
    const link = await shareLink(key);
    const reads = [`/reports/weekly?${SCOPE}`, `/reports/history?${SCOPE}`];
    for (const path of reads) expect((await call(path, { key })).status).toBe(200);
    expect((await call(link, { key: null })).status).toBe(200);
    upstream.revoke();
    const before = await reportLinkRows();
    // Within the proxy's 5 minutes the pages still read from the cache; making their links asks the upstream now.
    for (const path of reads) expect((await call(path, { key })).status).toBe(200);
    for (const path of reads) expect((await call(path, { key, method: 'POST' })).status).toBe(401);
    expect((await postFrom(`${link}/csv`)).status).toBe(401);
    expect((await postFrom(`${link}/history/csv`)).status).toBe(401);
    // The account's form: the session ends, and nothing is made.
    expect((await accountPost(`/account/report?${SCOPE}`, { csrf }, { cookie })).status).toBe(303);
    expect((await accountPost(`/account/history?${SCOPE}`, { csrf }, { cookie })).status).toBe(303);
    expect(await reportLinkRows()).toBe(before);
  });
});
