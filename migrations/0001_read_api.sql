-- The reference origin's data model: accounts and keys, brands and markets,
-- tracked questions and their answer runs, and the stored analyses of the
-- insight operations. Days are UTC calendar days 'YYYY-MM-DD'; timestamps ISO 8601 UTC.

CREATE TABLE plans (
  id TEXT PRIMARY KEY CHECK (id IN ('starter', 'pro', 'growth')),
  name TEXT NOT NULL,
  monthly_quota INTEGER NOT NULL,
  includes_insights INTEGER NOT NULL -- tasks, perception, forum, crawler and visitor data
);

CREATE TABLE accounts (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  plan_id TEXT NOT NULL REFERENCES plans (id),
  plan_active INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  key_hash TEXT NOT NULL UNIQUE, -- hex SHA-256 of the key; the key itself is never stored
  label TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);

CREATE TABLE brands (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  name TEXT NOT NULL,
  domain TEXT NOT NULL,
  category TEXT NOT NULL
);
CREATE INDEX brands_by_account ON brands (account_id);

CREATE TABLE markets (
  id INTEGER PRIMARY KEY,
  brand_id INTEGER NOT NULL REFERENCES brands (id),
  code TEXT NOT NULL, -- lower case: 'us', 'de', 'ch-fr'
  name TEXT NOT NULL,
  language TEXT NOT NULL,
  country TEXT NOT NULL,
  is_primary INTEGER NOT NULL DEFAULT 0,
  UNIQUE (brand_id, code)
);

CREATE TABLE rivals (
  id INTEGER PRIMARY KEY,
  brand_id INTEGER NOT NULL REFERENCES brands (id),
  name TEXT NOT NULL, -- as AI writes it
  domain TEXT NOT NULL,
  UNIQUE (brand_id, name)
);

CREATE TABLE integrations (
  brand_id INTEGER NOT NULL REFERENCES brands (id),
  kind TEXT NOT NULL CHECK (kind IN ('search_performance', 'edge_network', 'tracking_script')),
  connected_at TEXT NOT NULL,
  PRIMARY KEY (brand_id, kind)
);

CREATE TABLE topics (
  id INTEGER PRIMARY KEY,
  brand_id INTEGER NOT NULL REFERENCES brands (id),
  market_id INTEGER NOT NULL REFERENCES markets (id),
  name TEXT NOT NULL,
  -- content analysis, derived by language models upstream and stored here as data (DESIGN section 4)
  facts_compared TEXT NOT NULL DEFAULT '[]', -- JSON array of strings
  cited_pages_share TEXT NOT NULL DEFAULT '[]', -- JSON array of strings
  analysed_on TEXT NOT NULL
);
CREATE INDEX topics_by_market ON topics (market_id);

CREATE TABLE questions (
  id INTEGER PRIMARY KEY,
  topic_id INTEGER NOT NULL REFERENCES topics (id),
  market_id INTEGER NOT NULL REFERENCES markets (id),
  text TEXT NOT NULL,
  UNIQUE (market_id, text)
);
CREATE INDEX questions_by_topic ON questions (topic_id);

-- One question asked to one engine at one time.
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  market_id INTEGER NOT NULL REFERENCES markets (id),
  question_id INTEGER NOT NULL REFERENCES questions (id),
  engine TEXT NOT NULL,
  day TEXT NOT NULL,
  ran_at TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('recommended', 'mentioned', 'absent', 'open', 'no_answer')),
  position INTEGER, -- 1-based rank of the brand in the answer's list, when named
  answer TEXT NOT NULL
);
-- Window scans read (market, day) and need nothing else from the row for the scores.
CREATE INDEX runs_by_market_day ON runs (market_id, day, question_id, engine, state, position);
-- A question's runs by engine, newest last: the runs of one question and each engine's latest answer.
CREATE INDEX runs_by_question ON runs (question_id, engine, ran_at);

-- Rivals named by a run, with their rank in the answer's list.
-- market, day, question and engine are copied from the run so window scans need no join.
CREATE TABLE run_rivals (
  run_id INTEGER NOT NULL REFERENCES runs (id),
  market_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  question_id INTEGER NOT NULL,
  engine TEXT NOT NULL,
  rival_id INTEGER NOT NULL REFERENCES rivals (id),
  position INTEGER NOT NULL,
  PRIMARY KEY (run_id, rival_id)
) WITHOUT ROWID;
CREATE INDEX run_rivals_by_market_day ON run_rivals (market_id, day, question_id, engine, rival_id, position);

-- URLs a run cites.
CREATE TABLE run_citations (
  run_id INTEGER NOT NULL REFERENCES runs (id),
  market_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  question_id INTEGER NOT NULL,
  url TEXT NOT NULL,
  domain TEXT NOT NULL,
  PRIMARY KEY (run_id, url)
) WITHOUT ROWID;
CREATE INDEX run_citations_by_market_day ON run_citations (market_id, day, domain, question_id);

-- Pages of the brand (and of rivals) known to the service, with the topic and question they answer.
CREATE TABLE pages (
  id INTEGER PRIMARY KEY,
  brand_id INTEGER NOT NULL REFERENCES brands (id),
  market_id INTEGER NOT NULL REFERENCES markets (id),
  rival_id INTEGER REFERENCES rivals (id), -- NULL: the brand's own page
  url TEXT NOT NULL,
  title TEXT NOT NULL,
  topic_id INTEGER REFERENCES topics (id),
  question_id INTEGER REFERENCES questions (id),
  UNIQUE (market_id, url)
);

CREATE TABLE tasks (
  id INTEGER PRIMARY KEY,
  brand_id INTEGER NOT NULL REFERENCES brands (id),
  market_id INTEGER NOT NULL REFERENCES markets (id),
  title TEXT NOT NULL,
  layer TEXT NOT NULL CHECK (layer IN ('content', 'technical', 'authority', 'brand')),
  status TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'done', 'dismissed')),
  impact INTEGER NOT NULL, -- expected gain in visibility points x10: the "best first" order
  effort TEXT NOT NULL CHECK (effort IN ('low', 'medium', 'high')),
  why TEXT NOT NULL,
  steps TEXT NOT NULL, -- JSON array of strings
  evidence TEXT NOT NULL, -- JSON array of {kind, text, url?}
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX tasks_by_market ON tasks (market_id, status, layer);

CREATE TABLE task_topics (
  task_id INTEGER NOT NULL REFERENCES tasks (id),
  topic_id INTEGER NOT NULL REFERENCES topics (id),
  PRIMARY KEY (task_id, topic_id)
) WITHOUT ROWID;

CREATE TABLE activity (
  id INTEGER PRIMARY KEY,
  brand_id INTEGER NOT NULL REFERENCES brands (id),
  market_id INTEGER NOT NULL REFERENCES markets (id),
  category TEXT NOT NULL CHECK (category IN ('visibility', 'citation', 'competitor', 'content', 'task', 'integration')),
  title TEXT NOT NULL,
  detail TEXT NOT NULL,
  occurred_at TEXT NOT NULL
);
CREATE INDEX activity_by_market ON activity (market_id, occurred_at);

-- Weekly perception per engine (derived upstream by language models, stored as data).
CREATE TABLE perception_weeks (
  market_id INTEGER NOT NULL REFERENCES markets (id),
  engine TEXT NOT NULL,
  week_start TEXT NOT NULL,
  knows_brand INTEGER NOT NULL,
  recommends INTEGER NOT NULL,
  sentiment REAL NOT NULL, -- -1 to 1
  gets_right TEXT NOT NULL, -- JSON array of strings
  gets_wrong TEXT NOT NULL, -- JSON array of strings
  PRIMARY KEY (market_id, engine, week_start)
) WITHOUT ROWID;

CREATE TABLE perception_transcripts (
  id INTEGER PRIMARY KEY,
  market_id INTEGER NOT NULL REFERENCES markets (id),
  engine TEXT NOT NULL,
  asked_at TEXT NOT NULL,
  prompt TEXT NOT NULL,
  answer TEXT NOT NULL
);
CREATE INDEX perception_transcripts_by_market ON perception_transcripts (market_id, engine, asked_at);

CREATE TABLE forum_threads (
  id INTEGER PRIMARY KEY,
  topic_id INTEGER NOT NULL REFERENCES topics (id),
  url TEXT NOT NULL,
  title TEXT NOT NULL,
  forum TEXT NOT NULL,
  posted_on TEXT NOT NULL,
  replies INTEGER NOT NULL,
  UNIQUE (topic_id, url)
);
CREATE INDEX forum_threads_by_topic ON forum_threads (topic_id, posted_on);

CREATE TABLE forum_summaries (
  topic_id INTEGER NOT NULL REFERENCES topics (id),
  week_start TEXT NOT NULL,
  summary TEXT NOT NULL,
  PRIMARY KEY (topic_id, week_start)
) WITHOUT ROWID;

CREATE TABLE search_rows (
  market_id INTEGER NOT NULL REFERENCES markets (id),
  day TEXT NOT NULL,
  query TEXT NOT NULL,
  page TEXT NOT NULL,
  clicks INTEGER NOT NULL,
  impressions INTEGER NOT NULL,
  position REAL NOT NULL,
  PRIMARY KEY (market_id, day, query, page)
) WITHOUT ROWID;

CREATE TABLE crawler_hits (
  brand_id INTEGER NOT NULL REFERENCES brands (id),
  day TEXT NOT NULL,
  bot TEXT NOT NULL,
  url TEXT NOT NULL,
  hits INTEGER NOT NULL,
  PRIMARY KEY (brand_id, day, bot, url)
) WITHOUT ROWID;

CREATE TABLE ai_visits (
  brand_id INTEGER NOT NULL REFERENCES brands (id),
  day TEXT NOT NULL,
  assistant TEXT NOT NULL,
  url TEXT NOT NULL,
  visits INTEGER NOT NULL,
  PRIMARY KEY (brand_id, day, assistant, url)
) WITHOUT ROWID;

-- Stored readiness signals per market (derived upstream; the score is computed from them).
CREATE TABLE readiness_signals (
  market_id INTEGER NOT NULL REFERENCES markets (id),
  signal TEXT NOT NULL,
  value REAL NOT NULL, -- 0 to 1
  weight REAL NOT NULL,
  note TEXT NOT NULL,
  PRIMARY KEY (market_id, signal)
) WITHOUT ROWID;

-- Limits: requests in the rolling minute per key, successful reads per account and month.
CREATE TABLE rate_hits (
  key_id INTEGER NOT NULL,
  at_ms INTEGER NOT NULL
);
CREATE INDEX rate_hits_by_key ON rate_hits (key_id, at_ms);

CREATE TABLE usage (
  account_id INTEGER NOT NULL,
  month TEXT NOT NULL, -- 'YYYY-MM'
  reads INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, month)
) WITHOUT ROWID;
