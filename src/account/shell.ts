/**
 * The shell of the account's pages, in the product's one look (src/lib/html.ts): the style of its forms, the
 * navigation and sign-out button of a signed-in page (`accountPage`, and `accountFrame` for another feature's
 * page in a session), the small parts the screens share, and the page of a refused form, which `answering` shows
 * when the guard refused one. Every value is escaped by the `html` template; the key is never written into a page.
 */
import { EMPTY, html, htmlDocument, type Markup, newNonce, pageHeaders, trusted } from '../lib/html';
import { inlineScript } from '../lib/markup';
import { FormRefused } from './form';
import { type Brand, Redirect } from './guard';
import { ACCOUNT_PATHS } from './paths';

const SECTION = 'your account';

/** The account's navigation, also on the report and history pages read in a session (`accountFrame`). */
const NAV_STYLE = `
.nav{display:flex;flex-wrap:wrap;gap:8px 18px;align-items:center;margin:0 0 20px;padding:0 0 12px;border-bottom:1px solid var(--rule)}
.nav a[aria-current=page]{font-weight:700;color:var(--ink)}
.nav form{margin:0 0 0 auto}
.nav button{padding:6px 12px}
.scopes{display:flex;flex-wrap:wrap;gap:6px;list-style:none;padding:0;margin:-8px 0 16px;font-size:14px}
.scopes a,.scopes .here{display:inline-block;padding:3px 10px;border:1px solid var(--rule);border-radius:999px;text-decoration:none}
.scopes .here{background:var(--ink);color:var(--page);border-color:var(--ink);font-weight:600}
@media (max-width:520px){.nav form{margin:0}}`;

/** The forms, their fields and messages: one style for every page here. */
export const ACCOUNT_STYLE = `${NAV_STYLE}
.field{margin:0 0 16px}
label.block,.label{display:block;font-weight:600;margin:0 0 4px}
input[type=text],input[type=email],input[type=password],input[type=url],input[type=time],input[type=number],input[type=date],select{font:inherit;padding:8px 10px;border:1px solid var(--muted);border-radius:6px;background:var(--page);color:var(--ink);max-width:100%}
input[type=email],input[type=password],input[type=url],select,input.wide{width:100%}
input:focus-visible,select:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
fieldset{border:1px solid var(--rule);border-radius:6px;margin:0 0 16px;padding:8px 12px 12px;min-width:0}
legend{font-weight:600;padding:0 4px}
.choice{display:flex;gap:8px;align-items:center;margin:6px 0}
.choice input{width:18px;height:18px;margin:0}
.times{display:flex;flex-wrap:wrap;gap:12px}
[aria-invalid=true]{border:2px solid var(--bad)!important}
.error{color:var(--bad);font-weight:600;margin:6px 0 0}
.hint{font-size:14px;color:var(--muted);margin:4px 0 0}
.notice,.problem{padding:10px 14px;background:var(--panel);margin:0 0 16px;border-left:4px solid var(--good)}
.problem{border-left-color:var(--bad)}
.actions{display:flex;flex-wrap:wrap;gap:12px;margin-top:12px;align-items:flex-start}
details.ask>summary{display:inline-block;cursor:pointer;font-weight:600;color:var(--link);border:1px solid var(--rule);border-radius:6px;padding:10px 18px;list-style:none}
details.ask>summary::-webkit-details-marker{display:none}
details.ask[open]>summary{border-color:var(--bad);color:var(--bad)}
details.ask form{margin-top:8px}
button.danger{background:var(--bad);color:var(--page)}
.cards{list-style:none;margin:0 0 16px;padding:0}
.cards>li{border:1px solid var(--rule);border-radius:6px;padding:12px 14px;margin:0 0 12px}
.cards .head{display:flex;flex-wrap:wrap;gap:6px 12px;align-items:baseline;justify-content:space-between}
.cards .who{font-weight:700;overflow-wrap:anywhere}
.state{display:inline-block;font-size:13px;font-weight:700;padding:0 8px;border-radius:10px;border:1px solid currentColor}
.state.active{color:var(--good)}
.state.paused,.state.unsubscribed,.small.bad{color:var(--bad)}
.state.pending{color:var(--muted)}
.cards form{display:inline}
.cards button,.cards details.ask>summary{padding:6px 12px;font-size:14px}
.secret{font-weight:700;overflow-wrap:anywhere}
.door{font-size:18px}
.cta{display:inline-block;font-weight:600;background:var(--button);color:#fff;border-radius:6px;padding:10px 18px;text-decoration:underline}
.copy{margin-left:8px;padding:4px 10px;font-size:14px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:0 0 12px}
ul.weeks{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fit,minmax(240px,1fr));gap:12px;margin:0 0 16px}
ul.weeks>li{border:1px solid var(--rule);border-radius:6px;padding:10px 14px}
ul.weeks h3{margin:0 0 4px;font-size:16px}
ul.weeks .figure{margin:0;font-size:15px}ul.weeks .figure strong{font-size:26px}
ul.weeks .spark{color:var(--accent);display:block;margin:4px 0}
ul.weeks .action{margin:6px 0;font-size:15px}
.up{color:var(--good)}.down{color:var(--bad)}.flat{color:var(--muted)}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;overflow-wrap:anywhere}
@media (max-width:520px){dl.facts{grid-template-columns:1fr}}
`;

/**
 * Shows the copy buttons (hidden without scripts) beside each `[data-copy]` block, and copies its text; fills a fresh
 * form's timezone with this browser's.
 */
const COPY_SCRIPT = `(function(){var z=document.querySelector('input[data-browser-zone]');try{var n=Intl.DateTimeFormat().resolvedOptions().timeZone;if(z&&n)z.value=n;}catch(e){}})();(function(){document.querySelectorAll('button.copy').forEach(function(b){var t=document.getElementById(b.getAttribute('data-for'));if(!t)return;b.hidden=false;b.addEventListener('click',function(){var s=function(x){b.textContent=x;};if(!navigator.clipboard){s('Select and copy');return;}navigator.clipboard.writeText(t.textContent.trim()).then(function(){s('Copied');},function(){s('Select and copy');});});});})();`;

/**
 * An action that cannot be undone, asked first: its name opens a line that says what it does and the button that
 * does it (`details`, so it asks without a script, by keyboard too). `fields` are the form's hidden inputs.
 */
export function askedFirst(o: { action: string; fields: Markup; verb: string; what: string; says: string }): Markup {
  return html`<details class="ask"><summary>${o.verb}<span class="sr"> ${o.what}</span>…</summary><form method="post" action="${o.action}">${o.fields}<p class="small">${o.says}</p><button type="submit" class="danger">Yes, ${o.verb.toLowerCase()}<span class="sr"> ${o.what}</span></button></form></details>`;
}

/** A copy button for the text of the element `id` (shown only with scripts). */
export const copyButton = (id: string, what: string) => html`<button type="button" class="copy quiet" data-for="${id}" hidden>Copy<span class="sr"> ${what}</span></button>`;

/**
 * An API message shown beside its field, in people's words: the field's own API name at its start is the field
 * beside it, so it reads "This" (`` `days` must be at most 90. `` → "This must be at most 90."); another API name
 * the screen has a label for reads as that label, quoted (`` add `alerts` to `kinds` `` → "add “Change alerts” to
 * “What it gets”"). Names the screen has no label for stay as code.
 */
export function inPeoplesWords(message: string, param: string | undefined, labels: Readonly<Record<string, string>>): string {
  const own = param === undefined ? undefined : `\`${param.replace(/^params\./, '')}\` `;
  const text = own && message.startsWith(own) ? `This ${message.slice(own.length)}` : message;
  return text.replace(/`([A-Za-z_.]+)`/g, (code, name: string) => (Object.hasOwn(labels, name) ? `“${labels[name]}”` : code));
}

/** Text with `code` spans in backticks, as the API's messages write them, shown as code. */
export function withCode(message: string): Markup {
  return html`${message.split('`').map((part, i) => (i % 2 ? html`<code>${part}</code>` : part))}`;
}

export interface Shell {
  /** The page's `<title>` and `<h1>`. */
  title: string;
  body: Markup;
  /** Where the navigation marks the page as current. */
  current?: keyof typeof ACCOUNT_PATHS;
  /** Signed in: the session's form token, for the sign-out button. */
  csrf?: string;
  width?: 'wide' | 'narrow';
}

/** A whole page for people: the navigation when signed in, the body, and the copy script; with its headers. */
export function accountPage(status: number, o: Shell, extraHeaders: Record<string, string> = {}): Response {
  const nonce = newNonce();
  const nav = o.csrf ? accountNav(o.csrf, o.current) : EMPTY;
  const document = htmlDocument({
    title: o.title,
    section: SECTION,
    body: html`${nav}${o.body}`,
    style: trusted(ACCOUNT_STYLE),
    width: o.width ?? 'wide',
    script: { nonce, code: inlineScript(COPY_SCRIPT) },
  });
  const headers = { ...pageHeaders({ scriptNonce: nonce, formAction: 'self' }), ...FORM_HEADERS, ...extraHeaders };
  return new Response(document.html, { status, headers });
}

/**
 * `same-origin`, not the pages' usual `no-referrer`: under that a browser posts forms with `Origin: null`, and the
 * forms' check reads the Origin (form.ts). No URL here carries a token, and no referrer goes to other sites.
 */
const FORM_HEADERS = { 'referrer-policy': 'same-origin' };

/** The navigation of a signed-in page: the account's screens (`current` marked) and the sign-out button. */
function accountNav(csrf: string, current?: keyof typeof ACCOUNT_PATHS): Markup {
  const link = (path: keyof typeof ACCOUNT_PATHS, label: string) => html`<a href="${ACCOUNT_PATHS[path]}"${current === path ? html` aria-current="page"` : null}>${label}</a>`;
  return html`<nav class="nav" aria-label="Your account">${link('overview', 'Overview')} ${link('subscriptions', 'Digests and alerts')} ${link('links', 'Share links')} ${link('exports', 'CSV links')}
<form method="post" action="${ACCOUNT_PATHS.signOut}"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="quiet">Sign out</button></form></nav>\n`;
}

/** The brand and market a page shows, and the page's path: where its switch leads (`scopeSwitch`). */
export interface Shown {
  brands: readonly Brand[];
  path: string;
  /** Marked as the one shown; absent when the address left the choice to the API. */
  current?: { brandId: number; market: string } | undefined;
}

/** Every brand and market of the key as links to the same page, the one shown marked: on a page of one brand and market. */
function scopeSwitch(shown: Shown): Markup {
  const pairs = shown.brands.flatMap((brand) => brand.markets.map((market) => ({ brand, market: market.code.toLowerCase() })));
  if (pairs.length < 2) return EMPTY;
  const items = pairs.map(({ brand, market }) => {
    const label = `${brand.name} · ${market.toUpperCase()}`;
    const here = shown.current?.brandId === brand.id && shown.current.market === market;
    return here
      ? html`<li><span class="here" aria-current="page">${label}</span></li>`
      : html`<li><a href="${shown.path}?${new URLSearchParams({ brand_id: String(brand.id), market }).toString()}">${label}</a></li>`;
  });
  return html`<nav aria-label="Brand and market"><ul class="scopes" data-testid="scopes">${items}</ul></nav>
`;
}

/**
 * What a page of another feature (the report, the kept history) wears inside the account: its navigation, with the
 * switch between the key's brands and markets when `shown` says which page it is, its style and form headers.
 */
export const accountFrame = (csrf: string, shown?: Shown) => ({
  nav: html`${accountNav(csrf)}${shown ? scopeSwitch(shown) : EMPTY}`,
  style: trusted(NAV_STYLE),
  headers: { ...FORM_HEADERS },
});

/** The brand and market choices of a form: `<brand id>:<market code>`, as the forms post them. */
export function scopeOptions(brands: readonly Brand[], selected: string): Markup {
  const scopes = brands.flatMap((b) => (b.markets.length ? b.markets : [{ code: '' }]).map((m) => ({ value: `${b.id}:${m.code}`, label: m.code ? `${b.name} · ${m.code.toUpperCase()}` : b.name })));
  return html`${scopes.map((s) => html`<option value="${s.value}"${s.value === selected ? html` selected` : null}>${s.label}</option>`)}`;
}

/**
 * Where a key whose plan is inactive is refused a read: the API's message (the upstream's words, escaped), and
 * what it may still do there.
 */
export const inactiveNotice = (message: string, still: string) => html`<p class="problem" id="inactive" role="status">The API reads nothing for this key. ${withCode(message)} ${still}</p>`;

/** A form that could not be accepted (another site's, an expired page's): said, never acted on. */
export function refusedFormPage(reason: string): Response {
  const body = html`<h1>This form was not accepted</h1>\n<p>${reason}</p>\n<p><a href="${ACCOUNT_PATHS.overview}">Open your account</a> and try again from there.</p>`;
  return accountPage(403, { title: 'Form not accepted', body, width: 'narrow' });
}

/** Runs a handler; what the guard decided early is its answer: a redirect (to sign in), or a refused form's page. */
export const answering =
  <A extends unknown[]>(handler: (...args: A) => Promise<Response>) =>
  async (...args: A): Promise<Response> => {
    try {
      return await handler(...args);
    } catch (error) {
      if (error instanceof Redirect) return error.response;
      if (error instanceof FormRefused) return refusedFormPage(error.reason);
      throw error;
    }
  };
