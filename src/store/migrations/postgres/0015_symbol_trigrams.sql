-- `event_symbols` holds each run of three characters with a symbol in it, and
-- each letter and digit, too.
--
-- With only symbols and pairs, a word whose pairs are each common but never next
-- to each other read every event holding both: every description holds `.<`
-- (`.</p>`) and `<p` (`<p>`), none `.<p`, and `search=.<p` checked the text of
-- every event (14 seconds at a million events). A word of three characters or
-- more is now looked up by its runs of three with a symbol, which a text holds
-- only where the word's characters stand together.
--
-- It holds each letter and digit the text holds too: `pg_trgm` says nothing of
-- where a word of one letter or digit is, and a rare one (`search=7` where no
-- event holds a 7) read the text of every event in its window (10 seconds at a
-- million events). That is 200 bytes more per event.
--
-- The keys are taken from each run of characters other than spaces holding a
-- symbol (a search word never holds a space): its windows of one, two and three
-- characters that hold a symbol; and from the 36 letters and digits, those the
-- text holds.
CREATE OR REPLACE FUNCTION search_symbols(text TEXT) RETURNS TEXT[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT COALESCE(array_agg(DISTINCT k), '{}')
    FROM (
        SELECT substr(run[1], i, n) AS k
        FROM regexp_matches(lower(text), '[^ ]*[^ a-z0-9][^ ]*', 'g') AS run,
            generate_series(1, 3) AS n,
            generate_series(1, length(run[1]) - n + 1) AS i
        WHERE translate(substr(run[1], i, n), 'abcdefghijklmnopqrstuvwxyz0123456789', '') <> ''
        UNION ALL
        SELECT ch
        FROM unnest(string_to_array('abcdefghijklmnopqrstuvwxyz0123456789', NULL)) AS ch
        WHERE strpos(lower(text), ch) > 0
    ) AS keys
$$;

-- Filled again from empty, the index built after: cheaper than updating every
-- row under it.
DROP INDEX event_symbols_symbols;
TRUNCATE event_symbols;

-- (`store::events::search_grams_fill` is the same statement.)
INSERT INTO event_symbols (event_id, symbols)
SELECT id, search_symbols(title || ' ' || excerpt || ' ' || description)
FROM posts WHERE post_type = 'event';

CREATE INDEX event_symbols_symbols ON event_symbols USING gin (symbols);

ANALYZE event_symbols;
