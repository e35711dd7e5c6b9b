/**
 * The prototype names of test/hostile-names.test.ts (each string the contract lets the service choose becomes
 * `__proto__`, `constructor`, `toString`... in an order fast-check draws) through what the Worker sends and keeps:
 * the weekly digest (planned by the cron, sent from the queue), send-now, a subscribe's answer and confirmation
 * mail, the week the digest keeps and the history page and CSV that read it, the change alerts (webhook, Slack, email) and the compatibility check. Nothing answers a 5xx,
 * every name is shown as the name it is, and no figure or word comes from an inherited member (a function's
 * source, `[object Object]`, `NaN`, `undefined`).
 */
import { env, SELF } from 'cloudflare:test';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterEach, expect, it, vi } from 'vitest';
import { isoWeek } from '../src/weekly-report/week';
import { changedDay2, clearAlerts, type DayBodies, FakeEndpoints, FixtureApi, fixtureDay, AlertQueue, seedAlertSubscriptions, skipHistoryPass } from './alerts-helpers';
import { clearDigests, dayOf, deliver, demoMonday, FakeQueue, FakeResend, runCron, seedSubscriptions, sendRecords, testEnv } from './digests-helpers';
import { hostileWorld, INHERITED_READ, installPrototypeNames, PROTOTYPE_NAMES, prototypeSwap, swapBody, type Swap } from './hostile';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { BASE, call, callWith, clearReports } from './reports-helpers';
import { useServicesForTests } from './seams';

afterEach(async () => {
  useServicesForTests();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  restoreUpstream();
  await clearAlerts();
  await clearDigests();
  await clearReports();
});

const shown = (text: string) => PROTOTYPE_NAMES.filter((name) => text.includes(name));

/** What a reader gets: no inherited member's words, and some of the service's names as they are. */
function expectNamesAsSent(what: string, text: string): void {
  expect([what, INHERITED_READ.exec(text)?.[0] ?? 'clean']).toEqual([what, 'clean']);
  expect(shown(text).length, `${what} shows the service's names`).toBeGreaterThan(0);
}

async function expectAnswered(what: string, response: Response): Promise<string> {
  const text = await response.text();
  expect([what, response.status === 200 ? 'answered' : `${response.status} ${text.slice(0, 300)}`]).toEqual([what, 'answered']);
  return text;
}

const csvLinksOf = (html: string) => [...html.matchAll(/href="(https?:\/\/[^"]+\/x\/[^"]+\.csv)"/g)].map((m) => new URL(m[1]!.replaceAll('&amp;', '&')).pathname);

it('the digest, send-now, a subscribe and its confirmation, the week kept, and the history page and its CSV answer every prototype name', async () => {
  const monday = demoMonday();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(hostileWorld, async (world) => {
      // Each run later on the same Monday morning: a fresh minute of the demo key's 60 reads, past send-now's 10 minutes.
      const at = new Date(monday.getTime() + run++ * 11 * 60_000);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(at);
      await clearDigests();
      await clearReports();
      const resend = new FakeResend().install();
      const queue = new FakeQueue();
      useServicesForTests({ sleep: async () => {} });
      installPrototypeNames(world);
      const key = freshKey('protodigest');
      await seedSubscriptions([{ email: 'reader@example.com', key }]);
      const digestEnv = testEnv(queue);
      await runCron(at.toISOString(), digestEnv);
      expect(queue.sent).toHaveLength(1);
      await deliver(queue.sent, digestEnv);
      expect((await sendRecords()).map((r) => [r.status, r.reason])).toEqual([['sent', null]]);
      const [email] = resend.delivered;
      expectNamesAsSent('digest html', email!.html);
      expectNamesAsSent('digest text', email!.text);
      expectNamesAsSent('digest subject and text', `${email!.subject} ${email!.text}`);

      // Send-now: the same digest, through the report route, to the confirmed subscriber.
      const sent = await callWith(digestEnv, '/reports/weekly/send?market=us', { key, method: 'POST' });
      const sendAnswer = await sent.text();
      expect([sent.status, sendAnswer.slice(0, 300)]).toEqual([202, expect.any(String)]);
      expect(INHERITED_READ.exec(sendAnswer)).toBeNull();
      expect(resend.delivered).toHaveLength(2);
      expectNamesAsSent('send-now html', resend.delivered[1]!.html);
      expectNamesAsSent('send-now text', resend.delivered[1]!.text);

      // A subscribe with the same key: its answer and its confirmation mail name the brand as the service does.
      const subscribed = await callWith(digestEnv, '/digests/subscriptions', {
        key,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'newcomer@example.com', market: 'us', kinds: ['visibility', 'won_lost'] }),
      });
      const subscribeAnswer = await subscribed.text();
      expect([subscribed.status, subscribeAnswer.slice(0, 300)]).toEqual([201, expect.any(String)]);
      expectNamesAsSent('subscribe answer', subscribeAnswer);
      const confirmation = resend.delivered.find((e) => e.to[0] === 'newcomer@example.com')!;
      expectNamesAsSent('confirmation mail', `${confirmation.subject}\n${confirmation.text}\n${confirmation.html}`);

      // The week the digest kept: the service's engines as they are, their figures numbers.
      const kept = await env.DB.prepare('SELECT engines FROM weekly_history WHERE brand_id = 1 AND market_id = 11 AND iso_week = ?')
        .bind(isoWeek(dayOf(at)))
        .first<{ engines: string }>();
      const engines = JSON.parse(kept!.engines) as { engine: string; naming: unknown; answered: unknown }[];
      expect(engines.length).toBeGreaterThan(0);
      for (const e of engines) {
        expect(PROTOTYPE_NAMES).toContain(e.engine);
        expect([e.engine, typeof e.naming, typeof e.answered]).toEqual([e.engine, 'number', 'number']);
      }

      // The history page and its CSV read that week back.
      vi.unstubAllGlobals();
      const page = await expectAnswered('history page', await call('/reports/history?market=us', { key }));
      expect(INHERITED_READ.exec(page)).toBeNull();
      const withLinks = await expectAnswered('history page and its CSV links', await call('/reports/history?market=us', { key, method: 'POST' }));
      const links = csvLinksOf(withLinks);
      expect(links.length).toBeGreaterThan(0);
      for (const link of links) {
        const csv = await expectAnswered(`CSV ${link}`, await call(link));
        expect([link, INHERITED_READ.exec(csv)?.[0] ?? 'clean']).toEqual([link, 'clean']);
      }
    }),
    { seed: 20261204, numRuns: 2 },
  );
});

/** The day's three bodies as the service sends them with `swap`'s names. */
const swapped = (bodies: DayBodies, swap: Swap): DayBodies => ({
  visibility: swapBody('getVisibility', bodies.visibility, swap),
  matrix: swapBody('getPromptMatrix', bodies.matrix, swap),
  topics: swapBody('listTopics', bodies.topics, swap),
});

type SentEvent = {
  type: string;
  summary: string;
  engine?: string;
  engine_label?: string;
  question?: { text: string };
  rival?: string;
  topic?: { name: string };
  rival_share?: unknown;
  previous_rival_share?: unknown;
};

it('the change alerts (webhook, Slack, email) name every prototype name as it is, with the figures of the day', async () => {
  const hook = 'https://receiver.example.com/hooks/brand';
  const slack = 'https://hooks.slack.com/services/T000/B000/XXXX';
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const day1 = Date.parse('2026-11-23T07:00:00Z');
  await fc.assert(
    fc.asyncProperty(hostileWorld, async (world) => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(day1);
      await clearAlerts();
      await clearDigests();
      const endpoints = new FakeEndpoints().install();
      const api = new FixtureApi();
      const alertQueue = new AlertQueue();
      useServicesForTests({ api: api.client, sleep: async () => {} });
      const alertEnv = testEnv(new FakeQueue(), { ALERT_QUEUE: alertQueue, RESEND_API_KEY: '' });
      const none = { start: 0, end: 0 };
      await seedAlertSubscriptions([
        { channel: 'webhook', url: hook, secret, quiet: none },
        { channel: 'slack', url: slack, quiet: none },
        { channel: 'email', email: 'watcher@example.com', quiet: none },
      ]);
      const swap = prototypeSwap(world);
      for (const [when, bodies] of [
        [day1, swapped(fixtureDay(0), swap)],
        [day1 + 86_400_000, swapped(changedDay2(), swap)],
      ] as const) {
        vi.setSystemTime(when);
        api.bodies = bodies;
        const iso = new Date(when).toISOString();
        await skipHistoryPass(iso);
        await runCron(iso, alertEnv);
      }
      await deliver(alertQueue.take(), alertEnv, { queue: 'alert-deliveries' });

      const webhook = endpoints.posts.find((p) => p.url === hook)!;
      const payload = new Webhook(secret).verify(webhook.body, webhook.headers) as { data: { events: SentEvent[] } };
      // The hand-worked changes of day 2, found whatever the service calls its engines, questions, topics and rivals.
      expect(payload.data.events.map((e) => e.type)).toEqual(['visibility_moved', 'question_lost', 'rival_overtook', 'question_won']);
      for (const event of payload.data.events) {
        if (event.engine !== undefined) {
          expect(PROTOTYPE_NAMES).toContain(event.engine);
          // An engine of another implementation is named as it is: never a member of the labels' table.
          expect(event.engine_label).toBe(event.engine);
          expect(PROTOTYPE_NAMES).toContain(event.question!.text);
          expect(event.summary.startsWith(`${event.engine} `)).toBe(true);
        }
        if (event.type === 'rival_overtook') {
          expect(PROTOTYPE_NAMES).toContain(event.rival);
          expect(PROTOTYPE_NAMES).toContain(event.topic!.name);
          expect([event.rival_share, typeof event.previous_rival_share]).toEqual([60, 'number']);
          expect(event.summary.startsWith(`${event.rival} overtook`)).toBe(true);
        }
      }
      expectNamesAsSent('webhook', webhook.body);
      expectNamesAsSent('slack', endpoints.posts.find((p) => p.url === slack)!.body);
      const outbox = (await (await SELF.fetch(`${BASE}/dev/outbox?format=json&to=watcher@example.com`)).json()) as { messages: { kind: string; subject: string; text: string }[] };
      expect(outbox.messages.map((m) => m.kind)).toEqual(['alert']);
      expectNamesAsSent('alert email', `${outbox.messages[0]!.subject}\n${outbox.messages[0]!.text}`);
      const message = await expectAnswered('alert email in the outbox', await SELF.fetch(`${BASE}/dev/outbox?to=watcher@example.com`));
      expect(INHERITED_READ.exec(message)).toBeNull();
    }),
    { seed: 20261205, numRuns: 3 },
  );
});

it('the compatibility check reads every prototype name without a 5xx, as JSON and as a page', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(hostileWorld, async (world) => {
      vi.useFakeTimers({ toFake: ['Date'] });
      // The check reads every operation: each run starts a minute later, with a fresh budget.
      vi.setSystemTime(Date.now() + ++run * 61_000);
      installPrototypeNames(world);
      for (const accept of ['application/json', 'text/html']) {
        const response = await SELF.fetch(`${BASE}/admin/upstream/check`, {
          method: 'POST',
          headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, accept, 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: freshKey('protocheck'), market: 'us' }),
        });
        const text = await expectAnswered(`check as ${accept}`, response);
        expect([accept, INHERITED_READ.exec(text)?.[0] ?? 'clean']).toEqual([accept, 'clean']);
        if (accept === 'application/json') {
          const answer = JSON.parse(text) as { features: { feature: string; status: string }[]; operations: { operation: string; status: string }[] };
          // The service's names are names: no feature is taken for broken by them, no operation for unreadable.
          expect(answer.operations.filter((op) => op.status === 'unreadable')).toEqual([]);
          expect(answer.features.filter((f) => f.status === 'cannot_run')).toEqual([]);
        }
      }
    }),
    { seed: 20261206, numRuns: 2 },
  );
});
