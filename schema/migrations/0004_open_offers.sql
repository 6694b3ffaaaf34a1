-- Open offers: a draw, takeback or rematch offer that one seat made and the other has not answered
-- yet survives the game being unloaded from memory and a restart of the server, as the rest of
-- the game does. Items "kind:seat" joined by ',', in the order they were made: kind is draw,
-- takeback or rematch, seat is first or second (e.g. 'draw:first,takeback:second'); '' for none.
ALTER TABLE games ADD COLUMN offers TEXT NOT NULL DEFAULT '';
