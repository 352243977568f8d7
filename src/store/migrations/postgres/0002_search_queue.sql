-- SQLite's search index moved to a per-commit queue (see the SQLite migration);
-- PostgreSQL's trigram index needs no change.
SELECT 1;
