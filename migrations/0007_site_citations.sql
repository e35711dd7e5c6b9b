-- What /pages and /competitors/{name} read over 90-day windows without
-- scanning every citation: the citations of one site's pages (the brand's
-- own, a rival's) by URL, topic and engine, and every site's citations by
-- topic. Counts kept exact by triggers like those of 0002 and 0005; figures
-- are still computed at request time (DESIGN section 4).

-- 1. A citation carries its run's engine, as it carries the market, day and
--    question (like run_rivals): the rollups below need no join with runs.
--    SQLite cannot add a NOT NULL column without a default, so the table is rebuilt;
--    dropping it drops its index and the triggers of 0005, recreated below.
CREATE TABLE run_citations_new (
  run_id INTEGER NOT NULL REFERENCES runs (id),
  market_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  question_id INTEGER NOT NULL,
  engine TEXT NOT NULL,
  url TEXT NOT NULL,
  domain TEXT NOT NULL,
  PRIMARY KEY (run_id, url)
) WITHOUT ROWID;
INSERT INTO run_citations_new (run_id, market_id, day, question_id, engine, url, domain)
SELECT rc.run_id, rc.market_id, rc.day, rc.question_id, r.engine, rc.url, rc.domain FROM run_citations rc JOIN runs r ON r.id = rc.run_id;
DROP TABLE run_citations;
ALTER TABLE run_citations_new RENAME TO run_citations;
CREATE INDEX run_citations_by_market_day ON run_citations (market_id, day, domain, question_id);

-- 2. The daily citation counts of 0005 gain the topic of the citing question:
--    "what AI cites instead" per topic reads them.
DROP TABLE citation_days;
CREATE TABLE citation_days (
  market_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  domain TEXT NOT NULL,
  url TEXT NOT NULL,
  topic_id INTEGER NOT NULL,
  citations INTEGER NOT NULL,
  PRIMARY KEY (market_id, day, domain, url, topic_id)
) WITHOUT ROWID;

-- 3. Citations per site: keyed by domain first, then in the order /pages groups
--    by (URL, topic, engine), so one site's pages are read as one index range
--    and aggregated as they stream, whatever the window, with no sort.
CREATE TABLE site_citation_days (
  market_id INTEGER NOT NULL,
  domain TEXT NOT NULL,
  url TEXT NOT NULL,
  topic_id INTEGER NOT NULL,
  engine TEXT NOT NULL,
  day TEXT NOT NULL,
  citations INTEGER NOT NULL,
  PRIMARY KEY (market_id, domain, url, topic_id, engine, day)
) WITHOUT ROWID;

CREATE TRIGGER run_citations_count AFTER INSERT ON run_citations BEGIN
  INSERT INTO citation_days (market_id, day, domain, url, topic_id, citations)
  VALUES (NEW.market_id, NEW.day, NEW.domain, NEW.url, (SELECT topic_id FROM questions WHERE id = NEW.question_id), 1)
  ON CONFLICT (market_id, day, domain, url, topic_id) DO UPDATE SET citations = citations + 1;
  INSERT INTO site_citation_days (market_id, domain, url, topic_id, engine, day, citations)
  VALUES (NEW.market_id, NEW.domain, NEW.url, (SELECT topic_id FROM questions WHERE id = NEW.question_id), NEW.engine, NEW.day, 1)
  ON CONFLICT (market_id, domain, url, topic_id, engine, day) DO UPDATE SET citations = citations + 1;
END;

CREATE TRIGGER run_citations_uncount AFTER DELETE ON run_citations BEGIN
  UPDATE citation_days SET citations = citations - 1
   WHERE market_id = OLD.market_id AND day = OLD.day AND domain = OLD.domain AND url = OLD.url
     AND topic_id = (SELECT topic_id FROM questions WHERE id = OLD.question_id);
  UPDATE site_citation_days SET citations = citations - 1
   WHERE market_id = OLD.market_id AND domain = OLD.domain AND url = OLD.url AND engine = OLD.engine AND day = OLD.day
     AND topic_id = (SELECT topic_id FROM questions WHERE id = OLD.question_id);
END;

INSERT INTO citation_days (market_id, day, domain, url, topic_id, citations)
SELECT rc.market_id, rc.day, rc.domain, rc.url, q.topic_id, count(*)
  FROM run_citations rc JOIN questions q ON q.id = rc.question_id GROUP BY rc.market_id, rc.day, rc.domain, rc.url, q.topic_id;

INSERT INTO site_citation_days (market_id, domain, url, topic_id, engine, day, citations)
SELECT rc.market_id, rc.domain, rc.url, q.topic_id, rc.engine, rc.day, count(*)
  FROM run_citations rc JOIN questions q ON q.id = rc.question_id GROUP BY rc.market_id, rc.domain, rc.url, q.topic_id, rc.engine, rc.day;

-- 4. The rivals named for given questions and engines (won/lost's top rival of
--    the engines that moved): a range per (question, engine) instead of the whole window.
CREATE INDEX run_rivals_by_question ON run_rivals (market_id, question_id, engine, day, rival_id);
