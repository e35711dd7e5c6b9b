/**
 * Every page, as an attacker would try it: the upstream puts a way out of
 * text or an attribute (a tag, a quote, a comment, an entity, a
 * `javascript:` link) in every string the contract lets it choose, and each
 * page is rendered through the Worker once with those and once with plain
 * strings of the same kind. Parsed as a browser parses them (parse5), the two
 * have the same elements and attribute names, nothing that runs code or
 * loads from elsewhere, and the hostile strings are on the page as text: the
 * report page (keyed and by signed link), the kept history (both), the
 * subscription pages, the dev outbox (list and message), the compatibility
 * check, the consent page and the MCP App's view.
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RATE_WINDOW_MS } from '../src/contract/rate-limit';
import { consentHtml } from '../src/mcp/consent-page';
import { renderResult } from '../src/mcp/app/render';
import { clearDigests } from './digests-helpers';
import { dangerousAttributes, HOSTILE_STRINGS, hostile, HostileUpstream, type ParsedElement, parsePage, plain, shapeOf, type Swap } from './hostile';
import { restoreUpstream } from './proxy-upstream';
import { BASE, clearReports } from './reports-helpers';

afterEach(async () => {
  vi.useRealTimers();
  restoreUpstream();
  await clearDigests();
  await clearReports();
});

const keyFor = (what: string) => `${what}_${crypto.randomUUID().replaceAll('-', '')}`;

/**
 * Every key of the hostile service reads the origin as one demo key, whose limit is 60 reads a minute: each run of
 * the pages, and the check (which reads every operation), starts a minute later on the clock, with a fresh budget.
 */
function nextMinute(): void {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + RATE_WINDOW_MS + 1_000);
}

async function get(path: string, key: string | null, init: RequestInit = {}): Promise<string> {
  const headers = new Headers(init.headers);
  if (key) headers.set('authorization', `Bearer ${key}`);
  const response = await SELF.fetch(`${BASE}${path}`, { ...init, headers });
  const text = await response.text();
  expect(response.status, `${path}: ${text.slice(0, 300)}`).toBe(200);
  expect(response.headers.get('content-type'), path).toContain('text/html');
  return text;
}

const pathOf = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');

/** Every page that shows what the upstream sent, read through the Worker in front of a service that sends `swap`'s strings. */
async function pagesWith(swap: Swap): Promise<{ pages: Record<string, string>; upstream: HostileUpstream }> {
  const upstream = new HostileUpstream(swap).install();
  nextMinute();
  const key = keyFor(swap === hostile ? 'hostile' : 'plain');
  const pages: Record<string, string> = {};
  pages.report = await get('/reports/weekly?market=us', key);
  pages.history = await get('/reports/history?market=us', key);

  const minted = await SELF.fetch(`${BASE}/reports/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ market: 'us', kind: 'weekly' }),
  });
  expect(minted.status).toBe(201);
  const link = pathOf(((await minted.json()) as { link: { url: string } }).link.url);
  pages.link = await get(link, null);
  pages.linkHistory = await get(`${link}/history`, null);

  const email = `${swap === hostile ? 'hostile' : 'plain'}@example.com`;
  const subscribed = await SELF.fetch(`${BASE}/digests/subscriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, market: 'us', kinds: ['visibility', 'won_lost'] }),
  });
  expect(subscribed.status).toBe(201);
  const outbox = (await (await SELF.fetch(`${BASE}/dev/outbox?format=json&to=${email}`)).json()) as { messages: { id: number; text: string }[] };
  const message = outbox.messages[0]!;
  pages.outbox = await get(`/dev/outbox?to=${email}`, null);
  pages.outboxMessage = await get(`/dev/outbox/${message.id}`, null);
  pages.confirm = await get(pathOf(/https?:\/\/\S+\/digests\/confirm\?token=[\w.-]+/.exec(message.text)![0]), null);

  nextMinute();
  pages.check = await get('/admin/upstream/check', env.ADMIN_TOKEN, {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: key, market: 'us' }),
  });

  const report = await SELF.fetch(`${BASE}/reports/weekly?market=us&format=json`, { headers: { authorization: `Bearer ${key}` } });
  pages.mcpApp = renderResult({ structuredContent: (await report.json()) as Record<string, unknown> }).html;
  return { pages, upstream };
}

/** The hostile strings a page holds as text or as an attribute's value: each read back exactly as the service sent it. */
const shownIn = (elements: ParsedElement[], sent: string[]) => sent.filter((s) => elements.some((e) => e.text.includes(s) || Object.values(e.attrs).includes(s)));

describe('every page writes what the upstream sends as text', () => {
  it('has the elements and attributes it has with plain strings, nothing that runs code, and the hostile strings as text', async () => {
    const plainRun = await pagesWith(plain);
    const hostileRun = await pagesWith(hostile);
    const sent = hostileRun.upstream.sent;
    // Every kind of hostile string went out, in names, questions and engines alike.
    for (const payload of HOSTILE_STRINGS)
      expect(
        sent.some((s) => s.startsWith(payload)),
        payload,
      ).toBe(true);

    for (const [name, page] of Object.entries(hostileRun.pages)) {
      const elements = parsePage(page);
      expect(shapeOf(elements), name).toEqual(shapeOf(parsePage(plainRun.pages[name]!)));
      expect(dangerousAttributes(elements), name).toEqual([]);
      expect(
        elements.filter((e) => e.tag === 'script' && !e.attrs.nonce),
        name,
      ).toEqual([]);
      if (name !== 'check') expect(shownIn(elements, sent).length, `${name} shows what the service sent`).toBeGreaterThan(0);
    }

    // Where the finding was: the engines in data attributes and rows, the questions, the brand's name in the heading.
    const report = parsePage(hostileRun.pages.report!);
    const brand = report.find((e) => e.tag === 'h1')!.text;
    expect(sent.some((s) => brand.startsWith(s))).toBe(true);
    const engines = report.flatMap((e) => (e.attrs['data-engine'] ? [e.attrs['data-engine']] : []));
    expect(engines.length).toBeGreaterThan(0);
    for (const engine of engines) expect(sent, engine).toContain(engine);
    expect(shownIn(report, sent).filter((s) => report.some((e) => e.attrs.class === 'q' && e.text.includes(s))).length).toBeGreaterThan(0);
  });
});

describe('the consent page', () => {
  it('writes what the client registered and the brands the key reads as text', () => {
    const page = (swap: Swap) =>
      consentHtml(
        { client: { clientName: swap('Claude'), clientDomain: swap('claude.ai'), redirectHost: swap('127.0.0.1'), redirectIsLoopback: true } as never, handle: swap('handle') },
        { step: 'approve', brands: [{ name: swap('Brightdesk'), domain: swap('brightdesk.example'), markets: [{ code: swap('us') }] }] },
      );
    const keyStep = (swap: Swap) =>
      consentHtml(
        { client: { clientName: swap('Claude'), clientDomain: swap('claude.ai'), redirectHost: swap('localhost'), redirectIsLoopback: false } as never, handle: swap('handle') },
        { step: 'key', error: swap('wrong key') },
      );
    for (const render of [page, keyStep]) {
      const elements = parsePage(render(hostile));
      expect(shapeOf(elements)).toEqual(shapeOf(parsePage(render(plain))));
      expect(dangerousAttributes(elements)).toEqual([]);
      expect(elements.find((e) => e.tag === 'h1')!.text).toContain(hostile('Claude'));
      expect(elements.find((e) => e.attrs.name === 'handle')!.attrs.value).toBe(hostile('handle'));
    }
  });
});
