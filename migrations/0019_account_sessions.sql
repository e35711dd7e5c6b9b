-- Sessions of the pages for people (issue 37, src/account/session.ts): a person signs in with the API key and
-- gets an opaque id in a cookie; the row is found by the id's hash (a copy of this table opens no session), holds
-- the key sealed under ENCRYPTION_KEY and bound to that hash, and a tag of SIGNING_SECRET (rotating either
-- secret ends every session). In D1, not KV: a sign-out or a revoked key ends the session at once everywhere.
CREATE TABLE account_sessions (
  id_hash TEXT PRIMARY KEY,
  key_sealed TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  secret_tag TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX account_sessions_key ON account_sessions (key_hash);
CREATE INDEX account_sessions_expires ON account_sessions (expires_at);
