-- Chat (issue 41, protocol.md "Chat"): the messages posted to a game's two rooms, each a game
-- event numbered like a move (seq), kept with the game for `since` after a restart, `state.chat`
-- and the replay's `record.chat`. The text is stored as it was sent: trimmed, 1..140 characters,
-- the operator's word list already applied. A game's messages go with it (a pruned game).
CREATE TABLE chat_messages (
    game_id TEXT    NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL CHECK (seq >= 1),
    room    TEXT    NOT NULL CHECK (room IN ('players', 'spectators')),
    author  TEXT    NOT NULL,
    -- The author's seat ('first' or 'second') in the players' room; NULL for a spectator.
    seat    TEXT    CHECK (seat IN ('first', 'second')),
    text    TEXT    NOT NULL,
    at_ms   INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
