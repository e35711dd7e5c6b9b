-- The week's plan's bodies (src/weekly-report/plan.ts: /content-gaps, /tasks, /pages, and whether the key's plan
-- has tasks), kept with the group's snapshot as one JSON object, so a retry renders the same plan. NULL (snapshots
-- taken before this): the digest of that snapshot has no plan.
ALTER TABLE digest_snapshots ADD COLUMN plan TEXT;
