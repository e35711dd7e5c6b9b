-- The kept history starts full (issue 45): the first time a brand and market is read for a person or a link, the
-- API's 12 weekly points of the score are kept as rows of source `api`. Those points carry the score and its
-- answered runs only, so naming_runs, won, lost and held may now be NULL (`api` rows) and `api` is a source. A
-- later full read of such a week (the digest, the hourly cron) completes its row (src/weekly-report/history.ts).
-- SQLite cannot change a column's NOT NULL or a CHECK in place: the table is rebuilt, its rows copied.
CREATE TABLE weekly_history_new (
  brand_id INTEGER NOT NULL,
  market_id INTEGER NOT NULL,
  iso_week TEXT NOT NULL,
  week_monday TEXT NOT NULL,
  period_from TEXT NOT NULL,
  period_to TEXT NOT NULL,
  score REAL,
  answered_runs INTEGER NOT NULL,
  naming_runs INTEGER,
  won INTEGER,
  lost INTEGER,
  held INTEGER,
  engines TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('digest', 'cron', 'api')),
  PRIMARY KEY (brand_id, market_id, iso_week)
);
INSERT INTO weekly_history_new SELECT brand_id, market_id, iso_week, week_monday, period_from, period_to, score, answered_runs, naming_runs, won, lost, held, engines, recorded_at, source FROM weekly_history;
DROP TABLE weekly_history;
ALTER TABLE weekly_history_new RENAME TO weekly_history;
