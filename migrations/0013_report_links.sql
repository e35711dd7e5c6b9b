-- Links that read with a sealed key are listed and revoked by that key, at most 100 live per key and
-- purpose (src/reports/link-store.ts). One table for every such link: `purpose` says what the token
-- opens, so the CSV export links (`/x/<token>.csv`, DESIGN section 11) need no table of their own.
--
--   purpose  'report': a report link (/r/<token>), `kind` the report kind (`weekly`), `params` NULL;
--            'export': a CSV export link, `kind` the operation id, `params` its parameters (JSON).
--
-- A live link is one not yet expired; revoking deletes its row (and with it the sealed key), so a
-- key holds at most 100 rows per purpose besides expired ones, which the next mint clears.
ALTER TABLE report_links ADD COLUMN purpose TEXT NOT NULL DEFAULT 'report' CHECK (purpose IN ('report', 'export'));
ALTER TABLE report_links ADD COLUMN params TEXT;
-- The cap's count and the listing: a key's live links of one purpose.
CREATE INDEX report_links_key ON report_links (key_hash, purpose, expires_at);
