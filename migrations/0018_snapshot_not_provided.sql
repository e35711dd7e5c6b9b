-- The parts of the week the Read API does not provide (src/weekly-report/parts.ts: the 12-week history,
-- per-engine answers, topics ...), kept with the group's snapshot as a JSON list of part ids, so a retry
-- says the same lines where it leaves their sections out. NULL (snapshots taken before this): every part
-- was read. A service without /topics stores the JSON `null` in `topics`.
ALTER TABLE digest_snapshots ADD COLUMN not_provided TEXT;
