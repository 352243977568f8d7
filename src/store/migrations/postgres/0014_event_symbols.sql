-- Searches for words holding a character other than a lower-case ASCII letter or
-- digit (`€`, `c#`, `c++`, `...`, `p.m.`).
--
-- `pg_trgm` indexes runs of letters and digits, a symbol being only a word's edge
-- to it: it extracts no trigram from such a word, or ones that say little of where
-- it is, so a rare one read the text of every event in its window (13 seconds at a
-- million events for a character five events hold). `event_symbols` holds, for
-- each event, what its lower-cased search text holds of "symbols" (every character
-- but the space, ASCII's lower-case letters and its digits): each symbol, and each
-- pair of characters next to each other with a symbol in it and no space (`c+`,
-- `++`, `.q`). A search looks up the events holding every such pair of a word (its
-- one symbol, if that is the word) and checks the word on their rows
-- (`store::events::list`, `Served::Symbols`): `.q` is rare where every event holds
-- a `.` and a word starting with `q`.
--
-- One row per event, its symbols an array under a GIN index, which compresses each
-- symbol's list of events: 330 MB at a million events (30 MB of it the index),
-- where a row per symbol and event took 2 GB. The array is stored, not an expression of the index: a bitmap
-- too large for `work_mem` is rechecked row by row, and computing the symbols of
-- 300,000 events again took two minutes.

-- The symbols and pairs of `text`, each once. A pair of a letter or digit and a
-- symbol is found by a pattern whose matches cannot overlap; pairs of symbols,
-- from each run of them.
CREATE FUNCTION search_symbols(text TEXT) RETURNS TEXT[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT COALESCE(array_agg(DISTINCT k), '{}')
    FROM (
        SELECT regexp_split_to_table(translate(lower(text),
            ' abcdefghijklmnopqrstuvwxyz0123456789', ''), '') AS k
        UNION ALL
        SELECT (regexp_matches(lower(text), '[a-z0-9][^ a-z0-9]', 'g'))[1]
        UNION ALL
        SELECT (regexp_matches(lower(text), '[^ a-z0-9][a-z0-9]', 'g'))[1]
        UNION ALL
        SELECT substr(run[1], i, 2)
        FROM regexp_matches(lower(text), '[^ a-z0-9]{2,}', 'g') AS run,
            generate_series(1, length(run[1]) - 1) AS i
    ) AS keys
    WHERE k <> ''
$$;

CREATE TABLE event_symbols (
    event_id BIGINT PRIMARY KEY,
    symbols TEXT[] NOT NULL
);

-- Kept in the transaction of the write, so no reader sees it behind.
CREATE FUNCTION event_symbols_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        DELETE FROM event_symbols WHERE event_id = OLD.id;
    ELSE
        INSERT INTO event_symbols (event_id, symbols)
        VALUES (NEW.id, search_symbols(NEW.title || ' ' || NEW.excerpt || ' ' || NEW.description))
        ON CONFLICT (event_id) DO UPDATE SET symbols = EXCLUDED.symbols;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER event_symbols_insert AFTER INSERT ON posts FOR EACH ROW
    WHEN (NEW.post_type = 'event')
    EXECUTE FUNCTION event_symbols_sync();
CREATE TRIGGER event_symbols_update AFTER UPDATE OF title, excerpt, description ON posts
    FOR EACH ROW WHEN (NEW.post_type = 'event')
    EXECUTE FUNCTION event_symbols_sync();
CREATE TRIGGER event_symbols_delete AFTER DELETE ON posts FOR EACH ROW
    WHEN (OLD.post_type = 'event')
    EXECUTE FUNCTION event_symbols_sync();

-- (`store::events::search_grams_fill` is the same statement.)
INSERT INTO event_symbols (event_id, symbols)
SELECT id, search_symbols(title || ' ' || excerpt || ' ' || description)
FROM posts WHERE post_type = 'event';

CREATE INDEX event_symbols_symbols ON event_symbols USING gin (symbols);

-- Its statistics tell the planner how common each symbol and pair is.
ANALYZE event_symbols;
