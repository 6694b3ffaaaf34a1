-- Arbiter's first schema: game headers and their moves.
-- Applied by server/storage/migrations.cpp inside one transaction; PRAGMA user_version becomes 1.

-- One row per game: every field of storage::GameRow. Seats are fixed columns (a game has exactly
-- two). The variant is stored as its name so the file stays readable without the binary.
CREATE TABLE games (
    id                  TEXT    NOT NULL PRIMARY KEY,
    variant             TEXT    NOT NULL CHECK (variant IN ('chess', 'xiangqi', 'draughts')),
    initial_position    TEXT    NOT NULL,
    is_private          INTEGER NOT NULL DEFAULT 0 CHECK (is_private IN (0, 1)),
    clock_initial_ms    INTEGER,
    clock_increment_ms  INTEGER,
    status              TEXT    NOT NULL
                                CHECK (status IN ('waiting', 'playing', 'ended', 'aborted')),
    result              TEXT    NOT NULL DEFAULT ''
                                CHECK (result IN ('', '1-0', '0-1', '1/2-1/2')),
    reason              TEXT    NOT NULL DEFAULT '',
    first_name          TEXT    NOT NULL DEFAULT '',
    first_token_hash    TEXT    NOT NULL DEFAULT '',
    second_name         TEXT    NOT NULL DEFAULT '',
    second_token_hash   TEXT    NOT NULL DEFAULT '',
    first_clock_ms      INTEGER NOT NULL DEFAULT 0,
    second_clock_ms     INTEGER NOT NULL DEFAULT 0,
    seq                 INTEGER NOT NULL DEFAULT 0 CHECK (seq >= 0),
    ply                 INTEGER NOT NULL DEFAULT 0 CHECK (ply >= 0),
    created_ms          INTEGER NOT NULL,
    updated_ms          INTEGER NOT NULL,
    -- Plain ids, not foreign keys: a rematch and its original are written by separate writes
    -- in either order, and neither may fail because the other has not landed yet.
    rematch_of          TEXT,
    rematch_next        TEXT,
    -- A clock is both values or neither (untimed).
    CHECK ((clock_initial_ms IS NULL) = (clock_increment_ms IS NULL))
);

-- Listing newest first, with or without a status filter; id breaks ties for keyset paging.
CREATE INDEX games_by_created ON games (created_ms, id);
CREATE INDEX games_by_status_created ON games (status, created_ms, id);

-- One row per played move, clustered by game then ply (WITHOUT ROWID), so loading a game's moves
-- reads one contiguous range. Deleting a game deletes its moves.
CREATE TABLE moves (
    game_id     TEXT    NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply         INTEGER NOT NULL CHECK (ply >= 1),
    move        TEXT    NOT NULL,
    notation    TEXT    NOT NULL,
    position    TEXT    NOT NULL,
    clock_ms    INTEGER,
    think_ms    INTEGER,
    seq         INTEGER NOT NULL CHECK (seq >= 0),
    played_ms   INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;
