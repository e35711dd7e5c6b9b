/**
 * The views besides the weekly report (issue 45 item 4), through the Worker:
 * each as JSON and a page with the key (`GET /reports/views/{view}`), behind
 * a share link (`POST /reports/links` with its `kind`, `/r/<token>`) and in
 * the account (`/account/views/{view}`), each table with a CSV link that
 * reads rows. A part the plan, an integration or the service does not
 * provide is one line, never an error page. The views are `VIEW_KINDS`, the
 * tables `VIEWS[kind].tables`: no list here is written by hand.
 */
import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import { REPORT_KINDS } from '../src/reports/links';
import { LINK_PAGES } from '../src/reports/routes';
import { isViewKind, tableProvided, type View, VIEW_KINDS, VIEWS, type ViewKind } from '../src/views';
import { get as accountGet, post as accountPost, signIn } from './account-helpers';
import { readCsv } from './exports-helpers';
import { json, KEYS } from './helpers';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { ReshapingUpstream, revocableUpstream } from './reshape';
import { BASE, call } from './reports-helpers';

/** A request to a product route, with the key unless `key` is null. */
const api = (path: string, o: { key?: string | null; method?: string; body?: string } = {}) =>
  call(path, {
    key: o.key === undefined ? KEYS.pro : o.key,
    ...(o.method ? { method: o.method } : {}),
    ...(o.body !== undefined ? { body: o.body, headers: { 'content-type': 'application/json' } } : {}),
  });

afterEach(() => restoreUpstream());

/** A form posted to `path` without a key, as a browser on `origin` sends it. */
const postFrom = (path: string, origin = BASE) => call(path, { method: 'POST', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });

const reportLinkRows = async () => Number(await env.DB.prepare('SELECT COUNT(*) AS n FROM report_links').first('n'));

const viewJson = async (kind: string, key: string = KEYS.pro, query = '') => {
  const response = await api(`/reports/views/${kind}?format=json${query}`, { key });
  expect(response.status).toBe(200);
  return ((await response.json()) as { view: View }).view;
};

/** Every part of a view, by its key: the parts are the view's fields that hold `provided`. */
const partsOf = (view: View) =>
  Object.entries(view).flatMap(([name, value]) =>
    Array.isArray(value) ? value.map((v, i) => [`${name}.${i}`, v] as const) : value !== null && typeof value === 'object' && 'provided' in value ? [[name, value] as const] : [],
  );

/** A key of its own, reading a demo account's data (`as`) through a service that answers as ours: its links are this file's alone, whatever other files left under the demo keys. */
function ownKey(label: string, as: string = KEYS.pro): string {
  new ReshapingUpstream(
    (body) => body,
    () => as,
  ).install();
  return freshKey(label);
}

const csvLinks = (html: string) =>
  [...html.matchAll(/<p class="csv-row" data-testid="csv-link"><a href="([^"]+)">CSV of ([^<]+)<\/a>/g)].map((m) => ({ url: m[1]!.replaceAll('&amp;', '&'), label: m[2]! }));

describe.each(VIEW_KINDS)('the %s view', (kind) => {
  it('as JSON with the key: the brand and market, and every part provided on Pro', async () => {
    const view = await viewJson(kind);
    expect({ kind: view.kind, brand: view.brand.name, market: view.market.code }).toEqual({ kind, brand: 'Brightdesk', market: 'us' });
    const parts = partsOf(view);
    expect(parts.length).toBeGreaterThan(0);
    for (const [name, part] of parts) expect([name, part.provided]).toEqual([name, true]);
  });

  it("as a page with the key: its heading, the brand's other pages, and its form's POST a CSV link per table that reads rows", async () => {
    const key = ownKey('page');
    const response = await api(`/reports/views/${kind}`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const shown = await response.text();
    expect(shown).toContain(`<h1>Brightdesk in AI answers: ${VIEWS[kind].heading}</h1>`);
    expect(shown).toMatch(/<span class="here" aria-current="page">[^<]+<\/span>/);
    // Showing the page makes no link: its form asks for them.
    expect(csvLinks(shown)).toEqual([]);
    expect(shown).toContain(`<form method="post" action="/reports/views/${kind}">`);
    const made = await api(`/reports/views/${kind}`, { key, method: 'POST' });
    expect(made.status).toBe(200);
    const html = await made.text();
    const links = csvLinks(html);
    expect(links.map((l) => l.label)).toEqual(VIEWS[kind].tables.map((t) => t.label).sort((a, b) => html.indexOf(`CSV of ${a}`) - html.indexOf(`CSV of ${b}`)));
    for (const link of links) {
      const csv = await readCsv(link.url);
      expect([link.label, csv.status, csv.records.length > 0]).toEqual([link.label, 200, true]);
      // One value per cell: no JSON in a cell.
      expect(csv.text).not.toMatch(/[[{]"/);
    }
  });
});

describe('parts not provided are one line', () => {
  it('on Starter, perception and traffic say the plan does not include them, in JSON and on the page, with no CSV link', async () => {
    for (const kind of ['perception', 'traffic'] as const) {
      const view = await viewJson(kind, KEYS.starter);
      for (const [, part] of partsOf(view)) expect(part).toMatchObject({ provided: false, reason: 'not_in_plan', line: expect.stringContaining('Your plan does not include') });
      const page = await api(`/reports/views/${kind}`, { key: KEYS.starter, method: 'POST' });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('it is part of the Pro and Growth plans.');
      expect(csvLinks(html)).toEqual([]);
      // Nothing to make a CSV link of: no form offers one.
      expect((await (await api(`/reports/views/${kind}`, { key: KEYS.starter })).text()).includes('data-testid="csv-form"')).toBe(false);
    }
    // The views the plan includes stay whole on Starter.
    for (const [, part] of partsOf(await viewJson('citations', KEYS.starter))) expect(part.provided).toBe(true);
  });

  it('a brand without crawler data: the crawlers say so, the visitors show, and only the visitors get a CSV link', async () => {
    const view = await viewJson('traffic', KEYS.growth, '&brand_id=3');
    expect(view.kind === 'traffic' && view.crawlers).toMatchObject({ provided: false, reason: 'integration_not_connected' });
    expect(view.kind === 'traffic' && view.visitors.provided).toBe(true);
    const html = await (await api('/reports/views/traffic?brand_id=3', { key: ownKey('growth', KEYS.growth), method: 'POST' })).text();
    expect(csvLinks(html).map((l) => l.label)).toEqual([VIEWS.traffic.tables.find((t) => t.operation === 'getAiVisitors')!.label]);
    expect(VIEWS.traffic.tables.filter((t) => tableProvided(view, t)).map((t) => t.operation)).toEqual(['getAiVisitors']);
  });

  it('a service without /brand-perception: the view says it does not provide it, never a 502', async () => {
    new ReshapingUpstream((body, url) =>
      url.pathname.endsWith('/brand-perception') ? Response.json({ error: { code: 'not_found', message: 'No such endpoint.' } }, { status: 404 }) : body,
    ).install();
    const key = freshKey('views');
    const view = await viewJson('perception', key);
    expect(view.kind === 'perception' && view.perception).toMatchObject({
      provided: false,
      reason: 'missing',
      line: 'The Read API does not provide how AI describes the brand (GET /brand-perception answered 404).',
    });
  });
});

describe('bad input', () => {
  it('an unknown view is a 404 and a bad brand or format a 400, in the API error shape', async () => {
    const unknown = await api('/reports/views/weather', { key: KEYS.pro });
    expect([unknown.status, (await json(unknown)).error]).toEqual([404, { code: 'not_found', message: `No such view: the views are ${VIEW_KINDS.join(', ')}.` }]);
    const brand = await api('/reports/views/rivals?brand_id=abc', { key: KEYS.pro });
    expect([brand.status, ((await json(brand)).error as { param: string }).param]).toEqual([400, 'brand_id']);
    const format = await api('/reports/views/rivals?format=text', { key: KEYS.pro });
    expect([format.status, ((await json(format)).error as { param: string }).param]).toEqual([400, 'format']);
    expect((await api('/reports/views/rivals', { key: null })).status).toBe(401);
    expect(isViewKind('weather')).toBe(false);
  });
});

describe('share links of a view', () => {
  it.each(VIEW_KINDS)('%s: a link that opens the view without a key, as a page and JSON, with its CSV links; no text form', async (kind: ViewKind) => {
    const key = ownKey('share');
    const minted = await api('/reports/links', { key, method: 'POST', body: JSON.stringify({ kind, market: 'us' }) });
    expect(minted.status).toBe(201);
    const { link } = (await minted.json()) as { link: { url: string; kind: string } };
    expect(link.kind).toBe(kind);
    const path = new URL(link.url).pathname;
    const page = await api(path, { key: null });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`in AI answers: ${VIEWS[kind].heading}`);
    expect(html).toContain('data-testid="share"');
    // A link opens its one view: no way to the key's other pages.
    expect(html).not.toContain('data-testid="views"');
    // Opening the link makes no CSV link; the page's form, posted from this site, does.
    expect(csvLinks(html)).toEqual([]);
    expect((await postFrom(`${path}/csv`, 'https://evil.test')).status).toBe(403);
    const made = await postFrom(`${path}/csv`);
    expect(made.status).toBe(200);
    const links = csvLinks(await made.text());
    expect(links.length).toBeGreaterThan(0);
    for (const csv of links) expect((await readCsv(csv.url)).status).toBe(200);
    const asJson = await api(`${path}?format=json`, { key: null });
    expect(((await asJson.json()) as { view: View }).view.kind).toBe(kind);
    expect((await api(`${path}?format=text`, { key: null })).status).toBe(400);
    const listed = (await json(await api('/reports/links', { key }))).links as { kind: string }[];
    expect(listed.map((l) => l.kind)).toEqual([kind]);
  });

  // Every kind of link at every page under `/r/<token>` (both from LINK_PAGES): each opens only the pages its kind is listed for.
  it.each(REPORT_KINDS)('a %s link opens exactly the pages under /r/<token> listed for its kind', async (kind) => {
    const key = ownKey('pages');
    const minted = await api('/reports/links', { key, method: 'POST', body: JSON.stringify({ kind, market: 'us' }) });
    const path = new URL(((await minted.json()) as { link: { url: string } }).link.url).pathname;
    const pages = Object.entries(LINK_PAGES) as [string, { method: string; kinds: readonly string[] }][];
    expect(pages.length).toBeGreaterThan(1);
    for (const [suffix, page] of pages) {
      const opened = page.method === 'POST' ? await postFrom(`${path}${suffix}`) : await api(`${path}${suffix}`, { key: null });
      const html = await opened.text();
      expect([suffix, opened.status]).toEqual([suffix, page.kinds.includes(kind) ? 200 : 404]);
      if (!page.kinds.includes(kind)) expect(html).not.toContain('data-testid="csv-link"');
    }
  });

  it('a kind no view has is refused, naming the kinds', async () => {
    const refused = await api('/reports/links', { key: KEYS.pro, method: 'POST', body: JSON.stringify({ kind: 'weather' }) });
    expect(refused.status).toBe(400);
    expect(((await json(refused)).error as { message: string }).message).toContain(VIEW_KINDS.join(', '));
  });
});

describe('no GET writes', () => {
  it('a GET of every view page, keyed, by share link and in the account, as a page or JSON, writes no link row', async () => {
    const key = ownKey('reads');
    const { cookie } = await signIn(key);
    const shared = await Promise.all(
      VIEW_KINDS.map(async (kind) => {
        const minted = await api('/reports/links', { key, method: 'POST', body: JSON.stringify({ kind, market: 'us' }) });
        return new URL(((await minted.json()) as { link: { url: string } }).link.url).pathname;
      }),
    );
    const before = await reportLinkRows();
    for (const [i, kind] of VIEW_KINDS.entries()) {
      for (const format of ['html', 'json']) {
        expect((await api(`/reports/views/${kind}?format=${format}`, { key })).status).toBe(200);
        expect((await api(`${shared[i]}?format=${format}`, { key: null })).status).toBe(200);
      }
      expect((await accountGet(`/account/views/${kind}?brand_id=1&market=us`, cookie)).status).toBe(200);
    }
    expect(await reportLinkRows()).toBe(before);
  });

  it('a revoked key makes no CSV link, though its view is still served from the cache', async () => {
    const upstream = revocableUpstream();
    const key = freshKey('revoked');
    const minted = await api('/reports/links', { key, method: 'POST', body: JSON.stringify({ kind: 'rivals', market: 'us' }) });
    const path = new URL(((await minted.json()) as { link: { url: string } }).link.url).pathname;
    expect((await api('/reports/views/rivals', { key })).status).toBe(200);
    upstream.revoke();
    const before = await reportLinkRows();
    // Within the proxy's 5 minutes the page still reads from the cache; making its links asks the upstream now.
    expect((await api('/reports/views/rivals', { key })).status).toBe(200);
    expect((await api('/reports/views/rivals', { key, method: 'POST' })).status).toBe(401);
    expect((await postFrom(`${path}/csv`)).status).toBe(401);
    expect(await reportLinkRows()).toBe(before);
  });
});

describe('in the account', () => {
  it("each view keeps the account's navigation, switches brand and market, and links the brand's other pages", async () => {
    const { cookie } = await signIn(KEYS.growth);
    for (const kind of VIEW_KINDS) {
      const response = await accountGet(`/account/views/${kind}?brand_id=2&market=us`, cookie);
      expect([kind, response.status]).toEqual([kind, 200]);
      const html = await response.text();
      expect(html).toContain('aria-label="Your account"');
      expect(html).toContain('data-testid="scopes"');
      expect(html).toContain(`<span class="here" aria-current="page">${VIEWS[kind].title}</span>`);
      for (const other of VIEW_KINDS.filter((k) => k !== kind)) expect(html).toContain(`href="/account/views/${other}?brand_id=2&amp;market=us"`);
    }
    // The report and the history link the views too.
    const report = await (await accountGet('/account/report?brand_id=2&market=us', cookie)).text();
    expect(report).toContain('href="/account/views/rivals?brand_id=2&amp;market=us"');
    // The overview's cards link each brand's views.
    const overview = await (await accountGet('/account', cookie)).text();
    expect(overview).toContain('href="/account/views/citations?brand_id=3&amp;market=');
  });

  it('the share links screen makes a link of a view, listed by what it opens', async () => {
    const { cookie, csrf } = await signIn(ownKey('account'));
    const made = await accountPost('/account/links', { csrf, kind: 'citations', scope: '1:us', days: '7' }, { cookie });
    expect(made.status).toBe(200);
    const html = await made.text();
    expect(html).toContain('anyone with it can open “Citations” until');
    expect(html).toMatch(/data-kind="citations"/);
    const unknown = await accountGet('/account/views/weather', cookie);
    expect(unknown.status).toBe(404);
  });
});
