/**
 * Shared by the digest tests: a fake Resend API the test controls and
 * inspects (reached by the mailer's own call through a stubbed `fetch`), a
 * recording Queue producer, a recording API client over the embedded origin,
 * a recording sleep, fake-clock days within the demo data, and direct inserts
 * of subscriptions.
 */
import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult, waitOnExecutionContext } from 'cloudflare:test';
import { vi } from 'vitest';
import { createClient } from '../src/client';
import { EMBEDDED_BASE_URL, originTransport } from '../src/origin/transport';
import type { DigestJob } from '../src/digests/deps';
import { seal } from '../src/lib/sealing';
import worker from './worker';
import { sha256Hex } from '../src/lib/hash';

export const RESEND_BASE = 'https://resend.test';

export interface ResendEmail {
  from: string;
  to: string[];
  subject: string;
  html: string;
  text: string;
  headers?: Record<string, string>;
}

export interface ResendCall {
  path: string;
  idempotencyKey: string | null;
  authorization: string | null;
  userAgent: string | null;
  emails: ResendEmail[];
  /** The request body exactly as sent. */
  body: string;
  status: number;
  /** Answered from an earlier request with the same key and body: nothing sent. */
  replayed: boolean;
}

/**
 * A fake of Resend's batch endpoint that keeps Idempotency-Keys as Resend
 * does (24 h): a repeated key with the same body replays the first answer and
 * sends nothing; the same key with a different body is a 409
 * `invalid_idempotent_request`. It fails the calls the test scripts with
 * `failNext` (with `Retry-After` when given).
 */
export class FakeResend {
  calls: ResendCall[] = [];
  /** Emails Resend accepted, in order: what recipients actually got. */
  delivered: ResendEmail[] = [];
  private seen = new Map<string, { body: string; ids: string[] }>();
  private failures: { status: number; name: string; retryAfter?: number }[] = [];
  private counter = 0;

  failNext(status: number, name = status === 429 ? 'rate_limit_exceeded' : 'internal_server_error', times = 1, retryAfter?: number) {
    for (let i = 0; i < times; i++) this.failures.push({ status, name, ...(retryAfter !== undefined ? { retryAfter } : {}) });
  }

  /** Successful (accepted) batch calls. */
  get accepted() {
    return this.calls.filter((c) => c.status === 200);
  }

  /** Calls refused because their key had been used with another body: a retry that was not byte-identical. */
  get conflicts() {
    return this.calls.filter((c) => c.status === 409);
  }

  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const body = await request.text();
    const emails = JSON.parse(body) as ResendEmail[];
    const key = request.headers.get('idempotency-key');
    const call: ResendCall = {
      path: url.pathname,
      idempotencyKey: key,
      authorization: request.headers.get('authorization'),
      userAgent: request.headers.get('user-agent'),
      emails,
      body,
      status: 200,
      replayed: false,
    };
    this.calls.push(call);
    const failure = this.failures.shift();
    if (failure) {
      call.status = failure.status;
      const headers = failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : undefined;
      return Response.json({ statusCode: failure.status, name: failure.name, message: 'scripted failure' }, { status: failure.status, ...(headers ? { headers } : {}) });
    }
    if (url.pathname !== '/emails/batch' || emails.length > 100) {
      call.status = 422;
      return Response.json({ statusCode: 422, name: 'validation_error', message: 'bad batch' }, { status: 422 });
    }
    if (key) {
      const previous = this.seen.get(key);
      if (previous && previous.body !== body) {
        call.status = 409;
        return Response.json({ statusCode: 409, name: 'invalid_idempotent_request', message: 'Same idempotency key used with a different request payload.' }, { status: 409 });
      }
      if (previous) {
        call.replayed = true;
        return Response.json({ data: previous.ids.map((id) => ({ id })) });
      }
    }
    const ids = emails.map(() => `re_${++this.counter}`);
    if (key) this.seen.set(key, { body, ids });
    this.delivered.push(...emails);
    return Response.json({ data: ids.map((id) => ({ id })) });
  }

  /** Routes `fetch` to this fake for RESEND_BASE, and refuses every other outbound request. */
  install() {
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.url.startsWith(RESEND_BASE)) return this.handle(request);
      throw new Error(`Unexpected outbound request in a digest test: ${request.url}`);
    });
    return this;
  }
}

/**
 * The digests' API client over the embedded origin, recording each request
 * (path and query) and failing them while `fault` is set; its retries do not wait.
 */
export class RecordingApi {
  requests: string[] = [];
  fault: { status: number; code: string } | null = null;
  private readonly transport = originTransport(env.DB);

  /** The origin, recording each request and failing them while `fault` is set. */
  private readonly recording = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    this.requests.push(url.pathname.replace(/^\/api\/v1/, '') + url.search);
    if (this.fault) return Response.json({ error: { code: this.fault.code, message: 'injected' } }, { status: this.fault.status });
    return this.transport(request);
  };

  /** Stands in for `Services.api`: the digests' reads, straight to the origin (no proxy, no cache), recorded. */
  readonly client = (apiKey: string, _clientAddress?: string | null) =>
    createClient({ apiKey, baseUrl: EMBEDDED_BASE_URL, retry: { attempts: 2, totalMs: 15_000 }, sleep: async () => {}, transport: this.recording });

  /** For `useUpstreamForTests`: the same recording origin behind the proxy's gate, so reads go through the cache and the abuse limits. */
  readonly upstream = { transport: this.recording, baseUrl: EMBEDDED_BASE_URL };
}

/** A sleep that records what it was asked to wait, and returns at once. */
export function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

const DAY_MS = 86_400_000;

/**
 * Monday 08:00 UTC of the week before the current one. The demo data ends
 * today, so that Monday and the seven days after it are all measured days,
 * whenever the tests run; fake clocks are set relative to it.
 */
export function demoMonday(today = new Date()): Date {
  const weekAgo = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) - 7 * DAY_MS;
  const weekday = new Date(weekAgo).getUTCDay() || 7;
  return new Date(weekAgo - (weekday - 1) * DAY_MS + 8 * 3_600_000);
}

export const plusDays = (at: Date, days: number, hours = 0) => new Date(at.getTime() + days * DAY_MS + hours * 3_600_000);

/** `2026-11-17` style day of an instant, UTC. */
export const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/** English months as the email writes them: a table of the test's own, not the runtime's locale data (which writes `Sept`). */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `17 Nov`, written independently of the code under test. */
export const label = (at: Date) => `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]}`;

/** `17–23 Nov`, or `28 Nov–4 Dec` across months, written independently of the code under test. */
export const span = (from: Date, to: Date) => (from.getUTCMonth() === to.getUTCMonth() ? `${from.getUTCDate()}–${label(to)}` : `${label(from)}–${label(to)}`);

/** `17–23 Nov 2026`, `28 Nov–4 Dec 2026`, `29 Dec 2026–4 Jan 2027`: the email's one date format, written independently of the code under test. */
export const range = (from: Date, to: Date) =>
  from.getUTCFullYear() === to.getUTCFullYear() ? `${span(from, to)} ${to.getUTCFullYear()}` : `${label(from)} ${from.getUTCFullYear()}–${label(to)} ${to.getUTCFullYear()}`;

/** Records what the planner enqueues. */
export class FakeQueue {
  sent: DigestJob[] = [];
  /** The next `sendBatch` calls throw, as a Queue outage or a planner stopped mid-run would leave things. */
  failures = 0;
  async sendBatch(messages: Iterable<MessageSendRequest<DigestJob>>) {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('Queue send failed (injected)');
    }
    for (const m of messages) this.sent.push(m.body);
  }
  async send(body: DigestJob) {
    this.sent.push(body);
  }
}

/** The Worker's env with Resend pointed at the fake and the Queue replaced by a recorder. */
export function testEnv(queue: FakeQueue, extra: Record<string, unknown> = {}): Env {
  return {
    ...env,
    RESEND_API_KEY: 're_test_key',
    RESEND_BASE_URL: RESEND_BASE,
    PUBLIC_URL: 'https://edge.test',
    DIGEST_FROM: 'Brightdesk Digest <digest@mail.example.com>',
    DIGEST_QUEUE: queue,
    ...extra,
  } as unknown as Env;
}

/** Runs the Worker's `scheduled` handler at `at`. */
export async function runCron(at: string, testEnvironment: Env) {
  const ctx = createExecutionContext();
  await worker.scheduled!(createScheduledController({ scheduledTime: new Date(at), cron: '0 * * * *' }), testEnvironment, ctx);
  await waitOnExecutionContext(ctx);
}

let messageCounter = 0;

/**
 * Delivers jobs to the Worker's `queue` handler, as the Queue would (`attempts` is the delivery count).
 * `retries` lists each `message.retry()` call with the delay the consumer asked for.
 */
export async function deliver<Job = DigestJob>(jobs: Job[], testEnvironment: Env, options: { attempts?: number; queue?: string } = {}) {
  const batch = createMessageBatch(
    options.queue ?? 'digest-sends',
    jobs.map((body) => ({ id: `msg-${++messageCounter}`, timestamp: new Date(), attempts: options.attempts ?? 1, body })),
  );
  const retries: { msgId: string; delaySeconds: number | undefined }[] = [];
  for (const message of batch.messages) {
    const retry = message.retry.bind(message);
    vi.spyOn(message, 'retry').mockImplementation((o?: QueueRetryOptions) => {
      retries.push({ msgId: message.id, delaySeconds: o?.delaySeconds });
      retry(o);
    });
  }
  const ctx = createExecutionContext();
  await worker.queue!(batch as MessageBatch<unknown>, testEnvironment, ctx);
  return { ...(await getQueueResult(batch as MessageBatch<unknown>, ctx)), retries };
}

export interface SubscriptionSeed {
  email: string;
  key?: string;
  brandId?: number;
  brandName?: string;
  marketId?: number;
  marketCode?: string;
  timezone?: string;
  kinds?: string;
  status?: 'pending' | 'active' | 'paused' | 'unsubscribed';
}

let seedCounter = 0;

/** Inserts subscriptions as the API would store them (key sealed, hash kept); returns their ids. */
export async function seedSubscriptions(seeds: SubscriptionSeed[]): Promise<string[]> {
  const now = new Date().toISOString();
  const statements: D1PreparedStatement[] = [];
  const ids: string[] = [];
  for (const s of seeds) {
    const id = `sub_t${String(++seedCounter).padStart(6, '0')}`;
    const key = s.key ?? 'demo_pro_single';
    ids.push(id);
    statements.push(
      env.DB.prepare(
        `INSERT INTO digest_subscriptions (id, email, email_key, brand_id, brand_name, market_id, market_code, kinds, timezone, status, key_hash, key_sealed, created_at, updated_at, confirmed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).bind(
        id,
        s.email,
        s.email.toLowerCase(),
        s.brandId ?? 1,
        s.brandName ?? 'Brightdesk',
        s.marketId ?? 11,
        s.marketCode ?? 'us',
        s.kinds ?? 'visibility,won_lost',
        s.timezone ?? 'UTC',
        s.status ?? 'active',
        await sha256Hex(key),
        await seal(env.ENCRYPTION_KEY, key, id),
        now,
        now,
        now,
      ),
    );
  }
  for (let i = 0; i < statements.length; i += 200) await env.DB.batch(statements.slice(i, i + 200));
  return ids;
}

export async function clearDigests() {
  await env.DB.batch([
    // Alert rows name subscriptions (migration 0015): they go first.
    env.DB.prepare('DELETE FROM alert_deliveries'),
    env.DB.prepare('DELETE FROM alert_channels'),
    env.DB.prepare('DELETE FROM digest_sends'),
    env.DB.prepare('DELETE FROM digest_snapshots'),
    env.DB.prepare('DELETE FROM digest_outbox'),
    env.DB.prepare('DELETE FROM digest_subscriptions'),
    // The caps on confirmation mail (migration 0012): every test starts with none counted.
    env.DB.prepare('DELETE FROM digest_confirmation_sends'),
    env.DB.prepare('DELETE FROM digest_address_optouts'),
    // The hourly cron also keeps the week's history (src/exports/history-cron.ts) for every subscription and export
    // link: none is left from another file, so a cron run reads for this file's subscriptions only.
    env.DB.prepare('DELETE FROM weekly_history'),
    env.DB.prepare('DELETE FROM weekly_history_misses'),
    env.DB.prepare("DELETE FROM report_links WHERE purpose = 'export'"),
  ]);
}

export async function sendRecords() {
  const { results } = await env.DB.prepare('SELECT subscription_id, iso_week, status, batch_key, reason, idempotency_key FROM digest_sends ORDER BY subscription_id').all<{
    subscription_id: string;
    iso_week: string;
    status: string;
    batch_key: string | null;
    reason: string | null;
    idempotency_key: string;
  }>();
  return results;
}
