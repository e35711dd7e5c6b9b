/**
 * What every page and form of the account goes through (routes.ts, link-routes.ts): the session of the
 * request (session.ts), the key's brands read first (a key the API no longer accepts ends its sessions
 * here), and for a POST, the check that it comes from this site with the session's token (form.ts). It writes
 * no page: what it decides early is thrown, a `Redirect` (to sign in) or a `FormRefused` with its reason, and
 * the route's `answering` (shell.ts) answers it.
 */
import { ApiClientError, toApiError } from '../client';
import { sameSecret } from '../lib/hash';
import { ASK_NOW, clientAddressOf, keyUnconfirmed } from '../proxy';
import type { Caller, SubscriptionDeps } from '../subscriptions';
import { field, FormRefused, formOf } from './form';
import { ACCOUNT_PATHS } from './paths';
import { clearedSessionCookie, endSessionsOfKey, type Session, sessionOf } from './session';

export const seeOther = (location: string, headers: Record<string, string> = {}) => new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', ...headers } });

/** A request sent elsewhere before its handler runs (to sign in, its session ended or none): the redirect is its answer. */
export class Redirect extends Error {
  constructor(readonly response: Response) {
    super('redirected');
  }
}

/** A brand the key reads, as its `GET /brands` lists it: what the pages and forms offer to choose. */
export interface Brand {
  id: number;
  name: string;
  domain: string;
  markets: readonly { code: string }[];
}

/**
 * A signed-in request: its session, the caller it acts as, and the key's brands (read now: a revoked key ends
 * here; a page reads them through the cache, which asks the service about a key at least every 5 minutes, and a
 * form that writes asks the service now). `inactive`: the API's message when the key's plan is inactive: it reads no brand, but may still list
 * and revoke its links and list and remove its subscriptions, as the JSON routes let it.
 */
export interface SignedIn {
  session: Session;
  caller: Caller;
  brands: Brand[];
  inactive?: string;
}

export async function signedIn(request: Request, deps: SubscriptionDeps, o: { writes?: boolean } = {}): Promise<SignedIn> {
  const session = await sessionOf(deps, request);
  if (session === 'none') throw new Redirect(seeOther(ACCOUNT_PATHS.signIn));
  if (session === 'ended') throw new Redirect(seeOther(`${ACCOUNT_PATHS.signIn}?note=ended`, { 'set-cookie': clearedSessionCookie() }));
  const caller = { key: session.key, clientAddress: clientAddressOf(request) };
  try {
    // A write (remove, revoke, make a link, send now) acts on the key's word now: the proxy revalidates, one read of its budget.
    const { brands } = await deps.api(caller.key, caller.clientAddress).listBrands({}, o.writes ? ASK_NOW : {});
    return { session, caller, brands };
  } catch (error) {
    if (error instanceof ApiClientError && error.code === 'plan_inactive') return { session, caller, brands: [], inactive: toApiError(error).message };
    if (error instanceof ApiClientError && error.code === 'invalid_api_key') {
      await endSessionsOfKey(deps, session.key);
      throw new Redirect(seeOther(`${ACCOUNT_PATHS.signIn}?note=revoked`, { 'set-cookie': clearedSessionCookie() }));
    }
    // A write that cannot hear from the service about the key now writes nothing: try again in N s.
    if (error instanceof ApiClientError) throw (o.writes && keyUnconfirmed(error)) || toApiError(error);
    throw error;
  }
}

/** A signed-in form: from this site, with the session's token, and a key the service accepts now (a form writes). */
export async function signedInForm(request: Request, deps: SubscriptionDeps): Promise<SignedIn & { form: FormData }> {
  const form = await formOf(request);
  const who = await signedIn(request, deps, { writes: true });
  if (!(await sameSecret(field(form, 'csrf'), who.session.csrf))) throw new FormRefused('It belongs to another session or an older page.');
  return { ...who, form };
}
