/**
 * What every page and form of the account goes through (routes.ts, link-routes.ts): the session of the
 * request (session.ts), the key's brands read first (a key the API no longer accepts ends its sessions
 * here), and for a POST, the check that it comes from this site with the session's token. What they decide
 * early (a redirect to sign in, a refused form) is thrown as a `FormProblem` and answered by `answering`.
 */
import { ApiClientError, toApiError } from '../client';
import { sameSecret } from '../lib/hash';
import { fromThisSite, readBodyUpTo } from '../lib/http';
import { ASK_NOW, clientAddressOf, keyUnconfirmed } from '../proxy';
import type { Caller, SubscriptionDeps } from '../subscriptions';
import { ACCOUNT_PATHS, type Brand, refusedFormPage } from './pages';
import { clearedSessionCookie, endSessionsOfKey, type Session, sessionOf } from './session';

/** A form here is a handful of short fields. */
const MAX_FORM_BYTES = 8 * 1024;

export const seeOther = (location: string, headers: Record<string, string> = {}) => new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', ...headers } });

export class FormProblem extends Error {
  constructor(readonly response: Response) {
    super('form refused');
  }
}

/** The posted form, read up to its limit; refused (403) when it does not come from this site. */
export async function formOf(request: Request): Promise<FormData> {
  if (!fromThisSite(request)) throw new FormProblem(refusedFormPage('It was not sent from a page of this site.'));
  try {
    const text = await readBodyUpTo(request, MAX_FORM_BYTES, () => new Error('too large'));
    return await new Request(request.url, { method: 'POST', headers: { 'content-type': request.headers.get('content-type') ?? '' }, body: text }).formData();
  } catch {
    throw new FormProblem(refusedFormPage('It could not be read: send it from its page.'));
  }
}

export const field = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
};

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
  if (session === 'none') throw new FormProblem(seeOther(ACCOUNT_PATHS.signIn));
  if (session === 'ended') throw new FormProblem(seeOther(`${ACCOUNT_PATHS.signIn}?note=ended`, { 'set-cookie': clearedSessionCookie() }));
  const caller = { key: session.key, clientAddress: clientAddressOf(request) };
  try {
    // A write (remove, revoke, make a link, send now) acts on the key's word now: the proxy revalidates, one read of its budget.
    const { brands } = await deps.api(caller.key, caller.clientAddress).listBrands({}, o.writes ? ASK_NOW : {});
    return { session, caller, brands };
  } catch (error) {
    if (error instanceof ApiClientError && error.code === 'plan_inactive') return { session, caller, brands: [], inactive: toApiError(error).message };
    if (error instanceof ApiClientError && error.code === 'invalid_api_key') {
      await endSessionsOfKey(deps, session.key);
      throw new FormProblem(seeOther(`${ACCOUNT_PATHS.signIn}?note=revoked`, { 'set-cookie': clearedSessionCookie() }));
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
  if (!(await sameSecret(field(form, 'csrf'), who.session.csrf))) throw new FormProblem(refusedFormPage('It belongs to another session or an older page.'));
  return { ...who, form };
}

/** Runs a handler; the answers it decided on early (a redirect to sign in, a refused form) are its answer. */
export const answering =
  <A extends unknown[]>(handler: (...args: A) => Promise<Response>) =>
  async (...args: A): Promise<Response> => {
    try {
      return await handler(...args);
    } catch (error) {
      if (error instanceof FormProblem) return error.response;
      throw error;
    }
  };
