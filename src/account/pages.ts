/**
 * The pages for people, in the product's one look (src/lib/html.ts): the
 * front door (`GET /` in a browser), the sign-in page, and the shell of the
 * signed-in pages (a navigation and a sign-out button) with the overview and
 * "Connect an assistant". The subscriptions screen is subscriptions-page.ts.
 * Every value is escaped by the `html` template; the key is never written
 * into a page.
 */
import { VIEW_KINDS, VIEWS } from '../views';
import { EMPTY, html, htmlDocument, type Markup, newNonce, pageHeaders, trusted } from '../lib/html';
import { inlineScript } from '../lib/markup';
import { formatPercent, formatTrend } from '../weekly-report/words';
import { sparklineSvg } from '../weekly-report/chart';
import type { OverviewWeek } from './overview';

export const ACCOUNT_BASE = '/account';
export const ACCOUNT_PATHS = {
  signIn: `${ACCOUNT_BASE}/sign-in`,
  signOut: `${ACCOUNT_BASE}/sign-out`,
  overview: ACCOUNT_BASE,
  subscriptions: `${ACCOUNT_BASE}/subscriptions`,
  links: `${ACCOUNT_BASE}/links`,
  report: `${ACCOUNT_BASE}/report`,
  history: `${ACCOUNT_BASE}/history`,
  exports: `${ACCOUNT_BASE}/exports`,
  views: `${ACCOUNT_BASE}/views`,
} as const;

const SECTION = 'your account';

/** The forms, their fields and messages: one style for every page here. */
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

/** A copy button for the text of the element `id` (shown only with scripts). */
/**
 * An action that cannot be undone, asked first: its name opens a line that says what it does and the button that
 * does it (`details`, so it asks without a script, by keyboard too). `fields` are the form's hidden inputs.
 */
export function askedFirst(o: { action: string; fields: Markup; verb: string; what: string; says: string }): Markup {
  return html`<details class="ask"><summary>${o.verb}<span class="sr"> ${o.what}</span>…</summary><form method="post" action="${o.action}">${o.fields}<p class="small">${o.says}</p><button type="submit" class="danger">Yes, ${o.verb.toLowerCase()}<span class="sr"> ${o.what}</span></button></form></details>`;
}

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
 * forms' check reads the Origin (routes.ts). No URL here carries a token, and no referrer goes to other sites.
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

/** A browser's 404 (where a client that asks for JSON gets the API's): a title, the language, and the ways back. */
export function notFoundPage(signedIn: boolean): Response {
  const body = html`<h1>Nothing here</h1>
<p>This address is not a page of this site: the link may be old or cut short.</p>
<p>${signedIn ? html`<a class="cta" href="${ACCOUNT_PATHS.overview}">Go to your account</a>` : html`<a class="cta" href="/">Go to the front page</a>`}</p>`;
  return accountPage(404, { title: 'Nothing here', body, width: 'narrow' });
}

/** What a deployment tells a person at its front door, and developers where the API is. */
export function frontDoor(origin: string, signedIn: boolean): Response {
  const body = html`<h1>Brand AI-Visibility</h1>
<p class="door">How often AI assistants (ChatGPT, Perplexity, Gemini and others) mention your brand, and what changed this week: a weekly report, digests by email, change alerts, share links and CSV exports.</p>
<p>${signedIn ? html`<a class="cta" href="${ACCOUNT_PATHS.overview}">Go to your account</a>` : html`<a class="cta" href="${ACCOUNT_PATHS.signIn}">Sign in with your API key</a>`}</p>
<p class="small">Signing in takes the Read API key of your account. It is checked with the API and kept encrypted on this server for a working day; it is never put in a page or a link.</p>
<h2>For developers</h2>
<dl class="facts">
<dt>Read API</dt><dd><code>${origin}/api/v1</code> (OpenAPI: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>)</dd>
<dt>Product routes</dt><dd>digests, reports, exports: <a href="/openapi.json">/openapi.json</a></dd>
<dt>MCP server</dt><dd><code>${origin}/mcp</code> (for AI assistants)</dd>
</dl>`;
  return accountPage(200, { title: 'Welcome', body, width: 'narrow' });
}

/** Why the sign-in page is shown again, said after the redirect that brought the person there. */
export const SIGN_IN_NOTES = {
  'signed-out': 'You are signed out.',
  ended: 'Your session has ended (a working day is its limit). Sign in again.',
  revoked: 'Your session has ended: the API no longer accepts its key (revoked or unknown). Sign in with a current key.',
} as const;
export type SignInNote = keyof typeof SIGN_IN_NOTES;

export function signInPage(status: number, o: { error?: string; note?: SignInNote }, extraHeaders: Record<string, string> = {}): Response {
  const invalid = o.error ? html` aria-invalid="true" aria-describedby="key-error key-hint" autofocus` : html` aria-describedby="key-hint"`;
  const body = html`<h1>Sign in</h1>
${o.note ? html`<p class="notice" role="status">${SIGN_IN_NOTES[o.note]}</p>` : null}
<p>Sign in with your Read API key to manage your digests and alerts, share links and CSV links, and to connect an assistant.</p>
<form method="post" action="${ACCOUNT_PATHS.signIn}">
<div class="field">
<label class="block" for="api_key">Your Read API key</label>
<input type="password" id="api_key" name="api_key" required autocomplete="off" spellcheck="false" autocapitalize="off"${invalid}>
${o.error ? html`<p class="error" id="key-error" role="alert">${withCode(o.error)}</p>` : null}
<p class="hint" id="key-hint">The key is checked with the API, then kept encrypted on this server for a working day (8 hours) or until you sign out.</p>
</div>
<div class="actions"><button type="submit">Sign in</button></div>
</form>`;
  return accountPage(status, { title: 'Sign in', body, width: 'narrow' }, extraHeaders);
}

/** The brand and market choices of a form: `<brand id>:<market code>`, as the forms post them. */
export function scopeOptions(brands: readonly Brand[], selected: string): Markup {
  const scopes = brands.flatMap((b) => (b.markets.length ? b.markets : [{ code: '' }]).map((m) => ({ value: `${b.id}:${m.code}`, label: m.code ? `${b.name} · ${m.code.toUpperCase()}` : b.name })));
  return html`${scopes.map((s) => html`<option value="${s.value}"${s.value === selected ? html` selected` : null}>${s.label}</option>`)}`;
}

/** The brand and market a form's `scope` names, as the JSON bodies take them. */
export function scopeOf(scope: string): { brand_id?: number; market?: string } {
  const found = /^(\d+):(.*)$/.exec(scope);
  return found ? { brand_id: Number(found[1]), ...(found[2] ? { market: found[2] } : {}) } : {};
}

export interface Brand {
  id: number;
  name: string;
  domain: string;
  markets: readonly { code: string }[];
}

/**
 * Where a key whose plan is inactive is refused a read: the API's message (the upstream's words, escaped), and
 * what it may still do there.
 */
export const inactiveNotice = (message: string, still: string) => html`<p class="problem" id="inactive" role="status">The API reads nothing for this key. ${withCode(message)} ${still}</p>`;

/** The overview: the key's brands, where each screen is, and how to connect an assistant. */
export function overviewPage(o: { csrf: string; brands: readonly Brand[]; weeks: readonly OverviewWeek[]; origin: string; expiresAt: Date; inactive?: string }): Response {
  const brands = o.inactive
    ? inactiveNotice(o.inactive, 'Until the plan is active again, you can still see and remove your subscriptions and see and revoke your share links and CSV links.')
    : o.weeks.length
      ? html`<ul class="weeks" data-testid="weeks">${o.weeks.map(weekCard)}</ul>`
      : html`<p>The key reads no brand yet.</p>`;
  const body = html`<h1>Your account</h1>
<p>Signed in until ${o.expiresAt.toISOString().slice(11, 16)} UTC.${o.inactive ? null : ` The key reads ${o.brands.length === 1 ? 'one brand' : `${o.brands.length} brands`}, each market's last 7 days below:`}</p>
${brands}
<h2>What you can do here</h2>
<ul>
<li><a href="${ACCOUNT_PATHS.subscriptions}">Digests and alerts</a>: who gets the weekly digest and the change alerts, by email, Slack or webhook; add, confirm again, remove; send this week's digest now.</li>
<li><a href="${ACCOUNT_PATHS.links}">Share links</a>: the weekly report for someone without a key, until the link expires or you revoke it.</li>
<li><a href="${ACCOUNT_PATHS.exports}">CSV links</a>: any table of the API as a CSV address, for a spreadsheet's <code>IMPORTDATA</code>.</li>
</ul>
${assistantSection(o.origin)}`;
  return accountPage(200, { title: 'Your account', body, current: 'overview', csrf: o.csrf });
}

/** One brand and market's week on the overview: the score against the noise, won and lost, 12 weeks, the first action, and its pages. */
function weekCard(w: OverviewWeek): Markup {
  const scope = new URLSearchParams({ brand_id: String(w.brandId), market: w.market }).toString();
  const where = `${w.brand} ${w.market.toUpperCase()}`;
  const views = VIEW_KINDS.map((kind) => html` · <a href="${ACCOUNT_PATHS.views}/${kind}?${scope}">${VIEWS[kind].heading}<span class="sr"> of ${where}</span></a>`);
  const links = html`<p class="small"><a href="${ACCOUNT_PATHS.report}?${scope}">The weekly report<span class="sr"> for ${where}</span></a> · <a href="${ACCOUNT_PATHS.history}?${scope}">the kept history<span class="sr"> of ${where}</span></a>${views}</p>`;
  const head = html`<h3>${w.brand} <span class="small">${w.market.toUpperCase()}</span></h3>`;
  if (!w.week) return html`<li data-scope="${scope}">${head}<p class="small">Not read just now: ${w.problem ?? 'the Read API did not answer'}</p>${links}</li>`;
  const { week } = w;
  const trend = week.trend === 'up' ? 'up' : week.trend === 'down' ? 'down' : 'flat';
  return html`<li data-scope="${scope}" data-score="${week.score === null ? '' : week.score.toFixed(1)}">${head}
<p class="figure"><strong>${formatPercent(week.score)}</strong> <span class="${trend}">${formatTrend(week.change, week.trend)}</span></p>
<p class="small">${week.period}: <span class="down">${week.lost} lost</span> · <span class="up">${week.won} won</span></p>
${sparklineSvg(week.history, `${where}, score by week, last ${week.history.length} weeks`)}
${week.action ? html`<p class="action"><span class="small">This week:</span> ${week.action}</p>` : EMPTY}${links}</li>`;
}

/** The MCP address and the steps for each client docs/mcp.md covers. */
function assistantSection(origin: string): Markup {
  const url = `${origin}/mcp`;
  const block = (id: string, text: string, what: string) => html`<pre id="${id}">${text}</pre>${copyButton(id, what)}`;
  return html`<h2 id="assistant">Connect an assistant</h2>
<p>Assistants read your data through the MCP server at this address (they ask for your key on a consent page of this site, then never see it):</p>
<p><code id="mcp-url">${url}</code>${copyButton('mcp-url', 'the MCP address')}</p>
<h3>Claude.ai and Claude Desktop</h3>
<p>Settings, <strong>Connectors</strong>, <strong>Add custom connector</strong>: a name and the address above, <strong>Add</strong>, then <strong>Connect</strong>. The consent page opens: paste your key, <strong>Continue</strong>, <strong>Approve</strong>.</p>
<h3>ChatGPT</h3>
<p>Settings, <strong>Apps &amp; Connectors</strong>, <strong>Advanced settings</strong>, turn on <strong>Developer mode</strong>; then <strong>Create</strong>: a name, the address above, authentication <strong>OAuth</strong>, <strong>Create</strong>.</p>
<h3>Cursor</h3>
<p>In <code>~/.cursor/mcp.json</code>, then Settings, MCP, <strong>Needs login</strong>:</p>
${block('cfg-cursor', JSON.stringify({ mcpServers: { 'brand-visibility': { url } } }), 'the Cursor configuration')}
<h3>VS Code</h3>
<p>In <code>.vscode/mcp.json</code>, then <strong>Start</strong> the server:</p>
${block('cfg-vscode', JSON.stringify({ servers: { 'brand-visibility': { type: 'http', url } } }), 'the VS Code configuration')}
<h3>Claude Code</h3>
${block('cfg-claude-code', `claude mcp add --transport http brand-visibility ${url}`, 'the Claude Code command')}
<p>Then <code>/mcp</code> in a session, <strong>Authenticate</strong>.</p>
<h3>Other clients (mcp-remote)</h3>
${block('cfg-remote', `npx -y mcp-remote ${url}`, 'the mcp-remote command')}`;
}

/** A form that could not be accepted (another site's, an expired page's): said, never acted on. */
export function refusedFormPage(reason: string): Response {
  const body = html`<h1>This form was not accepted</h1>\n<p>${reason}</p>\n<p><a href="${ACCOUNT_PATHS.overview}">Open your account</a> and try again from there.</p>`;
  return accountPage(403, { title: 'Form not accepted', body, width: 'narrow' });
}
