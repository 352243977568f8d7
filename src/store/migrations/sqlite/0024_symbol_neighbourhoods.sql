-- PostgreSQL only: its `search_symbols` takes time linear in the text (see the
-- PostgreSQL migration of the same number). SQLite's search index finds words of
-- symbols by its own trigrams.
SELECT 1;
