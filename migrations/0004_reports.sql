-- On-demand reports (src/reports): signed report links, and the "send the digest now" records.

-- A link minted by POST /reports/links. The token (/r/<token>) names this row (`r: link:<id>`);
-- the row holds the minting API key sealed with AES-GCM (the id as additional data), never in plain text,
-- so a keyless viewer reads exactly what that key may read, and nothing once the key is revoked.
CREATE TABLE report_links (
  id TEXT PRIMARY KEY,                         -- rl_<random>
  brand_id INTEGER NOT NULL,
  market_id INTEGER NOT NULL,
  market_code TEXT NOT NULL,                   -- lower case, as in the token
  kind TEXT NOT NULL,                          -- weekly
  key_hash TEXT NOT NULL,                      -- SHA-256 of the minting key: who made it, never the key
  key_sealed TEXT NOT NULL,                    -- AES-GCM ciphertext of the minting key
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL                     -- the token's expiry; the row is deleted some time after it
);
CREATE INDEX report_links_expiry ON report_links (expires_at);

-- One row per POST /reports/weekly/send that went ahead.
CREATE TABLE report_sends (
  id TEXT PRIMARY KEY,                         -- rs_<random>
  brand_id INTEGER NOT NULL,
  market_id INTEGER NOT NULL,
  key_hash TEXT NOT NULL,                      -- SHA-256 of the key that asked
  requested_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('sending', 'sent', 'partial', 'failed')),
  recipients INTEGER NOT NULL,
  sent INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  reason TEXT,
  finished_at TEXT
);
CREATE INDEX report_sends_brand ON report_sends (brand_id, market_id, requested_at);

-- The 10-minute rule: the last send per brand and market. A send is claimed by one conditional
-- upsert (`... DO UPDATE ... WHERE sent_at <= now - 10 min RETURNING`), so of two concurrent calls
-- exactly one gets the row back and sends; the other answers 409 with this row's time.
CREATE TABLE report_send_gate (
  brand_id INTEGER NOT NULL,
  market_id INTEGER NOT NULL,
  send_id TEXT NOT NULL,
  sent_at TEXT NOT NULL,
  PRIMARY KEY (brand_id, market_id)
);

-- Who got what: one row per recipient of a send (only confirmed subscribers ever appear here).
CREATE TABLE report_send_recipients (
  send_id TEXT NOT NULL REFERENCES report_sends (id),
  subscription_id TEXT NOT NULL,               -- digest_subscriptions.id (no foreign key: subscriptions are never blocked by this log)
  status TEXT NOT NULL CHECK (status IN ('sent', 'failed')),
  provider_id TEXT,                            -- Resend email id (or outbox id)
  reason TEXT,
  PRIMARY KEY (send_id, subscription_id)
);
