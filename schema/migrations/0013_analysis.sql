-- Engine analysis of finished games (issue 42): one row per game, written as the analysis
-- progresses. `plies` holds the per-ply results as the wire's JSON array (schema/protocol.md,
-- "Analysis": eval, best, pv, mark), `accuracy` and `counts` the per-seat figures once done.
-- A row left queued or running by a stopped server is queued again at start.
CREATE TABLE analyses (
    game_id TEXT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
    engine TEXT NOT NULL,
    done INTEGER NOT NULL CHECK (done >= 0),
    total INTEGER NOT NULL CHECK (total >= 0),
    plies TEXT NOT NULL,
    accuracy TEXT,
    counts TEXT,
    requested_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
);
CREATE INDEX analyses_unfinished ON analyses (status) WHERE status IN ('queued', 'running');
