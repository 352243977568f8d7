-- Every event once for each thing an event list filters by, with what lists check of
-- it, in list order (start, then ID). A filter on any one of them is a range of the
-- primary key, read from the index alone (its INCLUDE columns hold the rest): no
-- visit to the wide `posts` rows. Kinds:
--   0  the event itself (value 0)      4  featured (value 0 or 1)
--   1  a category or tag (its ID)      5  has tickets (value 0 or 1)
--   2  its venue (the venue's ID)      6  its venue has coordinates (value 0 or 1)
--   3  an organizer (its ID)
-- Triggers keep it exact through every write of posts, term relationships and
-- organizer links (see `store::events::keys`).
CREATE TABLE event_keys (
    kind      BIGINT  NOT NULL,
    value     BIGINT  NOT NULL,
    start_utc BIGINT  NOT NULL,
    event_id  BIGINT  NOT NULL,
    end_utc   BIGINT  NOT NULL,
    status    TEXT    NOT NULL,
    protected BOOLEAN NOT NULL,
    hidden    BOOLEAN NOT NULL,
    author    BIGINT  NOT NULL,
    PRIMARY KEY (kind, value, start_utc, event_id) INCLUDE (end_utc, status, protected, hidden, author)
);
-- An event's keys, for the triggers and for a second filter checked row by row.
CREATE INDEX event_keys_event ON event_keys(event_id, kind, value);

-- How many listed events (not hidden from listings) of each key, status and
-- password state each (start day, end day) pair holds, for the keys whose events
-- are many (every event, terms, flags; a venue's or organizer's are few enough to
-- count one by one). A window's count sums the pairs inside it and scans only the
-- events of its first and last day (see `store::event_count`). Days are UTC days,
-- `floor(t / 86400)`, written so that SQLite and PostgreSQL agree before 1970.
CREATE TABLE event_key_days (
    kind      BIGINT  NOT NULL,
    value     BIGINT  NOT NULL,
    status    TEXT    NOT NULL,
    protected BOOLEAN NOT NULL,
    end_day   BIGINT  NOT NULL,
    start_day BIGINT  NOT NULL,
    events    BIGINT  NOT NULL,
    PRIMARY KEY (kind, value, status, protected, end_day, start_day) INCLUDE (events)
);

-- Per venue (kind 2) and organizer (kind 3): how many of its events count as
-- having events (any status but draft, pending and trash), and the latest start
-- among its published events and among all but trashed ones, not hidden from
-- listings. `has_events` and `only_with_upcoming` read these, not the events.
CREATE TABLE linked_event_stats (
    kind        BIGINT NOT NULL,
    value       BIGINT NOT NULL,
    counted     BIGINT NOT NULL,
    public_last BIGINT,
    listed_last BIGINT,
    PRIMARY KEY (kind, value)
);

-- event_keys: fill
INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
SELECT k.kind, k.value, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
       e.password <> '', e.hide_from_listings, e.author
FROM (
    SELECT 0 AS kind, 0 AS value, id FROM posts WHERE post_type = 'event'
    UNION ALL SELECT 1, term_id, post_id FROM term_relationships
    UNION ALL SELECT 2, venue_id, id FROM posts WHERE post_type = 'event' AND venue_id IS NOT NULL
    UNION ALL SELECT 3, organizer_id, event_id FROM event_organizers
    UNION ALL SELECT 4, CASE WHEN featured THEN 1 ELSE 0 END, id FROM posts WHERE post_type = 'event'
    UNION ALL SELECT 5, CASE WHEN tickets <> '' THEN 1 ELSE 0 END, id FROM posts WHERE post_type = 'event'
    UNION ALL SELECT 6, CASE WHEN EXISTS (
        SELECT 1 FROM posts v WHERE v.id = ev.venue_id AND v.post_type = 'venue'
          AND v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL) THEN 1 ELSE 0 END, ev.id
    FROM posts ev WHERE ev.post_type = 'event'
) k
JOIN posts e ON e.id = k.id AND e.post_type = 'event'
ORDER BY 1, 2, 3, 4;
INSERT INTO event_key_days (kind, value, status, protected, end_day, start_day, events)
SELECT kind, value, status, protected,
       (end_utc - ((end_utc % 86400) + 86400) % 86400) / 86400,
       (start_utc - ((start_utc % 86400) + 86400) % 86400) / 86400,
       COUNT(*)
FROM event_keys WHERE NOT hidden AND kind IN (0, 1, 4, 5, 6)
GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO linked_event_stats (kind, value, counted, public_last, listed_last)
SELECT kind, value,
       SUM(CASE WHEN status NOT IN ('draft', 'pending', 'trash') THEN 1 ELSE 0 END),
       MAX(CASE WHEN status = 'publish' AND NOT hidden THEN start_utc END),
       MAX(CASE WHEN status <> 'trash' AND NOT hidden THEN start_utc END)
FROM event_keys WHERE kind IN (2, 3)
GROUP BY kind, value;
-- event_keys: filled

-- The per-day counts of migration 3, for published events of every kind, are now
-- the kind-0 rows of `event_key_days`.
DROP TRIGGER listed_event_days_insert ON posts;
DROP TRIGGER listed_event_days_delete ON posts;
DROP TRIGGER listed_event_days_update ON posts;
DROP FUNCTION listed_event_days_sync();
DROP TABLE listed_event_days;

-- The event's own keys (itself, venue and flags; terms and organizers have their
-- own triggers), as its row now says.
CREATE FUNCTION event_keys_own(e posts) RETURNS void LANGUAGE sql AS $$
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
    ) k
$$;

CREATE FUNCTION event_keys_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM event_keys_own(NEW);
    ELSIF TG_OP = 'DELETE' THEN
        DELETE FROM event_keys WHERE event_id = OLD.id;
    ELSE
        IF OLD.venue_id IS DISTINCT FROM NEW.venue_id OR OLD.featured IS DISTINCT FROM NEW.featured
           OR (OLD.tickets <> '') IS DISTINCT FROM (NEW.tickets <> '') THEN
            DELETE FROM event_keys WHERE event_id = NEW.id AND kind IN (0, 2, 4, 5, 6);
            PERFORM event_keys_own(NEW);
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

CREATE TRIGGER event_keys_insert AFTER INSERT ON posts FOR EACH ROW
WHEN (NEW.post_type = 'event')
EXECUTE FUNCTION event_keys_sync();

CREATE TRIGGER event_keys_delete AFTER DELETE ON posts FOR EACH ROW
WHEN (OLD.post_type = 'event')
EXECUTE FUNCTION event_keys_sync();

CREATE TRIGGER event_keys_update AFTER UPDATE ON posts FOR EACH ROW
WHEN (NEW.post_type = 'event'
  AND (OLD.start_utc IS DISTINCT FROM NEW.start_utc OR OLD.end_utc IS DISTINCT FROM NEW.end_utc
    OR OLD.status IS DISTINCT FROM NEW.status
    OR (OLD.password <> '') IS DISTINCT FROM (NEW.password <> '')
    OR OLD.hide_from_listings IS DISTINCT FROM NEW.hide_from_listings
    OR OLD.author IS DISTINCT FROM NEW.author
    OR OLD.venue_id IS DISTINCT FROM NEW.venue_id OR OLD.featured IS DISTINCT FROM NEW.featured
    OR (OLD.tickets <> '') IS DISTINCT FROM (NEW.tickets <> '')))
EXECUTE FUNCTION event_keys_sync();

-- A venue gaining or losing its coordinates, or deleted, moves its events.
CREATE FUNCTION event_keys_venue_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    located BIGINT := 0;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.geo_lat IS NOT NULL AND NEW.geo_lng IS NOT NULL THEN
            located := 1;
        END IF;
    END IF;
    UPDATE event_keys SET value = located
    WHERE kind = 6 AND event_id IN (SELECT id FROM posts WHERE venue_id = OLD.id);
    RETURN NULL;
END
$$;

CREATE TRIGGER event_keys_venue_located AFTER UPDATE ON posts FOR EACH ROW
WHEN (NEW.post_type = 'venue'
  AND (OLD.geo_lat IS NOT NULL AND OLD.geo_lng IS NOT NULL)
      IS DISTINCT FROM (NEW.geo_lat IS NOT NULL AND NEW.geo_lng IS NOT NULL))
EXECUTE FUNCTION event_keys_venue_sync();

CREATE TRIGGER event_keys_venue_delete AFTER DELETE ON posts FOR EACH ROW
WHEN (OLD.post_type = 'venue')
EXECUTE FUNCTION event_keys_venue_sync();

-- A term or organizer linked to an event, or unlinked.
CREATE FUNCTION event_keys_link_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    link_kind BIGINT := TG_ARGV[0]::bigint;
    link_event BIGINT;
    link_value BIGINT;
BEGIN
    IF TG_TABLE_NAME = 'term_relationships' THEN
        IF TG_OP = 'INSERT' THEN
            link_event := NEW.post_id; link_value := NEW.term_id;
        ELSE
            link_event := OLD.post_id; link_value := OLD.term_id;
        END IF;
    ELSE
        IF TG_OP = 'INSERT' THEN
            link_event := NEW.event_id; link_value := NEW.organizer_id;
        ELSE
            link_event := OLD.event_id; link_value := OLD.organizer_id;
        END IF;
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
        SELECT link_kind, link_value, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
               e.password <> '', e.hide_from_listings, e.author
        FROM posts e WHERE e.id = link_event AND e.post_type = 'event';
    ELSE
        DELETE FROM event_keys WHERE event_id = link_event AND kind = link_kind AND value = link_value;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER event_keys_term_insert AFTER INSERT ON term_relationships FOR EACH ROW
EXECUTE FUNCTION event_keys_link_sync('1');
CREATE TRIGGER event_keys_term_delete AFTER DELETE ON term_relationships FOR EACH ROW
EXECUTE FUNCTION event_keys_link_sync('1');
CREATE TRIGGER event_keys_organizer_insert AFTER INSERT ON event_organizers FOR EACH ROW
EXECUTE FUNCTION event_keys_link_sync('3');
CREATE TRIGGER event_keys_organizer_delete AFTER DELETE ON event_organizers FOR EACH ROW
EXECUTE FUNCTION event_keys_link_sync('3');

CREATE FUNCTION event_key_days_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND NOT OLD.hidden AND OLD.kind IN (0, 1, 4, 5, 6) THEN
        UPDATE event_key_days SET events = events - 1
        WHERE kind = OLD.kind AND value = OLD.value AND status = OLD.status
          AND protected = OLD.protected
          AND end_day = (OLD.end_utc - ((OLD.end_utc % 86400) + 86400) % 86400) / 86400
          AND start_day = (OLD.start_utc - ((OLD.start_utc % 86400) + 86400) % 86400) / 86400;
    END IF;
    IF TG_OP <> 'DELETE' AND NOT NEW.hidden AND NEW.kind IN (0, 1, 4, 5, 6) THEN
        INSERT INTO event_key_days (kind, value, status, protected, end_day, start_day, events)
        VALUES (NEW.kind, NEW.value, NEW.status, NEW.protected,
                (NEW.end_utc - ((NEW.end_utc % 86400) + 86400) % 86400) / 86400,
                (NEW.start_utc - ((NEW.start_utc % 86400) + 86400) % 86400) / 86400, 1)
        ON CONFLICT (kind, value, status, protected, end_day, start_day)
        DO UPDATE SET events = event_key_days.events + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER event_key_days_insert AFTER INSERT ON event_keys FOR EACH ROW
WHEN (NOT NEW.hidden AND NEW.kind IN (0, 1, 4, 5, 6))
EXECUTE FUNCTION event_key_days_sync();

CREATE TRIGGER event_key_days_delete AFTER DELETE ON event_keys FOR EACH ROW
WHEN (NOT OLD.hidden AND OLD.kind IN (0, 1, 4, 5, 6))
EXECUTE FUNCTION event_key_days_sync();

CREATE TRIGGER event_key_days_update AFTER UPDATE ON event_keys FOR EACH ROW
WHEN (OLD IS DISTINCT FROM NEW)
EXECUTE FUNCTION event_key_days_sync();

-- A key removed: uncounted, and if it held a latest start, that is looked up again
-- among the keys as they now are (one step back along the key's range). A key added:
-- counted, and maybe the latest start. An update is both; PostgreSQL runs row
-- triggers after the statement, so the look-up sees every row it changed.
CREATE FUNCTION linked_event_stats_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.kind IN (2, 3) THEN
        UPDATE linked_event_stats SET
            counted = counted - CASE WHEN OLD.status NOT IN ('draft', 'pending', 'trash') THEN 1 ELSE 0 END,
            public_last = CASE WHEN OLD.status = 'publish' AND NOT OLD.hidden AND OLD.start_utc >= public_last
                THEN (SELECT MAX(k.start_utc) FROM event_keys k WHERE k.kind = OLD.kind AND k.value = OLD.value
                      AND k.status = 'publish' AND NOT k.hidden)
                ELSE public_last END,
            listed_last = CASE WHEN OLD.status <> 'trash' AND NOT OLD.hidden AND OLD.start_utc >= listed_last
                THEN (SELECT MAX(k.start_utc) FROM event_keys k WHERE k.kind = OLD.kind AND k.value = OLD.value
                      AND k.status <> 'trash' AND NOT k.hidden)
                ELSE listed_last END
        WHERE kind = OLD.kind AND value = OLD.value;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.kind IN (2, 3) THEN
        INSERT INTO linked_event_stats AS s (kind, value, counted, public_last, listed_last)
        VALUES (NEW.kind, NEW.value,
                CASE WHEN NEW.status NOT IN ('draft', 'pending', 'trash') THEN 1 ELSE 0 END,
                CASE WHEN NEW.status = 'publish' AND NOT NEW.hidden THEN NEW.start_utc END,
                CASE WHEN NEW.status <> 'trash' AND NOT NEW.hidden THEN NEW.start_utc END)
        ON CONFLICT (kind, value) DO UPDATE SET
            counted = s.counted + excluded.counted,
            public_last = GREATEST(s.public_last, excluded.public_last),
            listed_last = GREATEST(s.listed_last, excluded.listed_last);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER linked_event_stats_insert AFTER INSERT ON event_keys FOR EACH ROW
WHEN (NEW.kind IN (2, 3))
EXECUTE FUNCTION linked_event_stats_sync();

CREATE TRIGGER linked_event_stats_delete AFTER DELETE ON event_keys FOR EACH ROW
WHEN (OLD.kind IN (2, 3))
EXECUTE FUNCTION linked_event_stats_sync();

CREATE TRIGGER linked_event_stats_update AFTER UPDATE ON event_keys FOR EACH ROW
WHEN ((OLD.kind IN (2, 3) OR NEW.kind IN (2, 3)) AND OLD IS DISTINCT FROM NEW)
EXECUTE FUNCTION linked_event_stats_sync();
