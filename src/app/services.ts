/**
 * One `Services` value per request or event, built at the entry from the
 * parsed env and handed down: the clock, the mailer, how to wait, where
 * background work goes, and `api`, the one way features read the API
 * (`apiFor`: through the proxy's cache and the key's gate).
 */
import type { AlertDeps, AlertJob } from '../alerts';
import type { DigestDeps, DigestJob } from '../digests';
import { dohResolver } from '../lib/public-address';
import { systemClock } from '../lib/time';
import { type Mailer, outboxMailer, resendMailer } from '../mail/mailer';
import { apiFor, type ProxyRuntime, type StartTimeout } from '../proxy';
import type { ReportsEnv } from './features';

export interface Services extends DigestDeps, AlertDeps {
  /** Work that must not delay the answer (`ctx.waitUntil`). */
  waitUntil(work: Promise<unknown>): void;
  /** The static assets (ASSETS), holding the OpenAPI document built at build time (routes.ts). */
  assets?: Fetcher;
}

/** Used when `DIGEST_FROM` is unset and mail goes to the dev outbox. */
export const DEV_FROM = 'Brand AI-Visibility <digest@localhost>';
/** Used when `PUBLIC_URL` is unset: `npm run dev`. */
export const DEV_PUBLIC_URL = 'http://localhost:8787';
/**
 * Tries within one read: a reader of a page waits, and a job's longer outages
 * are the Queue's to retry, with its backoff.
 */
const READ_RETRY = { attempts: 2, totalMs: 15_000 };

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The Queue while `DIGEST_QUEUE` is unbound. Nothing reaches it: the Worker
 * answers the digests' routes, cron and queue itself while digests are off
 * (worker.ts), and the reports never enqueue. Should that change, the failure
 * names the binding instead of an `undefined`.
 */
const UNBOUND_QUEUE: Pick<Queue<DigestJob>, 'sendBatch'> = {
  sendBatch: () => Promise.reject(new Error('DIGEST_QUEUE is not bound: digests are off on this deployment.')),
};

/**
 * Resend, or without `RESEND_API_KEY` the outbox table in D1: the dev outbox
 * under `DEV_ROUTES = "on"`; outside dev no route reads it, so each send says
 * in the logs that its mail was recorded and not sent (kinds and counts only:
 * never an address, a subject or a link, which carry tokens).
 */
function mailerOf(env: ReportsEnv, now: () => Date): Mailer {
  if (env.RESEND_API_KEY) return resendMailer(env.RESEND_API_KEY, env.RESEND_BASE_URL ? { baseUrl: env.RESEND_BASE_URL } : {});
  const outbox = outboxMailer(env.DB, now);
  if (env.DEV_ROUTES === 'on') return outbox;
  return {
    name: outbox.name,
    async sendBatch(emails, idempotencyKey) {
      const outcome = await outbox.sendBatch(emails, idempotencyKey);
      const kinds: Record<string, number> = {};
      for (const email of emails) kinds[email.kind] = (kinds[email.kind] ?? 0) + 1;
      console.warn(JSON.stringify({ msg: 'mail recorded, not sent: RESEND_API_KEY is unset (set it, with DIGEST_FROM and an https PUBLIC_URL, to send mail)', emails: emails.length, kinds }));
      return outcome;
    },
  };
}

/** The alerts' Queue while `ALERT_QUEUE` is unbound: the Worker runs no alert work then (worker.ts). */
const UNBOUND_ALERT_QUEUE: Pick<Queue<AlertJob>, 'sendBatch'> = {
  sendBatch: () => Promise.reject(new Error('ALERT_QUEUE is not bound: alerts are off on this deployment.')),
};

/** Outbound requests, looked up at each call (so a test's stub of the global fetch is the one used). */
const outboundFetch: typeof fetch = (input, init) => fetch(input, init);

/** Only for an env with what the product's features need (`isReportsEnv`, features.ts): the entry checks first. */
export function buildServices(env: ReportsEnv, ctx: Pick<ExecutionContext, 'waitUntil'>, overrides: Partial<Services> = {}, startTimeout?: StartTimeout): Services {
  // `startTimeout`: the proxy's soft-deadline timer for the in-process reads too (a test's seam, as for /api/v1).
  const runtime: ProxyRuntime = { now: () => services.now(), waitUntil: (work) => services.waitUntil(work), ...(startTimeout ? { startTimeout } : {}) };
  const services: Services = {
    db: env.DB,
    mailer: mailerOf(env, () => services.now()),
    signingSecret: env.SIGNING_SECRET,
    encryptionKey: env.ENCRYPTION_KEY,
    publicUrl: (env.PUBLIC_URL ?? DEV_PUBLIC_URL).replace(/\/+$/, ''),
    from: env.DIGEST_FROM ?? DEV_FROM,
    now: systemClock,
    sleep: realSleep,
    waitUntil: (work) => ctx.waitUntil(work),
    queue: env.DIGEST_QUEUE ?? UNBOUND_QUEUE,
    alertQueue: env.ALERT_QUEUE ?? UNBOUND_ALERT_QUEUE,
    fetch: outboundFetch,
    resolveHost: dohResolver(outboundFetch),
    dev: env.DEV_ROUTES === 'on',
    alerts: Boolean(env.ALERT_QUEUE),
    ...(env.ASSETS ? { assets: env.ASSETS } : {}),
    api: (apiKey, clientAddress) => apiFor(env, runtime, { clientAddress, retry: READ_RETRY, sleep: (ms) => services.sleep(ms) })(apiKey),
    ...overrides,
  };
  return services;
}
