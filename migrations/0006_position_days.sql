-- Named runs and the sum of their positions per market, day and name (the
-- brand as rival_id 0, each rival by its id), kept by triggers like the daily
-- counts of 0002: mentions and mean positions per day without scanning runs.
-- Counts only; means, shares and rankings are computed at request time.

CREATE TABLE position_days (
  market_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  rival_id INTEGER NOT NULL, -- 0: the brand itself
  named INTEGER NOT NULL, -- runs naming it at a position
  position_sum INTEGER NOT NULL,
  PRIMARY KEY (market_id, day, rival_id)
) WITHOUT ROWID;

CREATE TRIGGER runs_count_positions AFTER INSERT ON runs WHEN NEW.position IS NOT NULL BEGIN
  INSERT INTO position_days (market_id, day, rival_id, named, position_sum)
  VALUES (NEW.market_id, NEW.day, 0, 1, NEW.position)
  ON CONFLICT (market_id, day, rival_id) DO UPDATE SET named = named + 1, position_sum = position_sum + excluded.position_sum;
END;

CREATE TRIGGER runs_uncount_positions AFTER DELETE ON runs WHEN OLD.position IS NOT NULL BEGIN
  UPDATE position_days SET named = named - 1, position_sum = position_sum - OLD.position
   WHERE market_id = OLD.market_id AND day = OLD.day AND rival_id = 0;
END;

CREATE TRIGGER run_rivals_count_positions AFTER INSERT ON run_rivals BEGIN
  INSERT INTO position_days (market_id, day, rival_id, named, position_sum)
  VALUES (NEW.market_id, NEW.day, NEW.rival_id, 1, NEW.position)
  ON CONFLICT (market_id, day, rival_id) DO UPDATE SET named = named + 1, position_sum = position_sum + excluded.position_sum;
END;

CREATE TRIGGER run_rivals_uncount_positions AFTER DELETE ON run_rivals BEGIN
  UPDATE position_days SET named = named - 1, position_sum = position_sum - OLD.position
   WHERE market_id = OLD.market_id AND day = OLD.day AND rival_id = OLD.rival_id;
END;

INSERT INTO position_days (market_id, day, rival_id, named, position_sum)
SELECT market_id, day, 0, count(*), sum(position) FROM runs WHERE position IS NOT NULL GROUP BY market_id, day;

INSERT INTO position_days (market_id, day, rival_id, named, position_sum)
SELECT market_id, day, rival_id, count(*), sum(position) FROM run_rivals GROUP BY market_id, day, rival_id;
