/**
 * The "Digests and alerts" screen: every subscription of the key's account
 * with its state, and the form that adds one (an address for the digest
 * and/or alerts, or a Slack or webhook channel for alerts). A refused form is
 * shown again with what was typed and the API's message beside the field it
 * concerns (`FIELD_OF_PARAM`).
 */
import { EMPTY, html, type Markup } from '../lib/html';
import type { ListedSubscription, SubscriptionRow } from '../subscriptions';
import type { Brand } from './guard';
import { ACCOUNT_PATHS } from './paths';
import { accountPage, askedFirst, copyButton, inactiveNotice, scopeOptions, withCode } from './shell';

/** The add form as typed (strings, as a form posts them). */
export interface SubscribeForm {
  email: string;
  scope: string;
  kinds: string[];
  timezone: string;
  channel: string;
  channel_url: string;
  quiet_start: string;
  quiet_end: string;
}

export const EMPTY_FORM: SubscribeForm = { email: '', scope: '', kinds: ['visibility', 'won_lost'], timezone: 'UTC', channel: 'email', channel_url: '', quiet_start: '22:00', quiet_end: '07:00' };

/** The form's fields, by the id of the element an error is shown beside. */
export type Field = 'email' | 'scope' | 'kinds' | 'timezone' | 'channel' | 'channel_url' | 'quiet' | 'form' | 'send';

/** Which field an API error's `param` concerns; anything else is said at the top of the form. */
export const FIELD_OF_PARAM: Record<string, Field> = {
  email: 'email',
  brand_id: 'scope',
  market: 'scope',
  kinds: 'kinds',
  timezone: 'timezone',
  channel: 'channel',
  'channel.type': 'channel',
  'channel.url': 'channel_url',
  quiet_hours: 'quiet',
};

/** The form's labels by the API's names its messages use (the email address only where it is the field: `email` is also a channel). */
export const SUBSCRIBE_LABELS: Record<string, string> = {
  brand_id: 'Brand and market',
  market: 'Brand and market',
  kinds: 'What it gets',
  visibility: 'The weekly visibility digest',
  won_lost: 'Won and lost questions',
  alerts: 'Change alerts',
  timezone: 'Timezone',
  channel: 'Where change alerts go',
  'channel.type': 'Where change alerts go',
  'channel.url': 'Slack or webhook URL',
  quiet_hours: 'Quiet hours for alerts',
};

/** What happened, said after the redirect (`?done=`): fixed words, never text from the URL. */
export const DONE = {
  added: 'Added. A confirmation went out: the subscription starts once its link is opened.',
  resent: 'The confirmation was sent again.',
  removed: 'Removed. Nothing more goes to it.',
  active: 'Saved. It was already confirmed: nothing more to do.',
  recent: 'A confirmation went out less than 10 minutes ago: look for it first. It can be sent again 10 minutes after the last one.',
} as const;
export type Done = keyof typeof DONE;

export interface SubscriptionsView {
  csrf: string;
  brands: readonly Brand[];
  rows: readonly ListedSubscription[];
  form: SubscribeForm;
  error?: { field: Field; message: string };
  done?: Done;
  /** A webhook's signing secret, shown once, right after subscribing. */
  webhookSecret?: string;
  /** Whether change alerts run on this deployment. */
  alerts: boolean;
  /** What "send now" did, in the API's words. */
  sent?: string;
  /** The API's message when the key's plan is inactive: the list and Remove stay; adding and sending need a read. */
  inactive?: string;
}

/** The time zones the runtime knows, for the timezone field's suggestions. */
const ZONES: readonly string[] = ['UTC', ...Intl.supportedValuesOf('timeZone')];

const KIND_WORDS: Record<string, string> = { visibility: 'visibility digest', won_lost: 'won and lost questions', alerts: 'change alerts' };
const STATE_WORDS: Record<string, string> = { pending: 'waiting for confirmation', active: 'active', paused: 'paused', unsubscribed: 'unsubscribed' };

/**
 * Who gets it, as the owner tells two apart: an address, or a Slack or webhook destination by its host and the last
 * characters of its path (the rest of an incoming-webhook URL is a secret, masked).
 */
function recipientOf(row: SubscriptionRow): string {
  if ((row.channel_type === 'slack' || row.channel_type === 'webhook') && row.channel_url) {
    const url = new URL(row.channel_url);
    const end = url.pathname.length > 1 ? `/…${url.pathname.slice(-4)}` : '';
    return `${row.channel_type === 'slack' ? 'Slack' : 'Webhook'}: ${url.host}${end}`;
  }
  return row.email;
}

const RESULT_WORDS: Record<string, string> = { sent: 'sent', skipped: 'not sent', failed: 'failed' };

/** The last digest or alert of a subscription and what became of it, with the reason when it did not go out. */
function lastDeliveryLine(last: ListedSubscription['last_delivery']): Markup | null {
  if (!last) return null;
  const what = `Last ${last.kind === 'digest' ? 'digest' : 'alert'}: ${RESULT_WORDS[last.result] ?? last.result} ${last.at.slice(0, 16).replace('T', ' ')} UTC`;
  return html`<p class="small${last.result === 'sent' ? '' : ' bad'}">${what}${last.reason ? `: ${last.reason}` : ''}</p>`;
}

function card(row: ListedSubscription, csrf: string): Markup {
  const hidden = html`<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="id" value="${row.id}">`;
  const label = `${recipientOf(row)}, ${row.brand_name} ${row.market_code.toUpperCase()}`;
  const resend =
    row.status === 'pending'
      ? html`<form method="post" action="${ACCOUNT_PATHS.subscriptions}/resend">${hidden}<button type="submit" class="quiet">Send the confirmation again<span class="sr"> to ${label}</span></button></form> `
      : EMPTY;
  return html`<li data-subscription="${row.id}">
<div class="head"><span class="who">${recipientOf(row)}</span> <span class="state ${row.status}">${STATE_WORDS[row.status] ?? row.status}</span></div>
<p class="small">${row.brand_name} · ${row.market_code.toUpperCase()} · ${row.kinds
    .split(',')
    .map((k) => KIND_WORDS[k] ?? k)
    .join(', ')} · ${row.timezone}${row.channel_type && row.channel_type !== 'email' ? ` · alerts by ${row.channel_type}` : ''}</p>
${row.status === 'paused' && row.paused_reason ? html`<p class="small">Paused: ${row.paused_reason}</p>` : null}
${lastDeliveryLine(row.last_delivery)}
<p class="small">Added ${row.created_at.slice(0, 10)}${row.confirmed_at ? `, confirmed ${row.confirmed_at.slice(0, 10)}` : ''}${row.unsubscribed_at ? `, unsubscribed ${row.unsubscribed_at.slice(0, 10)}` : ''}</p>
<div class="actions">${resend}${askedFirst({ action: `${ACCOUNT_PATHS.subscriptions}/remove`, fields: hidden, verb: 'Remove', what: label, says: `Nothing more goes to ${recipientOf(row)} for ${row.brand_name} ${row.market_code.toUpperCase()}; to have it again, subscribe again.` })}</div>
</li>`;
}

/** The attributes of a field: invalid and described by its error when the error is its own. */
function described(view: SubscriptionsView, field: Field, hint?: string): Markup {
  const mine = view.error?.field === field;
  const ids = [mine ? `${field}-error` : '', hint ?? ''].filter(Boolean).join(' ');
  // A field's own error takes the focus (a fieldset's is announced: it takes no focus).
  const focus = mine && !['kinds', 'channel', 'quiet'].includes(field);
  return html`${mine ? html` aria-invalid="true"` : null}${focus ? html` autofocus` : null}${ids ? html` aria-describedby="${ids}"` : null}`;
}

const errorOf = (view: SubscriptionsView, field: Field) => (view.error?.field === field ? html`<p class="error" id="${field}-error" role="alert">${withCode(view.error.message)}</p>` : null);

function addForm(view: SubscriptionsView): Markup {
  const f = view.form;
  const kind = (value: string, label: string) => html`<label class="choice"><input type="checkbox" name="kinds" value="${value}"${f.kinds.includes(value) ? html` checked` : null}> ${label}</label>`;
  const channel = (value: string, label: string) => html`<label class="choice"><input type="radio" name="channel" value="${value}"${f.channel === value ? html` checked` : null}> ${label}</label>`;
  return html`<h2 id="add">Add a subscription</h2>
${view.error?.field === 'form' ? html`<p class="problem" id="form-error" role="alert">${withCode(view.error.message)}</p>` : null}
<form method="post" action="${ACCOUNT_PATHS.subscriptions}" novalidate>
<input type="hidden" name="csrf" value="${view.csrf}">
<div class="field"><label class="block" for="email">Email address</label>
<input type="email" id="email" name="email" value="${f.email}" autocomplete="email" required${described(view, 'email', 'email-hint')}>
${errorOf(view, 'email')}<p class="hint" id="email-hint">Where the digest goes, and the alerts by email. For a Slack or webhook channel: the owner's address, a contact only.</p></div>
<div class="field"><label class="block" for="scope">Brand and market</label>
<select id="scope" name="scope"${described(view, 'scope')}>${scopeOptions(view.brands, f.scope)}</select>
${errorOf(view, 'scope')}</div>
<fieldset id="kinds"${described(view, 'kinds')}><legend>What it gets</legend>
${kind('visibility', 'The weekly visibility digest')}${kind('won_lost', 'Won and lost questions in the digest')}${view.alerts ? kind('alerts', 'Change alerts (a big move, a lost question)') : null}
${errorOf(view, 'kinds')}</fieldset>
<div class="field"><label class="block" for="timezone">Timezone</label>
<input type="text" id="timezone" name="timezone" value="${f.timezone}" class="wide" list="zones" autocomplete="off" spellcheck="false"${f === EMPTY_FORM ? html` data-browser-zone` : null}${described(view, 'timezone', 'timezone-hint')}>
<datalist id="zones">${ZONES.map((zone) => html`<option value="${zone}"></option>`)}</datalist>
${errorOf(view, 'timezone')}<p class="hint" id="timezone-hint">A city or a zone, such as Berlin or America/New_York (this browser's is filled in): the digest comes on Monday morning there.</p></div>
${
  view.alerts
    ? html`<fieldset id="channel"${described(view, 'channel')}><legend>Where change alerts go</legend>
${channel('email', 'By email, to the address above')}${channel('slack', 'To a Slack channel (incoming webhook)')}${channel('webhook', 'To a webhook (signed, Standard Webhooks)')}
${errorOf(view, 'channel')}
<div class="field"><label class="block" for="channel_url">Slack or webhook URL</label>
<input type="url" id="channel_url" name="channel_url" value="${f.channel_url}" autocomplete="off" spellcheck="false"${described(view, 'channel_url', 'channel-hint')}>
${errorOf(view, 'channel_url')}<p class="hint" id="channel-hint">A Slack or webhook channel takes change alerts only. A test delivery carrying the confirm link goes there at once.</p></div>
</fieldset>
<fieldset id="quiet"${described(view, 'quiet', 'quiet-hint')}><legend>Quiet hours for alerts</legend>
<div class="times"><label>From <input type="time" name="quiet_start" value="${f.quiet_start}"></label> <label>to <input type="time" name="quiet_end" value="${f.quiet_end}"></label></div>
${errorOf(view, 'quiet')}<p class="hint" id="quiet-hint">Local time; nothing is delivered between them. The same two times: no quiet hours.</p>
</fieldset>`
    : null
}
<div class="actions"><button type="submit">Add</button></div>
</form>`;
}

/** Send this week's digest now to the confirmed subscribers of a brand and market (`POST /reports/weekly/send`). */
function sendForm(view: SubscriptionsView): Markup {
  return html`<h2 id="send">Send this week's digest now</h2>
<p>To the confirmed subscribers of one brand and market, without waiting for Monday (once in a while: a digest sent recently is not sent again).</p>
${view.error?.field === 'send' ? html`<p class="problem" id="send-error" role="alert">${withCode(view.error.message)}</p>` : null}
<form method="post" action="${ACCOUNT_PATHS.subscriptions}/send">
<input type="hidden" name="csrf" value="${view.csrf}">
<div class="field"><label class="block" for="send-scope">Brand and market</label>
<select id="send-scope" name="scope"${view.error?.field === 'send' ? html` aria-describedby="send-error"` : null}>${scopeOptions(view.brands, '')}</select></div>
<div class="actions"><button type="submit">Send now</button></div>
</form>`;
}

export function subscriptionsPage(status: number, view: SubscriptionsView): Response {
  const secret = view.webhookSecret
    ? html`<div class="notice" role="status"><p>Added. The webhook's signing secret, shown this once: keep it with your receiver to check each delivery's signature.</p>
<p><code class="secret" id="webhook-secret">${view.webhookSecret}</code>${copyButton('webhook-secret', 'the signing secret')}</p>
<p>The test delivery carrying the confirm link went to the webhook: the subscription starts once it is opened.</p></div>`
    : null;
  const body = html`<h1>Digests and alerts</h1>
${view.done ? html`<p class="notice" role="status">${DONE[view.done]}</p>` : null}${secret}${view.sent ? html`<p class="notice" role="status">${withCode(view.sent)}</p>` : null}
<p>Who gets the weekly digest and the change alerts of your brands. Each new address confirms by email first; a Slack or webhook channel by its test delivery.</p>
<h2>Subscriptions</h2>
${view.rows.length ? html`<ul class="cards">${view.rows.map((row) => card(row, view.csrf))}</ul>` : html`<p>None yet.</p>`}
${
  view.inactive
    ? html`<h2 id="add">Add a subscription, send now</h2>
${view.error ? html`<p class="problem" id="form-error" role="alert">${withCode(view.error.message)}</p>` : null}${inactiveNotice(view.inactive, 'Adding a subscription and sending the digest now read your brands: they come back with an active plan.')}`
    : html`${addForm(view)}
${sendForm(view)}`
}`;
  return accountPage(status, { title: 'Digests and alerts', body, current: 'subscriptions', csrf: view.csrf });
}
