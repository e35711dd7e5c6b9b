-- Citations per market, day and URL, kept by the database as citations are
-- stored (like the daily counts of 0002), so that domain, page and thread
-- counts over 90 days read thousands of rows instead of every citation. They
-- are counts, not figures: shares, classifications, changes and rankings are
-- still computed at request time (DESIGN section 4). Triggers keep them exact
-- for every insert and delete; the backfill covers existing citations.

CREATE TABLE citation_days (
  market_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  domain TEXT NOT NULL,
  url TEXT NOT NULL,
  citations INTEGER NOT NULL,
  PRIMARY KEY (market_id, day, domain, url)
) WITHOUT ROWID;

CREATE TRIGGER run_citations_count AFTER INSERT ON run_citations BEGIN
  INSERT INTO citation_days (market_id, day, domain, url, citations)
  VALUES (NEW.market_id, NEW.day, NEW.domain, NEW.url, 1)
  ON CONFLICT (market_id, day, domain, url) DO UPDATE SET citations = citations + 1;
END;

CREATE TRIGGER run_citations_uncount AFTER DELETE ON run_citations BEGIN
  UPDATE citation_days SET citations = citations - 1
   WHERE market_id = OLD.market_id AND day = OLD.day AND domain = OLD.domain AND url = OLD.url;
END;

INSERT INTO citation_days (market_id, day, domain, url, citations)
SELECT market_id, day, domain, url, count(*) FROM run_citations GROUP BY market_id, day, domain, url;
