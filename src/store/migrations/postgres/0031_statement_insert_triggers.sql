-- The keys and summaries a new event gives are written once per statement, not
-- once per row.
--
-- A create went through some thirty row triggers: its post's own keys (migration
-- 7), each key's per-day count, each day count's block (migrations 20 and 21), its
-- venue's and organizers' summaries, each term link's keys with their ancestors
-- (migration 17) and flags (migration 18), its symbols and its characters. Each ran
-- a PL/pgSQL function and a statement of its own, one row at a time, and a batch of
-- creates (`store::event_batch`) paid for every row what it saved in statements:
-- at a million events, 1.3 ms of the batch's time per create, one batch at a time.
--
-- Inserts now run one trigger per statement over the rows it inserted (its
-- transition table), in set statements: a batch's insert of 64 events writes their
-- keys in one statement, which sums their per-day counts in one, which sums their
-- blocks in one. The rows each statement writes, and so what every count and list
-- reads, are those the row triggers wrote (`tests/common/summaries.rs` checks each
-- table against its definition after the writes of `tests/event_keys.rs` and
-- `tests/create_batches.rs`); updates and deletes keep their row triggers, which
-- change one event's rows at a time.
--
-- The set statements write in key order, so that two transactions take the rows
-- of the counts they share in the same order. A function whose insert would fire
-- further triggers returns at once when its statement inserted nothing it keeps: a
-- statement trigger fires even for no rows, and would fire the next ones for
-- nothing.

-- A new event's own keys: the row trigger's `event_keys_own`, for every event the
-- statement inserted.
CREATE FUNCTION event_keys_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM inserted_posts WHERE post_type = 'event') THEN
        RETURN NULL;
    END IF;
    INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT k.kind, k.value, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
           e.password <> '', e.hide_from_listings, e.author
    FROM inserted_posts e
    CROSS JOIN LATERAL (
        SELECT 0::bigint AS kind, 0::bigint AS value
        UNION ALL SELECT 2, e.venue_id WHERE e.venue_id IS NOT NULL
        UNION ALL SELECT 4, CASE WHEN e.featured THEN 1 ELSE 0 END
        UNION ALL SELECT 5, CASE WHEN e.tickets <> '' THEN 1 ELSE 0 END
        UNION ALL SELECT 6, CASE WHEN EXISTS (
            SELECT 1 FROM posts v WHERE v.id = e.venue_id AND v.post_type = 'venue'
              AND v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL) THEN 1 ELSE 0 END
    ) k
    WHERE e.post_type = 'event'
    ORDER BY 1, 2, 3, 4;
    RETURN NULL;
END
$$;

DROP TRIGGER event_keys_insert ON posts;
CREATE TRIGGER event_keys_insert AFTER INSERT ON posts
    REFERENCING NEW TABLE AS inserted_posts
    FOR EACH STATEMENT EXECUTE FUNCTION event_keys_insert_rows();

-- A new event's symbols (migration 14).
CREATE FUNCTION event_symbols_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_symbols (event_id, symbols)
    SELECT id, search_symbols(title || ' ' || excerpt || ' ' || description)
    FROM inserted_posts WHERE post_type = 'event'
    ORDER BY id
    ON CONFLICT (event_id) DO UPDATE SET symbols = EXCLUDED.symbols;
    RETURN NULL;
END
$$;

DROP TRIGGER event_symbols_insert ON posts;
CREATE TRIGGER event_symbols_insert AFTER INSERT ON posts
    REFERENCING NEW TABLE AS inserted_posts
    FOR EACH STATEMENT EXECUTE FUNCTION event_symbols_insert_rows();

-- The characters of a new event's text (migration 13).
CREATE FUNCTION search_chars_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO search_chars (ch)
    SELECT DISTINCT c
    FROM inserted_posts p,
        regexp_split_to_table(translate(
            lower(p.title || ' ' || p.excerpt || ' ' || p.description),
            ' abcdefghijklmnopqrstuvwxyz0123456789', ''), '') AS c
    WHERE p.post_type = 'event'
    ORDER BY c
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

DROP TRIGGER search_chars_insert ON posts;
CREATE TRIGGER search_chars_insert AFTER INSERT ON posts
    REFERENCING NEW TABLE AS inserted_posts
    FOR EACH STATEMENT EXECUTE FUNCTION search_chars_insert_rows();

-- A term link's keys: one per ancestor of the term (itself included), as
-- `event_keys_term_sync` writes them.
CREATE FUNCTION event_keys_terms_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM inserted_links) THEN
        RETURN NULL;
    END IF;
    PERFORM term_tree_shared();
    INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT 1, c.ancestor_id, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
           e.password <> '', e.hide_from_listings, e.author
    FROM inserted_links r
    JOIN posts e ON e.id = r.post_id AND e.post_type = 'event'
    JOIN term_ancestors c ON c.term_id = r.term_id
    ORDER BY 2, 3, 4
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

DROP TRIGGER event_keys_term_insert ON term_relationships;
CREATE TRIGGER event_keys_term_insert AFTER INSERT ON term_relationships
    REFERENCING NEW TABLE AS inserted_links
    FOR EACH STATEMENT EXECUTE FUNCTION event_keys_terms_insert_rows();

-- An organizer link's key, as `event_keys_link_sync('3')` writes it.
CREATE FUNCTION event_keys_organizers_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM inserted_links) THEN
        RETURN NULL;
    END IF;
    INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT 3, o.organizer_id, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
           e.password <> '', e.hide_from_listings, e.author
    FROM inserted_links o
    JOIN posts e ON e.id = o.event_id AND e.post_type = 'event'
    ORDER BY 2, 3, 4;
    RETURN NULL;
END
$$;

DROP TRIGGER event_keys_organizer_insert ON event_organizers;
CREATE TRIGGER event_keys_organizer_insert AFTER INSERT ON event_organizers
    REFERENCING NEW TABLE AS inserted_links
    FOR EACH STATEMENT EXECUTE FUNCTION event_keys_organizers_insert_rows();

-- New keys' per-day counts: `event_key_days_sync`'s insert, summed by day pair.
CREATE FUNCTION event_key_days_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM added_keys WHERE NOT hidden AND kind NOT IN (2, 3)) THEN
        RETURN NULL;
    END IF;
    INSERT INTO event_key_days AS d (kind, value, status, protected, end_day, start_day, events)
    SELECT kind, value, status, protected,
           (end_utc - ((end_utc % 86400) + 86400) % 86400) / 86400,
           (start_utc - ((start_utc % 86400) + 86400) % 86400) / 86400,
           COUNT(*)
    FROM added_keys
    WHERE NOT hidden AND kind NOT IN (2, 3)
    GROUP BY 1, 2, 3, 4, 5, 6
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (kind, value, status, protected, end_day, start_day)
    DO UPDATE SET events = d.events + EXCLUDED.events;
    RETURN NULL;
END
$$;

DROP TRIGGER event_key_days_insert ON event_keys;
CREATE TRIGGER event_key_days_insert AFTER INSERT ON event_keys
    REFERENCING NEW TABLE AS added_keys
    FOR EACH STATEMENT EXECUTE FUNCTION event_key_days_insert_rows();

-- New venue and organizer keys' summaries: `linked_event_stats_sync`'s insert,
-- summed by venue or organizer.
CREATE FUNCTION linked_event_stats_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM added_keys WHERE kind IN (2, 3)) THEN
        RETURN NULL;
    END IF;
    INSERT INTO linked_event_stats AS s (kind, value, counted, public_last, listed_last)
    SELECT kind, value,
           COUNT(*) FILTER (WHERE status NOT IN ('draft', 'pending', 'trash')),
           MAX(start_utc) FILTER (WHERE status = 'publish' AND NOT hidden),
           MAX(start_utc) FILTER (WHERE status <> 'trash' AND NOT hidden)
    FROM added_keys
    WHERE kind IN (2, 3)
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (kind, value) DO UPDATE SET
        counted = s.counted + excluded.counted,
        public_last = GREATEST(s.public_last, excluded.public_last),
        listed_last = GREATEST(s.listed_last, excluded.listed_last);
    RETURN NULL;
END
$$;

DROP TRIGGER linked_event_stats_insert ON event_keys;
CREATE TRIGGER linked_event_stats_insert AFTER INSERT ON event_keys
    REFERENCING NEW TABLE AS added_keys
    FOR EACH STATEMENT EXECUTE FUNCTION linked_event_stats_insert_rows();

-- New flags' and terms' flagged keys (migration 18): a new term key takes the
-- event's flags, a new flag the event's terms. The keys they write are inserted by
-- a statement of their own, whose triggers count them; none of them is a term or a
-- flag, so that is where it ends.
CREATE FUNCTION event_keys_flagged_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_ARGV[0] = 'terms' THEN
        IF NOT EXISTS (SELECT 1 FROM added_keys WHERE kind = 1) THEN
            RETURN NULL;
        END IF;
        PERFORM term_tree_shared();
        INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
        SELECT f.kind + 3, n.value, n.start_utc, n.event_id, n.end_utc, n.status,
               n.protected, n.hidden, n.author
        FROM added_keys n
        JOIN event_keys f ON f.event_id = n.event_id AND f.kind IN (4, 5) AND f.value = 1
        WHERE n.kind = 1
        ORDER BY 1, 2, 3, 4
        ON CONFLICT DO NOTHING;
    ELSE
        IF NOT EXISTS (SELECT 1 FROM added_keys WHERE kind IN (4, 5) AND value = 1) THEN
            RETURN NULL;
        END IF;
        PERFORM term_tree_shared();
        INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
        SELECT n.kind + 3, t.value, n.start_utc, n.event_id, n.end_utc, n.status,
               n.protected, n.hidden, n.author
        FROM added_keys n
        JOIN event_keys t ON t.event_id = n.event_id AND t.kind = 1
        WHERE n.kind IN (4, 5) AND n.value = 1
        ORDER BY 1, 2, 3, 4
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;

DROP TRIGGER event_keys_term_flags_insert ON event_keys;
CREATE TRIGGER event_keys_term_flags_insert AFTER INSERT ON event_keys
    REFERENCING NEW TABLE AS added_keys
    FOR EACH STATEMENT EXECUTE FUNCTION event_keys_flagged_insert_rows('terms');

DROP TRIGGER event_keys_flag_terms_insert ON event_keys;
CREATE TRIGGER event_keys_flag_terms_insert AFTER INSERT ON event_keys
    REFERENCING NEW TABLE AS added_keys
    FOR EACH STATEMENT EXECUTE FUNCTION event_keys_flagged_insert_rows('flags');

-- The per-day counts' blocks (migrations 20 and 21) follow every statement that
-- changes the day counts, summed by block: the rows it inserted, what it added to
-- the rows it updated, the rows it deleted. A day count's keys never change, so
-- an update's old rows and new rows sum by the same keys.
CREATE FUNCTION event_key_blocks_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO event_key_blocks AS b
            (kind, value, status, protected, end_block, start_block, stripe, events)
        SELECT kind, value, status, protected,
               (end_day - ((end_day % 32) + 32) % 32) / 32,
               (start_day - ((start_day % 32) + 32) % 32) / 32,
               txid_current() % 8, SUM(events)
        FROM new_days
        GROUP BY 1, 2, 3, 4, 5, 6
        ORDER BY 1, 2, 3, 4, 5, 6
        ON CONFLICT (kind, value, status, protected, end_block, start_block, stripe)
        DO UPDATE SET events = b.events + EXCLUDED.events;
    ELSE
        INSERT INTO event_key_blocks AS b
            (kind, value, status, protected, end_block, start_block, stripe, events)
        SELECT kind, value, status, protected,
               (end_day - ((end_day % 32) + 32) % 32) / 32,
               (start_day - ((start_day % 32) + 32) % 32) / 32,
               txid_current() % 8, SUM(events)
        FROM (
            SELECT kind, value, status, protected, end_day, start_day, -events AS events
            FROM old_days
            UNION ALL
            SELECT kind, value, status, protected, end_day, start_day, events
            FROM new_days
        ) AS changed
        GROUP BY 1, 2, 3, 4, 5, 6
        HAVING SUM(events) <> 0
        ORDER BY 1, 2, 3, 4, 5, 6
        ON CONFLICT (kind, value, status, protected, end_block, start_block, stripe)
        DO UPDATE SET events = b.events + EXCLUDED.events;
    END IF;
    RETURN NULL;
END
$$;

-- A deleted day count has no new rows: an empty table stands for them.
CREATE FUNCTION event_key_blocks_delete_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_key_blocks AS b
        (kind, value, status, protected, end_block, start_block, stripe, events)
    SELECT kind, value, status, protected,
           (end_day - ((end_day % 32) + 32) % 32) / 32,
           (start_day - ((start_day % 32) + 32) % 32) / 32,
           txid_current() % 8, -SUM(events)
    FROM old_days
    GROUP BY 1, 2, 3, 4, 5, 6
    HAVING SUM(events) <> 0
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (kind, value, status, protected, end_block, start_block, stripe)
    DO UPDATE SET events = b.events + EXCLUDED.events;
    RETURN NULL;
END
$$;

DROP TRIGGER event_key_blocks_insert ON event_key_days;
CREATE TRIGGER event_key_blocks_insert AFTER INSERT ON event_key_days
    REFERENCING NEW TABLE AS new_days
    FOR EACH STATEMENT EXECUTE FUNCTION event_key_blocks_rows();

DROP TRIGGER event_key_blocks_update ON event_key_days;
CREATE TRIGGER event_key_blocks_update AFTER UPDATE ON event_key_days
    REFERENCING OLD TABLE AS old_days NEW TABLE AS new_days
    FOR EACH STATEMENT EXECUTE FUNCTION event_key_blocks_rows();

DROP TRIGGER event_key_blocks_delete ON event_key_days;
CREATE TRIGGER event_key_blocks_delete AFTER DELETE ON event_key_days
    REFERENCING OLD TABLE AS old_days
    FOR EACH STATEMENT EXECUTE FUNCTION event_key_blocks_delete_rows();
