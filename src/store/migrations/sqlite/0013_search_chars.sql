-- Searches for words of one or two characters (`dj`, `5k`, `€`) through the
-- trigram index.
--
-- No trigram is that short, so such a word read the text of every event in its
-- window: seconds at a million events when the word is rare. But wherever it occurs
-- in a field of three characters or more, it is part of some trigram of the field,
-- and that trigram is the word and the characters next to it:
-- - a word of two characters, followed or preceded by one character: the search
--   looks the word up with each character the events' text holds (`search_chars`),
--   before and after it;
-- - a word of one character, inside a pair of characters that is followed or
--   preceded by one more: the search looks up each pair holding it that the text
--   holds (`search_pairs`) with each character, before and after.
-- (`store::events::list`, `Served::Neighbours`.) Both hold the lower-cased text's
-- characters and pairs; the index folds case itself. Nothing is ever removed: a
-- character or pair no event holds any more only costs lookups that find nothing.
--
-- The server's writer adds those of the events it indexes, as it indexes them
-- (`SQLITE_AFTER_COMMIT`), with `search_grams_of`, a function of its own
-- connections.
CREATE TABLE search_chars (ch TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE search_pairs (pair TEXT PRIMARY KEY) WITHOUT ROWID;

INSERT OR IGNORE INTO search_chars (ch)
SELECT value FROM json_each((
    SELECT search_grams_of(1, title, excerpt, description) FROM posts WHERE post_type = 'event'
));
INSERT OR IGNORE INTO search_pairs (pair)
SELECT value FROM json_each((
    SELECT search_grams_of(2, title, excerpt, description) FROM posts WHERE post_type = 'event'
));

-- A field of one or two characters has no trigram: the few events with one are
-- found through this index instead.
CREATE INDEX posts_short_text ON posts (id)
WHERE post_type = 'event'
    AND (length(title) IN (1, 2) OR length(excerpt) IN (1, 2) OR length(description) IN (1, 2));
