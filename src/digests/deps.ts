/**
 * The seams of the digest jobs and routes: storage, mail transport, clock,
 * waiting, the API client and the Queue. `digestDeps(env)` wires the real
 * ones; tests and the benchmark replace any of them.
 */
import { type ApiClient, createClient, upstreamFromEnv } from '../client';
import type { AppEnv } from '../config/env';
import { checkBeforeUpstream, markVerified, rememberFailedAuth } from '../proxy/abuse';
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
  /**
   * The proxy's abuse limits (src/proxy/abuse.ts) in front of the upstream
   * reads the routes make with a caller's key: a key that failed
   * authentication in the last minute is refused (401), and unverified keys
   * count against the client's address (429), as on /api/v1.
   */
  abuse: {
    check(request: Request, keyHash: string): Promise<void>;
    /** The key read successfully: no more checks for it in this isolate. */
    verified(keyHash: string): void;
    /** The upstream answered 401 for it: refused at the edge for a minute. */
    failed(keyHash: string): void;
  };
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

/**
 * Checks the mail settings: with `RESEND_API_KEY` set, mail goes to real
 * inboxes, so it needs a sender on a verified domain and links that work
 * outside this machine over https (`PUBLIC_URL`). `http://localhost:8787` is
 * only the dev default, when mail stays in the dev outbox.
 */
export function checkMailConfig(env: Pick<AppEnv, 'RESEND_API_KEY' | 'DIGEST_FROM' | 'PUBLIC_URL'>): void {
  if (!env.RESEND_API_KEY) return;
  if (!env.DIGEST_FROM) throw new DigestConfigError('DIGEST_FROM must be set (a sender on a domain verified in Resend) when RESEND_API_KEY is set.');
  // The env schema has already checked that PUBLIC_URL, when set, is an http(s) URL.
  if (!env.PUBLIC_URL || new URL(env.PUBLIC_URL).protocol !== 'https:') {
    throw new DigestConfigError(
      `PUBLIC_URL must be the Worker's public https address (e.g. https://edge.example.com) when RESEND_API_KEY is set: every link in the emails is built from it (now ${env.PUBLIC_URL ? `"${env.PUBLIC_URL}"` : 'unset'}).`,
    );
  }
}

export function digestDeps(env: AppEnv, ctx?: Pick<ExecutionContext, 'waitUntil'>, overrides: Partial<DigestDeps> = {}): DigestDeps {
  checkMailConfig(env);
  const resendKey = env.RESEND_API_KEY;
  const waitUntil = ctx ? (work: Promise<unknown>) => ctx.waitUntil(work) : undefined;
  const upstream = upstreamFromEnv(env, waitUntil);
  const deps: DigestDeps = {
    db: env.DB,
    mailer: resendKey ? resendMailer(resendKey, env.RESEND_BASE_URL ? { baseUrl: env.RESEND_BASE_URL } : {}) : outboxMailer(env.DB),
    signingSecret: env.SIGNING_SECRET,
    encryptionKey: env.ENCRYPTION_KEY,
    publicUrl: (env.PUBLIC_URL ?? DEV_PUBLIC_URL).replace(/\/+$/, ''),
    from: env.DIGEST_FROM ?? DEV_FROM,
    // Two tries inside a call, waiting through `deps.sleep`; longer outages are the Queue's to retry, with its backoff.
    client: (apiKey) => createClient({ apiKey, ...upstream, retry: { attempts: 2, totalMs: 15_000 }, sleep: (ms) => deps.sleep(ms), now: () => deps.now().getTime() }),
    abuse: {
      check: (request, keyHash) => checkBeforeUpstream(env, request, keyHash, deps.now().getTime()),
      verified: markVerified,
      failed: (keyHash) => rememberFailedAuth(env, keyHash, deps.now().getTime(), waitUntil ?? ((work) => void work.catch(() => undefined))),
    },
    now: () => new Date(),
    sleep: realSleep,
    queue: env.DIGEST_QUEUE,
    devOutbox: !resendKey,
    ...overrides,
  };
  return deps;
}

let testOverrides: Partial<DigestDeps> | undefined;

/**
 * Test seam: a sleep, mailer, database or API client for the digests served
 * by the Worker's handlers (fetch, scheduled, queue, email), which the tests
 * call without a way to pass deps. Call with nothing to restore.
 */
export function useDigestOverridesForTests(next?: Partial<DigestDeps>): void {
  testOverrides = next;
}

/** The overrides set by `useDigestOverridesForTests`, under the caller's own. */
export const withTestOverrides = (overrides: Partial<DigestDeps>): Partial<DigestDeps> => (testOverrides ? { ...testOverrides, ...overrides } : overrides);
