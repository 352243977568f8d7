-- Each event's own key (kind 0 of `event_keys`) carries its flags as bits, beside its
-- terms' (migration 32), so that a list read from the own keys checks a flag on the row
-- it reads rather than looking up the flag's key: all thirty categories with the hundred
-- most used tags and `featured=0&ticketed=0&geoloc=1` looked up the flags' keys for each
-- of 800,000 events at a million (7.2 s on PostgreSQL, 1 s on SQLite; see
-- `store::events::keys::bits`).
--
-- `flag_bits` is the OR of `1 << (kind - 4)` over the event's flag keys (kinds 4, 5
-- and 6: featured, has tickets, venue located) whose value is 1; other keys' are 0.
ALTER TABLE event_keys ADD COLUMN flag_bits BIGINT NOT NULL DEFAULT 0;

-- The event's flags as its flag keys say.
CREATE FUNCTION event_flag_bits(event BIGINT) RETURNS BIGINT
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (
        SELECT COALESCE(bit_or(1::bigint << (o.kind - 4)::int), 0) FROM event_keys o
        WHERE o.event_id = event AND o.kind IN (4, 5, 6) AND o.value = 1);
END
$$;

-- A new event's own key is written with its bits (`event_keys_insert_rows`, migration
-- 31, with the column added), so that the trigger below finds them right and writes no
-- second version of the row.
CREATE OR REPLACE FUNCTION event_keys_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM inserted_posts WHERE post_type = 'event') THEN
        RETURN NULL;
    END IF;
    INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden,
                            author, flag_bits)
    SELECT k.kind, k.value, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
           e.password <> '', e.hide_from_listings, e.author,
           CASE WHEN k.kind = 0 THEN f.featured | (f.ticketed << 1) | (f.located << 2) ELSE 0 END
    FROM inserted_posts e
    CROSS JOIN LATERAL (
        SELECT CASE WHEN e.featured THEN 1 ELSE 0 END::bigint AS featured,
               CASE WHEN e.tickets <> '' THEN 1 ELSE 0 END::bigint AS ticketed,
               CASE WHEN EXISTS (
                   SELECT 1 FROM posts v WHERE v.id = e.venue_id AND v.post_type = 'venue'
                     AND v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL) THEN 1 ELSE 0 END::bigint
                   AS located
    ) f
    CROSS JOIN LATERAL (
        SELECT 0::bigint AS kind, 0::bigint AS value
        UNION ALL SELECT 2, e.venue_id WHERE e.venue_id IS NOT NULL
        UNION ALL SELECT 4, f.featured
        UNION ALL SELECT 5, f.ticketed
        UNION ALL SELECT 6, f.located
    ) k
    WHERE e.post_type = 'event'
    ORDER BY 1, 2, 3, 4;
    RETURN NULL;
END
$$;

-- Flag keys or own keys written (a create, an edit's flags, a venue's events moved):
-- each event's own key as its flag keys now say, written only where it differs. The
-- own key is found by the event's ID (`event_keys_event`), not by its start: an edit
-- of an event's dates and flags writes the new flag keys with the new start before it
-- moves the own key there.
CREATE FUNCTION event_keys_flag_bits_insert_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    e record;
BEGIN
    FOR e IN
        SELECT n.event_id, event_flag_bits(n.event_id) AS bits
        FROM (SELECT DISTINCT event_id FROM added_keys WHERE kind IN (0, 4, 5, 6)) n
        ORDER BY n.event_id
    LOOP
        UPDATE event_keys SET flag_bits = e.bits
        WHERE event_id = e.event_id AND kind = 0 AND value = 0 AND flag_bits <> e.bits;
    END LOOP;
    RETURN NULL;
END
$$;
CREATE TRIGGER event_keys_flag_bits_insert AFTER INSERT ON event_keys
    REFERENCING NEW TABLE AS added_keys
    FOR EACH STATEMENT EXECUTE FUNCTION event_keys_flag_bits_insert_rows();

-- A flag key removed, or its value rewritten (a venue gaining or losing its
-- coordinates): its event's own key.
CREATE FUNCTION event_keys_flag_bits_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed event_keys := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    bits BIGINT := event_flag_bits(changed.event_id);
BEGIN
    UPDATE event_keys SET flag_bits = bits
    WHERE event_id = changed.event_id AND kind = 0 AND value = 0 AND flag_bits <> bits;
    RETURN NULL;
END
$$;
CREATE TRIGGER event_keys_flag_bits_delete AFTER DELETE ON event_keys FOR EACH ROW
WHEN (OLD.kind IN (4, 5, 6) AND OLD.value = 1)
EXECUTE FUNCTION event_keys_flag_bits_sync();
CREATE TRIGGER event_keys_flag_bits_update AFTER UPDATE OF value ON event_keys FOR EACH ROW
WHEN (NEW.kind IN (4, 5, 6) AND OLD.value IS DISTINCT FROM NEW.value)
EXECUTE FUNCTION event_keys_flag_bits_sync();

-- The index of the own keys with their bits, made again below with the flags: not
-- written for each own key the fill rewrites.
DROP INDEX event_keys_term_bits;

-- flag_bits: fill
UPDATE event_keys k SET flag_bits = b.bits
FROM (
    SELECT o.event_id, bit_or(1::bigint << (o.kind - 4)::int) AS bits
    FROM event_keys o
    WHERE o.kind IN (4, 5, 6) AND o.value = 1
    GROUP BY o.event_id
) b
WHERE k.event_id = b.event_id AND k.kind = 0 AND k.value = 0 AND k.flag_bits <> b.bits;
-- flag_bits: filled

-- The events of a window with their terms' words and their flags, from the index alone.
CREATE INDEX event_keys_term_bits ON event_keys (start_utc, event_id)
    INCLUDE (end_utc, status, protected, hidden, author,
             term_bits, term_bits_1, term_bits_2, term_bits_3, flag_bits)
    WHERE kind = 0 AND value = 0;
