-- A term link's keys are written with their event's words (migration 37), as the
-- event's term keys, these included, make them. Written bare, each would be rewritten
-- at once by `event_keys_term_bits_insert_rows` (a second version of the row and of its
-- entries in every index holding the words): a create would write each of its term keys
-- twice. That trigger finds them right and rewrites the event's own key alone; it still
-- rewrites any key whose words differ, so the words stay right whatever this computes.
CREATE OR REPLACE FUNCTION event_keys_terms_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM inserted_links) THEN
        RETURN NULL;
    END IF;
    PERFORM term_tree_shared();
    WITH added AS (
        SELECT c.ancestor_id AS value, COALESCE(e.start_utc, 0) AS start_utc, e.id AS event_id,
               COALESCE(e.end_utc, 0) AS end_utc, e.status, e.password <> '' AS protected,
               e.hide_from_listings AS hidden, e.author
        FROM inserted_links r
        JOIN posts e ON e.id = r.post_id AND e.post_type = 'event'
        JOIN term_ancestors c ON c.term_id = r.term_id
    ), held AS (
        SELECT event_id, value FROM added
        UNION
        SELECT k.event_id, k.value FROM event_keys k
        WHERE k.kind = 1 AND k.event_id IN (SELECT event_id FROM added)
    ), words AS (
        SELECT h.event_id,
            COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 0), 0) AS w0,
            COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 1), 0) AS w1,
            COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 2), 0) AS w2,
            COALESCE(bit_or(1::bigint << (t.bit % 63)::int) FILTER (WHERE t.bit / 63 = 3), 0) AS w3
        FROM held h LEFT JOIN term_bits t ON t.term_id = h.value
        GROUP BY h.event_id
    )
    INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden,
                            author, term_bits, term_bits_1, term_bits_2, term_bits_3)
    SELECT 1, a.value, a.start_utc, a.event_id, a.end_utc, a.status, a.protected, a.hidden,
           a.author, w.w0, w.w1, w.w2, w.w3
    FROM added a JOIN words w ON w.event_id = a.event_id
    ORDER BY 2, 3, 4
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
