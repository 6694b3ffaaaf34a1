-- Whether a move gives check: the side to move after it is in check (protocol.md, record: a move's
-- `check`). The room knows it when the move is played; before, a replay played the whole game
-- through again on every read to find it. NULL in rows written before this migration: those
-- games are played through as before.
ALTER TABLE moves ADD COLUMN in_check INTEGER CHECK (in_check IN (0, 1));
ALTER TABLE move_journal ADD COLUMN in_check INTEGER CHECK (in_check IN (0, 1));
