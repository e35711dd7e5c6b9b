/**
 * Revocation is final and cascades (DESIGN section 12, SECURITY.md "What ends
 * what"), through the Worker: the attack's findings reproduced and closed.
 *
 * 1. A subscriber the account removed does not come back: no link minted
 *    before the delete (confirm, subscribe again, unsubscribe, view in
 *    browser, its CSV links, the mailto) acts or reads; only the account
 *    subscribes the address again, as a new subscription. Every link acts on
 *    the cycle it was minted for only.
 * 2. The CSV links of a page end with the page's record: the report link
 *    revoked, the subscription unsubscribed or removed, the key revoked.
 *
 * Mail goes to the dev outbox; every link a test follows is read from a mail
 * or a page, never built by hand. Time moves on a fake clock (the services'
 * `now`), never waited for.
 */
import { createExecutionContext, env, evictDurableObject, SELF } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sha256Hex } from '../src/lib/hash';
import { CSV_TABLES } from '../src/reports/page';
import { clearDigests, deliver, demoMonday, FakeQueue, plusDays, runCron, seedSubscriptions, sendRecords, testEnv } from './digests-helpers';
import { accountKey, gateOf, readCsv } from './exports-helpers';
import { clearReports, mintLink, visibleText } from './reports-helpers';
import { useServicesForTests } from './seams';
import worker from './worker';

const BASE = 'https://edge.test';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

let clock = Date.now();
const at = (ms: number) => {
  clock = ms;
};

beforeEach(async () => {
  await clearDigests();
  await clearReports();
  clock = Date.now();
  useServicesForTests({ now: () => new Date(clock) });
});
afterEach(async () => {
  useServicesForTests();
  await clearDigests();
  await clearReports();
});

/** A link of a mail or a page, sent to this Worker whatever host it names. */
const local = (url: string) => {
  const { pathname, search } = new URL(url, BASE);
  return `${BASE}${pathname}${search}`;
};
const get = (url: string, init: RequestInit = {}) => SELF.fetch(local(url), init);
const post = (url: string) => SELF.fetch(local(url), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
const keyed = (path: string, method = 'GET', body?: unknown, key = 'demo_pro_single') =>
  SELF.fetch(`${BASE}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });

interface Mail {
  kind: string;
  text: string;
  headers: Record<string, string>;
}

/** The outbox's mail to `to`, oldest first. */
async function mailTo(to: string): Promise<Mail[]> {
  const response = await SELF.fetch(`${BASE}/dev/outbox?format=json&limit=500&to=${encodeURIComponent(to)}`);
  return ((await response.json()) as { messages: Mail[] }).messages.reverse();
}

/** Every link of a mail's text part: the product's links are absolute URLs, each on its own. */
const linksOf = (mail: Mail) => [...mail.text.matchAll(/https?:\/\/\S+/g)].map((m) => m[0]).filter((url) => !url.includes('placeholder.invalid'));
const linkTo = (mail: Mail, path: string) => linksOf(mail).find((url) => new URL(url).pathname === path);
/** The sealed keys of the CSV links a subscription's view page handed out. */
const keysOfLinks = async (id: string) =>
  (await env.DB.prepare('SELECT key_sealed FROM report_links WHERE parent = ?').bind(`sub:${id}`).all<{ key_sealed: string }>()).results.map((r) => r.key_sealed);

/** A digest's "view in browser" link (`/r/<token>`). */
const viewLinkOf = (mail: Mail) => linksOf(mail).find((url) => new URL(url).pathname.startsWith('/r/'))!;
/** The "Subscribe again" button's address on the unsubscribed page. */
const resubscribeAction = (html: string) => /<form method="post" action="(\/digests\/resubscribe\?token=[^"]+)">/.exec(html)?.[1]?.replaceAll('&amp;', '&');
/** The CSV links a page offers (`/x/…` in a link or a "Copy CSV link" button), each once. */
const csvLinksOf = (html: string) => [...new Set([...html.matchAll(/(?:href|data-url)="([^"]*\/x\/[^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&')))];
/** Every CSV link a report link's page makes when its form asks (`/r/<token>/csv`): one per table of CSV_TABLES (the kept history's among them). */
async function everyCsvLink(page: string): Promise<string[]> {
  const { pathname } = new URL(page, BASE);
  const made = await SELF.fetch(`${BASE}${pathname}/csv`, { method: 'POST', headers: { origin: BASE, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
  const links = csvLinksOf(await made.text());
  expect(links).toHaveLength(Object.keys(CSV_TABLES).length);
  return links;
}

/** The kinds of links among `links`: their paths, a report link's as `/r/`. */
const pathsOf = (links: string[]) => [...new Set(links.map((url) => new URL(url).pathname.replace(/^\/r\/.*/, '/r/')))].sort();

/** Each link, opened (GET) and posted (a report link only opened), answers the 410 page of a removed subscription. */
async function expectRemoved(links: string[]) {
  for (const url of links) {
    const methods = new URL(url).pathname.startsWith('/r/') ? ['GET'] : ['GET', 'POST'];
    for (const method of methods) {
      const response = method === 'POST' ? await post(url) : await get(url);
      expect([new URL(url).pathname, method, response.status]).toEqual([new URL(url).pathname, method, 410]);
      expect(visibleText(await response.text())).toMatch(/removed it, for good|This subscription was removed/);
    }
  }
}

const row = (id: string) =>
  env.DB.prepare('SELECT status, generation, key_sealed FROM digest_subscriptions WHERE id = ?').bind(id).first<{ status: string; generation: number; key_sealed: string | null }>();

interface Listed {
  id: string;
  status: string;
  paused_reason?: string;
  unsubscribed_at?: string;
}
/** The account's subscriptions, as `GET /digests/subscriptions` lists them. */
const listed = async () => ((await (await keyed('/digests/subscriptions')).json()) as { subscriptions: Listed[] }).subscriptions;

function subscribe(email: string, key = 'demo_pro_single') {
  return keyed('/digests/subscriptions', 'POST', { email, market: 'us' }, key);
}

/** A mail to the unsubscribe address, through the Worker's email handler. */
async function mailUnsubscribe(token: string): Promise<string[]> {
  const rejected: string[] = [];
  const message = { headers: new Headers({ subject: `unsubscribe ${token}` }), setReject: (reason: string) => rejected.push(reason) };
  await worker.email!(message as unknown as ForwardableEmailMessage, env, createExecutionContext());
  return rejected;
}

const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

/** Sends the digest now to the confirmed subscribers of brand 1 in us; the send-now gate is one per 10 minutes. */
async function sendNow() {
  const response = await keyed('/reports/weekly/send?brand_id=1&market=us', 'POST');
  expect(response.status).toBe(202);
  return ((await response.json()) as { send: { recipients: number } }).send;
}

describe("1. an account's delete is final", () => {
  it('no link minted before it brings the subscription back or reads through it; only the account subscribes the address again, as a new subscription', async () => {
    const email = 'removed-for-good@example.com';
    const t0 = clock;
    // A control subscriber who keeps getting the digest: a send-now that reaches nobody would prove nothing.
    await seedSubscriptions([{ email: 'stays@example.com' }]);

    // The account subscribes; the person confirms, unsubscribes by one click, subscribes again and confirms again.
    const created = await subscribe(email);
    expect(created.status).toBe(201);
    const { id } = ((await created.json()) as { subscription: { id: string } }).subscription;
    const [firstConfirmation] = await mailTo(email);
    const firstConfirm = linkTo(firstConfirmation!, '/digests/confirm')!;
    expect(visibleText(await (await post(firstConfirm)).text())).toContain('Subscription confirmed');
    const unsubscribed = await post(linkTo(firstConfirmation!, '/digests/unsubscribe')!);
    const again = resubscribeAction(await unsubscribed.text())!;
    expect(again).toBeDefined();
    at(t0 + 11 * MINUTE);
    expect(visibleText(await (await post(again)).text())).toContain('Check your inbox');
    const secondConfirmation = (await mailTo(email)).at(-1)!;
    const secondConfirm = linkTo(secondConfirmation, '/digests/confirm')!;
    // A confirm link of the earlier cycle does not confirm this one.
    expect((await post(firstConfirm)).status).toBe(410);
    expect((await row(id))!.status).toBe('pending');
    expect(visibleText(await (await post(secondConfirm)).text())).toContain('Subscription confirmed');

    // A digest reaches them, with its view-in-browser page and that page's CSV links.
    expect((await sendNow()).recipients).toBe(2);
    const digest = (await mailTo(email)).at(-1)!;
    expect(digest.kind).toBe('digest');
    const view = viewLinkOf(digest);
    expect((await get(view)).status).toBe(200);
    const csv = await everyCsvLink(view);
    for (const url of csv) expect((await readCsv(url)).status).toBe(200);

    // The account removes them.
    expect((await keyed(`/digests/subscriptions/${id}`, 'DELETE')).status).toBe(204);

    // Every link of every mail they got, and the subscribe-again button, answers 410 and changes nothing.
    const links = [...(await mailTo(email)).flatMap(linksOf), local(again)];
    expect(pathsOf(links)).toEqual(['/digests/confirm', '/digests/resubscribe', '/digests/unsubscribe', '/r/']);
    await expectRemoved(links);
    for (const url of csv) {
      const read = await readCsv(url);
      expect([read.status, read.type]).toEqual([410, 'text/plain; charset=utf-8']);
      expect(read.text).toContain('The account that made its subscription removed it, for good.');
    }
    // Nor does the mailto unsubscribe of any of its mails do anything (accepted: nothing is sent to them anyway).
    const unsubscribeLinks = links.filter((url) => new URL(url).pathname === '/digests/unsubscribe');
    for (const url of unsubscribeLinks) expect(await mailUnsubscribe(tokenOf(url))).toEqual([]);
    // The row is gone, its sealed key with it: nothing can bring it back.
    expect(await row(id)).toBeNull();
    // The view page's CSV links keep only their rows (to say why they ended), not the key.
    expect(await keysOfLinks(id)).toEqual(csv.map(() => ''));

    // The account's list no longer has it, and a send-now reaches only the control subscriber.
    expect((await listed()).map((s) => s.id)).not.toContain(id);
    at(t0 + 22 * MINUTE);
    const mailsBefore = (await mailTo(email)).length;
    expect((await sendNow()).recipients).toBe(1);
    expect(await mailTo(email)).toHaveLength(mailsBefore);

    // Only the account subscribes the address again (once its own unsubscribe's 30 days are over): a new subscription, confirmed anew.
    at(t0 + 31 * DAY);
    const renewed = await subscribe(email);
    expect(renewed.status).toBe(201);
    const fresh = ((await renewed.json()) as { subscription: { id: string; status: string } }).subscription;
    expect([fresh.id === id, fresh.status]).toEqual([false, 'pending']);
    const thirdConfirmation = (await mailTo(email)).at(-1)!;
    expect(thirdConfirmation.kind).toBe('confirm');
    // The old links still name the removed one only.
    expect((await post(secondConfirm)).status).toBe(410);
    expect((await row(fresh.id))!.status).toBe('pending');
    expect(visibleText(await (await post(linkTo(thirdConfirmation, '/digests/confirm')!)).text())).toContain('Subscription confirmed');
    expect(await row(id)).toBeNull();
  });

  it('removes an unsubscribed subscription too: listed as unsubscribed, deleted; ten minutes on, its subscribe-again link and every earlier link act on nothing, and the cron plans nothing for it', async () => {
    const email = 'left-then-removed@example.com';
    const t0 = clock;
    // A control subscriber, whom the cron below does plan: a cron that plans nothing would prove nothing.
    const [control] = await seedSubscriptions([{ email: 'stays@example.com' }]);

    // Subscribed, confirmed, a digest received; then the person unsubscribes by one click on the digest's link.
    const { id } = ((await (await subscribe(email)).json()) as { subscription: { id: string } }).subscription;
    const [confirmation] = await mailTo(email);
    expect(visibleText(await (await post(linkTo(confirmation!, '/digests/confirm')!)).text())).toContain('Subscription confirmed');
    expect((await sendNow()).recipients).toBe(2);
    const digest = (await mailTo(email)).at(-1)!;
    const again = resubscribeAction(await (await post(linkTo(digest, '/digests/unsubscribe')!)).text())!;
    expect(again).toBeDefined();

    // The account sees it, with its state, and removes it.
    expect((await listed()).find((s) => s.id === id)).toMatchObject({ status: 'unsubscribed', unsubscribed_at: new Date(t0).toISOString() });
    expect((await keyed(`/digests/subscriptions/${id}`, 'DELETE')).status).toBe(204);
    expect((await listed()).map((s) => s.id)).toEqual([control]);
    expect(await row(id)).toBeNull();

    // Ten minutes later the person posts the unsubscribe page's "Subscribe again": removed, like every link it was sent.
    at(t0 + 10 * MINUTE);
    const mailsBefore = (await mailTo(email)).length;
    const links = [local(again), ...(await mailTo(email)).flatMap(linksOf)];
    expect(pathsOf(links)).toEqual(['/digests/confirm', '/digests/resubscribe', '/digests/unsubscribe', '/r/']);
    await expectRemoved(links);
    expect(await row(id)).toBeNull();
    expect(await mailTo(email)).toHaveLength(mailsBefore);

    // Monday's cron plans the control subscriber's digest only, and the queue sends that one.
    const queue = new FakeQueue();
    const cronEnv = testEnv(queue, { RESEND_API_KEY: '' });
    const monday = demoMonday();
    await runCron(monday.toISOString(), cronEnv);
    expect(queue.sent).toHaveLength(1);
    // That week's records (the send-now above has its own, of this week).
    const planned = async () => (await sendRecords()).filter((r) => r.iso_week === queue.sent[0]!.iso_week);
    expect((await planned()).map((r) => r.subscription_id)).toEqual([control]);
    // Delivered within that Monday's hour, as the Queue would: the week's figures are read as of then.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(plusDays(monday, 0, 1));
      at(Date.now());
      await deliver(queue.sent, cronEnv);
    } finally {
      vi.useRealTimers();
    }
    expect((await planned()).map((r) => [r.status, r.reason])).toEqual([['sent', null]]);
    expect(await mailTo(email)).toHaveLength(mailsBefore);
  });

  it('lists every subscription with its state (pending, active, paused, unsubscribed; alerts among them), and removes each: then no link of any acts', async () => {
    const subscribeWith = async (body: Record<string, unknown>) =>
      ((await (await keyed('/digests/subscriptions', 'POST', { market: 'us', ...body })).json()) as { subscription: { id: string } }).subscription.id;
    const confirm = async (email: string) => expect((await post(linkTo((await mailTo(email))[0]!, '/digests/confirm')!)).status).toBe(200);
    const pending = await subscribeWith({ email: 'pending-alerts@example.com', kinds: ['alerts'] });
    const active = await subscribeWith({ email: 'active@example.com' });
    await confirm('active@example.com');
    const paused = await subscribeWith({ email: 'paused@example.com' });
    await confirm('paused@example.com');
    // As the digest's delivery pauses it when the key can no longer read the brand (test/digests-run.test.ts).
    await env.DB.prepare(`UPDATE digest_subscriptions SET status = 'paused', paused_reason = 'invalid_api_key', paused_at = ? WHERE id = ?`).bind(new Date(clock).toISOString(), paused).run();
    const unsubscribed = await subscribeWith({ email: 'unsubscribed@example.com' });
    const again = resubscribeAction(await (await post(linkTo((await mailTo('unsubscribed@example.com'))[0]!, '/digests/unsubscribe')!)).text())!;

    const expected: Record<string, unknown> = {
      [pending]: expect.objectContaining({ status: 'pending', kinds: ['alerts'], channel: { type: 'email' } }),
      [active]: expect.objectContaining({ status: 'active' }),
      [paused]: expect.objectContaining({ status: 'paused', paused_reason: 'invalid_api_key' }),
      [unsubscribed]: expect.objectContaining({ status: 'unsubscribed', unsubscribed_at: new Date(clock).toISOString() }),
    };
    expect(Object.fromEntries((await listed()).map((s) => [s.id, s]))).toEqual(expected);
    for (const id of [pending, active, paused, unsubscribed]) expect((await keyed(`/digests/subscriptions/${id}`, 'DELETE')).status).toBe(204);
    expect(await listed()).toEqual([]);

    const emails = ['pending-alerts@example.com', 'active@example.com', 'paused@example.com', 'unsubscribed@example.com'];
    const links = [local(again), ...(await Promise.all(emails.map(mailTo))).flat().flatMap(linksOf)];
    expect(pathsOf(links)).toEqual(['/digests/confirm', '/digests/resubscribe', '/digests/unsubscribe']);
    await expectRemoved(links);
    for (const id of [pending, active, paused, unsubscribed]) expect(await row(id)).toBeNull();
  });

  it("every link acts on the cycle it was minted for: after the account subscribes the address again, the earlier cycle's links act on nothing", async () => {
    const email = 'cycles@example.com';
    const t0 = clock;
    const { id } = ((await (await subscribe(email)).json()) as { subscription: { id: string } }).subscription;
    const first = (await mailTo(email))[0]!;
    await post(linkTo(first, '/digests/confirm')!);
    expect((await sendNow()).recipients).toBe(1);
    const oldDigest = (await mailTo(email)).at(-1)!;
    const oldView = viewLinkOf(oldDigest);
    const oldUnsubscribe = linkTo(oldDigest, '/digests/unsubscribe')!;
    // The person unsubscribes (one click on the digest's link); 30 days later the account subscribes them again.
    await post(oldUnsubscribe);
    expect((await get(oldView)).status).toBe(410);
    at(t0 + 31 * DAY);
    expect((await subscribe(email)).status).toBe(200);
    const second = (await mailTo(email)).at(-1)!;
    expect(second.kind).toBe('confirm');
    expect((await row(id))!.status).toBe('pending');

    // The first cycle's unsubscribe links (page, one-click, mailto) do not unsubscribe this one. (Its confirm link has
    // expired by now; that an earlier cycle's confirm link confirms nothing is shown above, within its week.)
    for (const url of [linkTo(first, '/digests/unsubscribe')!, oldUnsubscribe]) {
      const response = await post(url);
      expect(response.status).toBe(410);
      expect(visibleText(await response.text())).toContain('It is from an earlier round of its subscription');
    }
    const [reason] = await mailUnsubscribe(tokenOf(oldUnsubscribe));
    expect(reason).toContain('earlier round');
    expect((await row(id))!.status).toBe('pending');

    // This cycle's links work: confirm, then its unsubscribe by mail.
    expect(visibleText(await (await post(linkTo(second, '/digests/confirm')!)).text())).toContain('Subscription confirmed');
    expect(await mailUnsubscribe(tokenOf(linkTo(second, '/digests/unsubscribe')!))).toEqual([]);
    expect((await row(id))!.status).toBe('unsubscribed');
  });

  it('a link from before cycles were counted (no generation) works in the cycle its row is in; a confirm link only if it is the latest confirmation', async () => {
    const { signToken, CONFIRM_TTL } = await import('../src/lib/signing');
    const email = 'legacy@example.com';
    const { id } = ((await (await subscribe(email)).json()) as { subscription: { id: string } }).subscription;
    const sentAt = (await env.DB.prepare('SELECT confirm_sent_at FROM digest_subscriptions WHERE id = ?').bind(id).first<string>('confirm_sent_at'))!;
    // As minted before migration 0016: the same claims, no `g`.
    const legacyConfirm = (issuedAt: number) => signToken(env.SIGNING_SECRET, { p: 'confirm', s: id }, { ttlSeconds: CONFIRM_TTL, now: new Date(issuedAt) });
    const older = await legacyConfirm(Date.parse(sentAt) - 60 * MINUTE);
    expect((await post(`/digests/confirm?token=${older}`)).status).toBe(410);
    expect((await row(id))!.status).toBe('pending');
    expect(visibleText(await (await post(`/digests/confirm?token=${await legacyConfirm(Date.parse(sentAt))}`)).text())).toContain('Subscription confirmed');
    const legacyUnsubscribe = await signToken(env.SIGNING_SECRET, { p: 'unsubscribe', s: id }, { ttlSeconds: 3600 });
    expect(visibleText(await (await post(`/digests/unsubscribe?token=${legacyUnsubscribe}`)).text())).toContain('You are unsubscribed');
    expect((await row(id))!.status).toBe('unsubscribed');
  });
});

describe("2. a page's CSV links end with the page's record", () => {
  it("revoking a report link ends its CSV links (410, saying why); another link's and the key's own page links keep working", async () => {
    const link = await mintLink({ expires_in_days: 7 });
    const other = await mintLink({ expires_in_days: 7 });
    const csv = await everyCsvLink(link.path);
    const otherCsv = await everyCsvLink(other.path);
    const keyedCsv = csvLinksOf(await (await keyed('/reports/weekly?brand_id=1&market=us', 'POST')).text());
    expect(keyedCsv.length).toBeGreaterThan(0);
    // Each page's links are its own.
    expect(new Set([...csv, ...otherCsv, ...keyedCsv]).size).toBe(csv.length + otherCsv.length + keyedCsv.length);
    const reads = await Promise.all(csv.map(readCsv));
    expect(reads.map((r) => r.status)).toEqual(csv.map(() => 200));
    // Rows in every table, the kept history's too: it starts full, with the API's 12 weeks (kept when the link was made).
    expect(reads.filter((r) => r.records.length > 0)).toHaveLength(csv.length);

    expect((await keyed(`/reports/links/${link.id}`, 'DELETE')).status).toBe(204);
    expect((await get(link.path)).status).toBe(410);
    for (const url of csv) {
      const read = await readCsv(url);
      expect([read.status, read.type]).toEqual([410, 'text/plain; charset=utf-8']);
      expect(read.text).toContain('This CSV link has ended with the report page it came from. Its report link was revoked.');
    }
    for (const url of [...otherCsv, ...keyedCsv]) expect((await readCsv(url)).status).toBe(200);
  });

  it("a signed page's CSV links are its link's, not the key's: neither listed nor counted against the key's cap, and handed out again on every view", async () => {
    const link = await mintLink({ expires_in_days: 1 });
    const csv = await everyCsvLink(link.path);
    const listed = (await (await keyed('/exports/links')).json()) as { links: unknown[] };
    expect(listed.links).toEqual([]);
    // In the link's last day too (its CSV links cannot live longer): the same links, no new row per view.
    at(clock + 20 * 60 * MINUTE);
    expect(await everyCsvLink(link.path)).toEqual(csv);
    expect(await everyCsvLink(link.path)).toEqual(csv);
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM report_links WHERE parent = ?').bind(`link:${link.id}`).first('n')).toBe(csv.length);
  });

  it("the digest's view page and its CSV links end when the person unsubscribes", async () => {
    const [id] = await seedSubscriptions([{ email: 'reader@example.com' }]);
    expect((await sendNow()).recipients).toBe(1);
    const digest = (await mailTo('reader@example.com')).at(-1)!;
    const view = viewLinkOf(digest);
    const csv = await everyCsvLink(view);
    for (const url of csv) expect((await readCsv(url)).status).toBe(200);

    expect((await post(linkTo(digest, '/digests/unsubscribe')!)).status).toBe(200);
    // An unsubscribed address keeps no credential: the CSV links' rows no longer hold the key either.
    expect(await keysOfLinks(id!)).toEqual(csv.map(() => ''));
    const page = await get(view);
    expect(page.status).toBe(410);
    expect(visibleText(await page.text())).toContain('Its subscription was unsubscribed.');
    for (const url of csv) {
      const read = await readCsv(url);
      expect(read.status).toBe(410);
      expect(read.text).toContain('Its subscription was unsubscribed.');
    }
  });

  it("a report page's CSV links end when the key behind it is revoked", async () => {
    const key = await accountKey('revoked-later');
    const link = await mintLink({}, key);
    const csv = await everyCsvLink(link.path);
    for (const url of csv) expect((await readCsv(url)).status).toBe(200);
    await env.DB.prepare('UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?')
      .bind(new Date(clock).toISOString(), await sha256Hex(key))
      .run();
    // The edge checks a key it serves from its cache again 5 minutes after the upstream last accepted it. The key's
    // gate shares a success for a few seconds of real time with identical reads: evicting it stands in for those.
    at(clock + 6 * MINUTE);
    await evictDurableObject(await gateOf(key));
    for (const url of csv) {
      const read = await readCsv(url);
      expect([read.status, read.text]).toEqual([410, expect.stringContaining('The API key it read with was revoked.')]);
    }
    expect((await get(link.path)).status).toBe(401);
  });

  it('report tokens are checked against their stored expiry', async () => {
    const link = await mintLink({ expires_in_days: 3 });
    // The row lives shorter than the token says (as if the token were made with a longer life): the row decides.
    await env.DB.prepare('UPDATE report_links SET expires_at = ? WHERE id = ?')
      .bind(new Date(clock + DAY).toISOString(), link.id)
      .run();
    expect((await get(link.path)).status).toBe(403);
  });
});
