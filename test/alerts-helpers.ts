/**
 * Shared by the alert tests: a fixture API whose bodies the test sets day by
 * day (the demo brand's real bodies, emails/_fixtures/brightdesk-us.json,
 * shifted and changed by hand), fake endpoints behind a stubbed `fetch` (a
 * DNS-over-HTTPS resolver answering from a table, Slack, a webhook receiver;
 * every other request refused, and no request ever leaves), a recording
 * Queue, and direct inserts of alert subscriptions.
 */
import { env } from 'cloudflare:test';
import { vi } from 'vitest';
import type { AlertJob } from '../src/alerts/deps';
import { createClient } from '../src/client';
import { HISTORY_MAX_TRIES } from '../src/exports/history-cron';
import { utcWeek } from '../src/weekly-report';
import { seal } from '../src/lib/sealing';
import { DOH_URL } from '../src/lib/public-address';
import { EMBEDDED_BASE_URL } from '../src/origin/transport';
import fixture from '../emails/_fixtures/brightdesk-us.json';
import { type DayBodies, fixtureDay, HOSTS } from './alerts-days';
import { seedSubscriptions } from './digests-helpers';

export { cell, changedDay2, type DayBodies, fixtureDay, HOSTS, plantCell, withScore } from './alerts-days';

/**
 * The cron's history pass reads every subscribed pair once a week; where the reads counted are the alerts' own (the
 * history has its tests in test/exports-history.test.ts), the pass finds the week of `when` given up on for each pair.
 */
export async function skipHistoryPass(when: string): Promise<void> {
  await env.DB.prepare(`INSERT OR IGNORE INTO weekly_history_misses SELECT DISTINCT brand_id, market_id, ?, ?, 'not read where the alerts reads are counted' FROM digest_subscriptions`)
    .bind(utcWeek(new Date(when)).isoWeek, HISTORY_MAX_TRIES)
    .run();
}

/**
 * Serves `bodies` for /visibility, /prompts and /topics, and the fixture's /content-gaps and /tasks (what a lost
 * question's action line reads), whatever the key; counts reads.
 */
export class FixtureApi {
  bodies: DayBodies = fixtureDay();
  reads: string[] = [];
  /** Reads per API key (`Bearer …`): per group. */
  readsByKey = new Map<string, number>();
  private readonly transport = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname.replace(/^\/api\/v1/, '');
    this.reads.push(path);
    const key = request.headers.get('authorization') ?? '';
    this.readsByKey.set(key, (this.readsByKey.get(key) ?? 0) + 1);
    const body = { '/visibility': this.bodies.visibility, '/prompts': this.bodies.matrix, '/topics': this.bodies.topics, '/content-gaps': fixture.plan.gaps, '/tasks': fixture.plan.tasks }[path];
    return body ? Response.json(body) : Response.json({ error: { code: 'not_found', message: 'not in the fixture' } }, { status: 404 });
  };
  readonly client = (apiKey: string) => createClient({ apiKey, baseUrl: EMBEDDED_BASE_URL, retry: { attempts: 1, totalMs: 1_000 }, sleep: async () => {}, transport: this.transport });
}

export interface Post {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Of `HOSTS`, those that resolve inside a private network: a post to one fails the test. */
const PRIVATE_HOSTS = new Set(['intranet.example.com', 'mapped.example.com']);

/**
 * The outside world of an alert test: DNS-over-HTTPS answers from `hosts`;
 * posts to known hosts are recorded and answered 200 (or as `failNext`
 * scripts); anything else throws, so an unexpected request fails the test.
 */
export class FakeEndpoints {
  posts: Post[] = [];
  dnsQueries: string[] = [];
  hosts: Record<string, string[]> = structuredClone(HOSTS);
  private failures: { status: number; body: string }[] = [];
  constructor(private readonly others?: (request: Request) => Promise<Response> | undefined) {}

  failNext(status: number, times = 1, body = 'scripted failure') {
    for (let i = 0; i < times; i++) this.failures.push({ status, body });
  }

  /** The next post never reaches its receiver: a network error, as a receiver that is down gives. */
  dropNext() {
    this.failures.push({ status: 0, body: '' });
  }

  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (`${url.origin}${url.pathname}` === DOH_URL) {
      const name = url.searchParams.get('name')!;
      const type = url.searchParams.get('type');
      this.dnsQueries.push(`${name} ${type}`);
      const addresses = (this.hosts[name] ?? []).filter((a) => (type === 'AAAA' ? a.includes(':') : !a.includes(':')));
      return Response.json({ Status: this.hosts[name] ? 0 : 3, Answer: addresses.map((data) => ({ name, type: type === 'AAAA' ? 28 : 1, TTL: 60, data })) });
    }
    const other = this.others?.(request);
    if (other) return other;
    // Only names the fake resolver maps to public addresses (or loopback in dev) are reachable at all.
    if (!this.hosts[url.hostname] || PRIVATE_HOSTS.has(url.hostname)) {
      throw new Error(`Unexpected outbound request in an alert test: ${request.method} ${request.url}`);
    }
    this.posts.push({ url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() });
    const { status, body } = this.failures.shift() ?? { status: 200, body: 'ok' };
    if (status === 0) throw new TypeError('Network connection lost.');
    return new Response(body, { status });
  }

  install() {
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => this.handle(new Request(input, init)));
    return this;
  }
}

/** Records what the evaluation enqueues. */
export class AlertQueue {
  sent: AlertJob[] = [];
  async sendBatch(messages: Iterable<MessageSendRequest<AlertJob>>) {
    for (const m of messages) this.sent.push(m.body);
  }
  take(): AlertJob[] {
    const jobs = this.sent;
    this.sent = [];
    return jobs;
  }
}

export interface AlertSeed {
  channel: 'email' | 'slack' | 'webhook';
  url?: string;
  email?: string;
  secret?: string;
  timezone?: string;
  quiet?: { start: number; end: number };
  key?: string;
}

let seeded = 0;

/** Inserts active, confirmed alert subscriptions (demo_pro_single's brand 1, market us by default); returns their ids. */
export async function seedAlertSubscriptions(seeds: AlertSeed[]): Promise<string[]> {
  const ids = await seedSubscriptions(seeds.map((s) => ({ email: s.email ?? `owner${++seeded}@example.com`, kinds: 'alerts', timezone: s.timezone ?? 'UTC', ...(s.key ? { key: s.key } : {}) })));
  const at = new Date().toISOString();
  const insert = env.DB.prepare(`INSERT INTO alert_channels (subscription_id, type, url, secret_sealed, quiet_start, quiet_end, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const statements = await Promise.all(
    seeds.map(async (s, i) =>
      insert.bind(ids[i]!, s.channel, s.url ?? null, s.secret ? await seal(env.ENCRYPTION_KEY, s.secret, `${ids[i]}:webhook`) : null, s.quiet?.start ?? 22 * 60, s.quiet?.end ?? 7 * 60, at, at),
    ),
  );
  await env.DB.batch(statements);
  return ids;
}

export async function clearAlerts() {
  await env.DB.batch([
    env.DB.prepare('DELETE FROM alert_deliveries'),
    env.DB.prepare('DELETE FROM alert_changes'),
    env.DB.prepare('DELETE FROM alert_snapshots'),
    env.DB.prepare('DELETE FROM alert_channels'),
  ]);
}

export async function deliveryRecords() {
  const { results } = await env.DB.prepare('SELECT id, subscription_id, message_id, status, reason, attempts, deliver_after, enqueued_at FROM alert_deliveries ORDER BY id').all<{
    id: number;
    subscription_id: string;
    message_id: string;
    status: string;
    reason: string | null;
    attempts: number;
    deliver_after: string;
    enqueued_at: string | null;
  }>();
  return results;
}
