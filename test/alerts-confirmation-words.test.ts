/**
 * What an alerts subscription's confirmation and pages say, through the
 * Worker (SELF): for each channel (email, Slack, webhook) the confirmation
 * (the email's subject, HTML and text; the Slack message; the webhook's
 * `data.text`) and every page of its links (confirm, confirmed, unsubscribe,
 * unsubscribed, subscribe again, resubscribed) speak of change alerts, say
 * when they come and the quiet hours when there are any, and never of a
 * weekly digest or an empty list of kinds. A subscription to both names both.
 * Words are checked in the visible text (tags, styles and links removed),
 * never in raw HTML with tokens in it. Slack, the webhook receiver and DNS
 * are the fakes of test/alerts-helpers.ts; the clock is faked.
 */
import { SELF } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clearAlerts, FakeEndpoints } from './alerts-helpers';
import { clearDigests } from './digests-helpers';

const BASE = 'https://edge.test';
const HOOK = 'https://receiver.example.com/hooks/brand';
const SLACK = 'https://hooks.slack.com/services/T000/B000/XXXX';

let endpoints: FakeEndpoints;

beforeEach(async () => {
  await clearAlerts();
  await clearDigests();
  endpoints = new FakeEndpoints().install();
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** What a reader sees: the body's text, without tags, styles, scripts or links, entities decoded, spaces collapsed. */
function visibleText(html: string): string {
  return html
    .replace(/<head[\s\S]*?<\/head>/i, ' ')
    .replace(/<(style|script)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (entity, name: string) =>
      name.startsWith('#x') ? String.fromCodePoint(parseInt(name.slice(2), 16)) : name.startsWith('#') ? String.fromCodePoint(Number(name.slice(1))) : (ENTITIES[name] ?? entity),
    )
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/[\u200b-\u200d\u2060\u00ad\ufeff]|\u034f/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Says alerts, when they come, and nothing of a digest (nor an empty list of kinds: `market US: .`). */
function expectAlertsWords(where: string, text: string, quiet: string | null) {
  expect([where, text]).toEqual([where, expect.stringMatching(/change alerts/i)]);
  expect([where, text]).not.toEqual([where, expect.stringMatching(/digest|Monday|: \./i)]);
  if (quiet) expect([where, text]).toEqual([where, expect.stringContaining(`quiet hours ${quiet}`)]);
  else expect([where, text]).not.toEqual([where, expect.stringMatching(/quiet/i)]);
}

function subscribe(body: Record<string, unknown>) {
  return SELF.fetch(`${BASE}/digests/subscriptions`, { method: 'POST', headers: { authorization: 'Bearer demo_pro_single', 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

interface OutboxMail {
  id: number;
  kind: string;
  to: string;
  subject: string;
  headers: Record<string, string>;
}

async function confirmationMails(to: string) {
  const { messages } = (await (await SELF.fetch(`${BASE}/dev/outbox?format=json&to=${encodeURIComponent(to)}`)).json()) as { messages: OutboxMail[] };
  return Promise.all(
    messages
      .filter((m) => m.kind === 'confirm')
      .map(async (m) => ((await (await SELF.fetch(`${BASE}/dev/outbox/${m.id}?format=json`)).json()) as { message: OutboxMail & { html: string; text: string } }).message),
  );
}

/** A link's path and query: opened on the test's Worker. */
const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');

/** Opens a page and returns its visible text, checking its status. */
async function pageText(path: string, method = 'GET', status = 200) {
  const response = await SELF.fetch(`${BASE}${path}`, { method });
  expect([path.split('?')[0], method, response.status]).toEqual([path.split('?')[0], method, status]);
  const html = await response.text();
  return { text: visibleText(html), html };
}

/**
 * Walks every page of a subscription's links: the confirm page and its button, the unsubscribe page and its
 * button, the subscribe-again page and its button (11 minutes on, past the first confirmation's window).
 * Returns each page's visible text by name.
 */
async function walkPages(confirmUrl: string, unsubscribeUrl: string) {
  const pages: Record<string, string> = {};
  pages.confirmAsk = (await pageText(local(confirmUrl))).text;
  pages.confirmed = (await pageText(local(confirmUrl), 'POST')).text;
  pages.confirmedAgain = (await pageText(local(confirmUrl))).text;
  pages.unsubscribeAsk = (await pageText(local(unsubscribeUrl))).text;
  const unsubscribed = await pageText(local(unsubscribeUrl), 'POST');
  pages.unsubscribed = unsubscribed.text;
  pages.alreadyUnsubscribed = (await pageText(local(unsubscribeUrl))).text;
  const again = /<form method="post" action="([^"]+)"><button type="submit">Subscribe again/.exec(unsubscribed.html)![1]!.replaceAll('&amp;', '&');
  pages.subscribeAgainAsk = (await pageText(again)).text;
  vi.setSystemTime(Date.now() + 11 * 60_000);
  pages.resubscribed = (await pageText(again, 'POST')).text;
  pages.resubscribedAgainAsk = (await pageText(again)).text;
  return pages;
}

describe('an alerts-only subscription speaks of alerts, on every channel', () => {
  it('email: the confirmation email (subject, HTML, text) and every page say alerts, when they come and the quiet hours', async () => {
    const response = await subscribe({ email: 'ana+alerts@example.com', kinds: ['alerts'], timezone: 'Europe/Berlin', quiet_hours: { start: '23:00', end: '06:30' } });
    expect(response.status).toBe(201);
    const [mail] = await confirmationMails('ana+alerts@example.com');
    expect(mail!.subject).toBe('Confirm your AI-visibility change alerts for Brightdesk');
    for (const [part, text] of [
      ['subject', mail!.subject],
      ['html', visibleText(mail!.html)],
      ['text', visibleText(mail!.text)],
    ] as const) {
      expectAlertsWords(`email ${part}`, text, part === 'subject' ? null : '23:00–06:30');
    }
    expect(visibleText(mail!.text)).toContain(
      'Someone (we hope you) asked for change alerts for Brightdesk (US) at ana+alerts@example.com, the day something moves beyond the noise (checked daily after 07:00, Europe/Berlin; quiet hours 23:00–06:30).',
    );
    expect(visibleText(mail!.text)).toContain('An email names what moved: a question won or lost on an engine, the visibility score beyond its noise, or a rival overtaking Brightdesk in a topic.');
    expect(visibleText(mail!.html)).toContain('Confirm the alerts');

    const confirmUrl = /https?:\/\/\S+\/digests\/confirm\?token=[\w.-]+/.exec(mail!.text)![0];
    const unsubscribeUrl = /^<([^>]+)>/.exec(mail!.headers['List-Unsubscribe']!)![1]!;
    const pages = await walkPages(confirmUrl, unsubscribeUrl);
    for (const [name, text] of Object.entries(pages)) expectAlertsWords(`page ${name}`, text, ['confirmAsk', 'confirmed', 'confirmedAgain', 'subscribeAgainAsk'].includes(name) ? '23:00–06:30' : null);
    expect(pages.confirmAsk).toContain('Confirm your change alerts');
    expect(pages.confirmed).toContain('Alerts confirmed');
    expect(pages.unsubscribeAsk).toContain('Stop the change alerts?');
    expect(pages.unsubscribed).toContain('No more change alerts for Brightdesk (US) will be sent to ana+alerts@example.com.');
    expect(pages.subscribeAgainAsk).toContain('Subscribe again to the change alerts?');
    expect(pages.resubscribed).toContain('We sent a confirmation link to ana+alerts@example.com. Open it and confirm to restart the change alerts for Brightdesk (US)');

    // The subscribe-again link's confirmation email says the same.
    const mails = await confirmationMails('ana+alerts@example.com');
    expect(mails).toHaveLength(2);
    expectAlertsWords('second email', visibleText(mails[0]!.text), '23:00–06:30');
  });

  it('Slack: the test message and every page say alerts, when they come and the default quiet hours', async () => {
    expect((await subscribe({ email: 'ops@example.com', kinds: ['alerts'], channel: { type: 'slack', url: SLACK } })).status).toBe(201);
    const message = JSON.parse(endpoints.posts[0]!.body) as { text: string; blocks: { type: string; text?: { text: string }; elements?: { url?: string; text?: string }[] }[] };
    const section = message.blocks.find((b) => b.type === 'section')!.text!.text;
    expectAlertsWords('Slack test message', section, '22:00–07:00');
    expect(section).toContain(
      'Change alerts for Brightdesk (US) were requested for this channel by ops@example.com: they come the day something moves beyond the noise (checked daily after 07:00, UTC; quiet hours 22:00–07:00).',
    );
    expect(message.text).toMatch(/^Confirm change alerts for Brightdesk \(US\) in this channel: /);

    const confirmUrl = message.blocks.find((b) => b.type === 'actions')!.elements![0]!.url!;
    const unsubscribeUrl = /<([^|>]+\/digests\/unsubscribe\?token=[^|>]+)\|stop it now>/.exec(endpoints.posts[0]!.body)![1]!;
    const pages = await walkPages(confirmUrl, unsubscribeUrl);
    for (const [name, text] of Object.entries(pages)) expectAlertsWords(`page ${name}`, text, ['confirmAsk', 'confirmed', 'confirmedAgain', 'subscribeAgainAsk'].includes(name) ? '22:00–07:00' : null);
    expect(pages.confirmAsk).toContain('Get change alerts for Brightdesk (US) in the Slack channel of its incoming webhook');
    expect(pages.resubscribed).toContain('We sent a confirmation link to the Slack channel of its incoming webhook.');
    // The subscribe-again page's button posted a new test message, in the same words.
    expect(endpoints.posts).toHaveLength(2);
    expectAlertsWords('second Slack test message', JSON.parse(endpoints.posts[1]!.body).blocks[0].text.text, '22:00–07:00');
  });

  it("webhook without quiet hours: the test delivery's text and every page say alerts, and no quiet hours", async () => {
    const response = await subscribe({ email: 'ops@example.com', kinds: ['alerts'], channel: { type: 'webhook', url: HOOK }, quiet_hours: { start: '00:00', end: '00:00' } });
    expect(response.status).toBe(201);
    const payload = JSON.parse(endpoints.posts[0]!.body) as { type: string; data: { text: string; confirm_url: string; unsubscribe_url: string } };
    expect(payload.type).toBe('subscription.confirm');
    expectAlertsWords('webhook test delivery', payload.data.text, null);
    expect(payload.data.text).toContain(
      'Change alerts for Brightdesk (US) were requested for this receiver by ops@example.com: they come the day something moves beyond the noise (checked daily after 07:00, UTC).',
    );

    const pages = await walkPages(payload.data.confirm_url, payload.data.unsubscribe_url);
    for (const [name, text] of Object.entries(pages)) expectAlertsWords(`page ${name}`, text, null);
    expect(pages.unsubscribeAsk).toContain('Stop change alerts for Brightdesk (US) to the webhook receiver at receiver.example.com.');
    expect(pages.resubscribed).toContain('We sent a confirmation link to the webhook receiver at receiver.example.com.');
  });
});

describe('a subscription to the digest and alerts names both', () => {
  it('the confirmation email and the confirm pages name the digest, its parts, and the alerts with their quiet hours', async () => {
    expect((await subscribe({ email: 'both@example.com', kinds: ['visibility', 'alerts'], timezone: 'Europe/Berlin' })).status).toBe(201);
    const [mail] = await confirmationMails('both@example.com');
    expect(mail!.subject).toBe('Confirm your weekly AI-visibility digest and change alerts for Brightdesk');
    const text = visibleText(mail!.text);
    expect(text).toContain(
      'Someone (we hope you) asked for the weekly AI-visibility digest and change alerts for Brightdesk (US) at both@example.com, the digest every Monday at 08:00 and alerts the day something moves beyond the noise (Europe/Berlin; alerts checked daily after 07:00; quiet hours 22:00–07:00).',
    );
    expect(text).toContain('Each digest shows the AI visibility score and its trend.');
    expect(text).toContain('An email names what moved');

    const confirmUrl = local(/https?:\/\/\S+\/digests\/confirm\?token=[\w.-]+/.exec(mail!.text)![0]);
    expect((await pageText(confirmUrl)).text).toContain('Confirm your weekly digest and change alerts');
    const confirmed = (await pageText(confirmUrl, 'POST')).text;
    expect(confirmed).toContain('Subscription confirmed');
    expect(confirmed).toMatch(/Your first digest arrives \w+day \d+ \w{3} \d{4} at \d\d:00 \(Europe\/Berlin\)\./);
    expect(confirmed).toContain('alerts start from the day after');
  });
});
