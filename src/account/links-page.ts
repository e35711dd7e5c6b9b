/**
 * The "Share links" and "CSV links" screens: the form that makes a link, then
 * the key's live links, each with a Revoke button. A share link's URL is shown
 * once, on the answer to the form that made it (its token is not stored); a
 * CSV link's URL and its Google Sheets formula are listed, with copy buttons.
 */
import { html, type Markup } from '../lib/html';
import type { ParamRule } from '../contract/params';
import type { Brand } from './guard';
import { ACCOUNT_PATHS } from './paths';
import { accountPage, askedFirst, copyButton, inactiveNotice, scopeOptions, withCode } from './shell';

/** A form field an error is shown beside; `p.<name>` is a table's parameter (`p.days`, `p.engine`). */
export type LinkField = 'scope' | 'days' | 'operation' | 'kind' | 'form' | `p.${string}`;

/** What happened, said after the redirect (`?done=`): fixed words. */
export const LINK_DONE = { revoked: 'Revoked. The link no longer opens anything.' } as const;
export type LinkDone = keyof typeof LINK_DONE;

export interface LinkForm {
  scope: string;
  days: string;
  operation: string;
  /** What a share link opens: the weekly report or a view (`REPORT_KINDS`). */
  kind: string;
  /** The table's parameters as typed, by name (the brand and market are `scope`). */
  params: Record<string, string>;
}
export const EMPTY_LINK_FORM: LinkForm = { scope: '', days: '30', operation: 'history', kind: 'weekly', params: {} };

/** A table's parameter as a field: its name, its words, and what it takes (src/contract/params.ts). */
export interface ParamField {
  name: string;
  label: string;
  hint: string;
  rule: ParamRule;
}

interface Common {
  csrf: string;
  brands: readonly Brand[];
  form: LinkForm;
  error?: { field: LinkField; message: string };
  done?: LinkDone;
  /** The API's message when the key's plan is inactive: the live links and Revoke stay; making one needs a read. */
  inactive?: string;
}

const INACTIVE_MAKE = 'Making a link reads your brands: it comes back with an active plan. The live links below can still be revoked.';

export interface ShareView extends Common {
  links: readonly { id: string; brand_id: number; market: { code: string }; kind: string; created_at: string; expires_at: string }[];
  /** What a share link may open, by kind: its words. */
  kinds: readonly { id: string; label: string }[];
  /** The link just made: its URL is shown this once. */
  made?: { url: string; kind: string; expires_at: string };
}

export interface CsvView extends Common {
  links: readonly { id: string; url: string; operation: string; params: Record<string, string>; brand_id: number | null; market: { code: string } | null; created_at: string; expires_at: string }[];
  /** The operations a CSV link may name: id and words. */
  operations: readonly { id: string; label: string }[];
  /** The chosen table's parameters besides the brand and market. */
  fields: readonly ParamField[];
  made?: { id: string };
}

const day = (iso: string) => iso.slice(0, 10);
const brandName = (brands: readonly Brand[], id: number) => brands.find((b) => b.id === id)?.name ?? `Brand ${id}`;
/** `=IMPORTDATA("…")`: what a Google Sheets cell takes to read a CSV link. */
export const importFormula = (url: string) => `=IMPORTDATA("${url}")`;

function attrs(view: Common, field: LinkField, hint?: string): Markup {
  const mine = view.error?.field === field;
  const ids = [mine ? `${field}-error` : '', hint ?? ''].filter(Boolean).join(' ');
  return html`${mine ? html` aria-invalid="true" autofocus` : null}${ids ? html` aria-describedby="${ids}"` : null}`;
}
const errorOf = (view: Common, field: LinkField) => (view.error?.field === field ? html`<p class="error" id="${field}-error" role="alert">${withCode(view.error.message)}</p>` : null);
const formError = (view: Common) => (view.error?.field === 'form' ? html`<p class="problem" id="form-error" role="alert">${withCode(view.error.message)}</p>` : null);
const notice = (view: Common) => (view.done ? html`<p class="notice" role="status">${LINK_DONE[view.done]}</p>` : null);

function revokeButton(action: string, csrf: string, id: string, label: string): Markup {
  const fields = html`<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="id" value="${id}">`;
  return askedFirst({ action, fields, verb: 'Revoke', what: label, says: 'It stops opening at once, for everyone who has it; a new link has a new address.' });
}

function scopeAndDays(view: Common): Markup {
  return html`<div class="field"><label class="block" for="scope">Brand and market</label>
<select id="scope" name="scope"${attrs(view, 'scope')}>${scopeOptions(view.brands, view.form.scope)}</select>
${errorOf(view, 'scope')}</div>
<div class="field"><label class="block" for="days">Expires after (days)</label>
<input type="text" inputmode="numeric" id="days" name="days" value="${view.form.days}" autocomplete="off"${attrs(view, 'days', 'days-hint')}>
${errorOf(view, 'days')}<p class="hint" id="days-hint">1 to 90 days.</p></div>`;
}

export function sharePage(status: number, view: ShareView): Response {
  const kindLabel = (kind: string) => view.kinds.find((k) => k.id === kind)?.label ?? kind;
  const made = view.made
    ? html`<div class="notice" role="status"><p>The share link, shown this once (it is not stored, so it cannot be listed): anyone with it can open “${kindLabel(view.made.kind)}” until ${day(view.made.expires_at)}.</p>
<p><code class="secret" id="made-url">${view.made.url}</code>${copyButton('made-url', 'the share link')}</p></div>`
    : null;
  const list = view.links.length
    ? html`<ul class="cards">${view.links.map((l) => {
        const label = `${kindLabel(l.kind)}, ${brandName(view.brands, l.brand_id)} ${l.market.code.toUpperCase()}, until ${day(l.expires_at)}`;
        return html`<li data-link="${l.id}" data-kind="${l.kind}"><div class="head"><span class="who">${kindLabel(l.kind)}: ${brandName(view.brands, l.brand_id)} · ${l.market.code.toUpperCase()}</span></div>
<p class="small">Made ${day(l.created_at)}, expires ${day(l.expires_at)}</p>
<div class="actions">${revokeButton(`${ACCOUNT_PATHS.links}/revoke`, view.csrf, l.id, label)}</div></li>`;
      })}</ul>`
    : html`<p>No live share link.</p>`;
  const body = html`<h1>Share links</h1>
${notice(view)}${made}
<p>A share link opens the weekly report, or one of the views, of one brand and market without a key: for a client, a colleague, a slide. Revoke it and it stops at once.</p>
<h2 id="make">Make a share link</h2>
${formError(view)}
${
  view.inactive
    ? inactiveNotice(view.inactive, INACTIVE_MAKE)
    : html`<form method="post" action="${ACCOUNT_PATHS.links}" novalidate>
<input type="hidden" name="csrf" value="${view.csrf}">
<div class="field"><label class="block" for="kind">What it opens</label>
<select id="kind" name="kind"${attrs(view, 'kind')}>${view.kinds.map((k) => html`<option value="${k.id}"${k.id === view.form.kind ? html` selected` : null}>${k.label}</option>`)}</select>
${errorOf(view, 'kind')}</div>
${scopeAndDays(view)}
<div class="actions"><button type="submit">Make the link</button></div>
</form>`
}
<h2>Live links</h2>
${list}`;
  return accountPage(status, { title: 'Share links', body, current: 'links', csrf: view.csrf });
}

/** A CSV link titled by its table, brand, market and other parameters, in words: `The kept weekly history · Brightdesk US`. */
function csvCard(view: CsvView, l: CsvView['links'][number]): Markup {
  const table = view.operations.find((o) => o.id === l.operation)?.label ?? l.operation;
  const scope = l.brand_id ? `${brandName(view.brands, l.brand_id)}${l.market ? ` ${l.market.code.toUpperCase()}` : ''}` : '';
  const params = Object.entries(l.params)
    .filter(([k]) => k !== 'brand_id' && k !== 'market')
    .map(([k, v]) => `${k.replaceAll('_', ' ')} ${v}`);
  const label = [table, scope, ...params].filter(Boolean).join(' · ');
  const fresh = view.made?.id === l.id;
  return html`<li data-link="${l.id}"${fresh ? html` class="fresh"` : null}><div class="head"><span class="who">${label}</span></div>
<p class="small">Made ${day(l.created_at)}, expires ${day(l.expires_at)}</p>
<p class="label">CSV address</p><p><code id="url-${l.id}">${l.url}</code>${copyButton(`url-${l.id}`, `the CSV address of ${label}`)}</p>
<p class="label">Google Sheets formula</p><p><code id="formula-${l.id}">${importFormula(l.url)}</code>${copyButton(`formula-${l.id}`, `the formula of ${label}`)}</p>
<div class="actions">${revokeButton(`${ACCOUNT_PATHS.exports}/revoke`, view.csrf, l.id, label)}</div></li>`;
}

export function csvPage(status: number, view: CsvView): Response {
  const list = view.links.length ? html`<ul class="cards">${view.links.map((l) => csvCard(view, l))}</ul>` : html`<p>No live CSV link.</p>`;
  const body = html`<h1>CSV links</h1>
${notice(view)}${view.made ? html`<p class="notice" role="status">Made: its address and formula are first under <a href="#live">Live links</a>.</p>` : null}
<p>A CSV link reads one table of the API each time it is opened, with your key's plan and budget: paste its formula into a Google Sheets cell and the sheet refreshes itself. Revoke it and it stops at once.</p>
<h2 id="make">Make a CSV link</h2>
${formError(view)}
${view.inactive ? inactiveNotice(view.inactive, INACTIVE_MAKE) : csvForm(view)}
<h2 id="live">Live links</h2>
${list}`;
  return accountPage(status, { title: 'CSV links', body, current: 'exports', csrf: view.csrf });
}

/** The field's id in the page: `p-days` for `p.days`. */
const idOf = (field: LinkField) => field.replace('.', '-');

/** One parameter of the chosen table as a field of its kind: a number, a date, a choice, or text (an open choice suggests its examples). */
function paramField(view: CsvView, f: ParamField): Markup {
  const name: LinkField = `p.${f.name}`;
  const id = idOf(name);
  const value = view.form.params[f.name] ?? '';
  const mine = view.error?.field === name;
  const described = html`${mine ? html` aria-invalid="true" autofocus` : null} aria-describedby="${[mine ? `${id}-error` : '', `${id}-hint`].filter(Boolean).join(' ')}"`;
  const rule = f.rule;
  let input: Markup;
  if (rule.kind === 'enum' && !rule.open)
    input = html`<select id="${id}" name="${name}"${described}><option value="">As the API chooses</option>${rule.values.map((v) => html`<option value="${v}"${v === value ? html` selected` : null}>${v}</option>`)}</select>`;
  else if (rule.kind === 'int')
    input = html`<input type="number" id="${id}" name="${name}" value="${value}" min="${rule.min}" max="${rule.edgeMax ?? rule.max}" step="1" inputmode="numeric" autocomplete="off"${described}>`;
  else if (rule.kind === 'date') input = html`<input type="date" id="${id}" name="${name}" value="${value}"${described}>`;
  else if (rule.kind === 'enum')
    input = html`<input type="text" id="${id}" name="${name}" value="${value}" list="${id}-values" autocomplete="off" spellcheck="false"${described}><datalist id="${id}-values">${rule.values.map((v) => html`<option value="${v}"></option>`)}</datalist>`;
  else input = html`<input type="text" id="${id}" name="${name}" value="${value}" class="wide" maxlength="${rule.kind === 'text' ? rule.max : 64}" autocomplete="off" spellcheck="false"${described}>`;
  const error = mine ? html`<p class="error" id="${id}-error" role="alert">${withCode(view.error!.message)}</p>` : null;
  return html`<div class="field"><label class="block" for="${id}">${f.label}</label>
${input}
${error}<p class="hint" id="${id}-hint">${withCode(f.hint)}</p></div>`;
}

function csvForm(view: CsvView): Markup {
  const chosen = view.operations.find((o) => o.id === view.form.operation) ?? view.operations[0]!;
  // Choosing the table reloads the page with its parameters as fields: no script needed.
  const choose = html`<form method="get" action="${ACCOUNT_PATHS.exports}#make" class="choose">
<div class="field"><label class="block" for="table">Table</label>
<select id="table" name="table"${attrs(view, 'operation')}>${view.operations.map((o) => html`<option value="${o.id}"${o.id === chosen.id ? html` selected` : null}>${o.label}</option>`)}</select>
${errorOf(view, 'operation')}</div>
<div class="actions"><button type="submit" class="quiet">Show its parameters</button></div>
</form>`;
  return html`${choose}<form method="post" action="${ACCOUNT_PATHS.exports}" novalidate aria-label="A CSV link of ${chosen.label}">
<input type="hidden" name="csrf" value="${view.csrf}">
<input type="hidden" name="operation" value="${chosen.id}">
<p class="small">${chosen.label}${view.fields.length ? `: ${view.fields.length === 1 ? 'its parameter' : 'its parameters'} below, each optional unless it says so.` : ': no parameter beside the brand and market.'}</p>
${scopeAndDays(view)}
${view.fields.map((f) => paramField(view, f))}
<div class="actions"><button type="submit">Make the link</button></div>
</form>`;
}
