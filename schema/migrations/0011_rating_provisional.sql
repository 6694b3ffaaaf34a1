-- Whether each rating a game shows was provisional (issue 40). 0010 kept only the rounded
-- ratings, so a game read back (lists, replay, a restart) showed every rating as provisional:
-- a settled 1600 read as "1600?". Each seat's flag when it sat down, and the flag of its new
-- rating once the rated game ended. NULL where the rating is NULL; rows from before read as
-- provisional, the cautious reading.
ALTER TABLE games ADD COLUMN first_rating_provisional INTEGER CHECK (first_rating_provisional IN (0, 1));
ALTER TABLE games ADD COLUMN second_rating_provisional INTEGER CHECK (second_rating_provisional IN (0, 1));
ALTER TABLE games ADD COLUMN first_rating_after_provisional INTEGER
    CHECK (first_rating_after_provisional IN (0, 1));
ALTER TABLE games ADD COLUMN second_rating_after_provisional INTEGER
    CHECK (second_rating_after_provisional IN (0, 1));
