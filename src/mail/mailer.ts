/**
 * Where mail goes: Resend's batch endpoint, or, without `RESEND_API_KEY`, the
 * dev outbox in D1. Both take a batch of at most 100 emails and an
 * idempotency key, and both honour the key: a repeated batch is not sent again.
 *
 * Resend facts that shape this (DESIGN section 7): at most 100 emails per
 * batch call; about 5 requests per second per team; `Idempotency-Key` kept
 * 24 h, and a key reused with another payload is a 409; an error answers
 * `{ statusCode, name, message }`.
 *
 * The request and its answers are typed by Resend's own package (`resend`, a
 * devDependency imported for its types only, so nothing of it is bundled):
 * the body `satisfies` the SDK's batch options and the codes read are its
 * error names, so `npm run check -- typecheck` fails when Resend's API changes under us.
 */
import type { CreateBatchOptions, CreateBatchRequestOptions, CreateBatchSuccessResponse, ErrorResponse } from 'resend';

/** Resend's batch limit. */
export const BATCH_LIMIT = 100;
/** Resend's default rate limit is about 5 requests per second per team: space calls by this much. */
export const MIN_CALL_SPACING_MS = 220;

export type MailKind = 'digest' | 'confirm' | 'paused' | 'alert';

export interface OutgoingEmail {
  kind: MailKind;
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  headers?: Record<string, string>;
}

export type SendOutcome =
  /** `replayed`: a 409 for a key already used with another body (see `resendMailer`); `ids` is then empty. */
  | { ok: true; ids: string[]; replayed?: boolean }
  | {
      ok: false;
      /** Worth trying again later (network, 5xx, 429, an in-flight duplicate). */
      retryable: boolean;
      status: number | null;
      code: string;
      message: string;
      retryAfter?: number;
    };

/**
 * A header value with no line breaks or other control characters: subjects
 * and names come from data (a brand's name), and a CR or LF in a header
 * would let that data add headers or end them (header injection).
 */
export const headerValue = (value: string): string => value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();

/** The email as it may leave: every header-bound field on one line. Applied by both mailers, the one place mail leaves. */
function safeForHeaders(email: OutgoingEmail): OutgoingEmail {
  const headers = email.headers && Object.fromEntries(Object.entries(email.headers).map(([name, value]) => [headerValue(name), headerValue(value)]));
  return { ...email, from: headerValue(email.from), to: headerValue(email.to), subject: headerValue(email.subject), ...(headers ? { headers } : {}) };
}

export interface Mailer {
  readonly name: 'resend' | 'outbox';
  /** Sends up to `BATCH_LIMIT` emails as one call. */
  sendBatch(emails: OutgoingEmail[], idempotencyKey: string): Promise<SendOutcome>;
}

/** Resend's API. */
const RESEND_API = 'https://api.resend.com';
/** Sent with every call: Resend refuses a request without a User-Agent (403). */
const USER_AGENT = 'brand-ai-visibility-edge';

/** What Resend answers when a call fails: the body of its error, read as untrusted (any field may be missing). */
type ResendError = Partial<ErrorResponse>;
/** What Resend answers when it accepts a batch: one id per email, in order. */
type BatchAnswer = Pick<CreateBatchSuccessResponse, 'data'>;
/** All or nothing: one invalid email refuses the batch (`permissive` would send the rest and list the failures). */
const BATCH_VALIDATION = 'strict' satisfies CreateBatchRequestOptions['batchValidation'];
/** A request under a key Resend already processed with another body. */
const REPLAYED_KEY = 'invalid_idempotent_request' satisfies ErrorResponse['name'];
/** A request under a key whose first request is still in flight. */
const KEY_IN_FLIGHT = 'concurrent_idempotent_requests' satisfies ErrorResponse['name'];
/** What we call an answer we could not read, in Resend's words. */
const UNREADABLE = 'application_error' satisfies ErrorResponse['name'];

/**
 * Resend's batch endpoint (`POST /emails/batch`), called with `fetch`: the one
 * call this Worker makes, so not through Resend's SDK, which would add about
 * 149 KiB gzip to the Worker (its other resources and its inbound-mail parser,
 * postal-mime). The body is what the SDK's `batch.send` posts, field for field
 * and in its order, so a batch retried under its key is the same bytes; its
 * type is the SDK's own (`CreateBatchOptions`). `baseUrl` points it at a fake
 * in tests.
 */
export function resendMailer(apiKey: string, options: { baseUrl?: string } = {}): Mailer {
  const url = `${options.baseUrl ?? RESEND_API}/emails/batch`;
  return {
    name: 'resend',
    async sendBatch(emails, idempotencyKey) {
      if (emails.length === 0) return { ok: true, ids: [] };
      if (emails.length > BATCH_LIMIT) throw new RangeError(`A batch holds at most ${BATCH_LIMIT} emails, got ${emails.length}.`);
      const batch = emails
        .map(safeForHeaders)
        .map((e) => ({ from: e.from, headers: e.headers, html: e.html, subject: e.subject, tags: [{ name: 'kind', value: e.kind }], text: e.text, to: [e.to] })) satisfies CreateBatchOptions;
      const body = JSON.stringify(batch);
      const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey, 'user-agent': USER_AGENT, 'x-batch-validation': BATCH_VALIDATION };
      let response: Response;
      let answer: string;
      try {
        response = await fetch(url, { method: 'POST', headers, body });
        answer = await response.text();
      } catch {
        return { ok: false, retryable: true, status: null, code: UNREADABLE, message: 'Resend could not be reached.' };
      }
      if (response.ok) {
        const ids = parsed<Partial<BatchAnswer>>(answer)?.data?.map((d) => d.id);
        // Accepted, but the answer is unreadable: retried under the same key, Resend answers again and sends nothing twice.
        if (!ids) return { ok: false, retryable: true, status: response.status, code: UNREADABLE, message: 'Resend accepted the batch with an answer that is not JSON.' };
        return { ok: true, ids };
      }
      const error = parsed<ResendError>(answer) ?? {};
      const status = response.status;
      const code = error.name ?? UNREADABLE;
      // 409 `invalid_idempotent_request`: Resend already processed a request under this key, with
      // another body. Callers send the same bytes on every retry of a key (digests render from their
      // snapshot and sign links at the planned time), so this only happens when something changed
      // between two attempts: a deploy that changed a template, a rotated SIGNING_SECRET. The first
      // request went out then, and sending the batch again under a new key would deliver it twice;
      // so it counts as sent (`replayed`), and the caller records why.
      if (status === 409 && code === REPLAYED_KEY) return { ok: true, ids: [], replayed: true };
      const retryAfterHeader = response.headers.get('retry-after');
      const retryAfter = retryAfterHeader && /^\d+$/.test(retryAfterHeader) ? Number(retryAfterHeader) : undefined;
      const retryable = status === 429 || status >= 500 || code === KEY_IN_FLIGHT;
      return { ok: false, retryable, status, code, message: error.message ?? `Resend answered ${status}.`, ...(retryAfter !== undefined ? { retryAfter } : {}) };
    },
  };
}

function parsed<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** The dev outbox: the same contract, stored in D1; shown at GET /dev/outbox in dev (`DEV_ROUTES = "on"`) only. */
export function outboxMailer(db: D1Database, now: () => Date = () => new Date()): Mailer {
  return {
    name: 'outbox',
    async sendBatch(emails, idempotencyKey) {
      if (emails.length > BATCH_LIMIT) throw new RangeError(`A batch holds at most ${BATCH_LIMIT} emails, got ${emails.length}.`);
      const at = now().toISOString();
      const insert = db.prepare(
        `INSERT INTO digest_outbox (idempotency_key, position, kind, to_addr, from_addr, subject, html, text, headers, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key, position) DO NOTHING`,
      );
      if (emails.length > 0)
        await db.batch(emails.map(safeForHeaders).map((e, i) => insert.bind(idempotencyKey, i, e.kind, e.to, e.from, e.subject, e.html, e.text, JSON.stringify(e.headers ?? {}), at)));
      const { results } = await db.prepare('SELECT id FROM digest_outbox WHERE idempotency_key = ? ORDER BY position').bind(idempotencyKey).all<{ id: number }>();
      return { ok: true, ids: results.map((r) => `outbox_${r.id}`) };
    },
  };
}
