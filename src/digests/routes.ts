/**
 * HTTP routes of the digests:
 *
 *   POST   /digests/subscriptions        subscribe (API key; JSON body)  -> 201 pending, a confirmation email goes out
 *   GET    /digests/subscriptions        the subscriptions of the key's account
 *   DELETE /digests/subscriptions/{id}   unsubscribe one of them          -> 204
 *   GET    /digests/confirm?token=       double opt-in link               -> page
 *   GET    /digests/unsubscribe?token=   page with a confirm button
 *   POST   /digests/unsubscribe?token=   RFC 8058 one-click unsubscribe   -> page
 *   GET    /dev/outbox[/{id}]            the dev outbox (404 when RESEND_API_KEY is set)
 *
 * API routes answer errors in the API's shape (`{error: {code, message, param?}}`);
 * link routes answer HTML pages.
 */
import { z } from 'zod';
import { parseJsonObject, readJsonBody } from '../contract/json-body';
import { ApiClientError } from '../client';
import { ApiError, ERROR_STATUS, type ErrorCode, errorResponse, invalidParameter, JSON_CONTENT_TYPE } from '../contract/errors';
import { sha256Hex } from '../hash';
import { bearerKey } from '../origin/access';
import { DigestKind } from '../reports/model';
import { CONFIRM_TTL, verifyToken } from '../signing';
import type { DigestDeps } from './deps';
import { BATCH_LIMIT } from './mailer';
import { planDigests } from './planner';
import { badTokenPage, escapeHtml, page } from './pages';
import { renderConfirmation } from './render';
import { canonicalTimeZone } from './schedule';
import { seal } from './sealed';
import { confirmUrl, kindsOf, newSubscriptionId, publicView, subscriptionById, type SubscriptionRow, unsubscribeHeaders, unsubscribeUrl } from './store';

export const DIGESTS_BASE = '/digests';
export const OUTBOX_BASE = '/dev/outbox';
/** Dev only (like the outbox): runs the planner as if the cron fired at `?at=` (ISO time), since `/__scheduled` always uses now. */
export const DEV_PLAN_PATH = '/dev/digests/plan';

/** A subscription request is a few hundred bytes; anything past this is refused before parsing. */
export const MAX_BODY_BYTES = 4096;
/** At most one confirmation email per subscription in this window; the answer says when the next may go. */
export const CONFIRM_RESEND_WINDOW_MS = 10 * 60_000;

/** Pragmatic address check (no quoted local parts, no IP literals); the confirmation email proves the rest. */
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export const SubscribeBody = z.strictObject({
  email: z.string({ error: '`email` is required: the address to send the digest to.' }).trim().max(254, { error: '`email` is too long.' }).regex(EMAIL, { error: '`email` is not a valid email address.' }),
  brand_id: z.number({ error: '`brand_id` must be an integer brand id.' }).int({ error: '`brand_id` must be an integer brand id.' }).positive({ error: '`brand_id` must be a positive integer.' }).optional(),
  market: z
    .union([z.string().trim().regex(/^[A-Za-z]{2}(?:-[A-Za-z]{2,3})?$/), z.number().int().positive()], { error: '`market` must be a market code such as `us` or `ch-fr`, or a market id.' })
    .optional(),
  kinds: z
    .array(DigestKind, { error: '`kinds` must be a list of `visibility` and/or `won_lost`.' })
    .min(1, { error: '`kinds` must name at least one of `visibility`, `won_lost`.' })
    .max(2)
    .refine((kinds) => new Set(kinds).size === kinds.length, { error: '`kinds` must not repeat a kind.' })
    .default(['visibility', 'won_lost']),
  timezone: z.string({ error: '`timezone` must be an IANA timezone name such as `Europe/Berlin`.' }).default('UTC'),
});

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'no-store' } });

/** The upstream's error passes through as the same code and status; anything else is a 502. */
export function upstreamError(error: unknown): ApiError {
  if (error instanceof ApiClientError && error.kind === 'http' && error.code in ERROR_STATUS) {
    return new ApiError(error.code as ErrorCode, error.message.replace(/^\w+: /, ''), {
      ...(error.param ? { param: error.param } : {}),
      ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    });
  }
  if (error instanceof ApiClientError) return new ApiError('upstream_error', 'The Read API could not be reached; try again later.');
  throw error;
}

function parseSubscribe(raw: unknown) {
  const data = parseJsonObject(SubscribeBody, raw);
  const timezone = canonicalTimeZone(data.timezone);
  if (!timezone) throw invalidParameter('timezone', '`timezone` must be an IANA timezone name such as `Europe/Berlin` or `UTC`.');
  return { ...data, timezone };
}

function requireKey(request: Request): string {
  const key = bearerKey(request);
  if (!key) throw new ApiError('invalid_api_key', 'Missing API key. Send it as `Authorization: Bearer <key>`.');
  return key;
}

/**
 * An upstream read with the caller's key, behind the proxy's abuse limits: a
 * flood of random or revoked keys through these routes spends no more of the
 * upstream than through /api/v1. The API's own error passes through.
 */
async function readWithKey<T>(deps: DigestDeps, request: Request, key: string, read: (client: ReturnType<DigestDeps['client']>) => Promise<T>): Promise<T> {
  const keyHash = await sha256Hex(key);
  await deps.abuse.check(request, keyHash);
  try {
    const result = await read(deps.client(key));
    deps.abuse.verified(keyHash);
    return result;
  } catch (error) {
    if (error instanceof ApiClientError && error.status === 401) deps.abuse.failed(keyHash);
    throw upstreamError(error);
  }
}

/** The brand ids the key's account can read: a subscription is the account's when its brand is one of them. */
async function accountBrands(deps: DigestDeps, request: Request, key: string): Promise<Set<number>> {
  const { brands } = await readWithKey(deps, request, key, (client) => client.listBrands());
  return new Set(brands.map((b) => b.id));
}

/** What the subscribe answer says of the confirmation email. */
export interface ConfirmationStatus {
  /** Whether this request sent one; false when one went within the last 10 minutes. */
  sent: boolean;
  /** When the last one was sent. */
  sent_at: string;
  /** From when another can be sent (subscribe again then). */
  resend_after: string;
}

/**
 * The confirmation email, at most once per `CONFIRM_RESEND_WINDOW_MS` and
 * subscription. The claim is one conditional update of `confirm_sent_at`, so
 * of concurrent subscribes of the same address only one sends; the others
 * (and a re-subscribe within the window) say when the next can go. Like every
 * email, it carries `List-Unsubscribe` and `List-Unsubscribe-Post`.
 */
async function sendConfirmation(deps: DigestDeps, row: SubscriptionRow): Promise<ConfirmationStatus> {
  const now = deps.now();
  const at = now.toISOString();
  const after = (sentAt: string) => new Date(Date.parse(sentAt) + CONFIRM_RESEND_WINDOW_MS).toISOString();
  const claimed = await deps.db
    .prepare(`UPDATE digest_subscriptions SET confirm_sent_at = ? WHERE id = ? AND status = 'pending' AND (confirm_sent_at IS NULL OR confirm_sent_at <= ?) RETURNING id`)
    .bind(at, row.id, new Date(now.getTime() - CONFIRM_RESEND_WINDOW_MS).toISOString())
    .first<{ id: string }>();
  if (!claimed) {
    const last = (await subscriptionById(deps.db, row.id))?.confirm_sent_at ?? at;
    return { sent: false, sent_at: last, resend_after: after(last) };
  }
  const url = await confirmUrl(deps, row.id, now);
  const unsubscribe = await unsubscribeUrl(deps, row.id, now);
  const mail = await renderConfirmation({
    brandName: row.brand_name,
    market: row.market_code,
    kinds: kindsOf(row),
    timezone: row.timezone,
    confirmUrl: url,
    unsubscribeUrl: unsubscribe,
    validDays: CONFIRM_TTL / 86_400,
  });
  const outcome = await deps.mailer.sendBatch([{ kind: 'confirm', from: deps.from, to: row.email, ...mail, headers: unsubscribeHeaders(unsubscribe, deps.from) }], `confirm/${row.id}/${at}`);
  if (!outcome.ok) {
    // Nothing went out: give the slot back, so subscribing again can send at once.
    await deps.db.prepare('UPDATE digest_subscriptions SET confirm_sent_at = ? WHERE id = ? AND confirm_sent_at = ?').bind(row.confirm_sent_at, row.id, at).run();
    console.error(JSON.stringify({ msg: 'confirmation email failed', subscription: row.id, code: outcome.code, status: outcome.status }));
    throw new ApiError('upstream_error', 'The confirmation email could not be sent; try again in a few minutes.');
  }
  return { sent: true, sent_at: at, resend_after: after(at) };
}

async function subscribe(request: Request, deps: DigestDeps): Promise<Response> {
  const key = requireKey(request);
  const input = parseSubscribe(await readJsonBody(request, MAX_BODY_BYTES));
  // The key must read this brand and market: the same read the digest will make, so its error is the one to show.
  const { brandId, market, brandName } = await readWithKey(deps, request, key, async (client) => {
    const visibility = await client.getVisibility({ ...(input.brand_id ? { brand_id: input.brand_id } : {}), ...(input.market !== undefined ? { market: String(input.market) } : {}) });
    const { brands } = await client.listBrands();
    return { brandId: visibility.brand_id, market: visibility.market, brandName: brands.find((b) => b.id === visibility.brand_id)?.name ?? `Brand ${visibility.brand_id}` };
  });

  const now = deps.now().toISOString();
  const emailKey = input.email.toLowerCase();
  const keyHash = await sha256Hex(key);
  const kinds = input.kinds.join(',');
  const byAddress = () =>
    deps.db.prepare('SELECT * FROM digest_subscriptions WHERE email_key = ? AND brand_id = ? AND market_id = ?').bind(emailKey, brandId, market.id).first<SubscriptionRow>();

  // One subscription per address, brand and market (a unique key). A new address is inserted; when a
  // concurrent subscribe of the same address inserted first, this one continues as a re-subscribe of its row.
  let row = await byAddress();
  let created = false;
  if (!row) {
    const id = newSubscriptionId();
    const inserted = await deps.db
      .prepare(
        `INSERT INTO digest_subscriptions (id, email, email_key, brand_id, brand_name, market_id, market_code, kinds, timezone, status, key_hash, key_sealed, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)
         ON CONFLICT (email_key, brand_id, market_id) DO NOTHING RETURNING id`,
      )
      .bind(id, input.email, emailKey, brandId, brandName, market.id, market.code, kinds, input.timezone, keyHash, await seal(deps.encryptionKey, key, id), now, now)
      .first<{ id: string }>();
    created = inserted !== null;
    row = await byAddress();
    if (!row) throw new Error('subscription row missing after insert');
  }
  if (!created) {
    // Re-subscribing never duplicates: the row is updated. An active one stays active (no new email);
    // a pending, paused or unsubscribed one needs the address confirmed. The key is sealed for this row's id.
    await deps.db
      .prepare(
        `UPDATE digest_subscriptions SET kinds = ?, timezone = ?, key_hash = ?, key_sealed = ?, brand_name = ?, market_code = ?,
                status = CASE status WHEN 'active' THEN 'active' ELSE 'pending' END, paused_reason = NULL, unsubscribed_at = NULL, updated_at = ?
          WHERE id = ?`,
      )
      .bind(kinds, input.timezone, keyHash, await seal(deps.encryptionKey, key, row.id), brandName, market.code, now, row.id)
      .run();
    row = (await subscriptionById(deps.db, row.id))!;
  }
  const confirmation = row.status === 'pending' ? await sendConfirmation(deps, row) : null;
  return json({ subscription: publicView(row), ...(confirmation ? { confirmation } : {}) }, created ? 201 : 200);
}

async function list(request: Request, deps: DigestDeps): Promise<Response> {
  const key = requireKey(request);
  const brands = [...(await accountBrands(deps, request, key))];
  if (brands.length === 0) return json({ subscriptions: [] });
  const { results } = await deps.db
    .prepare(`SELECT * FROM digest_subscriptions WHERE brand_id IN (${brands.map(() => '?').join(',')}) AND status != 'unsubscribed' ORDER BY created_at, id`)
    .bind(...brands)
    .all<SubscriptionRow>();
  return json({ subscriptions: results.map(publicView) });
}

/** Unsubscribes one subscription (idempotent): status, the sealed key, and its planned sends. */
export async function unsubscribeById(deps: DigestDeps, id: string): Promise<void> {
  const now = deps.now().toISOString();
  await deps.db.batch([
    // The sealed key goes too: an unsubscribed address keeps no credential.
    deps.db.prepare(`UPDATE digest_subscriptions SET status = 'unsubscribed', key_sealed = NULL, unsubscribed_at = ?, updated_at = ? WHERE id = ? AND status != 'unsubscribed'`).bind(now, now, id),
    deps.db.prepare(`UPDATE digest_sends SET status = 'skipped', reason = 'unsubscribed', updated_at = ? WHERE subscription_id = ? AND status = 'planned'`).bind(now, id),
  ]);
}

async function remove(request: Request, deps: DigestDeps, id: string): Promise<Response> {
  const key = requireKey(request);
  const brands = await accountBrands(deps, request, key);
  const row = /^sub_[a-z0-9]{1,40}$/.test(id) ? await subscriptionById(deps.db, id) : null;
  // Another account's subscription is as invisible as a missing one.
  if (!row || !brands.has(row.brand_id) || row.status === 'unsubscribed') throw new ApiError('not_found', 'No such subscription for this account.');
  await unsubscribeById(deps, id);
  return new Response(null, { status: 204 });
}

async function confirm(url: URL, deps: DigestDeps): Promise<Response> {
  const result = await verifyToken(deps.signingSecret, url.searchParams.get('token'), 'confirm', deps.now());
  if (!result.ok) return badTokenPage(result.reason, 'confirmation');
  const row = await subscriptionById(deps.db, String(result.claims.s));
  if (!row) return page(404, 'Subscription not found', ['This subscription no longer exists. Subscribe again to get the weekly digest.']);
  if (row.status === 'unsubscribed') return page(409, 'This subscription was cancelled', ['It was unsubscribed after this link was sent. Subscribe again to get the weekly digest.']);
  if (row.status === 'paused') return page(409, 'This subscription is paused', ['Its API key can no longer read the brand. Subscribe again with a current key.']);
  const now = deps.now().toISOString();
  if (row.status === 'pending') {
    await deps.db.prepare(`UPDATE digest_subscriptions SET status = 'active', confirmed_at = ?, updated_at = ? WHERE id = ? AND status = 'pending'`).bind(now, now, row.id).run();
  }
  return page(200, 'Subscription confirmed', [
    `You will get the weekly AI-visibility digest for ${row.brand_name} (${row.market_code.toUpperCase()}) on Mondays at 08:00, ${row.timezone}.`,
    'Every digest has a one-click unsubscribe link.',
  ]);
}

async function unsubscribe(request: Request, url: URL, deps: DigestDeps): Promise<Response> {
  const token = url.searchParams.get('token');
  const result = await verifyToken(deps.signingSecret, token, 'unsubscribe', deps.now());
  if (!result.ok) return badTokenPage(result.reason, 'unsubscribe');
  const row = await subscriptionById(deps.db, String(result.claims.s));
  if (!row) return page(200, 'You are unsubscribed', ['This subscription no longer exists; nothing more will be sent for it.']);
  if (request.method === 'POST') {
    // RFC 8058: a POST to the List-Unsubscribe URL unsubscribes with no further step (the body is
    // `List-Unsubscribe=One-Click`; our own button posts the same). Idempotent.
    await unsubscribeById(deps, row.id);
    return page(200, 'You are unsubscribed', [`No more weekly digests for ${row.brand_name} (${row.market_code.toUpperCase()}) will be sent to ${row.email}.`]);
  }
  if (row.status === 'unsubscribed') return page(200, 'You are already unsubscribed', [`No weekly digests for ${row.brand_name} are sent to ${row.email}.`]);
  // GET only shows the button: link scanners that prefetch URLs must not unsubscribe anyone.
  return page(
    200,
    'Unsubscribe from the weekly digest?',
    [`Stop the weekly AI-visibility digest for ${row.brand_name} (${row.market_code.toUpperCase()}) to ${row.email}.`],
    `<form method="post" action="${escapeHtml(`${DIGESTS_BASE}/unsubscribe?token=${encodeURIComponent(token!)}`)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
  );
}

interface OutboxRow {
  id: number;
  idempotency_key: string;
  position: number;
  kind: string;
  to_addr: string;
  from_addr: string;
  subject: string;
  html: string;
  text: string;
  headers: string;
  created_at: string;
}

async function outbox(request: Request, url: URL, deps: DigestDeps, rest: string): Promise<Response> {
  if (!deps.devOutbox) throw new ApiError('not_found', 'The dev outbox is off: mail goes to Resend (RESEND_API_KEY is set).');
  if (request.method !== 'GET') throw new ApiError('method_not_allowed', 'The outbox is read-only.');
  const format = url.searchParams.get('format');
  if (rest) {
    const id = /^\/(\d{1,12})$/.exec(rest)?.[1];
    const row = id ? await deps.db.prepare('SELECT * FROM digest_outbox WHERE id = ?').bind(Number(id)).first<OutboxRow>() : null;
    if (!row) throw new ApiError('not_found', 'No such message in the outbox.');
    if (format === 'text') return new Response(row.text, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    if (format === 'json') return json({ message: { ...outboxView(row), html: row.html, text: row.text } });
    return new Response(row.html, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:" } });
  }
  const to = url.searchParams.get('to');
  const limit = Math.min(BATCH_LIMIT * 5, Math.max(1, Number(url.searchParams.get('limit') ?? '50') || 50));
  const { results } = await deps.db
    .prepare(`SELECT * FROM digest_outbox ${to ? 'WHERE to_addr = ?' : ''} ORDER BY id DESC LIMIT ?`)
    .bind(...(to ? [to, limit] : [limit]))
    .all<OutboxRow>();
  if (format === 'json') return json({ messages: results.map((r) => ({ ...outboxView(r), text: r.text })) });
  const rows = results
    .map((r) => `<tr><td>${r.id}</td><td>${escapeHtml(r.created_at)}</td><td>${escapeHtml(r.kind)}</td><td>${escapeHtml(r.to_addr)}</td><td><a href="${OUTBOX_BASE}/${r.id}">${escapeHtml(r.subject)}</a> (<a href="${OUTBOX_BASE}/${r.id}?format=text">text</a>)</td></tr>`)
    .join('\n');
  return page(
    200,
    'Dev outbox',
    ['Mail that would have gone to Resend (RESEND_API_KEY is unset), newest first. JSON: ?format=json; one address: ?to=.'],
    `<table style="border-collapse:collapse;font-size:14px" cellpadding="4"><thead><tr><th scope="col">id</th><th scope="col">at</th><th scope="col">kind</th><th scope="col">to</th><th scope="col">subject</th></tr></thead><tbody>${rows || '<tr><td colspan="5">Empty.</td></tr>'}</tbody></table>`,
  );
}

function outboxView(r: OutboxRow) {
  return { id: r.id, kind: r.kind, to: r.to_addr, from: r.from_addr, subject: r.subject, headers: JSON.parse(r.headers) as Record<string, string>, idempotency_key: r.idempotency_key, created_at: r.created_at };
}

async function devPlan(request: Request, url: URL, deps: DigestDeps): Promise<Response> {
  if (!deps.devOutbox) throw new ApiError('not_found', 'Dev routes are off: mail goes to Resend (RESEND_API_KEY is set).');
  if (request.method !== 'POST') throw new ApiError('method_not_allowed', 'POST to plan.', { headers: { allow: 'POST' } });
  const at = url.searchParams.get('at');
  const when = at ? new Date(at) : deps.now();
  if (Number.isNaN(when.getTime())) throw invalidParameter('at', '`at` must be an ISO 8601 time, e.g. 2026-11-23T08:00:00Z.');
  const result = await planDigests({ ...deps, now: () => when });
  return json({ at: when.toISOString(), planned: result.planned, groups: result.groups });
}

/** Whether a path belongs to these routes. */
export const isDigestPath = (pathname: string) =>
  pathname === DEV_PLAN_PATH ||
  pathname === DIGESTS_BASE || pathname.startsWith(`${DIGESTS_BASE}/`) || pathname === OUTBOX_BASE || pathname.startsWith(`${OUTBOX_BASE}/`);

/** The digests' fetch handler; always a response. */
export async function handleDigestRoutes(request: Request, deps: DigestDeps): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const method = request.method;
  try {
    if (path === OUTBOX_BASE || path.startsWith(`${OUTBOX_BASE}/`)) return await outbox(request, url, deps, path.slice(OUTBOX_BASE.length));
    if (path === DEV_PLAN_PATH) return await devPlan(request, url, deps);
    if (path === `${DIGESTS_BASE}/subscriptions`) {
      if (method === 'POST') return await subscribe(request, deps);
      if (method === 'GET') return await list(request, deps);
      throw new ApiError('method_not_allowed', 'Use GET to list or POST to subscribe.', { headers: { allow: 'GET, POST' } });
    }
    const one = /^\/digests\/subscriptions\/([^/]+)$/.exec(path);
    if (one) {
      if (method === 'DELETE') return await remove(request, deps, decodeURIComponent(one[1]!));
      throw new ApiError('method_not_allowed', 'Use DELETE to unsubscribe.', { headers: { allow: 'DELETE' } });
    }
    // GET only: a HEAD (link checkers) must not confirm anything.
    if (path === `${DIGESTS_BASE}/confirm` && method === 'GET') return await confirm(url, deps);
    if (path === `${DIGESTS_BASE}/unsubscribe` && (method === 'GET' || method === 'POST' || method === 'HEAD')) return await unsubscribe(request, url, deps);
    throw new ApiError('not_found', 'No such digest route.');
  } catch (error) {
    if (!(error instanceof ApiError)) console.error(JSON.stringify({ msg: 'digest route failed', path, error: String(error) }));
    const response = errorResponse(error);
    // errorResponse sets `Allow: GET, HEAD` for any 405; these routes say their own.
    if (error instanceof ApiError && error.options.headers?.allow) response.headers.set('allow', error.options.headers.allow);
    return response;
  }
}
