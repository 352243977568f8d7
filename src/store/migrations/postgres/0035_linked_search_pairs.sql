-- SQLite only: its venue and organizer search index finds searches of two
-- characters (see the SQLite migration of the same number).
SELECT 1;
