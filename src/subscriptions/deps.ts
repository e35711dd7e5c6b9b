/**
 * What the subscriptions and every feature above them need, handed down from
 * the Worker's entry (src/app/services.ts builds it once per request or event).
 */
import type { ApiClient } from '../client';
import type { Resolve } from '../lib/public-address';
import type { Clock } from '../lib/time';
import type { Mailer } from '../mail/mailer';

export interface SubscriptionDeps {
  db: D1Database;
  mailer: Mailer;
  /** HMAC key of signed links. */
  signingSecret: string;
  /** AES-GCM key of the API keys kept with subscriptions and links. */
  encryptionKey: string;
  /** Absolute base of the links in emails and pages, without a trailing slash. */
  publicUrl: string;
  /** The From of every email. */
  from: string;
  now: Clock;
  /** How jobs wait (mail pacing, client retries): a seam, so tests never sleep. */
  sleep: (ms: number) => Promise<void>;
  /**
   * Reads the API with `apiKey` through the proxy (`apiFor`): the cache and
   * the key's gate. `clientAddress` is the client the read is made for (its
   * unverified keys count against it); null for work no client triggers.
   */
  api: (apiKey: string, clientAddress: string | null) => ApiClient;
  /** Outbound requests to subscribers' endpoints (Slack, webhooks): a seam, so tests reach fakes only. */
  fetch: typeof fetch;
  /** A host's public addresses, checked before posting to it (DNS-over-HTTPS; src/lib/public-address.ts). */
  resolveHost: Resolve;
  /** Whether change alerts run on this deployment (their Queue is bound): without, `alerts` cannot be subscribed to. */
  alerts: boolean;
  /** Dev (`DEV_ROUTES = "on"`): `http://localhost` endpoints are allowed, and every post is kept in the outbox too. */
  dev: boolean;
}
