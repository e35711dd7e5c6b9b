/**
 * The dev outbox's pages: the mail the outbox mailer (mailer.ts) stored
 * instead of sending, newest first, at `/dev/outbox`.
 *
 *   GET /dev/outbox[?to=&limit=&format=json]        the list
 *   GET /dev/outbox/{id}[?format=html|text|json]    one message: a page with its envelope, headers,
 *                                                   text part and the HTML in a sandboxed frame;
 *                                                   or the HTML, the text or JSON alone
 */
import { ApiError } from '../contract/errors';
import { html, htmlDocument, pageHeaders, trusted } from '../lib/html';
import { json } from '../lib/http';

export const OUTBOX_BASE = '/dev/outbox';
/** The list shows at most this many messages. */
const LIST_MAX = 500;

interface OutboxRow {
  id: number;
  idempotency_key: string;
  position: number;
  kind: string;
  to_addr: string;
  from_addr: string;
  subject: string;
  html: string;
  text: string;
  headers: string;
  created_at: string;
}

function outboxView(r: OutboxRow) {
  return {
    id: r.id,
    kind: r.kind,
    to: r.to_addr,
    from: r.from_addr,
    subject: r.subject,
    headers: JSON.parse(r.headers) as Record<string, string>,
    idempotency_key: r.idempotency_key,
    created_at: r.created_at,
  };
}

const SECTION = 'dev outbox';

const STYLE = `
ol.messages{list-style:none;padding:0;margin:16px 0 0}
ol.messages li{border-top:1px solid var(--rule);padding:10px 0}
ol.messages .subject{font-weight:600;overflow-wrap:anywhere}
ol.messages .small{margin:2px 0 0;overflow-wrap:anywhere}
dl.envelope{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:4px 12px;margin:0 0 16px;font-size:15px}
dl.envelope dt{font-weight:600;color:var(--muted)}
dl.envelope dd{margin:0;overflow-wrap:anywhere;min-width:0}
.formats{font-size:14px}
iframe.preview{width:100%;height:640px;border:1px solid var(--rule);background:#fff;display:block}
@media (max-width:520px){dl.envelope{grid-template-columns:minmax(0,1fr)}dl.envelope dd{margin-bottom:6px}}
`;

/** `2026-11-23T09:14:03.120Z` as `2026-11-23 09:14:03 UTC`. */
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

function listPage(rows: OutboxRow[], to: string | null): Response {
  const items = rows.map(
    (r) => html`<li data-id="${r.id}"><a class="subject" href="${OUTBOX_BASE}/${r.id}">${r.subject}</a><p class="small">To ${r.to_addr} · ${r.kind} · ${when(r.created_at)} · #${r.id}</p></li>\n`,
  );
  const body = html`<h1>Dev outbox${to ? `: ${to}` : ''}</h1><p class="small">Mail that would have gone to Resend (RESEND_API_KEY is unset), newest first. ${to ? html`<a href="${OUTBOX_BASE}">All addresses</a>. ` : null}JSON: <code>?format=json</code>; one address: <code>?to=</code>.</p>${
    items.length > 0 ? html`<ol class="messages" data-testid="messages">${items}</ol>` : html`<p>The outbox is empty.</p>`
  }`;
  return new Response(htmlDocument({ title: 'Dev outbox', section: SECTION, body, style: trusted(STYLE) }).html, { headers: pageHeaders() });
}

/** Put ahead of an email in the preview frame: its links open in a new tab. */
const NEW_TAB = '<base target="_blank">';

function messagePage(row: OutboxRow): Response {
  const view = outboxView(row);
  const self = `${OUTBOX_BASE}/${row.id}`;
  const field = (name: string, value: string) => html`<dt>${name}</dt><dd>${value}</dd>`;
  const headers = Object.entries(view.headers);
  // Sandboxed: the email's HTML runs no script, submits no form and cannot reach this page. Its links open as a
  // reader's do, in a new tab outside the sandbox (a `<base target>` ahead of the email, popups allowed).
  const body = html`<p class="small"><a href="${OUTBOX_BASE}" data-testid="back">← Back to the list</a></p><h1>${row.subject}</h1><dl class="envelope" data-testid="envelope">${field('From', row.from_addr)}${field('To', row.to_addr)}${field('Subject', row.subject)}${field('Kind', row.kind)}${field('Stored', when(row.created_at))}${field('Idempotency key', row.idempotency_key)}</dl><h2>Headers</h2>${
    headers.length > 0 ? html`<dl class="envelope" data-testid="headers">${headers.map(([name, value]) => field(name, value))}</dl>` : html`<p class="small">No extra headers.</p>`
  }<h2>Text part</h2><pre data-testid="text">${row.text}</pre><h2>HTML part</h2><p class="formats small">As the recipient's mail program shows it, scripts off; a link or button opens in a new tab. Alone: <a href="${self}?format=html">HTML</a> · <a href="${self}?format=text">text</a> · <a href="${self}?format=json">JSON</a>.</p><iframe class="preview" title="The email's HTML part" sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc="${NEW_TAB}${row.html}" data-testid="html"></iframe><p class="small"><a href="${OUTBOX_BASE}">← Back to the list</a></p>`;
  return new Response(htmlDocument({ title: `Dev outbox: ${row.subject}`, section: SECTION, body, style: trusted(STYLE) }).html, { headers: pageHeaders() });
}

/** `rest` is the path after `/dev/outbox`: empty for the list, `/{id}` for one message. */
export async function showOutbox(db: D1Database, url: URL, rest: string): Promise<Response> {
  const format = url.searchParams.get('format');
  if (rest) {
    const id = /^\/(\d{1,12})$/.exec(rest)?.[1];
    const row = id ? await db.prepare('SELECT * FROM digest_outbox WHERE id = ?').bind(Number(id)).first<OutboxRow>() : null;
    if (!row) throw new ApiError('not_found', 'No such message in the outbox.');
    if (format === 'text') return new Response(row.text, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    if (format === 'json') return json({ message: { ...outboxView(row), html: row.html, text: row.text } });
    if (format === 'html')
      return new Response(row.html, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:" } });
    return messagePage(row);
  }
  const to = url.searchParams.get('to');
  const limit = Math.min(LIST_MAX, Math.max(1, Number(url.searchParams.get('limit') ?? '50') || 50));
  const { results } = await db
    .prepare(`SELECT * FROM digest_outbox ${to ? 'WHERE to_addr = ?' : ''} ORDER BY id DESC LIMIT ?`)
    .bind(...(to ? [to, limit] : [limit]))
    .all<OutboxRow>();
  if (format === 'json') return json({ messages: results.map((r) => ({ ...outboxView(r), text: r.text })) });
  return listPage(results, to);
}

/**
 * Dev: a Slack or webhook post, kept in the outbox beside the mail (its JSON
 * body as the text part, its headers, signature included). One row per attempt.
 */
export async function recordPost(db: D1Database, post: { kind: string; url: string; messageId: string; body: string; summary: string; headers: Record<string, string>; at: Date }): Promise<void> {
  await db
    .prepare(
      `INSERT INTO digest_outbox (idempotency_key, position, kind, to_addr, from_addr, subject, html, text, headers, created_at)
       VALUES (?, 0, ?, ?, 'alerts', ?, '', ?, ?, ?) ON CONFLICT (idempotency_key, position) DO NOTHING`,
    )
    .bind(`${post.kind}/${post.messageId}/${post.url}@${post.at.toISOString()}`, post.kind, post.url, post.summary, post.body, JSON.stringify(post.headers), post.at.toISOString())
    .run();
}
