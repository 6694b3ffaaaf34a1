-- The lag credited to a move (protocol.md, Lag compensation): the milliseconds of the move's
-- elapsed time (think_ms) that the server gave back to the mover's clock because the network, not
-- the player, spent them. clock_ms is the clock after the credit, so a game's clocks can be
-- audited: a timed move's clock_ms is the mover's previous clock_ms - think_ms + lag_ms + the
-- increment. NULL for untimed moves, and in rows written before this migration (nothing was
-- credited then).
ALTER TABLE moves ADD COLUMN lag_ms INTEGER CHECK (lag_ms >= 0);
ALTER TABLE move_journal ADD COLUMN lag_ms INTEGER CHECK (lag_ms >= 0);
