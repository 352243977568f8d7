-- Substring search over venues and organizers: a trigram index that narrows the
-- search to a few candidates, which the per-field `LIKE` then checks, as before.
--
-- A search (`venues?search=hall`) matched `LOWER(field) LIKE '%hall%'` on ten
-- fields of every venue: 115 ms at 20,000 venues. `linked_search` holds, per venue
-- or organizer, its searched fields each lower-cased and joined by spaces
-- (`venue_haystack!` and `organizer_haystack!` in `store::posts::list`, which a test
-- holds this to), so every field a search matches is a substring of it: the
-- candidates are a superset, and the final check keeps the answers exactly those
-- of the scan. Searches of one or two characters, which a trigram index cannot
-- look up, still check every venue.
--
-- A table of its own rather than an index on that expression over `posts`: the
-- index's recheck of each candidate (trigram matches are only probable) would
-- compute the expression again, lowering ten fields, which cost twice as much as
-- reading it stored (`hall`: 13 against 7 ms, `the`: 230 against 130 ms, on a
-- loaded machine); and filling it reads 30,000 rows, not a scan of every event.
-- Triggers keep it in the transaction of the write, so no reader sees it behind.
CREATE TABLE linked_search (
    id       BIGINT PRIMARY KEY,
    haystack TEXT   NOT NULL
);

CREATE FUNCTION linked_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM linked_search WHERE id = OLD.id;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO linked_search (id, haystack)
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
        FROM posts WHERE id = NEW.id AND post_type IN ('venue', 'organizer');
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER linked_search_insert AFTER INSERT ON posts FOR EACH ROW
    WHEN (NEW.post_type IN ('venue', 'organizer'))
    EXECUTE FUNCTION linked_search_sync();
CREATE TRIGGER linked_search_update AFTER UPDATE OF post_type, title, description,
    excerpt, address, city, province, state, stateprovince, zip, phone, email, website
    ON posts FOR EACH ROW
    WHEN (OLD.post_type IN ('venue', 'organizer') OR NEW.post_type IN ('venue', 'organizer'))
    EXECUTE FUNCTION linked_search_sync();
CREATE TRIGGER linked_search_delete AFTER DELETE ON posts FOR EACH ROW
    WHEN (OLD.post_type IN ('venue', 'organizer'))
    EXECUTE FUNCTION linked_search_sync();

INSERT INTO linked_search (id, haystack)
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

CREATE INDEX linked_search_trgm ON linked_search USING gin (haystack gin_trgm_ops);
ANALYZE linked_search;
