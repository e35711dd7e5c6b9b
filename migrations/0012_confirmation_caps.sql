-- Caps on confirmation mail (DESIGN section 12; docs/digests.md, "Limits on confirmation mail"):
-- one address gets at most 3 confirmation emails in any 24 hours across all accounts, an account
-- sends at most 50 in any 24 hours, and an address that unsubscribed itself gets none for 30 days
-- unless it subscribes again from its own signed link. The counts live here, in D1, not in an
-- isolate's memory, and are claimed in the same transaction as the subscription's send slot.

-- One row per confirmation email that went out (or is going out: a failed send deletes its row).
CREATE TABLE digest_confirmation_sends (
  id TEXT PRIMARY KEY,                         -- cfm_<random>
  email_key TEXT NOT NULL,                     -- the address, lower case: the per-address cap
  brand_id INTEGER NOT NULL,                   -- the subscription's brand: the per-account cap counts the sends of every brand the key's account reads
  subscription_id TEXT NOT NULL,
  via TEXT NOT NULL CHECK (via IN ('api', 'link')), -- POST /digests/subscriptions, or the address's own subscribe-again link
  sent_at TEXT NOT NULL                        -- ISO 8601 UTC; rows older than two days are pruned by the next claim
);
CREATE INDEX digest_confirmation_sends_address ON digest_confirmation_sends (email_key, sent_at);
CREATE INDEX digest_confirmation_sends_brand ON digest_confirmation_sends (brand_id, sent_at);
CREATE INDEX digest_confirmation_sends_age ON digest_confirmation_sends (sent_at);

-- The last time an address unsubscribed itself (the unsubscribe link, RFC 8058 one-click, mailto),
-- whichever subscription it was: POST /digests/subscriptions sends it no confirmation for 30 days.
-- An account's DELETE /digests/subscriptions/{id} is not the address's wish and is not recorded.
CREATE TABLE digest_address_optouts (
  email_key TEXT PRIMARY KEY,
  unsubscribed_at TEXT NOT NULL
);

-- The brand ids the subscribing key could read (its account's brands, from GET /brands), JSON:
-- what the subscribe-again link counts against, since it carries no key the edge could ask with.
ALTER TABLE digest_subscriptions ADD COLUMN account_brands TEXT;

-- What is known from before: the last confirmation of each subscription, and every unsubscribe
-- (who made it was not recorded, so each counts as the address's own: the safe side).
INSERT INTO digest_confirmation_sends (id, email_key, brand_id, subscription_id, via, sent_at)
  SELECT 'cfm_backfill_' || id, email_key, brand_id, id, 'api', confirm_sent_at FROM digest_subscriptions WHERE confirm_sent_at IS NOT NULL;
INSERT INTO digest_address_optouts (email_key, unsubscribed_at)
  SELECT email_key, MAX(unsubscribed_at) FROM digest_subscriptions WHERE status = 'unsubscribed' AND unsubscribed_at IS NOT NULL GROUP BY email_key;
