/**
 * "Send the digest now": the current weekly digest of a brand and market, to
 * its confirmed subscribers, through the digests' own sending path (the same
 * template and render, mailer, batches of at most 100 with an
 * `Idempotency-Key` each, `List-Unsubscribe` and one-click headers, personal
 * unsubscribe and "view in browser" links).
 *
 * Who gets it: subscriptions of that brand and market whose status is
 * `active` (the address was confirmed by its double opt-in link). They are the
 * caller's account's: a brand belongs to one account, only that account's
 * keys can read it (the caller's just did), and a subscription needs a key
 * that can read its brand. No parameter names a recipient.
 *
 * At most one send per brand and market per `RESEND_WINDOW_MS`: the claim is
 * one conditional upsert in the same transaction as the send record
 * (migrations/0004_reports.sql), so two concurrent calls cannot both send.
 *
 * A send-now counts as that week's digest for each recipient it reached (the
 * week in the subscriber's timezone): it is recorded as the week's digest
 * send, so the weekly run does not send the same week again, and a digest
 * already planned (or held) for the week and not yet sending is not sent:
 * its record becomes this send.
 */
import { runInChunks } from '../lib/d1';
import { sha256Hex } from '../lib/hash';
import { MINUTE_MS, retryAfterSeconds } from '../lib/time';
import { chunks, failureReason, sendInBatches } from '../mail/send-batches';
import { confirmedSubscribers, digestEmails, groupKeyOf, kindsOf, type SubscriptionRow } from '../subscriptions';
import type { Violation } from '../contract/plausibility';
import { figuresViolations, localWeek, reportOf, type WeeklyInputs } from '../weekly-report';
import type { ReportDeps } from './deps';

/** A second send of the same brand and market within this window is refused (409). */
export const RESEND_WINDOW_MS = 10 * MINUTE_MS;

export interface SendResult {
  id: string;
  recipients: number;
  sent: number;
  failed: number;
  sent_at: string;
  subject: string;
}

export type SendOutcome =
  | { kind: 'sent'; result: SendResult }
  | { kind: 'no_recipients' }
  | { kind: 'nothing_measured' }
  /** The figures break a rule the spec implies (src/contract/plausibility.ts): nothing is sent, as on the weekly run. */
  | { kind: 'implausible'; violations: Violation[] }
  /** Within the window: when the last send went, and seconds until another may. */
  | { kind: 'too_soon'; last: { id: string; sent_at: string }; retryAfter: number }
  /** Every batch failed: nothing went out, the claim is released so the caller can try again. */
  | { kind: 'mail_failed'; result: SendResult; message: string };

const newSendId = () => `rs_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`;

/**
 * Claims the brand and market's send slot and records the send, atomically;
 * returns the last send instead when one went within the window.
 */
async function claim(
  deps: ReportDeps,
  o: { id: string; brandId: number; marketId: number; keyHash: string; recipients: number },
): Promise<{ ok: true } | { ok: false; last: { id: string; sent_at: string } }> {
  const now = deps.now();
  const at = now.toISOString();
  const cutoff = new Date(now.getTime() - RESEND_WINDOW_MS).toISOString();
  const [gate] = await deps.db.batch<{ send_id: string }>([
    deps.db
      .prepare(
        `INSERT INTO report_send_gate (brand_id, market_id, send_id, sent_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (brand_id, market_id) DO UPDATE SET send_id = excluded.send_id, sent_at = excluded.sent_at
          WHERE report_send_gate.sent_at <= ?
         RETURNING send_id`,
      )
      .bind(o.brandId, o.marketId, o.id, at, cutoff),
    deps.db
      .prepare(
        `INSERT INTO report_sends (id, brand_id, market_id, key_hash, requested_at, status, recipients)
         SELECT ?, ?, ?, ?, ?, 'sending', ? WHERE EXISTS (SELECT 1 FROM report_send_gate WHERE brand_id = ? AND market_id = ? AND send_id = ?)`,
      )
      .bind(o.id, o.brandId, o.marketId, o.keyHash, at, o.recipients, o.brandId, o.marketId, o.id),
  ]);
  if (gate?.results.some((r) => r.send_id === o.id)) return { ok: true };
  const last = await deps.db.prepare('SELECT send_id, sent_at FROM report_send_gate WHERE brand_id = ? AND market_id = ?').bind(o.brandId, o.marketId).first<{ send_id: string; sent_at: string }>();
  return { ok: false, last: { id: last?.send_id ?? '', sent_at: last?.sent_at ?? at } };
}

/** The records that make a send-now its recipients' digest of the week (see the module comment). */
function countAsWeeklyDigest(deps: ReportDeps, sendId: string, sent: { row: SubscriptionRow; providerId: string | null }[], brandId: number, marketId: number): D1PreparedStatement[] {
  const now = deps.now();
  const at = now.toISOString();
  const reason = `sent now (${sendId})`;
  // The week's record becomes this send, whatever it said before (planned, held for implausible figures, skipped,
  // sent earlier): the weekly run and the planner's second try leave a `sent` record alone, and the account's
  // `last_delivery` shows this delivery, not an older skip. Only a record `sending` (the weekly run's batch in
  // flight) is left to that run.
  const record = deps.db.prepare(
    `INSERT INTO digest_sends (subscription_id, iso_week, week_monday, group_key, idempotency_key, status, provider_id, reason, planned_at, updated_at, sent_at)
     VALUES (?, ?, ?, ?, ?, 'sent', ?, ?, ?, ?, ?)
     ON CONFLICT (subscription_id, iso_week) DO UPDATE
       SET status = 'sent', provider_id = excluded.provider_id, reason = excluded.reason, updated_at = excluded.updated_at, sent_at = excluded.sent_at
       WHERE digest_sends.status <> 'sending'`,
  );
  return sent.map(({ row, providerId }) => {
    const week = localWeek(now, row.timezone);
    return record.bind(
      row.id,
      week.isoWeek,
      week.monday,
      groupKeyOf({ brand_id: brandId, market_id: marketId, key_hash: row.key_hash }),
      `digest/${row.id}/${week.isoWeek}`,
      providerId,
      reason,
      at,
      at,
      at,
    );
  });
}

/** Sends the digest built from `inputs` to the confirmed subscribers; see the module comment. */
export async function sendDigestNow(deps: ReportDeps, o: { apiKey: string; inputs: WeeklyInputs }): Promise<SendOutcome> {
  const { brand, market } = o.inputs;
  const full = reportOf(o.inputs, ['visibility', 'won_lost']);
  if (full.empty === 'nothing_measured') return { kind: 'nothing_measured' };
  const { visibility, history, topics, matrix } = o.inputs;
  const violations = figuresViolations({ visibility, history, topics, matrix }, full.engines);
  if (violations.length > 0) return { kind: 'implausible', violations };
  const rows = await confirmedSubscribers(deps.db, brand.id, market.id);
  if (rows.length === 0) return { kind: 'no_recipients' };

  const id = newSendId();
  const claimed = await claim(deps, { id, brandId: brand.id, marketId: market.id, keyHash: await sha256Hex(o.apiKey), recipients: rows.length });
  if (!claimed.ok) {
    const retryAfter = retryAfterSeconds(Date.parse(claimed.last.sent_at) + RESEND_WINDOW_MS, deps.now().getTime());
    return { kind: 'too_soon', last: claimed.last, retryAfter };
  }

  const emailFor = digestEmails(deps, (kinds) => reportOf(o.inputs, kinds));
  const outcomes: { row: SubscriptionRow; status: 'sent' | 'failed'; providerId: string | null; reason: string | null }[] = [];
  let subject = full.subject;
  let firstFailure = '';
  // One key per batch of this send: a retried call inside Resend's 24 h cannot deliver the batch twice.
  await sendInBatches(deps, {
    batches: chunks(rows).map((chunk, i) => ({ key: `report/${id}/${i}`, rows: chunk })),
    emailFor: async (row) => {
      const email = await emailFor(row, `report/${id}/${row.id}`);
      if (kindsOf(row).length === 2) subject = email.subject;
      return email;
    },
    record: async ({ rows: chunk }, outcome) => {
      if (outcome.ok) chunk.forEach((row, j) => outcomes.push({ row, status: 'sent', providerId: outcome.ids[j] ?? null, reason: null }));
      else {
        const reason = failureReason(outcome);
        firstFailure ||= reason;
        chunk.forEach((row) => outcomes.push({ row, status: 'failed', providerId: null, reason }));
      }
    },
  });
  // Batches after a 429 were not tried: every further call would have been refused too.
  const tried = new Set(outcomes.map((x) => x.row.id));
  for (const row of rows) if (!tried.has(row.id)) outcomes.push({ row, status: 'failed', providerId: null, reason: `not sent: ${firstFailure}`.slice(0, 500) });

  const sent = outcomes.filter((x) => x.status === 'sent').length;
  const failed = outcomes.length - sent;
  const at = deps.now().toISOString();
  const status = failed === 0 ? 'sent' : sent === 0 ? 'failed' : 'partial';
  const record = deps.db.prepare('INSERT INTO report_send_recipients (send_id, subscription_id, status, provider_id, reason) VALUES (?, ?, ?, ?, ?)');
  const statements = [
    ...outcomes.map((x) => record.bind(id, x.row.id, x.status, x.providerId, x.reason)),
    deps.db.prepare('UPDATE report_sends SET status = ?, sent = ?, failed = ?, reason = ?, finished_at = ? WHERE id = ?').bind(status, sent, failed, firstFailure || null, at, id),
  ];
  statements.push(
    ...countAsWeeklyDigest(
      deps,
      id,
      outcomes.filter((x) => x.status === 'sent'),
      brand.id,
      market.id,
    ),
  );
  // Nothing went out: free the slot (only if it is still ours) so the caller may try again at once.
  if (sent === 0) statements.push(deps.db.prepare('DELETE FROM report_send_gate WHERE brand_id = ? AND market_id = ? AND send_id = ?').bind(brand.id, market.id, id));
  await runInChunks(deps.db, statements);
  const result: SendResult = { id, recipients: rows.length, sent, failed, sent_at: at, subject };
  if (sent === 0) return { kind: 'mail_failed', result, message: firstFailure };
  return { kind: 'sent', result };
}
