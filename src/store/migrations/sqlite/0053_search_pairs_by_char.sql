-- The pairs of characters holding a character, for a search of one character
-- (migration 13): those starting with it are a range of the table's key, those
-- ending with it this index's. Found by `instr` on every pair, a calendar of many
-- distinct characters (3,000 events of Chinese text hold 596,000 pairs) read them
-- all at each of a search's statements.
CREATE INDEX search_pairs_second ON search_pairs (substr(pair, 2));
