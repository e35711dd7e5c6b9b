-- The digest's per-engine figures come from /prompts, read with the week: kept in the group's snapshot
-- like the other bodies, so a retry renders the same bytes. Snapshots taken before this have none
-- (NULL): their digests show the engines' changes without counts.
ALTER TABLE digest_snapshots ADD COLUMN matrix TEXT;
