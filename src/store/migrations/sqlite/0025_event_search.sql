-- PostgreSQL keeps each event's searched text lower-cased in a table of its own
-- (see its migration 25). SQLite's trigram index (`posts_fts`) holds the text
-- folded already, and its row check folds in Rust (`search_text_holds`).
SELECT 1;
