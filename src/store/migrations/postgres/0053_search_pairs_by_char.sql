-- SQLite's index of the pairs of characters by their second (see its migration
-- 53). PostgreSQL looks a word of one character up in `event_symbols` (migrations
-- 14 and 15), not through its pairs.
SELECT 1;
