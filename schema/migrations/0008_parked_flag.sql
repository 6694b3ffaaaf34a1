-- A timed game whose clock runs and that nobody is connected to leaves memory (protocol.md,
-- Clocks): its clock keeps running in storage. flag_at_ms is the Unix ms at which the side to
-- move's flag falls, written when the game left memory; flag_at_seq is the game's seq then. The
-- deadline holds only while seq is still flag_at_seq: any later event (a move, a presence, an
-- offer) stored a newer clock, and the deadline no longer means anything. NULL for every other
-- game, and in rows written before this migration.
ALTER TABLE games ADD COLUMN flag_at_ms INTEGER;
ALTER TABLE games ADD COLUMN flag_at_seq INTEGER CHECK (flag_at_seq >= 0);
