-- An edit that gives an event another venue, or sets or clears its featured flag or
-- its tickets, rewrites only the keys of the values it changes, as SQLite's
-- `event_keys_update_values` does: the venue's key, the located flag's when the two
-- venues' coordinates differ, the featured or the ticketed key. Migration 7's
-- `event_keys_sync` deletes and inserts again the event's own key and all four flag
-- keys with them: the per-day counts of keys whose values stay move out and back in,
-- and the own key, inserted bare, is given its term bits again by
-- `event_keys_term_bits_insert_rows` (a second version of the row and of its entries in
-- every index holding them).

-- 1 if the venue exists and has coordinates, else 0: the value of its events' located
-- key.
CREATE FUNCTION venue_located(venue BIGINT) RETURNS BIGINT LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN EXISTS (
        SELECT 1 FROM posts v WHERE v.id = venue AND v.post_type = 'venue'
          AND v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL) THEN 1 ELSE 0 END::bigint
$$;

-- The event's own keys of these kinds, as its row now says (`event_keys_own`, for
-- some of them).
CREATE FUNCTION event_keys_own_kinds(e posts, kinds BIGINT[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT k.kind, k.value, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
           e.password <> '', e.hide_from_listings, e.author
    FROM (
        SELECT 2::bigint AS kind, e.venue_id AS value WHERE e.venue_id IS NOT NULL
        UNION ALL SELECT 4, CASE WHEN e.featured THEN 1 ELSE 0 END
        UNION ALL SELECT 5, CASE WHEN e.tickets <> '' THEN 1 ELSE 0 END
        UNION ALL SELECT 6, venue_located(e.venue_id)
    ) k
    WHERE k.kind = ANY (kinds)
    ORDER BY 1, 2;
END
$$;

CREATE OR REPLACE FUNCTION event_keys_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed BIGINT[] := '{}';
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM event_keys_own(NEW);
    ELSIF TG_OP = 'DELETE' THEN
        DELETE FROM event_keys WHERE event_id = OLD.id;
    ELSE
        IF OLD.venue_id IS DISTINCT FROM NEW.venue_id THEN
            changed := changed || 2::bigint;
            IF venue_located(OLD.venue_id) <> venue_located(NEW.venue_id) THEN
                changed := changed || 6::bigint;
            END IF;
        END IF;
        IF OLD.featured IS DISTINCT FROM NEW.featured THEN
            changed := changed || 4::bigint;
        END IF;
        IF (OLD.tickets <> '') IS DISTINCT FROM (NEW.tickets <> '') THEN
            changed := changed || 5::bigint;
        END IF;
        IF cardinality(changed) > 0 THEN
            DELETE FROM event_keys WHERE event_id = NEW.id AND kind = ANY (changed);
            PERFORM event_keys_own_kinds(NEW, changed);
        END IF;
        IF OLD.start_utc IS DISTINCT FROM NEW.start_utc OR OLD.end_utc IS DISTINCT FROM NEW.end_utc
           OR OLD.status IS DISTINCT FROM NEW.status
           OR (OLD.password <> '') IS DISTINCT FROM (NEW.password <> '')
           OR OLD.hide_from_listings IS DISTINCT FROM NEW.hide_from_listings
           OR OLD.author IS DISTINCT FROM NEW.author THEN
            UPDATE event_keys SET start_utc = COALESCE(NEW.start_utc, 0),
                end_utc = COALESCE(NEW.end_utc, 0), status = NEW.status,
                protected = NEW.password <> '', hidden = NEW.hide_from_listings, author = NEW.author
            WHERE event_id = NEW.id;
        END IF;
    END IF;
    RETURN NULL;
END
$$;
