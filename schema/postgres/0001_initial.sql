-- Arbiter's schema on PostgreSQL (issue 43): every table the SQLite schema has at its version 13
-- (schema/migrations/0001..0013), with the same table and column names and PostgreSQL's types.
-- Applied by server/storage/postgres_migrations.cpp inside one transaction, which records the
-- version in schema_migrations. Its own sequence: a PostgreSQL migration is numbered here, not
-- after SQLite's.
--
-- What differs from SQLite, and why:
-- - 0/1 flags are `boolean` (PostgreSQL has one); Unix milliseconds and counters are `bigint`,
--   ratings `double precision`.
-- - No move_journal (SQLite 0003): it gathers a batch's moves onto one page because SQLite
--   rewrites whole pages per commit. PostgreSQL writes a move's two rows to its WAL either way,
--   so each move goes straight to `moves` and `games`.
-- - games.owner_node and games.owner_epoch: room for the cluster's fencing (issue 43). A game
--   belongs to the node owner_node while that node's lease holds; every write of a move will
--   check owner_epoch in the same statement, so a node that lost the game cannot commit.

-- One row per game: every field of storage::GameRow (SQLite 0001, 0002, 0004, 0008, 0010, 0011).
CREATE TABLE games (
    -- Byte order, as SQLite compares text: lists break ties by id, and keyset paging compares
    -- ids, whatever the database's locale.
    id                  text    COLLATE "C" NOT NULL PRIMARY KEY,
    variant             text    NOT NULL CHECK (variant IN ('chess', 'xiangqi', 'draughts')),
    initial_position    text    NOT NULL,
    is_private          boolean NOT NULL DEFAULT false,
    clock_initial_ms    bigint,
    clock_increment_ms  bigint,
    status              text    NOT NULL
                                CHECK (status IN ('waiting', 'playing', 'ended', 'aborted')),
    result              text    NOT NULL DEFAULT ''
                                CHECK (result IN ('', '1-0', '0-1', '1/2-1/2')),
    reason              text    NOT NULL DEFAULT '',
    first_name          text    NOT NULL DEFAULT '',
    first_token_hash    text    NOT NULL DEFAULT '',
    second_name         text    NOT NULL DEFAULT '',
    second_token_hash   text    NOT NULL DEFAULT '',
    first_clock_ms      bigint  NOT NULL DEFAULT 0,
    second_clock_ms     bigint  NOT NULL DEFAULT 0,
    seq                 bigint  NOT NULL DEFAULT 0 CHECK (seq >= 0),
    ply                 integer NOT NULL DEFAULT 0 CHECK (ply >= 0),
    created_ms          bigint  NOT NULL,
    updated_ms          bigint  NOT NULL,
    -- Plain ids, not foreign keys: a rematch and its original are written by separate writes
    -- in either order, and neither may fail because the other has not landed yet.
    rematch_of          text,
    rematch_next        text,
    -- Engine seats (SQLite 0002): '' and 0 for a person.
    first_engine        text    NOT NULL DEFAULT '',
    first_engine_level  integer NOT NULL DEFAULT 0,
    second_engine       text    NOT NULL DEFAULT '',
    second_engine_level integer NOT NULL DEFAULT 0,
    -- Open offers (SQLite 0004): "kind:seat" items joined by ',' in the order made; '' for none.
    offers              text    NOT NULL DEFAULT '',
    -- A game that left memory with its clock running (SQLite 0008).
    flag_at_ms          bigint,
    flag_at_seq         bigint  CHECK (flag_at_seq >= 0),
    -- Accounts and ratings (SQLite 0010, 0011); the user columns reference users below.
    first_user_id       bigint,
    second_user_id      bigint,
    rated               boolean NOT NULL DEFAULT false,
    rating_min          integer,
    rating_max          integer,
    first_rating        integer,
    second_rating       integer,
    first_rating_diff   integer,
    second_rating_diff  integer,
    first_rating_provisional        boolean,
    second_rating_provisional       boolean,
    first_rating_after_provisional  boolean,
    second_rating_after_provisional boolean,
    -- The cluster's ownership (issue 43): NULL and 0 on a single node.
    owner_node          text,
    owner_epoch         bigint  NOT NULL DEFAULT 0 CHECK (owner_epoch >= 0),
    -- A clock is both values or neither (untimed).
    CHECK ((clock_initial_ms IS NULL) = (clock_increment_ms IS NULL))
);

-- Listing newest first, by status and/or variant; id breaks ties for keyset paging (SQLite 0001,
-- 0006).
CREATE INDEX games_by_created ON games (created_ms, id);
CREATE INDEX games_by_status_created ON games (status, created_ms, id);
CREATE INDEX games_by_variant_created ON games (variant, created_ms, id);
CREATE INDEX games_by_status_variant_created ON games (status, variant, created_ms, id);
-- A player's games, newest first (SQLite 0010).
CREATE INDEX games_by_first_user ON games (first_user_id, created_ms, id)
    WHERE first_user_id IS NOT NULL;
CREATE INDEX games_by_second_user ON games (second_user_id, created_ms, id)
    WHERE second_user_id IS NOT NULL;
-- The games a node owns (its failover and its shutdown hand them over).
CREATE INDEX games_by_owner ON games (owner_node) WHERE owner_node IS NOT NULL;

-- One row per played move (SQLite 0001, 0005, 0007). Deleting a game deletes its moves.
CREATE TABLE moves (
    game_id     text    NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply         integer NOT NULL CHECK (ply >= 1),
    move        text    NOT NULL,
    notation    text    NOT NULL,
    position    text    NOT NULL,
    clock_ms    bigint,
    think_ms    bigint,
    seq         bigint  NOT NULL CHECK (seq >= 0),
    played_ms   bigint  NOT NULL,
    in_check    boolean,
    lag_ms      bigint  CHECK (lag_ms >= 0),
    PRIMARY KEY (game_id, ply)
);

-- Registered players and their signed-in sessions (SQLite 0009).
CREATE TABLE users (
    id              bigint  GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    username        text    NOT NULL CHECK (length(username) BETWEEN 3 AND 20),
    username_key    text    NOT NULL UNIQUE CHECK (username_key = lower(username)),
    password_hash   text    NOT NULL,
    created_ms      bigint  NOT NULL,
    deleted_ms      bigint
);

CREATE TABLE sessions (
    token_hash      text    NOT NULL PRIMARY KEY,
    user_id         bigint  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_ms      bigint  NOT NULL,
    last_seen_ms    bigint  NOT NULL
);
CREATE INDEX sessions_by_user ON sessions (user_id);

ALTER TABLE games ADD FOREIGN KEY (first_user_id) REFERENCES users (id);
ALTER TABLE games ADD FOREIGN KEY (second_user_id) REFERENCES users (id);

-- One Glicko-2 rating per player, variant and speed, and its history (SQLite 0010).
CREATE TABLE ratings (
    user_id     bigint  NOT NULL REFERENCES users (id),
    variant     text    NOT NULL CHECK (variant IN ('chess', 'xiangqi', 'draughts')),
    speed       text    NOT NULL CHECK (speed IN ('bullet', 'blitz', 'rapid', 'classical')),
    rating      double precision NOT NULL,
    deviation   double precision NOT NULL CHECK (deviation > 0),
    volatility  double precision NOT NULL CHECK (volatility > 0),
    games       integer NOT NULL CHECK (games >= 0),
    updated_ms  bigint  NOT NULL,
    PRIMARY KEY (user_id, variant, speed)
);
CREATE INDEX ratings_by_perf ON ratings (variant, speed, rating DESC);

CREATE TABLE rating_history (
    user_id     bigint  NOT NULL REFERENCES users (id),
    variant     text    NOT NULL,
    speed       text    NOT NULL,
    at_ms       bigint  NOT NULL,
    game_id     text    NOT NULL,
    rating      double precision NOT NULL,
    deviation   double precision NOT NULL,
    PRIMARY KEY (user_id, variant, speed, at_ms, game_id)
);

-- Chat messages of a game's two rooms (SQLite 0012).
CREATE TABLE chat_messages (
    game_id text    NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq     bigint  NOT NULL CHECK (seq >= 1),
    room    text    NOT NULL CHECK (room IN ('players', 'spectators')),
    author  text    NOT NULL,
    seat    text    CHECK (seat IN ('first', 'second')),
    text    text    NOT NULL,
    at_ms   bigint  NOT NULL,
    PRIMARY KEY (game_id, seq)
);

-- Engine analysis of finished games (SQLite 0013).
CREATE TABLE analyses (
    game_id      text    PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    status       text    NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
    engine       text    NOT NULL,
    done         integer NOT NULL CHECK (done >= 0),
    total        integer NOT NULL CHECK (total >= 0),
    plies        text    NOT NULL,
    accuracy     text,
    counts       text,
    requested_ms bigint  NOT NULL,
    updated_ms   bigint  NOT NULL
);
CREATE INDEX analyses_unfinished ON analyses (status) WHERE status IN ('queued', 'running');
