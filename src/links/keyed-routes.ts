/**
 * What every route over keyed links shares (`/reports/links`, `/exports/links`
 * and the readers behind them): the lifetime a link may be given, the body
 * field that sets it, the cap's answer, the checks of the key that lists or
 * revokes, and how a failed read of the API becomes the API's own error.
 */
import * as z from 'zod';
import { type ApiClient, ApiClientError, toApiError } from '../client';
import { requireKey } from '../contract/access';
import { ApiError, invalidParameter } from '../contract/errors';
import { DAY_MS } from '../lib/time';
import { ASK_NOW, clientAddressOf, keyUnconfirmed } from '../proxy';
import { MAX_LIVE_LINKS, type StoreOutcome } from './link-store';

/** `expires_in_days` of a link: default and bounds (DESIGN section 11). */
export const LINK_DAYS = { default: 30, min: 1, max: 90 } as const;

const DAYS_MESSAGE = `\`expires_in_days\` must be a whole number of days, ${LINK_DAYS.min} to ${LINK_DAYS.max}.`;
/** The body field `expires_in_days`, with its default. */
export const expiresInDays = z
  .number({ error: DAYS_MESSAGE })
  .int({ error: DAYS_MESSAGE })
  .min(LINK_DAYS.min, { error: `\`expires_in_days\` must be at least ${LINK_DAYS.min}.` })
  .max(LINK_DAYS.max, { error: `\`expires_in_days\` must be at most ${LINK_DAYS.max}.` })
  .default(LINK_DAYS.default);

/** When a link minted at `now` for `days` expires: whole seconds, as the token's `exp`. */
export const expiryAfter = (now: Date, days: number): Date => new Date(Math.floor(now.getTime() / 1000) * 1000 + days * DAY_MS);

/** A new link id: the prefix and 20 random hex digits. */
export const newLinkId = (prefix: string) => `${prefix}_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`;

/** The 409 of a mint at the cap: how many, and how to make room. `what`: `report`; `base`: where the links are listed. */
export function tooManyLinks(outcome: Extract<StoreOutcome, { ok: false }>, what: string, base: string): ApiError {
  const next = outcome.nextExpiry ? ` The first of them expires at ${outcome.nextExpiry}.` : '';
  return new ApiError(
    'too_many_links',
    `This key has ${outcome.live} live ${what} links, the most it may have (${MAX_LIVE_LINKS}). Revoke one (GET ${base}/links lists them, DELETE ${base}/links/{id} revokes one) or wait until one expires.${next}`,
  );
}

/** The keyed link routes take their fields in the body or the path, never the query string. */
export function noQuery(url: URL, message = 'This endpoint takes no query string.'): void {
  if (url.search) throw invalidParameter([...url.searchParams.keys()][0] ?? 'query', message);
}

/** A failed read as the API's own error (its 4xx passed through); an outage is 502 `upstream_error`, logged without the key. */
export function readFailure(error: unknown): ApiError {
  if (!(error instanceof ApiClientError)) throw error;
  const apiError = toApiError(error);
  if (apiError.code === 'upstream_error') console.error(JSON.stringify({ msg: 'link read failed upstream', operation: error.operation, kind: error.kind, status: error.status, code: error.code }));
  return apiError;
}

/**
 * The key of a request that lists or revokes its links: given, with no query
 * string, and one the API knows (its 401 otherwise, as on every keyed route);
 * an account whose plan is inactive may still see and revoke what it shared.
 * A revocation (`writes`) is a write: the key is confirmed by the upstream now
 * (`confirmedCaller`, src/proxy/api.ts), 503 `key_unconfirmed` when it cannot be.
 */
export async function linkOwnerKey(request: Request, url: URL, api: (apiKey: string, clientAddress: string | null) => ApiClient, o: { writes?: boolean } = {}): Promise<string> {
  const key = requireKey(request);
  noQuery(url);
  try {
    await api(key, clientAddressOf(request)).listBrands({}, o.writes ? ASK_NOW : {});
  } catch (error) {
    if (error instanceof ApiClientError && error.code === 'plan_inactive') return key;
    throw (o.writes && error instanceof ApiClientError && keyUnconfirmed(error)) || readFailure(error);
  }
  return key;
}
