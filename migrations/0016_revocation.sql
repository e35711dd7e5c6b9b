-- Revocation is final and cascades (DESIGN section 12; SECURITY.md, "What ends what").
--
-- 1. Each subscription counts its cycles (`generation`), and every signed link of a subscription
--    (confirm, unsubscribe, subscribe again, view in browser) carries the cycle it was minted for:
--    it acts on that cycle only. Unsubscribing, subscribing again (by link or by the account) and
--    the account's delete each start a new one. Rows of before start at 0, which is also what a
--    link minted before this migration names (it has no `g`): the links of a current cycle keep
--    working until its next change.
-- 2. An account's delete is final (`removed_at`): the row stays, out of its address's slot, and
--    only the account subscribes that person again, as a new row. So the one subscription per
--    address, brand and market holds for rows not removed: a partial unique index instead of the
--    table's UNIQUE, which SQLite cannot drop in place (the table is rebuilt; its children's
--    foreign keys are checked when the migration commits).
-- 3. A link minted from a page or a mail (a report page's CSV links) records its parent, and ends
--    with it: `parent` is `link:<report link id>` or `sub:<subscription id>` with the cycle in
--    `parent_generation`. Links from before have none: they live on as their key's own, at most
--    30 days.

PRAGMA defer_foreign_keys = true;

CREATE TABLE digest_subscriptions_0016 (
  id TEXT PRIMARY KEY,                         -- sub_<random>
  email TEXT NOT NULL,                         -- as given, trimmed
  email_key TEXT NOT NULL,                     -- lower case: one live subscription per address, brand and market
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
  paused_at TEXT,
  notice_status TEXT CHECK (notice_status IN ('owed', 'sent', 'failed')),
  notice_key TEXT,
  notice_sent_at TEXT,
  notice_reason TEXT,
  account_brands TEXT,
  generation INTEGER NOT NULL DEFAULT 0,       -- the cycle; every signed link of the subscription names one
  removed_at TEXT                              -- the account's delete: final (status unsubscribed, out of the address's slot)
);

INSERT INTO digest_subscriptions_0016 (
  id, email, email_key, brand_id, brand_name, market_id, market_code, kinds, timezone, status, key_hash, key_sealed, paused_reason,
  created_at, updated_at, confirm_sent_at, confirmed_at, unsubscribed_at, paused_at, notice_status, notice_key, notice_sent_at, notice_reason, account_brands
)
SELECT
  id, email, email_key, brand_id, brand_name, market_id, market_code, kinds, timezone, status, key_hash, key_sealed, paused_reason,
  created_at, updated_at, confirm_sent_at, confirmed_at, unsubscribed_at, paused_at, notice_status, notice_key, notice_sent_at, notice_reason, account_brands
FROM digest_subscriptions;

DROP TABLE digest_subscriptions;
ALTER TABLE digest_subscriptions_0016 RENAME TO digest_subscriptions;

CREATE UNIQUE INDEX digest_subscriptions_address ON digest_subscriptions (email_key, brand_id, market_id) WHERE removed_at IS NULL;
CREATE INDEX digest_subscriptions_due ON digest_subscriptions (status, timezone);
CREATE INDEX digest_subscriptions_brand ON digest_subscriptions (brand_id);
CREATE INDEX digest_subscriptions_notices ON digest_subscriptions (notice_status, paused_at);

ALTER TABLE report_links ADD COLUMN parent TEXT;
ALTER TABLE report_links ADD COLUMN parent_generation INTEGER;
CREATE INDEX report_links_parent ON report_links (parent);
