-- PostgreSQL's flags among the terms of its search rows (see its migration 54).
-- SQLite's search reads no terms beside its words' matches: it looks each
-- match's keys up in its own index of them.
SELECT 1;
