-- Engine opponents (issue 10): a seat played by an engine records which engine and at what
-- level, so that a restored game asks the same engine again and lists show the seat as an engine.
-- '' and 0 for a person.
ALTER TABLE games ADD COLUMN first_engine TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN first_engine_level INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN second_engine TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN second_engine_level INTEGER NOT NULL DEFAULT 0;
