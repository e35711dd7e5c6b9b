/**
 * `/oauth/authorize`: the consent page of OAuth for `/mcp`, built on the
 * provider's consent helpers, which make it safe: the request is validated
 * (client, exact registered redirect URI, PKCE S256) before anything is
 * shown; the form carries a transaction handle that works once, for ten
 * minutes, in the browser that opened the page (a `__Host-` cookie holds its
 * hash), so a form posted from elsewhere, replayed, forged or late is
 * refused (403 page); the page cannot be framed.
 *
 * 1. GET: `parseAuthRequest` (a bad client or redirect URI is an HTML error
 *    page, never a redirect), then the key step (consent-page.ts).
 * 2. POST `step=key`: Deny redirects with `access_denied`; Continue opens the
 *    transaction, checks `api_key` with its own `GET /brands` through
 *    `apiFor()` (its gate, its cache, its budget). A refused key: the key
 *    step again (400) with the error, on a new transaction. An accepted one:
 *    the approve step, listing the key's brands; the key waits for the
 *    answer in a new transaction (the provider's: encrypted in KV under a key
 *    derived from the handle, which only the page holds; single use; ten
 *    minutes), never in the page.
 * 3. POST `step=approve`: Deny as above; Approve completes the authorization
 *    with the key in the grant's props (encrypted by the provider) and
 *    redirects to the client with the code.
 */
import { AuthorizationError, authorizationErrorRedirect, type AuthRequest, type OAuthHelpers } from '@cloudflare/workers-oauth-provider';
import { type ApiClient, ApiClientError } from '../client';
import { apiKeyProblem } from '../contract/access';
import type { ResponseOf } from '../contract/operations';
import { readBodyUpTo } from '../lib/http';
import { consentErrorHtml, consentHeaders, consentHtml, type ConsentStep } from './consent-page';
import { type GrantProps, grantUserOf, keepClientWhileGranted, type OAuthStore } from './oauth';
import { READ_SCOPE } from './oauth-paths';

/** A consent form is a handful of short fields. */
const MAX_FORM_BYTES = 8 * 1024;

type Brands = ResponseOf<'listBrands'>['brands'];

/** What the page needs besides the request: the provider's helpers and store, a client for a key (`apiFor()`), the secret of grant user ids, the clock. */
export interface ConsentDeps {
  oauth: OAuthHelpers;
  store: OAuthStore;
  clientOf: (apiKey: string) => ApiClient;
  secret: string;
  now: () => Date;
}

export async function serveConsent(request: Request, deps: ConsentDeps): Promise<Response> {
  try {
    if (request.method === 'GET') return await showKeyStep(request, deps);
    // Looked at, not used: the request is checked, and no transaction is written for a page nobody will see.
    if (request.method === 'HEAD') {
      await deps.oauth.parseAuthRequest(request);
      return new Response(null, { headers: consentHeaders('') });
    }
    if (request.method === 'POST') return await answerForm(request, deps);
    return htmlPage(405, consentErrorHtml('Not allowed', 'This page is opened by your assistant, then answered with its form.'), { allow: 'GET, HEAD, POST' });
  } catch (error) {
    if (error instanceof AuthorizationError && error.redirectTo) return redirect(error.redirectTo);
    // Without a validated redirect URI (unknown client, unregistered redirect URI), or a form that is not
    // this browser's, not current or used: said here, never sent anywhere.
    if (error instanceof AuthorizationError) return formRefused(request, error);
    throw error;
  }
}

async function showKeyStep(request: Request, deps: ConsentDeps): Promise<Response> {
  const authRequest = await deps.oauth.parseAuthRequest(request);
  return keyStep(deps, authRequest, 200, new Headers());
}

/** The key step on a new transaction (a refused key is asked again: the previous handle is used up). */
async function keyStep(deps: ConsentDeps, authRequest: AuthRequest, status: number, cookies: Headers, error?: string): Promise<Response> {
  const client = await deps.oauth.describeConsent(authRequest);
  const consent = await deps.oauth.beginConsent(authRequest);
  return render(status, { client, handle: consent.handle }, error === undefined ? { step: 'key' } : { step: 'key', error }, authRequest.redirectUri, cookies, consent.headers);
}

async function answerForm(request: Request, deps: ConsentDeps): Promise<Response> {
  let form: FormData;
  try {
    // Read up to its limit whether or not it declares its length (a chunked body is cancelled there).
    const text = await readBodyUpTo(request, MAX_FORM_BYTES, () => new FormTooLarge());
    form = await new Request(request.url, { method: 'POST', headers: { 'content-type': request.headers.get('content-type') ?? '' }, body: text }).formData();
  } catch (error) {
    if (error instanceof FormTooLarge) return htmlPage(413, consentErrorHtml('Form too large', 'This form takes a key and a choice, nothing more.'));
    return htmlPage(400, consentErrorHtml('This form could not be read', 'Send it from the page, as a form.'));
  }
  const field = (name: string) => {
    const value = form.get(name);
    return typeof value === 'string' ? value : '';
  };
  const handle = field('handle');
  const deny = field('decision') === 'deny';
  if (field('step') === 'approve') return approveStep(request, deps, handle, deny);

  if (deny) {
    const denied = await deps.oauth.denyConsent(request, handle);
    return new Response(null, { status: 302, headers: denied.headers });
  }
  // The handle is checked (and used up) before the key is: a forged form costs the upstream nothing.
  const approved = await deps.oauth.approveConsent(request, handle, { scope: [READ_SCOPE] });
  const apiKey = field('api_key').trim();
  // Its characters and length before any use: never a header that throws, never the key in a log line.
  const problem = apiKeyProblem(apiKey);
  const checked = problem ? { refused: `The API key ${problem}`, status: 400 } : await checkKey(deps.clientOf(apiKey));
  if ('refused' in checked) return keyStep(deps, approved.request, checked.status, approved.headers, checked.refused);
  const waiting = await deps.oauth.beginUpstream(approved.request, { data: { apiKey } satisfies GrantProps, headers: approved.headers });
  const client = await deps.oauth.describeConsent(approved.request);
  return render(200, { client, handle: waiting.state }, { step: 'approve', brands: checked.brands }, approved.request.redirectUri, waiting.headers);
}

async function approveStep(request: Request, deps: ConsentDeps, handle: string, deny: boolean): Promise<Response> {
  // The provider reads the handle of this transaction from `state` in the URL; the form posts it in its body.
  const withState = new URL(request.url);
  withState.search = '';
  withState.searchParams.set('state', handle);
  const resumed = await deps.oauth.finishUpstream(new Request(withState, { headers: request.headers }));
  const headers = resumed.headers;
  if (deny) {
    headers.set('location', authorizationErrorRedirect(resumed.request, 'access_denied'));
    return new Response(null, { status: 302, headers });
  }
  const { apiKey } = resumed.data as GrantProps;
  const { redirectTo } = await deps.oauth.completeAuthorization({
    request: resumed.request,
    userId: await grantUserOf(deps.secret, apiKey),
    metadata: {},
    scope: [READ_SCOPE],
    props: { apiKey } satisfies GrantProps,
  });
  await keepClientWhileGranted(deps.store, resumed.request.clientId, Math.floor(deps.now().getTime() / 1000));
  headers.set('location', redirectTo);
  return new Response(null, { status: 302, headers });
}

class FormTooLarge extends Error {}

/**
 * The key's brands, or why it cannot be used: the API's own word for it. The pages for people (src/account)
 * check a key to sign in with this too: one check, one set of messages.
 */
export async function checkKey(client: ApiClient, o: { acceptInactive?: boolean } = {}): Promise<{ brands: Brands } | { refused: string; status: number }> {
  try {
    return { brands: (await client.listBrands()).brands };
  } catch (error) {
    if (!(error instanceof ApiClientError)) throw error;
    // The pages for people let such a key in: it may still list and revoke what it set up.
    if (o.acceptInactive && error.code === 'plan_inactive') return { brands: [] };
    if (error.code === 'invalid_api_key') return { refused: 'This key was not accepted: it is unknown or revoked. Check that you pasted the whole Read API key.', status: 400 };
    if (error.code === 'rate_limited') return { refused: `Too many checks just now. Try again in ${error.retryAfter ?? 60} seconds.`, status: 429 };
    if (error.status >= 400 && error.status < 500) return { refused: `The API refused this key: ${error.message}`, status: 400 };
    return { refused: 'The key could not be checked: the API did not answer. Try again in a minute.', status: 503 };
  }
}

function render(status: number, view: Parameters<typeof consentHtml>[0], step: ConsentStep, redirectUri: string, ...cookieSources: Headers[]): Response {
  const headers = consentHeaders(redirectUri);
  // The provider's cookies (the transaction's binding, the used one cleared). Its own framing headers are in ours already.
  for (const source of cookieSources) for (const cookie of source.getSetCookie()) headers.append('set-cookie', cookie);
  return new Response(consentHtml(view, step), { status, headers });
}

function formRefused(request: Request, error: AuthorizationError): Response {
  if (request.method !== 'POST') return htmlPage(400, consentErrorHtml('This connection cannot start', `${error.description}.`));
  return htmlPage(403, consentErrorHtml('This form has expired', 'It was already used, is more than ten minutes old, was opened in another browser, or was not sent from its page.'));
}

function htmlPage(status: number, html: string, extra: Record<string, string> = {}): Response {
  const headers = consentHeaders('');
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return new Response(html, { status, headers });
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location, 'cache-control': 'no-store' } });
}
