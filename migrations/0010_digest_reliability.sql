-- Weekly digests, reliability (issue 7): one snapshot of the data per group and week,
-- the pause notice owed until sent once, and which planned sends reached the Queue.

-- The three API bodies a group's digest is built from, stored at the first successful
-- read, so every retry and redelivery renders the same figures (and sends Resend the
-- same bytes under the same Idempotency-Key). Pruned by the planner after two weeks.
CREATE TABLE digest_snapshots (
  group_key TEXT NOT NULL,                     -- brand:market:key-hash prefix, as in digest_sends
  iso_week TEXT NOT NULL,                      -- the week planned for
  read_at TEXT NOT NULL,
  period_from TEXT NOT NULL,                   -- the days all three bodies cover (inclusive, UTC)
  period_to TEXT NOT NULL,
  visibility TEXT NOT NULL,                    -- JSON bodies as read (schema-checked by the client)
  history TEXT NOT NULL,
  topics TEXT NOT NULL,
  PRIMARY KEY (group_key, iso_week)
);
CREATE INDEX digest_snapshots_read_at ON digest_snapshots (read_at);

-- The one notice of a pause: owed when the subscription is paused, sent once (notice_sent_at),
-- retried by the next delivery or cron run while owed; notice_key is its Resend
-- Idempotency-Key, fixed before the first call.
ALTER TABLE digest_subscriptions ADD COLUMN paused_at TEXT;
ALTER TABLE digest_subscriptions ADD COLUMN notice_status TEXT CHECK (notice_status IN ('owed', 'sent', 'failed'));
ALTER TABLE digest_subscriptions ADD COLUMN notice_key TEXT;
ALTER TABLE digest_subscriptions ADD COLUMN notice_sent_at TEXT;
ALTER TABLE digest_subscriptions ADD COLUMN notice_reason TEXT;
CREATE INDEX digest_subscriptions_notices ON digest_subscriptions (notice_status, paused_at);

-- Set once the group's Queue message is sent: a record still planned without it a few
-- minutes after planning was never enqueued (the planner stopped in between), and the
-- next cron run enqueues its group.
ALTER TABLE digest_sends ADD COLUMN enqueued_at TEXT;
CREATE INDEX digest_sends_unqueued ON digest_sends (status, enqueued_at, planned_at);
