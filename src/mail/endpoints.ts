/**
 * Posting to the endpoints a subscriber gives: a Slack incoming webhook, or
 * any https receiver signed per the Standard Webhooks spec (the
 * `standardwebhooks` package: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`). Beside the mailer because it is the same job: one
 * message out, an outcome back, and in dev a copy in the outbox.
 *
 * The `webhook-id` is the caller's stable message id, the same on every retry,
 * so a receiver drops a repeat; the timestamp and signature are of each
 * attempt (receivers refuse signatures older than 5 minutes). Redirects are
 * not followed: the address checked at subscribe time is the one posted to.
 *
 * ```ts
 * const outcome = await postToEndpoint({ fetch, now, outbox }, { kind: 'webhook', url, messageId: 'evt_1', body, secret: 'whsec_…', summary });
 * if (!outcome.ok && outcome.gone) pause(); // 410, or Slack naming a removed webhook
 * ```
 */
import { Webhook } from 'standardwebhooks';
import { fetchWithin } from '../lib/http';
import { recordPost } from './outbox';

export type EndpointKind = 'slack' | 'webhook';

export interface EndpointMessage {
  kind: EndpointKind;
  url: string;
  /** Stable across retries: `webhook-id`. */
  messageId: string;
  /** The JSON body, exactly as sent and signed. */
  body: string;
  /** `whsec_…`: webhooks only. */
  secret?: string;
  /** One line for the dev outbox's list. */
  summary: string;
}

export type PostOutcome =
  | { ok: true; status: number }
  | {
      ok: false;
      status: number | null;
      /** Worth trying again later: network, timeout, 408, 429, 5xx. */
      retryable: boolean;
      /** 410 Gone, or Slack's `no_service`, `channel_not_found`...: the endpoint was removed; stop posting to it. */
      gone: boolean;
      reason: string;
    };

export interface EndpointDeps {
  fetch: typeof fetch;
  now: () => Date;
  /** Dev: every delivered post is also kept in the outbox (body and headers). */
  outbox?: D1Database;
}

/** A receiver that takes longer than this has failed this attempt. */
export const POST_TIMEOUT_MS = 10_000;
const USER_AGENT = 'Brand-AI-Visibility-Alerts/1';

/** The Standard Webhooks headers of one attempt. */
export function signedHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  const seconds = Math.floor(at.getTime() / 1000);
  return { 'webhook-id': messageId, 'webhook-timestamp': String(seconds), 'webhook-signature': new Webhook(secret).sign(messageId, new Date(seconds * 1000), body) };
}

/** A new signing secret, `whsec_` and 32 random bytes in base64 (the spec's form). */
export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/**
 * What Slack answers, in the body of a 403, 404 or 410, for an incoming
 * webhook that is gone for good (its documented errors): the app or the
 * webhook removed, the channel deleted or archived, the workspace gone.
 */
const SLACK_GONE = new Set(['no_service', 'channel_not_found', 'channel_is_archived', 'invalid_token', 'no_team', 'team_disabled']);
/** Slack's error names are short words; anything longer is not one. */
const SLACK_ERROR_MAX = 64;

/** The first bytes of a body as text, at most `max`; the rest is never read. */
async function leadingText(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  try {
    const { value } = await reader.read();
    return new TextDecoder().decode(value?.slice(0, max)).trim();
  } catch {
    return '';
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

export async function postToEndpoint(deps: EndpointDeps, message: EndpointMessage): Promise<PostOutcome> {
  const at = deps.now();
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  if (message.kind === 'webhook') {
    if (!message.secret) throw new Error('a webhook is always signed: no secret given');
    Object.assign(headers, signedHeaders(message.secret, message.messageId, at, message.body));
  }
  let response: Response;
  try {
    response = await fetchWithin(deps.fetch, message.url, { method: 'POST', headers, body: message.body, redirect: 'manual' }, POST_TIMEOUT_MS);
  } catch (error) {
    const timeout = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return { ok: false, status: null, retryable: true, gone: false, reason: timeout ? `no answer within ${POST_TIMEOUT_MS / 1000} s` : 'network error' };
  }
  const status = response.status;
  // Slack names a removed webhook in its body; any other body is never needed (and may be large): released unread.
  const slackError = message.kind === 'slack' && (status === 403 || status === 404 || status === 410) ? await leadingText(response, SLACK_ERROR_MAX + 1) : '';
  if (!slackError) await response.body?.cancel();
  if (status >= 200 && status < 300) {
    // Dev keeps what was delivered, as the mail outbox does: a post the endpoint refused or never got is not there.
    if (deps.outbox) await recordPost(deps.outbox, { ...message, headers, at });
    return { ok: true, status };
  }
  const retryable = status === 408 || status === 429 || status >= 500;
  const named = slackError.length > 0 && slackError.length <= SLACK_ERROR_MAX && /^[a-z_]+$/.test(slackError) ? ` ${slackError}` : '';
  const reason = status >= 300 && status < 400 ? `redirected (${status}); redirects are not followed` : `answered ${status}${named}`;
  return { ok: false, status, retryable, gone: status === 410 || SLACK_GONE.has(named.trim()), reason };
}
