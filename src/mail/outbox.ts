/**
 * The dev outbox's pages: the mail the outbox mailer (mailer.ts) stored
 * instead of sending, newest first, at `/dev/outbox`.
 *
 *   GET /dev/outbox[?to=&limit=&format=json]   the list
 *   GET /dev/outbox/{id}[?format=text|json]     one message
 */
import { ApiError } from '../contract/errors';
import { escapeHtml, page } from '../lib/html';
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
  return { id: r.id, kind: r.kind, to: r.to_addr, from: r.from_addr, subject: r.subject, headers: JSON.parse(r.headers) as Record<string, string>, idempotency_key: r.idempotency_key, created_at: r.created_at };
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
    return new Response(row.html, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:" } });
  }
  const to = url.searchParams.get('to');
  const limit = Math.min(LIST_MAX, Math.max(1, Number(url.searchParams.get('limit') ?? '50') || 50));
  const { results } = await db
    .prepare(`SELECT * FROM digest_outbox ${to ? 'WHERE to_addr = ?' : ''} ORDER BY id DESC LIMIT ?`)
    .bind(...(to ? [to, limit] : [limit]))
    .all<OutboxRow>();
  if (format === 'json') return json({ messages: results.map((r) => ({ ...outboxView(r), text: r.text })) });
  const rows = results
    .map((r) => `<tr><td>${r.id}</td><td>${escapeHtml(r.created_at)}</td><td>${escapeHtml(r.kind)}</td><td>${escapeHtml(r.to_addr)}</td><td><a href="${OUTBOX_BASE}/${r.id}">${escapeHtml(r.subject)}</a> (<a href="${OUTBOX_BASE}/${r.id}?format=text">text</a>)</td></tr>`)
    .join('\n');
  return page(
    200,
    'Dev outbox',
    ['Mail that would have gone to Resend (RESEND_API_KEY is unset), newest first. JSON: ?format=json; one address: ?to=.'],
    `<table style="border-collapse:collapse;font-size:14px" cellpadding="4"><thead><tr><th scope="col">id</th><th scope="col">at</th><th scope="col">kind</th><th scope="col">to</th><th scope="col">subject</th></tr></thead><tbody>${rows || '<tr><td colspan="5">Empty.</td></tr>'}</tbody></table>`,
  );
}
