-- A subscription's revision (issue 58, src/subscriptions/store.ts): every write of its row moves it on, whoever
-- writes (a trigger, so no writer can forget). A subscribe whose confirmation or test delivery fails undoes its own
-- write only while the row is at the revision that write left (compare and set): a confirm, an unsubscribe, a
-- delete or another subscribe of the same address made meanwhile stands.
ALTER TABLE digest_subscriptions ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER digest_subscriptions_revision AFTER UPDATE ON digest_subscriptions FOR EACH ROW WHEN NEW.revision = OLD.revision
BEGIN
  UPDATE digest_subscriptions SET revision = OLD.revision + 1 WHERE id = OLD.id;
END;
