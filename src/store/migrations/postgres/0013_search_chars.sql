-- Searches for a word of two letters or digits (`dj`, `5k`) through the trigram
-- index.
--
-- `pg_trgm` extracts no trigram from `LIKE '%dj%'`, so the index returned nearly
-- every event as a candidate, and such a word read the text of every event in its
-- window: past the request timeout at a million events when the word is rare. But
-- wherever it occurs in the search text, a character follows or precedes it (the
-- text joins its fields with spaces), so the text is `LIKE` one of the patterns of
-- the word and one of its characters, each of which `pg_trgm` looks up as one
-- trigram. `search_chars` holds every character of the events' lower-cased search
-- text, and a search ORs those patterns (`store::events::list`,
-- `Served::Neighbours`). Characters are never removed: one no event holds any more
-- only costs a lookup that finds nothing. A trigger keeps it in the transaction of
-- the write, so no reader sees it behind.
CREATE TABLE search_chars (ch TEXT PRIMARY KEY);

CREATE FUNCTION search_chars_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO search_chars (ch)
    SELECT DISTINCT c
    FROM regexp_split_to_table(lower(NEW.title || ' ' || NEW.excerpt || ' ' || NEW.description), '') AS c
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

CREATE TRIGGER search_chars_insert AFTER INSERT ON posts FOR EACH ROW
    WHEN (NEW.post_type = 'event')
    EXECUTE FUNCTION search_chars_add();
CREATE TRIGGER search_chars_update AFTER UPDATE OF title, excerpt, description ON posts FOR EACH ROW
    WHEN (NEW.post_type = 'event')
    EXECUTE FUNCTION search_chars_add();

-- Splitting every event's text into characters took 8 minutes at a million events;
-- the space, ASCII letters and digits are taken as held (a character no event holds
-- only costs lookups) and stripped before the split, which leaves a few characters
-- per event. (`store::events::search_grams_fill` is the same statement.)
INSERT INTO search_chars (ch)
SELECT unnest(string_to_array(' abcdefghijklmnopqrstuvwxyz0123456789', NULL))
UNION
SELECT DISTINCT regexp_split_to_table(translate(
    lower(title || ' ' || excerpt || ' ' || description),
    ' abcdefghijklmnopqrstuvwxyz0123456789', ''), '')
FROM posts WHERE post_type = 'event'
ON CONFLICT DO NOTHING;
