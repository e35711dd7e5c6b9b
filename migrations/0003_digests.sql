-- Weekly digests: subscriptions, one send record per subscription and ISO week, and the dev outbox.

CREATE TABLE digest_subscriptions (
  id TEXT PRIMARY KEY,                         -- sub_<random>
  email TEXT NOT NULL,                         -- as given, trimmed
  email_key TEXT NOT NULL,                     -- lower case: one subscription per address, brand and market
  brand_id INTEGER NOT NULL,
  brand_name TEXT NOT NULL,
  market_id INTEGER NOT NULL,
  market_code TEXT NOT NULL,
  kinds TEXT NOT NULL,                         -- comma-separated: visibility,won_lost
  timezone TEXT NOT NULL,                      -- IANA name, canonical
  status TEXT NOT NULL CHECK (status IN ('pending', 'active', 'paused', 'unsubscribed')),
  key_hash TEXT NOT NULL,                      -- SHA-256 of the API key: groups sends, never the key itself
  key_sealed TEXT,                             -- AES-GCM ciphertext of the API key (NULL once unsubscribed)
  paused_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  confirm_sent_at TEXT,
  confirmed_at TEXT,
  unsubscribed_at TEXT,
  UNIQUE (email_key, brand_id, market_id)
);
CREATE INDEX digest_subscriptions_due ON digest_subscriptions (status, timezone);
CREATE INDEX digest_subscriptions_brand ON digest_subscriptions (brand_id);

-- At most one digest per subscription and ISO week: the planner inserts the row
-- (so a second cron run plans nothing), the consumer moves it to sent / skipped / failed.
CREATE TABLE digest_sends (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  subscription_id TEXT NOT NULL REFERENCES digest_subscriptions (id),
  iso_week TEXT NOT NULL,                      -- 2026-W48: the week planned for, whenever it is sent
  week_monday TEXT NOT NULL,                   -- the local Monday of that week
  group_key TEXT NOT NULL,                     -- brand:market:key-hash prefix, the unit of one Queue message
  idempotency_key TEXT NOT NULL UNIQUE,        -- digest/<subscription>/<iso-week>
  status TEXT NOT NULL CHECK (status IN ('planned', 'sending', 'sent', 'skipped', 'failed')),
  batch_key TEXT,                              -- Resend Idempotency-Key of the batch it went out in; fixed once assigned
  provider_id TEXT,                            -- Resend email id (or outbox id)
  reason TEXT,                                 -- why skipped or failed
  attempts INTEGER NOT NULL DEFAULT 0,
  planned_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  sent_at TEXT,
  UNIQUE (subscription_id, iso_week)
);
CREATE INDEX digest_sends_group ON digest_sends (group_key, iso_week, status);

-- Mail that would have gone to Resend when RESEND_API_KEY is unset (GET /dev/outbox).
CREATE TABLE digest_outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  idempotency_key TEXT NOT NULL,
  position INTEGER NOT NULL,                   -- index in its batch
  kind TEXT NOT NULL,                          -- digest, confirm, paused
  to_addr TEXT NOT NULL,
  from_addr TEXT NOT NULL,
  subject TEXT NOT NULL,
  html TEXT NOT NULL,
  text TEXT NOT NULL,
  headers TEXT NOT NULL,                       -- JSON
  created_at TEXT NOT NULL,
  UNIQUE (idempotency_key, position)
);
