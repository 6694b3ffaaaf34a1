-- Ratings (issue 40): which account plays each seat, whether a game is rated, each player's
-- Glicko-2 rating per variant and speed, and its history.

-- The account playing each seat (NULL: a guest, an engine, or an open seat). Plain columns on the
-- game row, like the seats' names, so that a game keeps its players when an account is deleted
-- (users rows are never removed: deleted_ms marks them).
ALTER TABLE games ADD COLUMN first_user_id INTEGER REFERENCES users (id);
ALTER TABLE games ADD COLUMN second_user_id INTEGER REFERENCES users (id);
-- A rated game moves both players' ratings when it ends (never when it is aborted).
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));
-- A seek's rating range: only players whose rating (for this game's variant and speed) lies in
-- [rating_min, rating_max] may join. NULL: no bound on that side.
ALTER TABLE games ADD COLUMN rating_min INTEGER;
ALTER TABLE games ADD COLUMN rating_max INTEGER;
-- Each seat's rating when it sat down (rounded, as shown), and its change when the rated game
-- ended (rounded after minus rounded before). NULL in a game that is not rated, and the changes
-- until it ends.
ALTER TABLE games ADD COLUMN first_rating INTEGER;
ALTER TABLE games ADD COLUMN second_rating INTEGER;
ALTER TABLE games ADD COLUMN first_rating_diff INTEGER;
ALTER TABLE games ADD COLUMN second_rating_diff INTEGER;

-- A player's games, newest first (profiles, /api/users/{name}/games, won/drawn/lost counts).
CREATE INDEX games_by_first_user ON games (first_user_id, created_ms, id)
    WHERE first_user_id IS NOT NULL;
CREATE INDEX games_by_second_user ON games (second_user_id, created_ms, id)
    WHERE second_user_id IS NOT NULL;

-- One Glicko-2 rating per player, variant and speed (server/app/speed.hpp; ultra-bullet counts
-- as bullet, untimed games are not rated). A row exists once the player finished a rated game
-- there; before that the player has Glicko-2's default (1500 / 350 / 0.06). `updated_ms` is the
-- end of the last rated game: the deviation grows with the time since (Glicko-2, step 6).
CREATE TABLE ratings (
    user_id     INTEGER NOT NULL REFERENCES users (id),
    variant     TEXT    NOT NULL CHECK (variant IN ('chess', 'xiangqi', 'draughts')),
    speed       TEXT    NOT NULL CHECK (speed IN ('bullet', 'blitz', 'rapid', 'classical')),
    rating      REAL    NOT NULL,
    deviation   REAL    NOT NULL CHECK (deviation > 0),
    volatility  REAL    NOT NULL CHECK (volatility > 0),
    games       INTEGER NOT NULL CHECK (games >= 0),
    updated_ms  INTEGER NOT NULL,
    PRIMARY KEY (user_id, variant, speed)
) WITHOUT ROWID;

-- Leaderboards: the best ratings of one variant and speed.
CREATE INDEX ratings_by_perf ON ratings (variant, speed, rating DESC);

-- Every rated game's result for each of its players: the rating after it (the history chart).
-- `game_id` is a plain id (rated games are never pruned: they have moves).
CREATE TABLE rating_history (
    user_id     INTEGER NOT NULL REFERENCES users (id),
    variant     TEXT    NOT NULL,
    speed       TEXT    NOT NULL,
    at_ms       INTEGER NOT NULL,
    game_id     TEXT    NOT NULL,
    rating      REAL    NOT NULL,
    deviation   REAL    NOT NULL,
    PRIMARY KEY (user_id, variant, speed, at_ms, game_id)
) WITHOUT ROWID;
