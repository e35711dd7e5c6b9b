-- Revocation is final and cascades (DESIGN section 12, SECURITY.md "What ends what").
--
-- 1. Each subscription counts its cycles (`generation`), and every signed link of a subscription
--    (confirm, unsubscribe, subscribe again, view in browser) carries the cycle it was minted for:
--    it acts on that cycle only. Unsubscribing, the account subscribing a paused or unsubscribed
--    address again, and the account's delete (which deletes the row) each end one. Rows of before
--    start at 0, which is also what a link minted before this migration names (it has no `g`): the
--    links of a current cycle keep working until its next change.
-- 2. A link minted from a page or a mail (a report page's CSV links) records its parent, and ends
--    with it: `parent` is `link:<report link id>` or `sub:<subscription id>` with the cycle in
--    `parent_generation`. Links from before have none: they live on as their key's own, at most
--    30 days.

ALTER TABLE digest_subscriptions ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;

ALTER TABLE report_links ADD COLUMN parent TEXT;
ALTER TABLE report_links ADD COLUMN parent_generation INTEGER;
CREATE INDEX report_links_parent ON report_links (parent);
