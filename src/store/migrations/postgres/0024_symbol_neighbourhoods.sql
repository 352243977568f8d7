-- Migration 15's symbols, in time linear in the text.
--
-- A key is a window of one to three characters holding a symbol. They were taken
-- with `substr` at each position of each run between spaces holding a symbol, and
-- `substr` walks a UTF-8 text from its start to the position: a run of L
-- characters cost L² steps. A description holding one long token (a URL list, an
-- inline `data:` image, 16,000 characters of `abc.abc.`…) took 6 seconds to save,
-- and one of 100,000 ran past the 30 seconds a request may take.
--
-- Now each character is read once, with the two after it (`lead`): the windows
-- starting at it. And only the characters near a symbol are read: a window reaches
-- at most two characters past its symbols, so the text is taken as stretches of
-- symbols with the letters and digits between them (three or fewer at a time, as no
-- window reaches across four) and up to two before and after; two stretches with
-- four or more between them each keep the two next to them. `friends.</p>` gives
-- `ds.</p>`; the generated events of the bench's data sets give 468,000 characters
-- to read where their runs held 870,000, and take about as long as before (the
-- window function's sort costs what the shorter reads save). The keys are the same
-- (`tests/short_words.rs` checks them against the definition), so the stored
-- symbols stand.
CREATE OR REPLACE FUNCTION search_symbols(text TEXT) RETURNS TEXT[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    lowered TEXT := lower($1);
BEGIN
    RETURN (
        SELECT COALESCE(array_agg(DISTINCT k), '{}')
        FROM (
            SELECT w.k
            FROM (
                SELECT c.ch, lead(c.ch, 1) OVER s AS next1, lead(c.ch, 2) OVER s AS next2
                FROM regexp_matches(lowered,
                        '[a-z0-9]{0,2}[^ a-z0-9]+(?:[a-z0-9]{0,3}[^ a-z0-9]+)*[a-z0-9]{0,2}', 'g')
                        WITH ORDINALITY AS r(run, stretch),
                    unnest(string_to_array(r.run[1], NULL)) WITH ORDINALITY AS c(ch, i)
                WINDOW s AS (PARTITION BY r.stretch ORDER BY c.i)
            ) AS chars,
            LATERAL (VALUES (ch), (ch || next1), (ch || next1 || next2)) AS w(k)
            WHERE w.k IS NOT NULL
              AND translate(w.k, 'abcdefghijklmnopqrstuvwxyz0123456789', '') <> ''
            UNION ALL
            SELECT ch
            FROM unnest(string_to_array('abcdefghijklmnopqrstuvwxyz0123456789', NULL)) AS ch
            WHERE strpos(lowered, ch) > 0
        ) AS keys
    );
END
$$;
