/**
 * The pages for people (src/account) as an attacker would try them, the way
 * test/pages-hostile.test.ts tries the other pages: signed in through the
 * Worker in front of a service that puts a way out of text or an attribute in
 * every string the contract lets it choose (test/hostile.ts), each screen is
 * rendered once with those and once with plain strings of the same kind.
 * Parsed as a browser parses them, the two have the same elements and
 * attribute names, nothing that runs code or loads from elsewhere, and the
 * hostile strings are on the page as text: the overview (brands and markets),
 * the subscriptions screen (with a last delivery), the share links and CSV
 * links screens (a link just made and listed), the send-now answer, the
 * report page and the kept history.
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearDigests } from './digests-helpers';
import { dangerousAttributes, hostile, HostileUpstream, type ParsedElement, parsePage, plain, shapeOf, type Swap } from './hostile';
import { restoreUpstream } from './proxy-upstream';
import { BASE, clearReports } from './reports-helpers';

beforeEach(async () => {
  await clearDigests();
  await clearReports();
});
afterEach(async () => {
  restoreUpstream();
  await clearDigests();
  await clearReports();
  await env.DB.prepare('DELETE FROM account_sessions').run();
});

const BROWSER = { accept: 'text/html,application/xhtml+xml' };

async function page(response: Response, what: string): Promise<string> {
  const text = await response.text();
  expect(response.status, `${what}: ${text.slice(0, 300)}`).toBe(200);
  expect(response.headers.get('content-type'), what).toContain('text/html');
  return text;
}

/** Signed in with `key` through the sign-in form: a browser's cookie and the forms' token. */
async function signIn(key: string) {
  const post = (path: string, fields: Record<string, string>, cookie?: string) =>
    SELF.fetch(`${BASE}${path}`, {
      method: 'POST',
      headers: { ...BROWSER, origin: BASE, 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(fields),
      redirect: 'manual',
    });
  const signedIn = await post('/account/sign-in', { api_key: key });
  expect(signedIn.status).toBe(303);
  const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
  const get = async (path: string) => page(await SELF.fetch(`${BASE}${path}`, { headers: { ...BROWSER, cookie }, redirect: 'manual' }), path);
  const overview = await get('/account');
  const csrf = /name="csrf" value="([0-9a-f]{64})"/.exec(overview)![1]!;
  return { overview, get, send: async (path: string, fields: Record<string, string>) => page(await post(path, { csrf, ...fields }, cookie), path) };
}

/** The account's screens, read through the Worker in front of a service that sends `swap`'s strings. */
async function accountPagesWith(swap: Swap): Promise<{ pages: Record<string, string>; upstream: HostileUpstream }> {
  const upstream = new HostileUpstream(swap).install();
  const key = `${swap === hostile ? 'hostile' : 'plain'}_${crypto.randomUUID().replaceAll('-', '')}`;
  const { overview, get, send } = await signIn(key);
  const pages: Record<string, string> = { overview };

  // A confirmed subscriber, so that send-now sends and the screen shows its last delivery ("Last digest: sent").
  const email = `${swap === hostile ? 'hostile' : 'plain'}@example.com`;
  const subscribed = await SELF.fetch(`${BASE}/digests/subscriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, market: 'us', kinds: ['visibility', 'won_lost'] }),
  });
  expect(subscribed.status).toBe(201);
  await env.DB.prepare("UPDATE digest_subscriptions SET status = 'active', confirmed_at = ? WHERE email = ?").bind(new Date().toISOString(), email).run();
  pages.sendNow = await send('/account/subscriptions/send', { scope: '1:us' });
  expect(pages.sendNow).toContain('Sent to 1 of 1 confirmed subscriber');
  pages.subscriptions = await get('/account/subscriptions');
  expect(pages.subscriptions).toContain('Last digest: sent');

  pages.shareMade = await send('/account/links', { scope: '1:us', days: '7' });
  pages.shareList = await get('/account/links');

  // A CSV link whose parameter is a question as the service wrote it: its label on the page is the service's string.
  const answers = (await (await SELF.fetch(`${BASE}/api/v1/answers?market=us`, { headers: { authorization: `Bearer ${key}` } })).json()) as { questions: { text: string }[] };
  // The same question in both runs: the first whose hostile string opens a tag.
  const question = answers.questions.find((q) => /<(script|img|svg)/.test(hostile(upstream.originals.get(q.text)!)))!.text;
  pages.csvMade = await send('/account/exports', { operation: 'getAnswerRuns', scope: '1:us', days: '30', 'p.prompt': question });
  pages.csvList = await get('/account/exports');

  pages.report = await get('/account/report?brand_id=1&market=us');
  pages.history = await get('/account/history?brand_id=1&market=us');
  return { pages, upstream };
}

/** The hostile strings a page holds as text or as an attribute's value: each read back exactly as the service sent it. */
const shownIn = (elements: ParsedElement[], sent: string[]) => sent.filter((s) => elements.some((e) => e.text.includes(s) || Object.values(e.attrs).includes(s)));

describe('the pages for people write what the upstream sends as text', () => {
  it('each screen has the elements and attributes it has with plain strings, nothing that runs code, and the hostile strings as text', async () => {
    const plainRun = await accountPagesWith(plain);
    // Send-now's "sent recently" is per brand and market: the hostile run sends too.
    await clearDigests();
    await clearReports();
    const hostileRun = await accountPagesWith(hostile);
    const sent = hostileRun.upstream.sent;
    expect(sent.length).toBeGreaterThan(0);

    for (const [name, html] of Object.entries(hostileRun.pages)) {
      const elements = parsePage(html);
      expect(shapeOf(elements), name).toEqual(shapeOf(parsePage(plainRun.pages[name]!)));
      expect(dangerousAttributes(elements), name).toEqual([]);
      expect(
        elements.filter((e) => e.tag === 'script' && !e.attrs.nonce),
        name,
      ).toEqual([]);
      expect(shownIn(elements, sent).length, `${name} shows what the service sent`).toBeGreaterThan(0);
    }

    // Where the service's strings are: the brand's name heading each of its markets' weeks, in the forms' choices, on each card.
    const brandName = (html: string) => parsePage(html).find((e) => e.tag === 'h3' && sent.some((s) => e.text.startsWith(s)))?.text;
    expect(brandName(hostileRun.pages.overview!)).toBeDefined();
    for (const name of ['subscriptions', 'shareList', 'csvList'] as const) {
      const options = parsePage(hostileRun.pages[name]!).filter((e) => e.tag === 'option' && /^\d+:/.test(e.attrs.value ?? ''));
      expect(options.length, name).toBeGreaterThan(0);
      for (const option of options)
        expect(
          sent.some((s) => option.text.startsWith(s)),
          `${name}: ${option.text}`,
        ).toBe(true);
    }
    const cards = (html: string) => parsePage(html).filter((e) => e.tag === 'li' && (e.attrs['data-subscription'] || e.attrs['data-link']));
    expect(cards(hostileRun.pages.subscriptions!).some((c) => shownIn([c], sent).length > 0)).toBe(true);
    expect(cards(hostileRun.pages.shareList!).some((c) => shownIn([c], sent).length > 0)).toBe(true);
    expect(cards(hostileRun.pages.csvList!).some((c) => shownIn([c], sent).length > 0)).toBe(true);
    for (const name of ['report', 'history'] as const) {
      const heading = parsePage(hostileRun.pages[name]!).find((e) => e.tag === 'h1')!.text;
      expect(
        sent.some((s) => heading.startsWith(s)),
        name,
      ).toBe(true);
    }
  });
});
