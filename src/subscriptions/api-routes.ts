/**
 * The subscriptions' JSON API, read with the caller's API key; errors in the
 * API's shape:
 *
 *   POST   /digests/subscriptions        subscribe (JSON body)  -> 201 pending, a confirmation email goes out
 *                                         (429 over a cap on confirmation mail, caps.ts: nothing sent)
 *   GET    /digests/subscriptions        the subscriptions of the key's account, in every state, each with its last delivery
 *   DELETE /digests/subscriptions/{id}   remove one of them, in any state, for good -> 204
 */
import * as z from 'zod';
import { BrandIdField, MarketField } from '../contract/scope-body';
import { type ApiClient, ApiClientError, toApiError } from '../client';
import { requireKey } from '../contract/access';
import { ApiError, invalidParameter } from '../contract/errors';
import { parseJsonObject, readJsonBody } from '../contract/json-body';
import { sha256Hex } from '../lib/hash';
import { json } from '../lib/http';
import type { Route } from '../lib/router';
import { seal } from '../lib/sealing';
import { clientAddressOf, confirmedCaller } from '../proxy';
import { canonicalTimeZone } from '../weekly-report/week';
import { readScopeKept } from '../weekly-report/history';
import type { SubscriptionDeps } from './deps';
import { SUBSCRIPTIONS_BASE } from './links';
import { sendConfirmation, withinResendWindow } from './confirmation';
import { confirmationLimited, confirmationVerdict, recipientKeyOf } from './caps';
import {
  type LastDelivery,
  lastDeliveries,
  newSubscriptionId,
  publicView,
  removeSubscription,
  restorePoint,
  SUBSCRIPTION_SELECT,
  SubscriptionKind,
  subscriptionById,
  type SubscriptionRow,
} from './store';
import { ChannelBody, channelOf, endpointKeyOf, newSecretFor, QuietHoursBody, sendTestDelivery, storeChannel, storedSecret, type TestDelivery } from './alert-channels';

/** A subscription request is a few hundred bytes; anything past this is refused before parsing. */
export const MAX_BODY_BYTES = 4096;
/** Pragmatic address check (no quoted local parts, no IP literals); the confirmation email proves the rest. */
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export const SubscribeBody = z.strictObject({
  email: z
    .string({ error: '`email` is required: the address to send the digest to.' })
    .trim()
    .max(254, { error: '`email` is too long.' })
    .regex(EMAIL, { error: '`email` is not a valid email address.' }),
  brand_id: BrandIdField,
  market: MarketField,
  kinds: z
    .array(SubscriptionKind, { error: '`kinds` must be a list of `visibility`, `won_lost` and/or `alerts`.' })
    .min(1, { error: '`kinds` must name at least one of `visibility`, `won_lost`, `alerts`.' })
    .max(3)
    .refine((kinds) => new Set(kinds).size === kinds.length, { error: '`kinds` must not repeat a kind.' })
    .default(['visibility', 'won_lost']),
  timezone: z.string({ error: '`timezone` must be an IANA timezone name such as `Europe/Berlin`.' }).default('UTC'),
  /** Alerts only: where they go (default: `email`). */
  channel: ChannelBody.optional(),
  /** Alerts only: local times between which nothing is delivered (default 22:00 to 07:00). */
  quiet_hours: QuietHoursBody.optional(),
});

function parseSubscribe(raw: unknown) {
  const data = parseJsonObject(SubscribeBody, raw);
  const timezone = canonicalTimeZone(data.timezone);
  if (!timezone) throw invalidParameter('timezone', '`timezone` must be an IANA timezone name such as `Europe/Berlin` or `UTC`.');
  return { ...data, timezone };
}

/**
 * Who acts: the API key (from `Authorization`, or a signed-in person's session, src/account) and the client
 * address the reads are made for. The JSON routes and the account pages call the same functions with it.
 */
export interface Caller {
  key: string;
  clientAddress: string | null;
}

/** The caller of a JSON request: its bearer key (401 without one) and its address. */
const callerOf = (request: Request): Caller => ({ key: requireKey(request), clientAddress: clientAddressOf(request) });

/**
 * Reads with the caller's key through the proxy, on behalf of the caller's
 * address: a flood of random or revoked keys through these routes spends no
 * more of the upstream than through /api/v1. The API's error passes through.
 */
async function readAs<T>(deps: SubscriptionDeps, caller: Caller, read: (client: ApiClient) => Promise<T>): Promise<T> {
  try {
    return await read(deps.api(caller.key, caller.clientAddress));
  } catch (error) {
    if (error instanceof ApiClientError) throw toApiError(error);
    throw error;
  }
}

/**
 * Which subscriptions are the key's account's: those of the brands it reads. A key whose plan is inactive reads
 * no brand, yet may still see and remove what it set up (as it may its links, links/keyed-routes.ts): for it,
 * the subscriptions last subscribed with this very key.
 */
type Account = { brands: Set<number> } | { keyHash: string };

async function accountOf(deps: SubscriptionDeps, caller: Caller): Promise<Account> {
  try {
    const { brands } = await readAs(deps, caller, (client) => client.listBrands());
    return { brands: new Set(brands.map((b) => b.id)) };
  } catch (error) {
    if (error instanceof ApiError && error.code === 'plan_inactive') return { keyHash: await sha256Hex(caller.key) };
    throw error;
  }
}

const holds = (account: Account, row: SubscriptionRow) => ('brands' in account ? account.brands.has(row.brand_id) : row.key_hash === account.keyHash);

/** What subscribing answers: 201 for a new subscription, 200 for one subscribed again. */
export interface Subscribed {
  status: 200 | 201;
  body: { subscription: ReturnType<typeof publicView>; confirmation?: unknown; test_delivery?: TestDelivery; webhook_secret?: string };
}

/**
 * Subscribes an address (or a Slack or webhook channel) to a brand and market the caller's key reads: `raw` is
 * the body of `POST /digests/subscriptions`, checked here. Errors are the API's (`param` names the field).
 */
export async function subscribeAs(deps: SubscriptionDeps, caller: Caller, raw: unknown): Promise<Subscribed> {
  const key = caller.key;
  const input = parseSubscribe(raw);
  // A bad channel is a 400 before anything is read or stored.
  const channel = await channelOf(deps, input);
  const endpoint = channel !== null && channel.type !== 'email';
  // The key must read this brand and market: the same read the digest will make, so its error is the one to show.
  const { brandId, market, brandName, accountBrands } = await readAs(deps, caller, async (client) => {
    const visibility = await readScopeKept(client, { brand_id: input.brand_id || undefined, market: input.market === undefined ? undefined : String(input.market) }, { db: deps.db, now: deps.now() });
    const { brands } = await client.listBrands();
    return {
      brandId: visibility.brand_id,
      market: visibility.market,
      brandName: brands.find((b) => b.id === visibility.brand_id)?.name ?? `Brand ${visibility.brand_id}`,
      // The account the confirmation counts against (caps.ts): every brand the key reads.
      accountBrands: [...new Set([visibility.brand_id, ...brands.map((b) => b.id)])].sort((a, b) => a - b),
    };
  });

  const now = deps.now();
  const at = now.toISOString();
  // Slack and webhook subscriptions are one per URL (the owner's address is only a contact).
  const emailKey = endpoint ? await endpointKeyOf(channel) : input.email.toLowerCase();
  const keyHash = await sha256Hex(key);
  const kinds = input.kinds.join(',');
  const accountBrandsJson = JSON.stringify(accountBrands);
  const byAddress = () => deps.db.prepare(`${SUBSCRIPTION_SELECT} WHERE s.email_key = ? AND s.brand_id = ? AND s.market_id = ?`).bind(emailKey, brandId, market.id).first<SubscriptionRow>();

  let row = await byAddress();
  // A confirmation is due unless the subscription is active or one went within its 10-minute window. Over a
  // cap the answer is 429 and nothing is written: an address that unsubscribed stays unsubscribed. A Slack or
  // webhook subscription's test delivery counts like a confirmation email, its URL's receiver like an address's mailbox.
  if (!row || (row.status !== 'active' && !(row.status === 'pending' && withinResendWindow(row, now)))) {
    const recipient = await recipientKeyOf({ email: input.email, channel_type: channel?.type ?? null, channel_url: channel?.url ?? null });
    const verdict = await confirmationVerdict(deps.db, { recipient, accountBrands, via: 'api' }, now);
    if (!verdict.ok) throw confirmationLimited(verdict, endpoint);
  }

  // What this subscribe changes, to put back when its confirmation or test delivery fails: a refused subscribe
  // stores nothing (a new row is deleted, an existing one restored).
  const id = row?.id ?? newSubscriptionId();
  const undo = await restorePoint(deps.db, id);
  // One subscription per address, brand and market (a unique key). A new address is inserted; when a
  // concurrent subscribe of the same address inserted first, this one continues as a re-subscribe of its row.
  let created = false;
  // The revision this subscribe's last write of the row left; null once another write came between (no undo then).
  let revision: number | null = null;
  const wrote = (next: number | null) => {
    revision = next !== null && revision !== null && next === revision + 1 ? next : null;
  };
  if (!row) {
    const inserted = await deps.db
      .prepare(
        `INSERT INTO digest_subscriptions (id, email, email_key, brand_id, brand_name, market_id, market_code, kinds, timezone, status, key_hash, key_sealed, account_brands, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)
         ON CONFLICT (email_key, brand_id, market_id) DO NOTHING RETURNING revision`,
      )
      .bind(id, input.email, emailKey, brandId, brandName, market.id, market.code, kinds, input.timezone, keyHash, await seal(deps.encryptionKey, key, id), accountBrandsJson, at, at)
      .first<{ revision: number }>();
    created = inserted !== null;
    revision = inserted?.revision ?? null;
    row = await byAddress();
    if (!row) throw new Error('subscription row missing after insert');
  }
  if (!created) {
    // Re-subscribing never duplicates: the row is updated. An active one stays active (no new email);
    // a pending, paused or unsubscribed one needs the address confirmed. The key is sealed for this row's id.
    // A paused or unsubscribed one starts a new cycle: no link of the old one confirms or reads this one.
    const updated = await deps.db
      .prepare(
        `UPDATE digest_subscriptions SET kinds = ?, timezone = ?, key_hash = ?, key_sealed = ?, brand_name = ?, market_code = ?, account_brands = ?, revision = revision + 1,
                generation = CASE WHEN status IN ('paused', 'unsubscribed') THEN generation + 1 ELSE generation END,
                confirm_sent_at = CASE WHEN status IN ('paused', 'unsubscribed') THEN NULL ELSE confirm_sent_at END,
                status = CASE status WHEN 'active' THEN 'active' ELSE 'pending' END, paused_reason = NULL, unsubscribed_at = NULL, updated_at = ?
          WHERE id = ? RETURNING revision`,
      )
      .bind(kinds, input.timezone, keyHash, await seal(deps.encryptionKey, key, row.id), brandName, market.code, accountBrandsJson, at, row.id)
      .first<{ revision: number }>();
    // Deleted since it was read (the account removed it): nothing of this subscribe to go on with.
    if (!updated) throw new ApiError('not_found', 'This subscription was removed while it was being subscribed again; subscribe again to make a new one.');
    revision = updated.revision;
  }
  // A new webhook subscription, or one subscribed again after a pause or an unsubscribe, gets a new signing
  // secret, shown once in this answer; a pending one keeps the secret its first answer showed.
  const kept = channel?.type === 'webhook' && !created ? await storedSecret(deps, row.id) : null;
  const secret = channel?.type === 'webhook' && (!kept || row.status === 'paused' || row.status === 'unsubscribed') ? await newSecretFor(deps, row.id) : null;
  await storeChannel(deps.db, row.id, channel, secret?.sealed ?? null, at);
  row = (await subscriptionById(deps.db, row.id))!;
  let testDelivery: TestDelivery | null = null;
  const pending = row;
  const post = endpoint ? async (when: Date) => (testDelivery = await sendTestDelivery(deps, pending, channel, secret?.secret ?? kept, when)) : undefined;
  // The claim checks the caps again, atomically: a subscribe that loses the race for an account's or an
  // address's last slot answers 429 too, and like any failure of the confirmation, stores nothing (undone below).
  let confirmation: Awaited<ReturnType<typeof sendConfirmation>> | null = null;
  try {
    confirmation = row.status === 'pending' ? await sendConfirmation(deps, row, 'api', post, wrote) : null;
  } catch (error) {
    // Only this subscribe's own write of its own row: a concurrent one's row (the insert lost the race), or a row
    // written since by anyone (confirmed, unsubscribed, removed, subscribed again), is left as it is.
    if (row.id === id && revision !== null) await undo(revision);
    throw error;
  }
  // Assigned inside `post`, a closure: TypeScript's narrowing does not see it (it would type it `null` here).
  const delivered = testDelivery as TestDelivery | null;
  return {
    status: created ? 201 : 200,
    body: { subscription: publicView(row), ...(confirmation ? { confirmation } : {}), ...(delivered ? { test_delivery: delivered } : {}), ...(secret ? { webhook_secret: secret.secret } : {}) },
  };
}

async function subscribe(request: Request, deps: SubscriptionDeps): Promise<Response> {
  const caller = await confirmedCaller(request, deps.api);
  const { status, body } = await subscribeAs(deps, caller, await readJsonBody(request, MAX_BODY_BYTES));
  return json(body, status);
}

/** A subscription as the account sees it listed: its row and its last delivery. */
export type ListedSubscription = SubscriptionRow & { last_delivery: LastDelivery | null };

/** The account's subscriptions in every state, oldest first, each with its last delivery (digest or alert) and its result. */
export async function listAs(deps: SubscriptionDeps, caller: Caller): Promise<ListedSubscription[]> {
  const account = await accountOf(deps, caller);
  if ('brands' in account && account.brands.size === 0) return [];
  const query =
    'brands' in account
      ? deps.db.prepare(`${SUBSCRIPTION_SELECT} WHERE s.brand_id IN (${[...account.brands].map(() => '?').join(',')}) ORDER BY s.created_at, s.id`).bind(...account.brands)
      : deps.db.prepare(`${SUBSCRIPTION_SELECT} WHERE s.key_hash = ? ORDER BY s.created_at, s.id`).bind(account.keyHash);
  const { results } = await query.all<SubscriptionRow>();
  if (results.length === 0) return [];
  // The deliveries of the listed rows' brands: every row listed finds its own there.
  const last = await lastDeliveries(deps.db, [...new Set(results.map((r) => r.brand_id))]);
  return results.map((row) => ({ ...row, last_delivery: last.get(row.id) ?? null }));
}

async function list(request: Request, deps: SubscriptionDeps): Promise<Response> {
  return json({ subscriptions: (await listAs(deps, callerOf(request))).map((row) => ({ ...publicView(row), last_delivery: row.last_delivery })) });
}

/** Removes one subscription of the caller's account, in any state, for good; another account's is `not_found`. */
export async function removeAs(deps: SubscriptionDeps, caller: Caller, id: string): Promise<void> {
  const account = await accountOf(deps, caller);
  const row = /^sub_[a-z0-9]{1,40}$/.test(id) ? await subscriptionById(deps.db, id) : null;
  // Another account's subscription is as invisible as a missing one. Any state is removed: an unsubscribed
  // one too, whose own subscribe-again link would otherwise bring it back (it carries the key, sealed).
  if (!row || !holds(account, row)) throw new ApiError('not_found', 'No such subscription for this account.');
  // Final: no link of the subscription works again (store.ts); only a new subscribe reaches the address.
  if (!(await removeSubscription(deps.db, id))) throw new ApiError('not_found', 'No such subscription for this account.');
}

async function remove(request: Request, deps: SubscriptionDeps, id: string): Promise<Response> {
  await removeAs(deps, await confirmedCaller(request, deps.api), id);
  return new Response(null, { status: 204 });
}

export const subscriptionApiRoutes: Route<SubscriptionDeps>[] = [
  { path: `${SUBSCRIPTIONS_BASE}/subscriptions`, answers: 'json', methods: { POST: (request, _, deps) => subscribe(request, deps), GET: (request, _, deps) => list(request, deps) } },
  { path: `${SUBSCRIPTIONS_BASE}/subscriptions/{id}`, answers: 'json', methods: { DELETE: (request, params, deps) => remove(request, deps, params.id!) } },
];
