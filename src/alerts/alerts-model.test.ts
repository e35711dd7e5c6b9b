/**
 * Units of the change alerts: the event model over the demo brand's real
 * bodies changed by hand (what is an event, what is noise, in which order),
 * the address check on names and literals (the resolver is a table; nothing
 * is fetched), DNS-over-HTTPS parsing, quiet hours, signatures, and the
 * alert email from its PreviewProps.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import AlertEmail from '../../emails/alert';
import { inQuietHours, releaseAt } from './quiet';
import { checkPublicUrl, DOH_MAX_BYTES, dohResolver, isPublicAddress } from '../lib/public-address';
import { newWebhookSecret, signedHeaders } from '../mail/endpoints';
import { renderAlert } from '../mail/render';
import { alertSnapshotOf, changesBetween, headlineOf, MIN_RUNS } from '../weekly-report/changes';
import { NEEDS, notProvidedLines } from '../weekly-report/parts';
import { cell, fixtureDay, HOSTS, plantCell } from '../../test/alerts-days';

/** Day 1: the fixture as read. Day 2: a day later, changed by hand (see each line). */
function demoWeek() {
  const day1 = fixtureDay(0);
  const day2 = fixtureDay(1);
  // Visibility 56.8% of 1,719 answers -> 50.0%: the band is 100 * sqrt(.5*.5/1719 + .568*.432/1719) = 1.70 pts, the fall 6.8.
  day2.visibility.score = 50;
  // Claude recommended Brightdesk for question 1101001 in 7 runs; now it names a rival only (7 runs): lost.
  plantCell(day2, 1101001, 'claude', 'absent', 7);
  // ChatGPT named a rival only (7 runs); now it mentions Brightdesk (7 runs): won.
  plantCell(day2, 1101001, 'chatgpt', 'mentioned', 7);
  // Perplexity flips too, but with 4 runs behind the new state: no event.
  plantCell(day2, 1101001, 'perplexity', 'mentioned', MIN_RUNS - 1);
  // Gemini's dominant state becomes no answer: says nothing about the brand.
  plantCell(day2, 1101002, 'gemini', 'no_answer', 7);
  // Topic 1101: Brightdesk 54.2%, Deskpilot 39.2% -> 60.0%. About 287 runs (1,719 x 7/42 questions): band 4.1 pts, lead 5.8.
  day2.topics.topics[0]!.rivals[0]!.share = 60;
  // Topic 1102: Helpwave 36.5% -> 68.5% against Brightdesk's 67.7%: ahead by 0.8, inside its band: no event.
  day2.topics.topics[1]!.rivals[0]!.share = 68.5;
  return { day1, day2 };
}

describe('the event model', () => {
  it('finds the hand-worked events of a demo week, most important first', () => {
    const { day1, day2 } = demoWeek();
    const changes = changesBetween(alertSnapshotOf(day1), alertSnapshotOf(day2));
    const events = changes.flatMap((c) => (c.event ? [c.event] : []));
    expect(events.map((e) => e.type)).toEqual(['visibility_moved', 'question_lost', 'rival_overtook', 'question_won']);
    expect(changes.map((c) => `${c.subject} ${c.direction}`)).toEqual(['visibility down', 'q:1101001:claude lost', 'rival:1101:Deskpilot ahead', 'q:1101001:chatgpt won']);
    const [moved, lost, overtook, won] = events;
    expect(moved).toMatchObject({ direction: 'down', score: 50, previous: 56.8, change: -6.8 });
    expect(moved?.type === 'visibility_moved' && moved.noise).toBeCloseTo(1.7, 1);
    expect(lost).toMatchObject({ engine: 'claude', before: 'recommended', now: 'absent', runs_before: 7, runs_now: 7, question: { id: 1101001, topic: 'Best help desk software overall' } });
    expect(overtook).toMatchObject({ topic: { id: 1101 }, rival: 'Deskpilot', rival_share: 60, brand_share: 54.2, previous_rival_share: 39.2 });
    expect(won).toMatchObject({ engine: 'chatgpt', before: 'absent', now: 'mentioned' });
    expect(headlineOf(lost!, 'Brightdesk')).toBe('Claude stopped naming Brightdesk for “What is the best help desk software this year?” (recommended → not named).');
    expect(headlineOf(moved!, 'Brightdesk')).toBe('Brightdesk’s AI visibility fell to 50.0% (−6.8 pts, beyond its noise of ±1.7 pts).');
  });

  it('raises nothing for a score wobble inside the band, the first evaluation, or the same days again', () => {
    const day1 = fixtureDay(0);
    const day2 = fixtureDay(1);
    day2.visibility.score = 58.4; // +1.6 pts, under the 1.70 band
    expect(changesBetween(alertSnapshotOf(day1), alertSnapshotOf(day2))).toEqual([]);
    day2.visibility.score = 58.6; // +1.8: beyond it
    expect(changesBetween(alertSnapshotOf(day1), alertSnapshotOf(day2)).map((c) => c.direction)).toEqual(['up']);
    expect(changesBetween(null, alertSnapshotOf(day1))).toEqual([]);
    const sameDays = fixtureDay(0);
    sameDays.visibility.score = 20;
    expect(changesBetween(alertSnapshotOf(day1), alertSnapshotOf(sameDays))).toEqual([]);
  });

  it('needs MIN_RUNS runs behind the state before too', () => {
    const day1 = fixtureDay(0);
    Object.assign(cell(day1, 1101001, 'claude'), { runs: MIN_RUNS - 1 });
    const day2 = fixtureDay(1);
    plantCell(day2, 1101001, 'claude', 'absent', 7);
    expect(changesBetween(alertSnapshotOf(day1), alertSnapshotOf(day2))).toEqual([]);
  });

  it('marks a rival falling back behind as a change with no event (the reversal of an overtaking)', () => {
    const { day2 } = demoWeek();
    const day3 = fixtureDay(2);
    const changes = changesBetween(alertSnapshotOf(day2), alertSnapshotOf(day3));
    expect(changes.find((c) => c.subject === 'rival:1101:Deskpilot')).toEqual({ subject: 'rival:1101:Deskpilot', direction: 'behind', event: null });
    // The others reverse as events: visibility up, Claude won back, ChatGPT lost again.
    expect(changes.filter((c) => c.event).map((c) => `${c.subject} ${c.direction}`)).toEqual(['q:1101001:chatgpt lost', 'visibility up', 'q:1101001:claude won']);
  });

  it('looks for no question or rival event while either day lacks its part: a rival missing yesterday did not overtake today', () => {
    const { day1, day2 } = demoWeek();
    const withoutRivals = (day: typeof day1) => ({ ...day, topics: { ...day.topics, topics: day.topics.topics.map((t) => ({ ...t, rivals: [] })) } });
    const before = alertSnapshotOf({ ...withoutRivals(day1), matrix: null, not_provided: ['per_engine', 'rivals'] });
    expect(before).toMatchObject({ cells: [], not_provided: ['per_engine', 'rivals'] });
    // Day 2 the service gives everything again: only the score is compared with the day before.
    expect(changesBetween(before, alertSnapshotOf(day2)).map((c) => c.subject)).toEqual(['visibility']);
    expect(alertSnapshotOf(day1)).not.toHaveProperty('not_provided');
  });
});

describe('the address check', () => {
  const resolve = async (host: string) => HOSTS[host] ?? [];
  const check = (url: string, allowLocalhost = false) => checkPublicUrl(url, { resolve, allowLocalhost });

  it.each([
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['127.0.0.1', false],
    ['127.8.8.8', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['::', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['fe80::1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:127.0.0.1', false],
    ['172.32.0.1', true],
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it.each([
    ['http://receiver.example.com/hook', 'must be an https URL.'],
    ['https://10.0.0.1/hook', 'points at 10.0.0.1'],
    ['https://[::1]/hook', 'points at ::1'],
    ['https://[fe80::1]/hook', 'points at fe80::1'],
    ['https://[::ffff:10.0.0.1]/hook', 'points at ::ffff:a00:1'],
    ['https://2130706433/hook', 'points at 127.0.0.1'],
    ['https://0x7f.1/hook', 'points at 127.0.0.1'],
    ['https://0177.0.0.1/hook', 'points at 127.0.0.1'],
    ['https://169.254.169.254/latest/meta-data', 'points at 169.254.169.254'],
    ['https://intranet.example.com/hook', 'resolves to 10.0.0.5'],
    ['https://mapped.example.com/hook', 'resolves to ::ffff:192.168.1.1'],
    ['https://nowhere.example.com/hook', 'does not resolve'],
    ['https://localhost/hook', 'must name a public host'],
    ['https://printer.local/hook', 'must name a public host'],
    ['https://user:pass@receiver.example.com/hook', 'user name or password'],
    ['https://receiver.example.com:8443/hook', 'port'],
    ['not a url', 'is not a URL'],
  ])('refuses %s', async (url, reason) => {
    const verdict = await check(url);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toContain(reason);
  });

  it('takes a public https URL, every address checked; dev takes http://localhost and nothing else private', async () => {
    expect(await check('https://receiver.example.com/hook')).toMatchObject({ ok: true, addresses: HOSTS['receiver.example.com'] });
    expect(await check('https://hooks.slack.com/services/T0/B0/X')).toMatchObject({ ok: true });
    expect((await check('http://localhost:9000/hook', true)).ok).toBe(true);
    expect((await check('http://localhost:9000/hook')).ok).toBe(false);
    expect((await check('http://10.0.0.1/hook', true)).ok).toBe(false);
    expect((await check('https://intranet.example.com/hook', true)).ok).toBe(false);
  });

  it('resolves A and AAAA over DNS-over-HTTPS (JSON), keeping only address records', async () => {
    const asked: string[] = [];
    const fake = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input));
      asked.push(`${url.searchParams.get('name')} ${url.searchParams.get('type')} ${new Headers(init?.headers).get('accept')}`);
      const type = url.searchParams.get('type');
      const Answer =
        type === 'A'
          ? [
              { type: 5, data: 'edge.example.net.' },
              { type: 1, data: '93.184.216.34' },
            ]
          : [{ type: 28, data: '2606:2800:220:1::1' }];
      return Response.json({ Status: 0, Answer });
    }) as typeof fetch;
    expect(await dohResolver(fake)('receiver.example.com')).toEqual(['93.184.216.34', '2606:2800:220:1::1']);
    expect(asked).toEqual(['receiver.example.com A application/dns-json', 'receiver.example.com AAAA application/dns-json']);
    const failing = (async () => new Response('no', { status: 503 })) as unknown as typeof fetch;
    expect((await checkPublicUrl('https://receiver.example.com/', { resolve: dohResolver(failing) })).ok).toBe(false);
  });

  it('reads a DNS-over-HTTPS answer only up to DOH_MAX_BYTES: an endless one is cancelled there and the URL refused, not parsed', async () => {
    let cancelled = false;
    let produced = 0;
    const endless = (async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            produced += 4096;
            controller.enqueue(new Uint8Array(4096).fill(0x20));
          },
          cancel() {
            cancelled = true;
          },
        }),
        { headers: { 'content-type': 'application/dns-json' } },
      )) as unknown as typeof fetch;
    const verdict = await checkPublicUrl('https://receiver.example.com/', { resolve: dohResolver(endless) });
    expect(verdict).toMatchObject({ ok: false, reason: 'could not be resolved (receiver.example.com); try again.' });
    expect(cancelled).toBe(true);
    // Two queries (A and AAAA), each stopped at the limit and a chunk or two the stream pulled ahead.
    expect(produced).toBeLessThanOrEqual(2 * (DOH_MAX_BYTES + 2 * 4096));
  });
});

describe('quiet hours', () => {
  const night = { start: 22 * 60, end: 7 * 60 };
  it("hold a delivery until their end, in the subscriber's timezone, across midnight", () => {
    expect(inQuietHours(23 * 60, night)).toBe(true);
    expect(inQuietHours(6 * 60 + 59, night)).toBe(true);
    expect(inQuietHours(7 * 60, night)).toBe(false);
    expect(inQuietHours(12 * 60, { start: 12 * 60, end: 12 * 60 })).toBe(false);
    expect(releaseAt(new Date('2026-11-23T23:30:15Z'), 'UTC', night).toISOString()).toBe('2026-11-24T07:00:00.000Z');
    // 07:30 in Berlin (UTC+1) is outside: now.
    expect(releaseAt(new Date('2026-11-23T06:30:00Z'), 'Europe/Berlin', night).toISOString()).toBe('2026-11-23T06:30:00.000Z');
    // 01:30 in New York (UTC-5): held until 07:00 there, 12:00 UTC.
    expect(releaseAt(new Date('2026-11-23T06:30:00Z'), 'America/New_York', night).toISOString()).toBe('2026-11-23T12:00:00.000Z');
    // A daytime window: 09:00 to 17:00.
    expect(releaseAt(new Date('2026-11-23T10:00:00Z'), 'UTC', { start: 9 * 60, end: 17 * 60 }).toISOString()).toBe('2026-11-23T17:00:00.000Z');
  });
});

describe('signatures and the alert email', () => {
  it("signs per the Standard Webhooks spec: the receiver's Webhook.verify takes it, and refuses a tampered body or id", () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ type: 'alerts.changes', data: { events: [] } });
    const headers = signedHeaders(secret, 'evt_1', new Date(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('[]', '[1]'), headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('renders the alert email from its PreviewProps: each event once, one button, the quiet hours, both parts', async () => {
    const mail = await renderAlert(AlertEmail.PreviewProps);
    expect(mail.subject).toBe('Brightdesk (US): AI visibility 47.9% (−3.3 pts) · 3 more changes');
    for (const event of AlertEmail.PreviewProps.events) {
      const line = headlineOf(event, 'Brightdesk');
      expect(mail.text.split(line).length - 1).toBe(1);
    }
    expect(mail.html).toContain('<title>');
    expect(mail.html.match(/Open the full report/g)).toHaveLength(1);
    expect(mail.text).toContain('never between 22:00–07:00 (Europe/Berlin)');
    // Most important first: the fall of the score before the lost question.
    expect(mail.text.indexOf('fell to 47.9%')).toBeLessThan(mail.text.indexOf('ChatGPT stopped naming'));
  });

  it('says in one line what it could not watch, when the Read API does not provide it', async () => {
    const line = notProvidedLines(NEEDS.alerts, ['per_engine', 'topics', 'rivals']).map((l) => l.line);
    // Topics and rivals leave out the same events: one line for both.
    expect(line).toEqual([
      'Your Read API does not provide per-engine answers, so lost and won questions are not alerted.',
      'Your Read API does not provide topics, so rivals overtaking the brand in a topic are not alerted.',
    ]);
    const mail = await renderAlert({ ...AlertEmail.PreviewProps, notProvided: line });
    for (const l of line) {
      expect(mail.text).toContain(l);
      expect(mail.html).toContain(l);
    }
  });
});
