-- One mailbox is one mailbox (DESIGN section 12, SECURITY.md "Abuse"): the caps on confirmation mail and the
-- 30-day opt-out count a recipient, not a spelling of it (src/subscriptions/caps.ts, `recipientKeyOf`):
--   an address          -> its mailbox, lower case without a `+tag` in the local part (src/lib/recipient.ts),
--   a webhook URL       -> its receiver, `scheme://host[:port]`, whatever the path or query,
--   a Slack webhook URL -> `slack:<sha-256 of the URL without its query>`.
-- The counters kept so far (migration 0012) are rewritten to those keys, so what was counted keeps counting:
--   `email_key` of an address was the address in lower case: its `+tag` is dropped here.
--   `email_key` of a Slack or webhook subscription was `<type>:<sha-256 of its URL>`: it becomes the receiver of
--   the URL its subscription holds (alert_channels.url, always a parsed URL's href, so its origin is what comes
--   before the first `/` after `://`), except on Slack's host, whose keys stay as they are: a Slack URL carries no
--   query, so its old hash is its new key. (One that did not match, hashed with a query or subscribed as a
--   `webhook`, stays under its old key until it ages out: two days for sends, 30 for opt-outs.)
-- The subscriptions' own `email_key` (one subscription per address as typed, brand and market) is unchanged.

-- Every key ever counted came from a subscription's `email_key`: the map from those to the new keys, where they differ.
CREATE TABLE recipient_keys_0017 (old TEXT PRIMARY KEY, new TEXT NOT NULL);
INSERT OR IGNORE INTO recipient_keys_0017 (old, new)
  SELECT email_key, substr(email_key, 1, instr(email_key, '+') - 1) || substr(email_key, instr(email_key, '@'))
    FROM digest_subscriptions
   WHERE instr(email_key, '@') > 0 AND instr(email_key, '+') > 1 AND instr(email_key, '+') < instr(email_key, '@');
INSERT OR IGNORE INTO recipient_keys_0017 (old, new)
  SELECT s.email_key, substr(c.url, 1, instr(c.url, '://') + 1 + instr(substr(c.url, instr(c.url, '://') + 3), '/'))
    FROM digest_subscriptions s JOIN alert_channels c ON c.subscription_id = s.id
   WHERE (s.email_key LIKE 'webhook:%' OR s.email_key LIKE 'slack:%') AND c.url IS NOT NULL AND c.url NOT LIKE 'https://hooks.slack.com/%';

-- Sends (the last two days): no unique key, rewritten in place.
UPDATE digest_confirmation_sends SET email_key = (SELECT new FROM recipient_keys_0017 WHERE old = email_key)
 WHERE email_key IN (SELECT old FROM recipient_keys_0017);

-- Opt-outs (the last 30 days): one row per key, so the spellings of one recipient merge, keeping the latest.
INSERT INTO digest_address_optouts (email_key, unsubscribed_at)
  SELECT k.new, MAX(o.unsubscribed_at) FROM digest_address_optouts o JOIN recipient_keys_0017 k ON k.old = o.email_key WHERE true GROUP BY k.new
  ON CONFLICT (email_key) DO UPDATE SET unsubscribed_at = MAX(unsubscribed_at, excluded.unsubscribed_at);
DELETE FROM digest_address_optouts WHERE email_key IN (SELECT old FROM recipient_keys_0017);

DROP TABLE recipient_keys_0017;
