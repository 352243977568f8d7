-- PostgreSQL's index of whole words (see its migration 52). SQLite's is its
-- migration 51.
SELECT 1;
