-- Functions the triggers of an event's create call, in PL/pgSQL.
--
-- A function in SQL that PostgreSQL cannot inline into its caller (a body with FROM
-- or UNION, or an INSERT) is parsed and planned again at every call from a trigger:
-- its plan lives only as long as the calling statement. In PL/pgSQL the same
-- statements keep their plans for the connection's life. Same results; see
-- bench/HISTORY.md for what a create saves.

CREATE OR REPLACE FUNCTION event_keys_own(e posts) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT k.kind, k.value, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
           e.password <> '', e.hide_from_listings, e.author
    FROM (
        SELECT 0::bigint AS kind, 0::bigint AS value
        UNION ALL SELECT 2, e.venue_id WHERE e.venue_id IS NOT NULL
        UNION ALL SELECT 4, CASE WHEN e.featured THEN 1 ELSE 0 END
        UNION ALL SELECT 5, CASE WHEN e.tickets <> '' THEN 1 ELSE 0 END
        UNION ALL SELECT 6, CASE WHEN EXISTS (
            SELECT 1 FROM posts v WHERE v.id = e.venue_id AND v.post_type = 'venue'
              AND v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL) THEN 1 ELSE 0 END
    ) k;
END
$$;

-- Migration 15's symbols, the text lowered once rather than once per ASCII letter
-- and digit.
CREATE OR REPLACE FUNCTION search_symbols(text TEXT) RETURNS TEXT[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    lowered TEXT := lower($1);
BEGIN
    RETURN (
        SELECT COALESCE(array_agg(DISTINCT k), '{}')
        FROM (
            SELECT substr(run[1], i, n) AS k
            FROM regexp_matches(lowered, '[^ ]*[^ a-z0-9][^ ]*', 'g') AS run,
                generate_series(1, 3) AS n,
                generate_series(1, length(run[1]) - n + 1) AS i
            WHERE translate(substr(run[1], i, n), 'abcdefghijklmnopqrstuvwxyz0123456789', '') <> ''
            UNION ALL
            SELECT ch
            FROM unnest(string_to_array('abcdefghijklmnopqrstuvwxyz0123456789', NULL)) AS ch
            WHERE strpos(lowered, ch) > 0
        ) AS keys
    );
END
$$;

-- The space, ASCII letters and digits are held from the start and never removed
-- (migration 13): only the other characters need looking up.
CREATE OR REPLACE FUNCTION search_chars_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO search_chars (ch)
    SELECT DISTINCT c
    FROM regexp_split_to_table(translate(
        lower(NEW.title || ' ' || NEW.excerpt || ' ' || NEW.description),
        ' abcdefghijklmnopqrstuvwxyz0123456789', ''), '') AS c
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
