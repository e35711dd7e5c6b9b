-- Daily counts kept by the database as runs are stored, so that scores,
-- history and topic figures over 90 days read hundreds of rows, not a million.
-- They are counts, not figures: every score, change, rank and share is still
-- computed at request time from them (DESIGN section 4). Triggers keep them
-- exact for every insert and delete; the backfill covers existing runs.

-- Answered and brand-naming runs per market, day and topic.
CREATE TABLE topic_days (
  market_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  topic_id INTEGER NOT NULL,
  answered INTEGER NOT NULL,
  naming INTEGER NOT NULL,
  PRIMARY KEY (market_id, day, topic_id)
) WITHOUT ROWID;

-- Runs per market, day, question and engine, by state, with the brand's positions:
-- what dominant states, rates, positions and won/lost read.
CREATE TABLE cell_days (
  market_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  question_id INTEGER NOT NULL,
  engine TEXT NOT NULL,
  recommended INTEGER NOT NULL,
  mentioned INTEGER NOT NULL,
  absent INTEGER NOT NULL,
  open INTEGER NOT NULL,
  no_answer INTEGER NOT NULL,
  position_sum INTEGER NOT NULL,
  position_count INTEGER NOT NULL,
  PRIMARY KEY (market_id, day, question_id, engine)
) WITHOUT ROWID;

-- Runs naming each rival per market, day and topic.
CREATE TABLE rival_topic_days (
  market_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  topic_id INTEGER NOT NULL,
  rival_id INTEGER NOT NULL,
  runs INTEGER NOT NULL,
  PRIMARY KEY (market_id, day, topic_id, rival_id)
) WITHOUT ROWID;

CREATE TRIGGER runs_count_topic_days AFTER INSERT ON runs BEGIN
  INSERT INTO topic_days (market_id, day, topic_id, answered, naming)
  VALUES (NEW.market_id, NEW.day, (SELECT topic_id FROM questions WHERE id = NEW.question_id), NEW.state <> 'no_answer', NEW.state IN ('recommended', 'mentioned'))
  ON CONFLICT (market_id, day, topic_id) DO UPDATE SET answered = answered + excluded.answered, naming = naming + excluded.naming;
END;

CREATE TRIGGER runs_uncount_topic_days AFTER DELETE ON runs BEGIN
  UPDATE topic_days SET answered = answered - (OLD.state <> 'no_answer'), naming = naming - (OLD.state IN ('recommended', 'mentioned'))
   WHERE market_id = OLD.market_id AND day = OLD.day AND topic_id = (SELECT topic_id FROM questions WHERE id = OLD.question_id);
END;

CREATE TRIGGER runs_count_cell_days AFTER INSERT ON runs BEGIN
  INSERT INTO cell_days (market_id, day, question_id, engine, recommended, mentioned, absent, open, no_answer, position_sum, position_count)
  VALUES (NEW.market_id, NEW.day, NEW.question_id, NEW.engine, NEW.state = 'recommended', NEW.state = 'mentioned', NEW.state = 'absent', NEW.state = 'open', NEW.state = 'no_answer', coalesce(NEW.position, 0), NEW.position IS NOT NULL)
  ON CONFLICT (market_id, day, question_id, engine) DO UPDATE SET
    recommended = recommended + excluded.recommended, mentioned = mentioned + excluded.mentioned, absent = absent + excluded.absent,
    open = open + excluded.open, no_answer = no_answer + excluded.no_answer,
    position_sum = position_sum + excluded.position_sum, position_count = position_count + excluded.position_count;
END;

CREATE TRIGGER runs_uncount_cell_days AFTER DELETE ON runs BEGIN
  UPDATE cell_days SET
    recommended = recommended - (OLD.state = 'recommended'), mentioned = mentioned - (OLD.state = 'mentioned'), absent = absent - (OLD.state = 'absent'),
    open = open - (OLD.state = 'open'), no_answer = no_answer - (OLD.state = 'no_answer'),
    position_sum = position_sum - coalesce(OLD.position, 0), position_count = position_count - (OLD.position IS NOT NULL)
   WHERE market_id = OLD.market_id AND day = OLD.day AND question_id = OLD.question_id AND engine = OLD.engine;
END;

CREATE TRIGGER run_rivals_count AFTER INSERT ON run_rivals BEGIN
  INSERT INTO rival_topic_days (market_id, day, topic_id, rival_id, runs)
  VALUES (NEW.market_id, NEW.day, (SELECT topic_id FROM questions WHERE id = NEW.question_id), NEW.rival_id, 1)
  ON CONFLICT (market_id, day, topic_id, rival_id) DO UPDATE SET runs = runs + 1;
END;

CREATE TRIGGER run_rivals_uncount AFTER DELETE ON run_rivals BEGIN
  UPDATE rival_topic_days SET runs = runs - 1
   WHERE market_id = OLD.market_id AND day = OLD.day AND rival_id = OLD.rival_id AND topic_id = (SELECT topic_id FROM questions WHERE id = OLD.question_id);
END;

INSERT INTO topic_days (market_id, day, topic_id, answered, naming)
SELECT r.market_id, r.day, q.topic_id, sum(r.state <> 'no_answer'), sum(r.state IN ('recommended', 'mentioned'))
  FROM runs r JOIN questions q ON q.id = r.question_id GROUP BY r.market_id, r.day, q.topic_id;

INSERT INTO cell_days (market_id, day, question_id, engine, recommended, mentioned, absent, open, no_answer, position_sum, position_count)
SELECT market_id, day, question_id, engine, sum(state = 'recommended'), sum(state = 'mentioned'), sum(state = 'absent'), sum(state = 'open'), sum(state = 'no_answer'),
       coalesce(sum(position), 0), count(position)
  FROM runs GROUP BY market_id, day, question_id, engine;

INSERT INTO rival_topic_days (market_id, day, topic_id, rival_id, runs)
SELECT rr.market_id, rr.day, q.topic_id, rr.rival_id, count(*)
  FROM run_rivals rr JOIN questions q ON q.id = rr.question_id GROUP BY rr.market_id, rr.day, q.topic_id, rr.rival_id;
