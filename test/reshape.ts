/**
 * Reshaping our origin's bodies as another implementation of the spec might
 * write them: the same data under other field-name conventions, or wrapped in
 * an envelope. The foreign upstreams of the tests are built from these, so
 * their figures are the demo's own.
 */
import { env } from 'cloudflare:test';
import { Webhook } from 'standardwebhooks';
import { vi } from 'vitest';
import { AlertQueue, clearAlerts, deliveryRecords, FakeEndpoints, seedAlertSubscriptions, withScore } from './alerts-helpers';
import { clearDigests, deliver, demoMonday, FakeQueue, plusDays, runCron, testEnv } from './digests-helpers';
import { DEMO_KEYS, KEYS, readOrigin } from './helpers';
import { useUpstreamForTests } from './seams';

type Json = unknown;

const words = (name: string) => name.split('_');
const cap = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

export const CASES = {
  camel: (name: string) =>
    words(name)
      .map((w, i) => (i === 0 ? w : cap(w)))
      .join(''),
  pascal: (name: string) => words(name).map(cap).join(''),
  kebab: (name: string) => words(name).join('-'),
} as const;
export type CaseName = keyof typeof CASES;

/** Every field name of `body`, at any depth, spelled by `rename`. */
export function renameFields(body: Json, rename: (name: string) => string): Json {
  if (Array.isArray(body)) return body.map((item) => renameFields(item, rename));
  if (typeof body !== 'object' || body === null) return body;
  return Object.fromEntries(Object.entries(body).map(([name, value]) => [rename(name), renameFields(value, rename)]));
}

/** `{ data: <body without generated_at>, meta: { generatedAt, ... }, links: { self } }`, as many JSON:API-minded services answer. */
export function envelope(body: Record<string, unknown>, self: string): Json {
  const { generated_at, ...data } = body;
  return { data, meta: { generatedAt: generated_at, apiVersion: 'v1' }, links: { self } };
}

/**
 * An upstream that is our embedded origin with its bodies reshaped: the same
 * demo data, as another implementation of the spec would send it. Keys are
 * its own (`foreign-...`); each stands for a demo key (`as`), so its answers
 * are never the cached answers of the demo key itself. A read with a demo key
 * is our origin's, unreshaped and not counted: the upstream seam is global, and
 * a demo key's background refresh started before `install` (a STALE entry
 * read for `ours`) may reach the gate after it, and would otherwise store a
 * reshaped body as the demo key's. A reshape that returns a Response answers
 * with it (a service without an operation: 404).
 */
export class ReshapingUpstream {
  readonly requests: URL[] = [];

  constructor(
    private readonly reshape: (body: Record<string, unknown>, url: URL) => unknown | Response,
    private readonly as: (key: string) => string = () => 'demo_pro_single',
  ) {}

  install(): this {
    useUpstreamForTests({ transport: (request) => this.answer(request), baseUrl: 'https://reshaped.test/api/v1', timeoutMs: 10_000, startTimeout: () => () => {} });
    return this;
  }

  private async answer(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const key = (request.headers.get('authorization') ?? '').replace(/^Bearer /, '');
    if (DEMO_KEYS.has(key)) return readOrigin(url, key);
    this.requests.push(url);
    const answer = await readOrigin(url, this.as(key));
    if (answer.status !== 200) return answer;
    const reshaped = this.reshape((await answer.json()) as Record<string, unknown>, url);
    if (reshaped instanceof Response) return reshaped;
    const body = JSON.stringify(reshaped);
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'private, max-age=300' } });
  }
}

/**
 * Installs an upstream that reads the Pro demo account for any key of its own, until `revoke()`: from then on it
 * refuses every key (401 `invalid_api_key`), as the service does a key revoked there.
 */
export function revocableUpstream(): { revoke: () => void } {
  let revoked = false;
  new ReshapingUpstream(
    (body) => (revoked ? Response.json({ error: { code: 'invalid_api_key', message: 'Revoked.' } }, { status: 401 }) : body),
    () => KEYS.pro,
  ).install();
  return {
    revoke: () => {
      revoked = true;
    },
  };
}

/** `body` with the field at a contract path (`history[].week_start`) renamed; arrays on the way are followed. */
export function renameAt(body: unknown, path: string, to: string): unknown {
  const [head, ...rest] = path.split('.');
  const array = head!.endsWith('[]');
  const name = array ? head!.slice(0, -2) : head!;
  if (Array.isArray(body)) return body.map((item) => renameAt(item, path, to));
  if (typeof body !== 'object' || body === null) return body;
  const entries = Object.entries(body).map(([key, value]) => {
    if (key !== name) return [key, value];
    if (rest.length === 0) return [to, value];
    return [key, renameAt(value, rest.join('.'), to)];
  });
  return Object.fromEntries(entries);
}

/** `body` with every value at a contract path changed by `change` (arrays on the way followed, `x[]` for an array's items). */
export function changeAt(body: unknown, path: string, change: (value: unknown) => unknown): unknown {
  const [head, ...rest] = path.split('.');
  const array = head!.endsWith('[]');
  const name = array ? head!.slice(0, -2) : head!;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => {
      if (key !== name) return [key, value];
      const inner = (v: unknown) => (rest.length === 0 ? change(v) : changeAt(v, rest.join('.'), change));
      return [key, array && Array.isArray(value) ? value.map(inner) : inner(value)];
    }),
  );
}

/** The webhook an alert test delivers to, and its signing secret. */
export const ALERT_WEBHOOK = { url: 'https://receiver.example.com/hooks/brand', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } as const;

/**
 * An alert test's day: the clock faked to this week's Monday, no subscription
 * or alert left from another test, webhook posts recorded, `shape` (our
 * origin reshaped) as the upstream, and the queue and env the cron runs with.
 */
export async function alertDay(shape: (body: Record<string, unknown>, url: URL) => unknown) {
  const monday = demoMonday();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(monday);
  await clearDigests();
  await clearAlerts();
  const endpoints = new FakeEndpoints().install();
  new ReshapingUpstream(shape).install();
  const alertQueue = new AlertQueue();
  const alertEnv = testEnv(new FakeQueue(), { ALERT_QUEUE: alertQueue, RESEND_API_KEY: '' });
  return { monday, endpoints, alertQueue, alertEnv };
}

/**
 * One webhook alert subscription evaluated on two days in front of `shape`
 * (our origin reshaped), the second day answering a score 10 points lower:
 * news beyond any noise. What the first evaluation stored, how many
 * deliveries the second recorded, and the verified webhook payloads.
 */
export async function alertRunWithFallingScore(shape: (body: Record<string, unknown>, url: URL) => unknown, key: string) {
  let lower = 0;
  const { monday, endpoints, alertQueue, alertEnv } = await alertDay((body, url) =>
    shape(url.pathname.endsWith('/visibility') && lower !== 0 ? withScore(body as Parameters<typeof withScore>[0], (body.score as number) - lower) : body, url),
  );
  const { secret } = ALERT_WEBHOOK;
  await seedAlertSubscriptions([{ channel: 'webhook', ...ALERT_WEBHOOK, key, quiet: { start: 0, end: 0 } }]);
  await runCron(monday.toISOString(), alertEnv);
  const snapshot = JSON.parse((await env.DB.prepare('SELECT snapshot FROM alert_snapshots').first<{ snapshot: string }>())!.snapshot) as { cells: unknown[]; not_provided?: string[] };

  lower = 10;
  vi.setSystemTime(plusDays(monday, 1));
  await runCron(plusDays(monday, 1).toISOString(), alertEnv);
  const deliveries = (await deliveryRecords()).length;
  await deliver(alertQueue.take(), alertEnv, { queue: 'alert-deliveries' });
  type Payload = { data: { events: { type: string }[]; not_provided?: { part: string; line: string }[] } };
  const payloads = endpoints.posts.map((post) => new Webhook(secret).verify(post.body, post.headers) as Payload);
  return { snapshot, deliveries, payloads };
}
