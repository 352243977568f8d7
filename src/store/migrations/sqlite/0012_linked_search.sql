-- Substring search over venues and organizers: a trigram index that narrows the
-- search to a few candidates, which the per-field `LIKE` then checks, as before.
--
-- A search (`venues?search=hall`) matched `LOWER(field) LIKE '%hall%'` on ten
-- fields of every venue: 78 ms at 20,000 venues. The index holds, per venue or
-- organizer, its searched fields each lower-cased by the server's own `lower()`
-- and joined by spaces (`venue_haystack!` and `organizer_haystack!` in
-- `store::posts::list`), so every field a search matches is a substring of what
-- the index holds: the candidates are a superset, and the final check keeps the
-- answers exactly those of the scan. Searches of one or two characters, which a
-- trigram index cannot look up, still check every venue.
-- `case_sensitive 1`: the text is lower-cased already, by the same function as
-- the search's words; FTS5's own case folding differs from it on a few letters.
-- `contentless_delete`: the text is not stored twice, and an entry can still be
-- removed knowing only its row ID (the old text is gone by the time it is).
CREATE VIRTUAL TABLE linked_fts USING fts5(
    haystack,
    content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1'
);

-- As for events (migration 2), writes only queue the venue or organizer; the writer
-- (re)indexes the queue after a group commits, in batches, and searches scan what
-- is still queued. An entry of the index is therefore either up to date or queued:
-- stale entries of queued rows only add candidates, which the final check drops.
-- A deleted row is queued too, so that its entry is removed.
CREATE TABLE linked_search_queue (id INTEGER PRIMARY KEY);

CREATE TRIGGER linked_search_insert AFTER INSERT ON posts
WHEN new.post_type IN ('venue', 'organizer') BEGIN
    INSERT OR IGNORE INTO linked_search_queue(id) VALUES (new.id);
END;
CREATE TRIGGER linked_search_update AFTER UPDATE OF post_type, title, description,
    excerpt, address, city, province, state, stateprovince, zip, phone, email, website
ON posts
WHEN old.post_type IN ('venue', 'organizer') OR new.post_type IN ('venue', 'organizer')
BEGIN
    INSERT OR IGNORE INTO linked_search_queue(id) VALUES (new.id);
END;
CREATE TRIGGER linked_search_delete AFTER DELETE ON posts
WHEN old.post_type IN ('venue', 'organizer') BEGIN
    INSERT OR IGNORE INTO linked_search_queue(id) VALUES (old.id);
END;

-- The existing venues and organizers, indexed here as the writer indexes its queue
-- (`store::posts::list::INDEX_QUEUED_LINKED`, which a test holds this to). Migrations
-- run on the server's writer connection, whose `lower()` is the server's own.
INSERT INTO linked_fts(rowid, haystack)
SELECT id, CASE post_type
    WHEN 'venue' THEN
        coalesce(lower(title), '') || ' ' || coalesce(lower(description), '') || ' ' ||
        coalesce(lower(excerpt), '') || ' ' || coalesce(lower(address), '') || ' ' ||
        coalesce(lower(city), '') || ' ' || coalesce(lower(province), '') || ' ' ||
        coalesce(lower(state), '') || ' ' || coalesce(lower(stateprovince), '') || ' ' ||
        coalesce(lower(zip), '') || ' ' || coalesce(lower(phone), '')
    ELSE
        coalesce(lower(title), '') || ' ' || coalesce(lower(description), '') || ' ' ||
        coalesce(lower(excerpt), '') || ' ' || coalesce(lower(phone), '') || ' ' ||
        coalesce(lower(email), '') || ' ' || coalesce(lower(website), '')
    END
FROM posts WHERE post_type IN ('venue', 'organizer');
