/**
 * The consent page of OAuth for `/mcp` (consent.ts serves it): in the
 * product's look (src/lib/html.ts), one narrow column, two steps. First the
 * person pastes their Read API key (`api_key`); once the key is checked
 * upstream, the page lists the brands it reads and asks for the final
 * Approve. Deny is on both steps. Everything the client chose (its name, its
 * redirect host) is escaped; the key is never written into the page.
 */
import type { ConsentDescription } from '@cloudflare/workers-oauth-provider';
import { html, htmlDocument, type Markup, pageHeaders, trusted } from '../lib/html';

const SECTION = 'connect an assistant';

const STYLE = `
.client{font-weight:700}
.facts{margin:0 0 16px;padding:12px 16px;background:var(--panel);border:1px solid var(--rule);border-radius:6px}
.facts ul{margin:6px 0 0;padding-left:20px}
.warn{border-left:4px solid var(--bad);padding:8px 12px;background:var(--panel);margin:0 0 16px}
label{display:block;font-weight:600;margin:0 0 4px}
input[type=password]{display:block;width:100%;font:inherit;padding:10px;border:1px solid var(--muted);border-radius:6px;background:var(--page);color:var(--ink)}
input[aria-invalid=true]{border:2px solid var(--bad)}
.error{color:var(--bad);font-weight:600;margin:8px 0 0}
.hint{font-size:14px;color:var(--muted);margin:6px 0 0}
.actions{display:flex;flex-wrap:wrap;gap:12px;margin-top:20px}
.brands{margin:0 0 16px;padding-left:20px}
.brands li{margin:4px 0}
`;

/** What both steps show about the request. */
export interface ConsentView {
  client: ConsentDescription;
  /** The consent transaction's handle: the form's CSRF token (consent.ts). */
  handle: string;
}

export type ConsentStep = { step: 'key'; error?: string } | { step: 'approve'; brands: readonly { name: string; domain: string; markets: readonly { code: string }[] }[] };

/** Who asks, and where the access goes: the facts the MCP spec asks a consent page to show. */
function whoAsks(client: ConsentDescription): Markup {
  const origin = client.clientDomain ? html`It is published by <strong>${client.clientDomain}</strong>.` : 'It named itself when it registered: the name is not verified.';
  const loopback = client.redirectIsLoopback
    ? html`<p class="warn"><strong>The access goes to an app on this computer</strong> (${client.redirectHost}). Continue only if you just started connecting from it.</p>`
    : null;
  return html`<p><span class="client">${client.clientName}</span> asks to read your Brand AI-Visibility data. ${origin} If you approve, the access is sent to <strong>${client.redirectHost}</strong>.</p>
${loopback}`;
}

const WHAT_IT_CAN_DO = html`<div class="facts"><strong>What it will be able to do</strong>
<ul>
<li>Read, never change: the same data as your API key reads at <code>/api/v1</code>, for every brand the key reads, within the key's plan and its limit of 60 upstream reads a minute.</li>
<li>It never sees your key: it gets an access token that stands for it, for an hour at a time, renewed for up to 90 days.</li>
<li>It ends when you disconnect it in the assistant or when the key is revoked; what the key's plan does not include, it cannot read either.</li>
</ul></div>`;

function keyStep(view: ConsentView, error: string | undefined): Markup {
  const invalid = error ? html` aria-invalid="true" aria-describedby="key-error key-hint" autofocus` : html` aria-describedby="key-hint"`;
  return html`<h1>Connect ${view.client.clientName}</h1>
${whoAsks(view.client)}
${WHAT_IT_CAN_DO}
<form method="post">
<input type="hidden" name="handle" value="${view.handle}">
<input type="hidden" name="step" value="key">
<label for="api_key">Your Read API key</label>
<input type="password" id="api_key" name="api_key" required autocomplete="off" spellcheck="false" autocapitalize="off"${invalid}>
${error ? html`<p class="error" id="key-error" role="alert">${error}</p>` : null}
<p class="hint" id="key-hint">The key is checked with the API, then kept encrypted with this authorization only. Next you see which brands it reads.</p>
<div class="actions">
<button type="submit" name="decision" value="check">Continue</button>
<button type="submit" name="decision" value="deny" class="quiet" formnovalidate>Deny</button>
</div>
</form>`;
}

function approveStep(view: ConsentView, brands: Extract<ConsentStep, { step: 'approve' }>['brands']): Markup {
  const list = brands.length
    ? html`<ul class="brands">${brands.map((b) => html`<li><strong>${b.name}</strong> <span class="small">${b.domain}${b.markets.length ? ` · ${b.markets.map((m) => m.code).join(', ')}` : ''}</span></li>`)}</ul>`
    : html`<p>The key reads no brand yet.</p>`;
  return html`<h1>Approve ${view.client.clientName}?</h1>
${whoAsks(view.client)}
<p>The key is valid. ${view.client.clientName} will be able to read, and only read, ${brands.length === 1 ? 'this brand' : `these ${brands.length} brands`}:</p>
${list}
<form method="post">
<input type="hidden" name="handle" value="${view.handle}">
<input type="hidden" name="step" value="approve">
<div class="actions">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" class="quiet">Deny</button>
</div>
</form>`;
}

/**
 * The page's headers: the product's (no caching, no referrer, no framing, nothing loaded) with its
 * form allowed to post here and to be redirected to the client's registered redirect URI (a browser
 * checks a form's redirects against `form-action` too).
 */
export function consentHeaders(redirectUri: string): Headers {
  const headers = new Headers(pageHeaders({ formAction: 'self' }));
  let redirectOrigin = '';
  try {
    const url = new URL(redirectUri);
    if (url.protocol === 'https:' || url.protocol === 'http:') redirectOrigin = ` ${url.origin}`;
  } catch {
    // Validated by the provider already; nothing more to allow.
  }
  headers.set('content-security-policy', headers.get('content-security-policy')!.replace("form-action 'self'", `form-action 'self'${redirectOrigin}`));
  return headers;
}

/** One step of the page, as HTML. */
export function consentHtml(view: ConsentView, state: ConsentStep): string {
  const body = state.step === 'key' ? keyStep(view, state.error) : approveStep(view, state.brands);
  return htmlDocument({ title: `Connect ${view.client.clientName}`, section: SECTION, body, style: trusted(STYLE), width: 'narrow' }).html;
}

/** A page for a request that cannot go on (bad client, expired form): never a redirect to an unchecked address. */
export function consentErrorHtml(title: string, message: string): string {
  const body = html`<h1>${title}</h1>\n<p>${message}</p>\n<p>Go back to your assistant and start connecting again.</p>`;
  return htmlDocument({ title, section: SECTION, body, width: 'narrow' }).html;
}
