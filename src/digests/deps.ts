/**
 * The seams of the digest jobs and routes: storage, mail transport, clock,
 * waiting, the API client and the Queue. `digestDeps(env)` wires the real
 * ones; tests and the benchmark replace any of them.
 */
import { type ApiClient, createClient, upstreamFromEnv } from '../client';
import type { AppEnv } from '../config/env';
import { type Mailer, outboxMailer, resendMailer } from './mailer';

/** One Queue message: one brand + market + key group, for one ISO week. */
export interface DigestJob {
  v: 1;
  iso_week: string;
  week_monday: string;
  group_key: string;
  brand_id: number;
  market_id: number;
}

export interface DigestDeps {
  db: D1Database;
  mailer: Mailer;
  signingSecret: string;
  encryptionKey: string;
  /** Absolute base of the links in emails, without a trailing slash. */
  publicUrl: string;
  from: string;
  /** A client that reads with the given (subscriber's) key. */
  client: (apiKey: string) => ApiClient;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
  queue: Pick<Queue<DigestJob>, 'sendBatch'> | undefined;
  /** Whether mail goes to the dev outbox (then GET /dev/outbox is open). */
  devOutbox: boolean;
}

/** Used when `DIGEST_FROM` is unset and mail goes to the dev outbox. */
export const DEV_FROM = 'Brand AI-Visibility <digest@localhost>';
/** Used when `PUBLIC_URL` is unset: `npm run dev`. */
export const DEV_PUBLIC_URL = 'http://localhost:8787';

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class DigestConfigError extends Error {
  override readonly name = 'DigestConfigError';
}

export function digestDeps(env: AppEnv, ctx?: Pick<ExecutionContext, 'waitUntil'>, overrides: Partial<DigestDeps> = {}): DigestDeps {
  const resendKey = env.RESEND_API_KEY;
  if (resendKey && !env.DIGEST_FROM) throw new DigestConfigError('DIGEST_FROM must be set (a sender on a domain verified in Resend) when RESEND_API_KEY is set.');
  const waitUntil = ctx ? (work: Promise<unknown>) => ctx.waitUntil(work) : undefined;
  const upstream = upstreamFromEnv(env, waitUntil);
  return {
    db: env.DB,
    mailer: resendKey ? resendMailer(resendKey, env.RESEND_BASE_URL ? { baseUrl: env.RESEND_BASE_URL } : {}) : outboxMailer(env.DB),
    signingSecret: env.SIGNING_SECRET,
    encryptionKey: env.ENCRYPTION_KEY,
    publicUrl: (env.PUBLIC_URL ?? DEV_PUBLIC_URL).replace(/\/+$/, ''),
    from: env.DIGEST_FROM ?? DEV_FROM,
    // Two tries inside a call; longer outages are the Queue's to retry, with its backoff.
    client: (apiKey) => createClient({ apiKey, ...upstream, retry: { attempts: 2, totalMs: 15_000 } }),
    now: () => new Date(),
    sleep: realSleep,
    queue: env.DIGEST_QUEUE,
    devOutbox: !resendKey,
    ...overrides,
  };
}
