/**
 * The routes of the pages for people (pages.ts, subscriptions-page.ts):
 *
 *   GET  /account/sign-in                  the sign-in form
 *   POST /account/sign-in                  checks the key (its own `GET /brands` through the gate), begins a session -> 303 /account
 *   POST /account/sign-out                 ends it -> 303 /account/sign-in
 *   GET  /account                          the overview: the key's brands, connect an assistant
 *   GET  /account/subscriptions            the subscriptions of the key's account, and the add form
 *   POST /account/subscriptions            add one          -> 303 ?done=added (a webhook: 200, its secret shown once)
 *   POST /account/subscriptions/resend     confirm again    -> 303 ?done=resent
 *   POST /account/subscriptions/remove     remove one       -> 303 ?done=removed
 *   POST /account/subscriptions/send       send this week's digest now to the confirmed subscribers (200, what went)
 * and the share and CSV links' screens (link-routes.ts).
 *
 * Each action calls the function its JSON route calls (src/subscriptions:
 * `subscribeAs`, `listAs`, `removeAs`) with the session's key, so the caps,
 * the account's scope and the messages are the API's; a refused form is shown
 * again (with the error's status) with the message beside its field.
 *
 * Every POST is checked before anything is read: its `Origin` (or
 * `Sec-Fetch-Site`) must be this site (the pages send `Referrer-Policy:
 * same-origin`, so a browser names their origin in their forms' posts), and a signed-in form must carry the
 * session's token (session.ts). Every signed-in page reads the key's brands
 * first: a key the API no longer accepts ends its sessions there.
 */
import { apiKeyProblem } from '../contract/access';
import { ApiError } from '../contract/errors';
import type { Route } from '../lib/router';
import { checkPastedKey } from '../mcp';
import { sendNowAs } from '../reports';
import { clientAddressOf } from '../proxy';
import { listAs, removeAs, subscribeAs, type SubscriptionDeps, type SubscriptionRow } from '../subscriptions';
import { hhmm } from '../subscriptions';
import { field, formOf, scopeOf } from './form';
import { seeOther, type SignedIn, signedIn, signedInForm } from './guard';
import { linkRoutes } from './link-routes';
import { overviewWeeks } from './overview';
import { overviewPage, SIGN_IN_NOTES, signInPage } from './pages';
import { ACCOUNT_PATHS } from './paths';
import { answering, inPeoplesWords, refusedFormPage } from './shell';
import { beginSession, clearedSessionCookie, endSession, sessionOf } from './session';
import { takeSignInAttempt } from './sign-in-limit';
import { DONE, type Done, EMPTY_FORM, FIELD_OF_PARAM, SUBSCRIBE_LABELS, type SubscribeForm, subscriptionsPage, type SubscriptionsView } from './subscriptions-page';
import { ownKeyOf } from '../lib/http';
import { sameSecret } from '../lib/hash';

const showSignIn = answering(async (request: Request, deps: SubscriptionDeps, url: URL) => {
  if (typeof (await sessionOf(deps, request)) === 'object') return seeOther(ACCOUNT_PATHS.overview);
  const note = ownKeyOf(SIGN_IN_NOTES, url.searchParams.get('note'));
  return signInPage(200, note ? { note } : {});
});

const signIn = answering(async (request: Request, deps: SubscriptionDeps) => {
  const form = await formOf(request);
  const key = field(form, 'api_key').trim();
  // Its characters and length before any use (never a header that throws, never the key in a log line), then
  // the consent page's own check: the key's `GET /brands` through the gate, as an unverified key of this address.
  const problem = apiKeyProblem(key);
  // Every attempt counts against its address, whatever its key: guesses are what the limit is for.
  const attempt = await takeSignInAttempt(deps, clientAddressOf(request));
  if (!attempt.ok) return signInPage(429, { error: `Too many checks just now. Try again in ${attempt.retryAfter} seconds.` }, { 'retry-after': String(attempt.retryAfter) });
  const checked = problem ? { refused: `The API key ${problem}`, status: 400 } : await checkPastedKey(deps.api(key, clientAddressOf(request)), { acceptInactive: true });
  if ('refused' in checked) return signInPage(checked.status, { error: checked.refused }, checked.status === 429 ? { 'retry-after': '60' } : {});
  const { cookie } = await beginSession(deps, key);
  return seeOther(ACCOUNT_PATHS.overview, { 'set-cookie': cookie });
});

const signOut = answering(async (request: Request, deps: SubscriptionDeps) => {
  const form = await formOf(request);
  const session = await sessionOf(deps, request);
  // Signing out of a session that already ended is done already.
  if (typeof session === 'object') {
    if (!(await sameSecret(field(form, 'csrf'), session.csrf))) return refusedFormPage('It belongs to another session or an older page.');
    await endSession(deps, session);
  }
  return seeOther(`${ACCOUNT_PATHS.signIn}?note=signed-out`, { 'set-cookie': clearedSessionCookie() });
});

const overview = answering(async (request: Request, deps: SubscriptionDeps, url: URL) => {
  const who = await signedIn(request, deps);
  const { session, brands, inactive } = who;
  const weeks = inactive ? [] : await overviewWeeks(deps, who);
  return overviewPage({ csrf: session.csrf, brands, weeks, origin: url.origin, expiresAt: session.expiresAt, ...(inactive ? { inactive } : {}) });
});

async function viewOf(deps: SubscriptionDeps, who: SignedIn, rest: Partial<SubscriptionsView> = {}): Promise<SubscriptionsView> {
  return { csrf: who.session.csrf, brands: who.brands, rows: await listAs(deps, who.caller), form: EMPTY_FORM, alerts: deps.alerts, ...(who.inactive ? { inactive: who.inactive } : {}), ...rest };
}

const showSubscriptions = answering(async (request: Request, deps: SubscriptionDeps, url: URL) => {
  const who = await signedIn(request, deps);
  const done = ownKeyOf(DONE, url.searchParams.get('done'));
  return subscriptionsPage(200, await viewOf(deps, who, done ? { done } : {}));
});

/** The form as typed. */
function typed(form: FormData): SubscribeForm {
  return {
    email: field(form, 'email'),
    scope: field(form, 'scope'),
    kinds: form.getAll('kinds').filter((k): k is string => typeof k === 'string'),
    timezone: field(form, 'timezone'),
    channel: field(form, 'channel') || 'email',
    channel_url: field(form, 'channel_url'),
    quiet_start: field(form, 'quiet_start'),
    quiet_end: field(form, 'quiet_end'),
  };
}

/**
 * The body `POST /digests/subscriptions` would get for this form: `scope` is `<brand id>:<market code>`.
 * A channel and quiet hours go with alerts; a Slack or webhook channel goes without them too, so that the
 * API says what is missing.
 */
export function bodyOf(f: SubscribeForm): Record<string, unknown> {
  const alerts = f.kinds.includes('alerts');
  return {
    email: f.email,
    ...scopeOf(f.scope),
    kinds: f.kinds,
    timezone: f.timezone.trim() || 'UTC',
    ...(alerts || f.channel !== 'email' ? { channel: { type: f.channel, ...(f.channel !== 'email' ? { url: f.channel_url.trim() } : {}) } } : {}),
    ...(alerts && f.quiet_start && f.quiet_end ? { quiet_hours: { start: f.quiet_start, end: f.quiet_end } } : {}),
  };
}

const SCOPE_CODES = new Set(['brand_required', 'brand_not_found', 'not_found']);

/** The subscriptions screen again, with the API's refusal beside its field (its status, and `Retry-After` when it has one). */
async function refused(deps: SubscriptionDeps, who: SignedIn, error: ApiError, form: SubscribeForm = EMPTY_FORM): Promise<Response> {
  // The add form's brand or market that the key cannot read is said beside the brand and market.
  const scoped = form !== EMPTY_FORM && SCOPE_CODES.has(error.code) ? 'scope' : 'form';
  const response = subscriptionsPage(
    error.status,
    await viewOf(deps, who, { form, error: { field: (error.param && FIELD_OF_PARAM[error.param]) || scoped, message: inPeoplesWords(error.message, error.param, SUBSCRIBE_LABELS) } }),
  );
  if (error.options.retryAfter !== undefined) response.headers.set('retry-after', String(error.options.retryAfter));
  return response;
}

/**
 * Runs an action of the subscriptions screen; an API error shows the screen again with it, beside its field: a
 * refusal, and a failure to try again (a receiver or mail service down: 502), never an error page.
 */
async function acting(deps: SubscriptionDeps, who: SignedIn, form: SubscribeForm | undefined, action: () => Promise<Response>): Promise<Response> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ApiError) return refused(deps, who, error, form);
    throw error;
  }
}

const DONE_AT = (done: Done) => seeOther(`${ACCOUNT_PATHS.subscriptions}?done=${done}`);

const addSubscription = answering(async (request: Request, deps: SubscriptionDeps) => {
  const who = await signedInForm(request, deps);
  const form = typed(who.form);
  return acting(deps, who, form, async () => {
    const { body } = await subscribeAs(deps, who.caller, bodyOf(form));
    // Shown once, so never through a redirect: the page answers the post itself.
    if (body.webhook_secret) return subscriptionsPage(200, await viewOf(deps, who, { webhookSecret: body.webhook_secret }));
    return DONE_AT(body.subscription.status === 'active' ? 'active' : 'added');
  });
});

/** The account's subscription of a posted `id`, or `not_found` as the API says it. */
async function postedRow(deps: SubscriptionDeps, who: SignedIn & { form: FormData }): Promise<SubscriptionRow> {
  const id = field(who.form, 'id');
  const row = (await listAs(deps, who.caller)).find((r) => r.id === id);
  if (!row) throw new ApiError('not_found', 'No such subscription for this account.');
  return row;
}

const resend = answering(async (request: Request, deps: SubscriptionDeps) => {
  const who = await signedInForm(request, deps);
  return acting(deps, who, undefined, async () => {
    const row = await postedRow(deps, who);
    // Subscribing it again as it is: the same code, window and caps as a second `POST /digests/subscriptions`.
    const again = {
      email: row.email,
      brand_id: row.brand_id,
      market: row.market_code,
      kinds: row.kinds.split(',').filter(Boolean),
      timezone: row.timezone,
      ...(row.channel_type ? { channel: { type: row.channel_type, ...(row.channel_url ? { url: row.channel_url } : {}) } } : {}),
      ...(row.channel_type && row.quiet_start != null && row.quiet_end != null ? { quiet_hours: { start: hhmm(row.quiet_start), end: hhmm(row.quiet_end) } } : {}),
    };
    const { body } = await subscribeAs(deps, who.caller, again);
    const confirmation = body.confirmation as { sent?: boolean } | undefined;
    return DONE_AT(confirmation?.sent === false ? 'recent' : 'resent');
  });
});

const remove = answering(async (request: Request, deps: SubscriptionDeps) => {
  const who = await signedInForm(request, deps);
  return acting(deps, who, undefined, async () => {
    await removeAs(deps, who.caller, (await postedRow(deps, who)).id);
    return DONE_AT('removed');
  });
});

const sendNow = answering(async (request: Request, deps: SubscriptionDeps) => {
  const who = await signedInForm(request, deps);
  const failed = async (status: number, message: string, retryAfter?: string) => {
    const response = subscriptionsPage(status, await viewOf(deps, who, { error: { field: 'send', message } }));
    if (retryAfter) response.headers.set('retry-after', retryAfter);
    return response;
  };
  try {
    const answer = await sendNowAs(deps, who.caller, scopeOf(field(who.form, 'scope')));
    if (answer.status === 409) return failed(409, (answer.body as { error: { message: string } }).error.message, answer.headers['retry-after']);
    const { send } = answer.body as { send: { recipients: number; sent: number; failed: number; note?: string } };
    const words = send.note ?? `Sent to ${send.sent} of ${send.recipients} confirmed subscriber${send.recipients === 1 ? '' : 's'}${send.failed ? `; ${send.failed} failed` : ''}.`;
    return subscriptionsPage(200, await viewOf(deps, who, { sent: words }));
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return failed(error.status, error.message);
    throw error;
  }
});

export const accountRoutes: Route<SubscriptionDeps>[] = [
  { path: ACCOUNT_PATHS.signIn, answers: 'page', methods: { GET: (request, _, deps, url) => showSignIn(request, deps, url), POST: (request, _, deps) => signIn(request, deps) } },
  { path: ACCOUNT_PATHS.signOut, answers: 'page', methods: { POST: (request, _, deps) => signOut(request, deps) } },
  { path: ACCOUNT_PATHS.overview, answers: 'page', methods: { GET: (request, _, deps, url) => overview(request, deps, url) } },
  {
    path: ACCOUNT_PATHS.subscriptions,
    answers: 'page',
    methods: { GET: (request, _, deps, url) => showSubscriptions(request, deps, url), POST: (request, _, deps) => addSubscription(request, deps) },
  },
  { path: `${ACCOUNT_PATHS.subscriptions}/resend`, answers: 'page', methods: { POST: (request, _, deps) => resend(request, deps) } },
  { path: `${ACCOUNT_PATHS.subscriptions}/remove`, answers: 'page', methods: { POST: (request, _, deps) => remove(request, deps) } },
  { path: `${ACCOUNT_PATHS.subscriptions}/send`, answers: 'page', methods: { POST: (request, _, deps) => sendNow(request, deps) } },
  ...linkRoutes,
];
