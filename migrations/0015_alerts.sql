-- Change alerts (DESIGN section 10): the channel of a subscription whose kinds hold `alerts`, each
-- group's snapshot of its last evaluation, the last change raised per subject (7-day dedup and
-- reversals), and one delivery record per subscription and evaluation (exactly once).

-- One row per alerts subscription (digest_subscriptions.kinds holds `alerts`). For Slack and webhook
-- channels the subscription's email_key is `<type>:<sha-256 of the URL>`, so one URL gets one
-- subscription per brand and market, and `email` stays the owner's contact.
CREATE TABLE alert_channels (
  subscription_id TEXT PRIMARY KEY REFERENCES digest_subscriptions (id),
  type TEXT NOT NULL CHECK (type IN ('email', 'slack', 'webhook')),
  url TEXT,                                    -- Slack incoming webhook or https endpoint; NULL for email
  secret_sealed TEXT,                          -- webhook: AES-GCM of the whsec_ signing secret, bound to the subscription id
  quiet_start INTEGER NOT NULL DEFAULT 1320,   -- minutes after local midnight: 22:00
  quiet_end INTEGER NOT NULL DEFAULT 420,      -- 07:00
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- The figures of a group (brand:market:key-hash prefix) at its last evaluation: the next one compares with them.
CREATE TABLE alert_snapshots (
  group_key TEXT PRIMARY KEY,
  local_day TEXT NOT NULL,                     -- the day evaluated, in the group's timezone: once a day
  evaluated_at TEXT NOT NULL,
  snapshot TEXT NOT NULL                       -- JSON, src/weekly-report/changes.ts AlertSnapshot
);

-- The last change seen per group and subject (`q:<question>:<engine>`, `visibility`, `rival:<topic>:<name>`):
-- a change in the same direction within 7 days of `raised_at` is not raised again; the other direction is a reversal.
CREATE TABLE alert_changes (
  group_key TEXT NOT NULL,
  subject TEXT NOT NULL,
  direction TEXT NOT NULL,
  event_id TEXT,                               -- NULL for a change that is not an event (a rival falling back behind)
  raised_at TEXT NOT NULL,
  PRIMARY KEY (group_key, subject)
);

-- One message per subscription and evaluation, bundling its events; sent at most once.
CREATE TABLE alert_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_key TEXT NOT NULL UNIQUE,           -- <subscription>/<message id>: the idempotency key of a send
  message_id TEXT NOT NULL,                    -- the id of the bundle's first event: webhook-id
  subscription_id TEXT NOT NULL REFERENCES digest_subscriptions (id),
  group_key TEXT NOT NULL,
  events TEXT NOT NULL,                        -- JSON {period, events}: the bundle, most important event first
  status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'skipped')),
  deliver_after TEXT NOT NULL,                 -- quiet hours hold it until then
  enqueued_at TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  batch_key TEXT,                              -- email: the Resend Idempotency-Key of its batch; fixed once assigned
  reason TEXT,                                 -- why failed or skipped; the last retry's cause while pending
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  sent_at TEXT
);
CREATE INDEX alert_deliveries_due ON alert_deliveries (status, deliver_after);
