-- An index of the events' whole words beside the trigram index (`posts_fts`).
--
-- The trigram index finds a word as a phrase of its trigrams, reading each one's
-- entries with their positions: a word whose trigrams are common costs the
-- entries of all of them, whatever its own matches. `carnival`, whose trigrams
-- `arn` and `val` are in 749,000 and 654,000 of a million events, cost 36 ms to
-- find in its 49,000, where `jazz` costs 2 ms.
--
-- A word of ASCII letters and digits lies inside one piece of the lower-cased
-- text cut at ASCII's other characters (`domain::search_tokens`). The calendar's
-- pieces are few (its vocabulary, `search_words`), and found by a trigram index of
-- their own; the events holding a piece, by `posts_words`, which holds each
-- event's pieces as whole words, without positions. A search for such a word
-- reads the entries of the pieces holding it (`store::events::words`).
--
-- The server's writer adds the events it indexes to both, as it indexes them into
-- `posts_fts` (`SQLITE_AFTER_COMMIT`), with `search_words_in` and
-- `search_words_of`, functions of its own connections. Nothing is removed from the
-- vocabulary: a piece no event holds any more costs a lookup that finds nothing.
CREATE TABLE search_words (id INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE search_words_fts USING fts5(
    word, content = 'search_words', content_rowid = 'id', tokenize = 'trigram'
);
CREATE TRIGGER search_words_indexed AFTER INSERT ON search_words BEGIN
    INSERT INTO search_words_fts(rowid, word) VALUES (new.id, new.word);
END;

-- The `ascii` tokenizer cuts at the characters the pieces are cut at, and reads
-- the pieces, joined by spaces, back as they are written.
CREATE VIRTUAL TABLE posts_words USING fts5(
    words, content = '', contentless_delete = 1, detail = none, tokenize = 'ascii'
);

-- Queued events are not in the trigram index either: the writer indexes them.
INSERT INTO posts_words(rowid, words)
SELECT id, search_words_in(title, excerpt, description) FROM posts
WHERE post_type = 'event' AND id NOT IN (SELECT id FROM search_queue)
ORDER BY id;
-- One segment, placed above the levels the fill made, where the merges of later
-- writes do not reach it for a long while. A fill with a term buffer big enough
-- to hold the whole index makes one segment, which 'optimize' leaves on the lowest
-- level, where the writes' merges soon take it in whole: 3.4 s in one commit at a
-- million events.
INSERT INTO posts_words(posts_words) VALUES ('optimize');
INSERT OR IGNORE INTO search_words(word)
SELECT value FROM json_each((
    SELECT search_words_of(title, excerpt, description) FROM posts
    WHERE post_type = 'event' AND id NOT IN (SELECT id FROM search_queue)
));

DROP TRIGGER posts_fts_delete;
DROP TRIGGER posts_fts_update;
-- A queued event is not in either index yet: there is nothing to delete from them.
CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts WHEN old.post_type = 'event' BEGIN
    INSERT INTO posts_fts(posts_fts, rowid, title, excerpt, description)
    SELECT 'delete', old.id, old.title, old.excerpt, old.description
    WHERE NOT EXISTS (SELECT 1 FROM search_queue WHERE id = old.id);
    DELETE FROM posts_words
    WHERE rowid = old.id AND NOT EXISTS (SELECT 1 FROM search_queue WHERE id = old.id);
    DELETE FROM search_queue WHERE id = old.id;
END;
CREATE TRIGGER posts_fts_update AFTER UPDATE OF title, excerpt, description ON posts
WHEN old.post_type = 'event' BEGIN
    INSERT INTO posts_fts(posts_fts, rowid, title, excerpt, description)
    SELECT 'delete', old.id, old.title, old.excerpt, old.description
    WHERE NOT EXISTS (SELECT 1 FROM search_queue WHERE id = old.id);
    DELETE FROM posts_words
    WHERE rowid = old.id AND NOT EXISTS (SELECT 1 FROM search_queue WHERE id = old.id);
    INSERT OR IGNORE INTO search_queue(id) VALUES (new.id);
END;
