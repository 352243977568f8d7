-- Venue and organizer searches of two characters, from the trigram index: each
-- entry of `linked_fts` ends with one more space, so that every two characters of
-- the text are the first two of one of its trigrams, and the trigrams that begin
-- with a search's two are found in the index's own list of its terms
-- (`linked_fts_terms`, a range of it), the entries holding any of them being the
-- candidates (`store::posts::search::PAIR_MATCH`). A pair in no venue
-- (`search=qx`) read every venue's text to find none: 65-110 ms at 20,000 venues.
CREATE VIRTUAL TABLE linked_fts_terms USING fts5vocab(linked_fts, 'row');

-- Every entry again, as the writer now indexes its queue
-- (`store::posts::search::INDEX_QUEUED_LINKED`, which a test holds this to). Migrations
-- run on the server's writer connection, whose `lower()` is the server's own.
INSERT INTO linked_fts(linked_fts) VALUES ('delete-all');
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
    END || ' '
FROM posts WHERE post_type IN ('venue', 'organizer');
