-- Accounts (issue 40): registered players and their signed-in sessions. Guests need neither.

-- One row per registered player. `username` is kept as typed (shown); `username_key` is its
-- lower-case form (server/app/account_rules.hpp, username_key), unique so that two names that
-- differ only in case cannot both be taken. `password_hash` is libsodium's Argon2id string,
-- which carries its own salt and costs. A deleted account keeps its row (its games keep their
-- player) with deleted_ms set, and its name stays taken.
CREATE TABLE users (
    id              INTEGER PRIMARY KEY,
    username        TEXT    NOT NULL CHECK (length(username) BETWEEN 3 AND 20),
    username_key    TEXT    NOT NULL UNIQUE CHECK (username_key = lower(username)),
    password_hash   TEXT    NOT NULL,
    created_ms      INTEGER NOT NULL,
    deleted_ms      INTEGER
);

-- One row per signed-in session. Only the SHA-256 of the session token is stored (as seat
-- tokens are), so a copy of the database signs no one in. Deleting a user deletes its sessions.
CREATE TABLE sessions (
    token_hash      TEXT    NOT NULL PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_ms      INTEGER NOT NULL,
    last_seen_ms    INTEGER NOT NULL
) WITHOUT ROWID;

-- Signing a user out everywhere but here (a password change) finds its sessions by user.
CREATE INDEX sessions_by_user ON sessions (user_id);
