/**
 * The one look of every HTML page: the report, the pages people reach from
 * links in emails (confirm, unsubscribe, their errors) and the dev outbox.
 * A document shell (`htmlDocument`), the headers every page is served with
 * (`pageHeaders`), and small message pages (`page`, `badTokenPage`).
 *
 * ```ts
 * const nonce = newNonce();
 * const body = html`<h1>${title}</h1>`; // every value escaped for its place (markup.ts)
 * const page = htmlDocument({ title, section: 'weekly report', body, style: trusted(EXTRA_CSS), script: { nonce, code: trusted(SCRIPT) } });
 * return new Response(page.html, { headers: pageHeaders({ scriptNonce: nonce }) });
 * ```
 *
 * Pages load nothing: CSS is inline, images are `data:` or inline SVG, and
 * scripts are refused unless a page brings its one script with a per-response
 * nonce (CSP Level 3, `script-src 'nonce-…'`). Colours meet WCAG 2.2 AA in
 * both schemes (light: the emails' theme; dark: 6.9:1 or more for text).
 */
import { EMPTY, html, type Markup, trusted } from './markup';
import { TOKEN_FAILURE_STATUS, type TokenFailure } from './signing';

/** The only product word of this folder: the name every page carries in its header. */
export const PRODUCT_NAME = 'Brand AI-Visibility';

export { EMPTY, html, joinMarkup, type Markup, trusted } from './markup';

/** A fresh CSP nonce (128 random bits, base64) for the one script of one response. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/** The colours of every page and of the MCP App's view, as custom properties, in the light and the dark scheme. */
export const COLOURS = {
  light:
    '--ink:#111827;--muted:#4b5563;--rule:#e5e7eb;--panel:#f3f4f6;--page:#fff;--link:#1d4ed8;--button:#1d4ed8;--good:#047857;--bad:#b91c1c;--accent:#2563eb;--accent-strong:#1e3a8a;--empty:#d1d5db;--focus:#93c5fd',
  dark: '--ink:#f3f4f6;--muted:#9ca3af;--rule:#374151;--panel:#030712;--page:#111827;--link:#93c5fd;--button:#2563eb;--good:#34d399;--bad:#f87171;--accent:#60a5fa;--accent-strong:#dbeafe;--empty:#4b5563;--focus:#60a5fa',
} as const;

/** The colours as the pages declare them: light, and dark where the reader's system prefers it. */
const COLOUR_STYLE = `:root{color-scheme:light dark;${COLOURS.light}}
@media (prefers-color-scheme:dark){:root{${COLOURS.dark}}}`;

/**
 * The shared style: colours as custom properties (light, and dark under
 * `prefers-color-scheme`), one column that works from 320 px up, type, links,
 * buttons, tables and code that wrap instead of widening the page.
 */
export const BASE_STYLE = `
${COLOUR_STYLE}
*{box-sizing:border-box}
body{margin:0;background:var(--panel);color:var(--ink);font:16px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;-webkit-text-size-adjust:100%}
.masthead,main{max-width:760px;margin:0 auto}
.masthead{padding:14px 24px 10px;font-size:14px;color:var(--muted)}
.masthead .product{font-weight:700;color:var(--ink);letter-spacing:.01em}
main{padding:24px;background:var(--page);border:1px solid var(--rule);border-radius:8px;margin-bottom:32px;overflow-wrap:break-word}
body.narrow .masthead,body.narrow main{max-width:560px}
h1{font-size:26px;line-height:1.25;margin:0 0 10px}
h2{font-size:20px;line-height:1.3;margin:32px 0 8px;padding-top:16px;border-top:1px solid var(--rule)}
h3{font-size:17px;margin:20px 0 8px}
p{margin:0 0 12px}
.meta,.small{font-size:14px;color:var(--muted)}
a{color:var(--link)}
a:focus-visible,button:focus-visible,summary:focus-visible,input:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
button{font:inherit;font-weight:600;background:var(--button);color:#fff;border:0;border-radius:6px;padding:10px 18px;cursor:pointer}
button.quiet{background:transparent;color:var(--link);border:1px solid var(--rule)}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--rule);vertical-align:top}
th{font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:14px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--panel);border:1px solid var(--rule);padding:12px;margin:0 0 12px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.page-foot{margin-top:32px;padding-top:12px;border-top:1px solid var(--rule);font-size:14px;color:var(--muted)}
@media (max-width:520px){
.masthead{padding:12px 16px 8px}
main{padding:16px;border-left:0;border-right:0;border-radius:0}
h1{font-size:22px}
}
`;

export interface DocumentOptions {
  /** The `<title>`; the product's name is appended. */
  title: string;
  /** What part of the product this is, shown after its name (`weekly report`). */
  section?: string;
  /** The inside of `<main>`. */
  body: Markup;
  /** More CSS after the shared style: a constant of the code (`trusted(STYLE)`). */
  style?: Markup;
  /** `narrow`: a 560 px column for a message or a form. */
  width?: 'wide' | 'narrow';
  /** The page's one script, allowed by the response's CSP nonce (`pageHeaders({ scriptNonce })`). */
  script?: { nonce: string; code: Markup };
}

/** A whole page in the shared look: the product's name, then `<main>`. */
export function htmlDocument(o: DocumentOptions): Markup {
  const section = o.section ? html` <span aria-hidden="true">·</span> ${o.section}` : EMPTY;
  return html`<!doctype html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="color-scheme" content="light dark">
<title>${o.title} · ${PRODUCT_NAME}</title>
<style>${trusted(BASE_STYLE)}${o.style}</style>
</head>
<body${o.width === 'narrow' ? html` class="narrow"` : null}>
<header class="masthead"><span class="product">${PRODUCT_NAME}</span>${section}</header>
<main>
${o.body}
</main>
${o.script ? html`<script nonce="${o.script.nonce}">${o.script.code}</script>\n` : EMPTY}</body>
</html>`;
}

export interface PageHeaderOptions {
  /** Allows the one inline script carrying this nonce; every other script stays refused. */
  scriptNonce?: string;
  /** Where the page's forms may post: `self` for pages with a button, `none` otherwise. */
  formAction?: 'self' | 'none';
}

/**
 * The headers of every page: no caching (pages show one person's data and
 * links carry tokens), no referrer (tokens must not leak to other sites), no
 * framing, no indexing, and a CSP that loads nothing from anywhere.
 */
export function pageHeaders(o: PageHeaderOptions = {}): Record<string, string> {
  const csp = [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    'img-src data:',
    ...(o.scriptNonce ? [`script-src 'nonce-${o.scriptNonce}'`] : []),
    `form-action ${o.formAction === 'self' ? "'self'" : "'none'"}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'private, no-store',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'x-robots-tag': 'noindex',
    'content-security-policy': csp,
  };
}

export interface PageOptions {
  /** Shown after the product's name. */
  section?: string;
  /** Headers besides (or instead of) `pageHeaders({ formAction: 'self' })`. */
  headers?: Record<string, string>;
  width?: 'wide' | 'narrow';
  style?: Markup;
}

/** A page with a title, paragraphs (plain text) and optional markup after them. */
export function page(status: number, title: string, paragraphs: string[], extra: Markup = EMPTY, o: PageOptions = {}): Response {
  const body = html`<h1>${title}</h1>\n${paragraphs.map((p) => html`<p>${p}</p>\n`)}${extra}`;
  const document = htmlDocument({ title, body, width: o.width ?? 'narrow', ...(o.section ? { section: o.section } : {}), ...(o.style ? { style: o.style } : {}) });
  return new Response(document.html, { status, headers: { ...pageHeaders({ formAction: 'self' }), ...o.headers } });
}

/** A bad link, with the status of the one policy (`TOKEN_FAILURE_STATUS`). Never a 500. */
export function badTokenPage(reason: TokenFailure, what: string): Response {
  const status = TOKEN_FAILURE_STATUS[reason];
  switch (reason) {
    case 'expired':
      return page(status, 'This link has expired', [`The ${what} link is no longer valid.`, 'Links in our emails expire; use the link in a more recent email, or subscribe again.']);
    case 'forged':
    case 'wrong_purpose':
      return page(status, 'This link is not valid', [`The ${what} link was not issued by us or has been changed.`, 'Open the link exactly as it appears in the email.']);
    default:
      return page(status, 'This link is incomplete', [
        `The ${what} link is missing its token or it was cut short.`,
        'Open the link exactly as it appears in the email; some mail programs break long links.',
      ]);
  }
}
