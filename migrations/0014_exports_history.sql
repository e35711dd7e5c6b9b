-- The kept weekly history (DESIGN section 11; src/weekly-report/history.ts): one row per brand, market and
-- ISO week, written when a digest group is read and, at least weekly, by the hourly cron for every brand and
-- market with a subscription or an export link. The API keeps 12 weeks; this keeps them for as long as the
-- Worker runs (GET /reports/history shows up to 2 years).
--
-- A row is written once: INSERT ... ON CONFLICT DO NOTHING, so a later read (a retried digest, the cron, an
-- older week read again) never overwrites the figures first kept for a week.
CREATE TABLE weekly_history (
  brand_id INTEGER NOT NULL,
  market_id INTEGER NOT NULL,
  iso_week TEXT NOT NULL,                      -- 2026-W48: the week the figures were kept for
  week_monday TEXT NOT NULL,
  period_from TEXT NOT NULL,                   -- the 7 days the figures cover
  period_to TEXT NOT NULL,
  score REAL,                                  -- visibility, 0 to 100; NULL when nothing answered
  answered_runs INTEGER NOT NULL,
  naming_runs INTEGER NOT NULL,
  won INTEGER NOT NULL,
  lost INTEGER NOT NULL,
  held INTEGER NOT NULL,
  engines TEXT NOT NULL,                       -- JSON: [{engine, naming, answered}] per engine
  recorded_at TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('digest', 'cron')),
  PRIMARY KEY (brand_id, market_id, iso_week)
);

-- The cron's failed reads of a week (a key revoked, a brand gone): after 3, that brand and market are not
-- read again until the next week, so a broken key costs at most 3 reads a week instead of one an hour.
CREATE TABLE weekly_history_misses (
  brand_id INTEGER NOT NULL,
  market_id INTEGER NOT NULL,
  iso_week TEXT NOT NULL,
  tries INTEGER NOT NULL,
  last_reason TEXT NOT NULL,
  PRIMARY KEY (brand_id, market_id, iso_week)
);
