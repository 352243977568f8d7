-- SQLite's index of whole words (see its migration 51). PostgreSQL's trigram index
-- needs no change.
SELECT 1;
