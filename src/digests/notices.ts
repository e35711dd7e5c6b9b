/**
 * Pause notices: when the API refuses a group's key (401, 403), its active
 * subscriptions are paused and each is owed one notice, sent once. A notice
 * is owed from the pause until sent (`notice_sent_at`); a failed call leaves
 * it owed and asks for a retry, and the hourly cron also enqueues groups that
 * still owe one, so a lost notice is sent later, never twice: its batch key
 * is fixed before the first call and its links are signed at the pause time,
 * so a retry is the same request under the same key.
 */
import { renderPausedNotice } from '../mail/render';
import { batchesByKey, batchKey, chunks, failureReason, sendInBatches } from '../mail/send-batches';
import { type SubscriptionRow, unsubscribeHeaders, unsubscribeUrl } from '../subscriptions';
import type { DigestDeps, DigestJob } from './deps';

interface NoticeRow extends SubscriptionRow {
  paused_at: string;
  notice_key: string | null;
}

export interface NoticesResult {
  notices: number;
  calls: number;
  retry?: { reason: string; retryAfter?: number };
}

/** Sends the group's owed pause notices. `callsBefore`: mail calls this job made already (pacing). */
export async function sendOwedNotices(deps: DigestDeps, job: Pick<DigestJob, 'group_key'>, callsBefore: number): Promise<NoticesResult> {
  const [brandId, marketId, keyPrefix] = job.group_key.split(':');
  const owed = () =>
    deps.db
      .prepare(
        `SELECT * FROM digest_subscriptions
          WHERE notice_status = 'owed' AND status = 'paused' AND brand_id = ? AND market_id = ? AND substr(key_hash, 1, 24) = ?
          ORDER BY id`,
      )
      .bind(Number(brandId), Number(marketId), keyPrefix)
      .all<NoticeRow>()
      .then((r) => r.results);
  let rows = await owed();
  if (rows.length === 0) return { notices: 0, calls: 0 };
  const unassigned = rows.filter((r) => !r.notice_key);
  if (unassigned.length > 0) {
    const assign = deps.db.prepare(`UPDATE digest_subscriptions SET notice_key = ? WHERE id = ? AND notice_status = 'owed' AND notice_key IS NULL`);
    const statements: D1PreparedStatement[] = [];
    for (const chunk of chunks(unassigned)) {
      // A later pause of the same subscription is a new notice: the key names the pause times.
      const key = await batchKey(
        'paused',
        chunk.map((r) => r.id),
        chunk
          .map((r) => r.paused_at)
          .sort()
          .at(-1)!,
      );
      for (const row of chunk) statements.push(assign.bind(key, row.id));
    }
    await deps.db.batch(statements);
    // A concurrent delivery may have assigned first: its keys are the ones to use.
    rows = await owed();
  }
  const update = (members: NoticeRow[], status: 'owed' | 'sent' | 'failed', reason: string | null) => {
    const at = deps.now().toISOString();
    const statement = deps.db.prepare(
      `UPDATE digest_subscriptions SET notice_status = ?, notice_reason = ?, notice_sent_at = CASE WHEN ? = 'sent' THEN ? ELSE notice_sent_at END WHERE id = ? AND notice_status = 'owed'`,
    );
    return deps.db.batch(members.map((r) => statement.bind(status, reason, status, at, r.id)));
  };
  const sent = await sendInBatches(deps, {
    batches: batchesByKey(rows, (r) => r.notice_key),
    callsBefore,
    emailFor: async (row) => {
      const unsubscribe = await unsubscribeUrl(deps, row, new Date(row.paused_at));
      const mail = await renderPausedNotice({
        brandName: row.brand_name,
        market: row.market_code,
        reason: row.paused_reason ?? 'invalid_api_key',
        unsubscribeUrl: unsubscribe,
      });
      return { kind: 'paused', from: deps.from, to: row.email, ...mail, headers: unsubscribeHeaders(unsubscribe, deps.from) };
    },
    record: async ({ rows: members }, outcome) => {
      if (outcome.ok) await update(members, 'sent', outcome.replayed ? 'already sent: Resend answered 409 for this key' : null);
      else if (outcome.retryable) await update(members, 'owed', `retrying: notice: mail ${outcome.status ?? 'network'} ${outcome.code}`);
      else await update(members, 'failed', failureReason(outcome));
    },
  });
  return { notices: sent.sent, calls: sent.calls, ...(sent.retry ? { retry: { ...sent.retry, reason: `notice: ${sent.retry.reason}` } } : {}) };
}
