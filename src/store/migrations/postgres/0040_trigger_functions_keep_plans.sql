-- The functions a create's and an edit's triggers call for each event, in PL/pgSQL,
-- as migration 23 made the ones before them: a function in SQL that PostgreSQL cannot
-- inline (a body with FROM) is parsed and planned again at every call, where a
-- PL/pgSQL statement keeps its plan for the connection's life. `event_term_words` runs
-- twice per created event (its own key's words, after its keys and after its term
-- links); planned each time, it took 0.17 ms of PostgreSQL's time per call, 8 % of a
-- create's (bench/HISTORY.md). Same results.

CREATE OR REPLACE FUNCTION event_term_words(event BIGINT) RETURNS BIGINT[]
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (
        SELECT ARRAY[
            COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 0), 0),
            COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 1), 0),
            COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 2), 0),
            COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 3), 0)]
        FROM event_keys o JOIN term_bits t ON t.term_id = o.value
        WHERE o.event_id = event AND o.kind = 1);
END
$$;

CREATE OR REPLACE FUNCTION venue_located(venue BIGINT) RETURNS BIGINT
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN CASE WHEN EXISTS (
        SELECT 1 FROM posts v WHERE v.id = venue AND v.post_type = 'venue'
          AND v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL) THEN 1 ELSE 0 END;
END
$$;
