-- The move journal (issue 9, durable throughput). A move commits as one row appended here, in
-- commit order, rather than as a row in its game's part of `moves` plus an update of its `games`
-- row: a batch of moves from many games then dirties one or two journal pages instead of two
-- pages per game. The writer later files the journal into `moves` and `games` in one transaction
-- (many moves of each game per page), and before any other write to a game, its journaled moves.
-- Readers merge what is not filed yet. A row here is as durable as a row in `moves`: it is in the
-- same database, written by the same commits.
CREATE TABLE move_journal (
    game_id         TEXT    NOT NULL,
    -- The move, as in `moves`.
    ply             INTEGER NOT NULL CHECK (ply >= 1),
    move            TEXT    NOT NULL,
    notation        TEXT    NOT NULL,
    position        TEXT    NOT NULL,
    clock_ms        INTEGER,
    think_ms        INTEGER,
    seq             INTEGER NOT NULL CHECK (seq >= 0),
    played_ms       INTEGER NOT NULL,
    -- The columns of the game's `games` row that a move changes, as they are after it.
    first_clock_ms  INTEGER NOT NULL,
    second_clock_ms INTEGER NOT NULL,
    game_seq        INTEGER NOT NULL CHECK (game_seq >= 0),
    game_ply        INTEGER NOT NULL CHECK (game_ply >= 0),
    updated_ms      INTEGER NOT NULL
);
