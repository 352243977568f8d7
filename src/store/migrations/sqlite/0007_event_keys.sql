-- Every event once for each thing an event list filters by, with what lists check of
-- it, in list order (start, then ID). A filter on any one of them is a range of the
-- primary key, read from the index alone: no visit to the wide `posts` rows, whose
-- descriptions make each visit a page read. Kinds:
--   0  the event itself (value 0)      4  featured (value 0 or 1)
--   1  a category or tag (its ID)      5  has tickets (value 0 or 1)
--   2  its venue (the venue's ID)      6  its venue has coordinates (value 0 or 1)
--   3  an organizer (its ID)
-- Triggers keep it exact through every write of posts, term relationships and
-- organizer links (see `store::events::keys`).
CREATE TABLE event_keys (
    kind      INTEGER NOT NULL,
    value     INTEGER NOT NULL,
    start_utc INTEGER NOT NULL,
    event_id  INTEGER NOT NULL,
    end_utc   INTEGER NOT NULL,
    status    TEXT    NOT NULL,
    protected INTEGER NOT NULL,
    hidden    INTEGER NOT NULL,
    author    INTEGER NOT NULL,
    PRIMARY KEY (kind, value, start_utc, event_id)
) WITHOUT ROWID;
-- An event's keys, for the triggers and for a second filter checked row by row.
CREATE INDEX event_keys_event ON event_keys(event_id, kind, value);

-- How many listed events (not hidden from listings) of each key, status and
-- password state each (start day, end day) pair holds, for the keys whose events
-- are many (every event, terms, flags; a venue's or organizer's are few enough to
-- count one by one). A window's count sums the pairs inside it and scans only the
-- events of its first and last day (see `store::event_count`). Days are UTC days,
-- `floor(t / 86400)`, written so that SQLite and PostgreSQL agree before 1970.
CREATE TABLE event_key_days (
    kind      INTEGER NOT NULL,
    value     INTEGER NOT NULL,
    status    TEXT    NOT NULL,
    protected INTEGER NOT NULL,
    end_day   INTEGER NOT NULL,
    start_day INTEGER NOT NULL,
    events    INTEGER NOT NULL,
    PRIMARY KEY (kind, value, status, protected, end_day, start_day)
) WITHOUT ROWID;

-- Per venue (kind 2) and organizer (kind 3): how many of its events count as
-- having events (any status but draft, pending and trash), and the latest start
-- among its published events and among all but trashed ones, not hidden from
-- listings. `has_events` and `only_with_upcoming` read these, not the events.
CREATE TABLE linked_event_stats (
    kind        INTEGER NOT NULL,
    value       INTEGER NOT NULL,
    counted     INTEGER NOT NULL,
    public_last INTEGER,
    listed_last INTEGER,
    PRIMARY KEY (kind, value)
) WITHOUT ROWID;

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
FROM event_keys WHERE hidden = 0 AND kind IN (0, 1, 4, 5, 6)
GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO linked_event_stats (kind, value, counted, public_last, listed_last)
SELECT kind, value,
       SUM(CASE WHEN status NOT IN ('draft', 'pending', 'trash') THEN 1 ELSE 0 END),
       MAX(CASE WHEN status = 'publish' AND hidden = 0 THEN start_utc END),
       MAX(CASE WHEN status <> 'trash' AND hidden = 0 THEN start_utc END)
FROM event_keys WHERE kind IN (2, 3)
GROUP BY kind, value;
-- event_keys: filled

-- The per-day counts of migration 3, for published events of every kind, are now
-- the kind-0 rows of `event_key_days`.
DROP TRIGGER listed_event_days_insert;
DROP TRIGGER listed_event_days_delete;
DROP TRIGGER listed_event_days_update_old;
DROP TRIGGER listed_event_days_update_new;
DROP TABLE listed_event_days;

CREATE TRIGGER event_keys_insert AFTER INSERT ON posts WHEN new.post_type = 'event' BEGIN
    INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT k.kind, k.value, COALESCE(new.start_utc, 0), new.id, COALESCE(new.end_utc, 0),
           new.status, new.password <> '', new.hide_from_listings, new.author
    FROM (
        SELECT 0 AS kind, 0 AS value
        UNION ALL SELECT 2, new.venue_id WHERE new.venue_id IS NOT NULL
        UNION ALL SELECT 4, CASE WHEN new.featured THEN 1 ELSE 0 END
        UNION ALL SELECT 5, CASE WHEN new.tickets <> '' THEN 1 ELSE 0 END
        UNION ALL SELECT 6, CASE WHEN EXISTS (
            SELECT 1 FROM posts v WHERE v.id = new.venue_id AND v.post_type = 'venue'
              AND v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL) THEN 1 ELSE 0 END
    ) k;
END;

-- What every key of the event carries.
CREATE TRIGGER event_keys_update AFTER UPDATE OF start_utc, end_utc, status, password, hide_from_listings, author ON posts
WHEN new.post_type = 'event' AND (old.start_utc IS NOT new.start_utc OR old.end_utc IS NOT new.end_utc
  OR old.status IS NOT new.status OR (old.password <> '') IS NOT (new.password <> '')
  OR old.hide_from_listings IS NOT new.hide_from_listings OR old.author IS NOT new.author) BEGIN
    UPDATE event_keys SET start_utc = COALESCE(new.start_utc, 0), end_utc = COALESCE(new.end_utc, 0),
        status = new.status, protected = new.password <> '', hidden = new.hide_from_listings,
        author = new.author
    WHERE event_id = new.id;
END;

-- The event's own values: venue, featured, tickets, located.
CREATE TRIGGER event_keys_update_values AFTER UPDATE OF venue_id, featured, tickets ON posts
WHEN new.post_type = 'event' AND (old.venue_id IS NOT new.venue_id OR old.featured IS NOT new.featured
  OR (old.tickets <> '') IS NOT (new.tickets <> '')) BEGIN
    DELETE FROM event_keys WHERE event_id = new.id AND kind IN (2, 4, 5, 6);
    INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT k.kind, k.value, COALESCE(new.start_utc, 0), new.id, COALESCE(new.end_utc, 0),
           new.status, new.password <> '', new.hide_from_listings, new.author
    FROM (
        SELECT 2 AS kind, new.venue_id AS value WHERE new.venue_id IS NOT NULL
        UNION ALL SELECT 4, CASE WHEN new.featured THEN 1 ELSE 0 END
        UNION ALL SELECT 5, CASE WHEN new.tickets <> '' THEN 1 ELSE 0 END
        UNION ALL SELECT 6, CASE WHEN EXISTS (
            SELECT 1 FROM posts v WHERE v.id = new.venue_id AND v.post_type = 'venue'
              AND v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL) THEN 1 ELSE 0 END
    ) k;
END;

CREATE TRIGGER event_keys_delete AFTER DELETE ON posts WHEN old.post_type = 'event' BEGIN
    DELETE FROM event_keys WHERE event_id = old.id;
END;

-- A venue gaining or losing its coordinates, or deleted, moves its events.
CREATE TRIGGER event_keys_venue_located AFTER UPDATE OF geo_lat, geo_lng ON posts
WHEN new.post_type = 'venue'
 AND (old.geo_lat IS NOT NULL AND old.geo_lng IS NOT NULL) IS NOT (new.geo_lat IS NOT NULL AND new.geo_lng IS NOT NULL) BEGIN
    UPDATE event_keys
    SET value = CASE WHEN new.geo_lat IS NOT NULL AND new.geo_lng IS NOT NULL THEN 1 ELSE 0 END
    WHERE kind = 6 AND event_id IN (SELECT id FROM posts WHERE venue_id = new.id);
END;

CREATE TRIGGER event_keys_venue_delete AFTER DELETE ON posts WHEN old.post_type = 'venue' BEGIN
    UPDATE event_keys SET value = 0
    WHERE kind = 6 AND event_id IN (SELECT id FROM posts WHERE venue_id = old.id);
END;

CREATE TRIGGER event_keys_term_insert AFTER INSERT ON term_relationships BEGIN
    INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT 1, new.term_id, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
           e.password <> '', e.hide_from_listings, e.author
    FROM posts e WHERE e.id = new.post_id AND e.post_type = 'event';
END;

CREATE TRIGGER event_keys_term_delete AFTER DELETE ON term_relationships BEGIN
    DELETE FROM event_keys WHERE event_id = old.post_id AND kind = 1 AND value = old.term_id;
END;

CREATE TRIGGER event_keys_organizer_insert AFTER INSERT ON event_organizers BEGIN
    INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT 3, new.organizer_id, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
           e.password <> '', e.hide_from_listings, e.author
    FROM posts e WHERE e.id = new.event_id AND e.post_type = 'event';
END;

CREATE TRIGGER event_keys_organizer_delete AFTER DELETE ON event_organizers BEGIN
    DELETE FROM event_keys WHERE event_id = old.event_id AND kind = 3 AND value = old.organizer_id;
END;

CREATE TRIGGER event_key_days_insert AFTER INSERT ON event_keys
WHEN new.hidden = 0 AND new.kind IN (0, 1, 4, 5, 6) BEGIN
    INSERT INTO event_key_days (kind, value, status, protected, end_day, start_day, events)
    VALUES (new.kind, new.value, new.status, new.protected,
            (new.end_utc - ((new.end_utc % 86400) + 86400) % 86400) / 86400,
            (new.start_utc - ((new.start_utc % 86400) + 86400) % 86400) / 86400, 1)
    ON CONFLICT (kind, value, status, protected, end_day, start_day) DO UPDATE SET events = events + 1;
END;

CREATE TRIGGER event_key_days_delete AFTER DELETE ON event_keys
WHEN old.hidden = 0 AND old.kind IN (0, 1, 4, 5, 6) BEGIN
    UPDATE event_key_days SET events = events - 1
    WHERE kind = old.kind AND value = old.value AND status = old.status AND protected = old.protected
      AND end_day = (old.end_utc - ((old.end_utc % 86400) + 86400) % 86400) / 86400
      AND start_day = (old.start_utc - ((old.start_utc % 86400) + 86400) % 86400) / 86400;
END;

-- An update is the removal of the old row and the addition of the new one, each
-- only where that row is counted.
CREATE TRIGGER event_key_days_update_old AFTER UPDATE ON event_keys
WHEN old.hidden = 0 AND old.kind IN (0, 1, 4, 5, 6) BEGIN
    UPDATE event_key_days SET events = events - 1
    WHERE kind = old.kind AND value = old.value AND status = old.status AND protected = old.protected
      AND end_day = (old.end_utc - ((old.end_utc % 86400) + 86400) % 86400) / 86400
      AND start_day = (old.start_utc - ((old.start_utc % 86400) + 86400) % 86400) / 86400;
END;

CREATE TRIGGER event_key_days_update_new AFTER UPDATE ON event_keys
WHEN new.hidden = 0 AND new.kind IN (0, 1, 4, 5, 6) BEGIN
    INSERT INTO event_key_days (kind, value, status, protected, end_day, start_day, events)
    VALUES (new.kind, new.value, new.status, new.protected,
            (new.end_utc - ((new.end_utc % 86400) + 86400) % 86400) / 86400,
            (new.start_utc - ((new.start_utc % 86400) + 86400) % 86400) / 86400, 1)
    ON CONFLICT (kind, value, status, protected, end_day, start_day) DO UPDATE SET events = events + 1;
END;

-- A key added: counted, and maybe the latest start. `MAX(COALESCE(a, b), COALESCE(b, a))`
-- is the larger of two starts either of which may be NULL.
CREATE TRIGGER linked_event_stats_insert AFTER INSERT ON event_keys WHEN new.kind IN (2, 3) BEGIN
    INSERT INTO linked_event_stats (kind, value, counted, public_last, listed_last)
    VALUES (new.kind, new.value,
            CASE WHEN new.status NOT IN ('draft', 'pending', 'trash') THEN 1 ELSE 0 END,
            CASE WHEN new.status = 'publish' AND new.hidden = 0 THEN new.start_utc END,
            CASE WHEN new.status <> 'trash' AND new.hidden = 0 THEN new.start_utc END)
    ON CONFLICT (kind, value) DO UPDATE SET
        counted = counted + excluded.counted,
        public_last = MAX(COALESCE(public_last, excluded.public_last),
                          COALESCE(excluded.public_last, public_last)),
        listed_last = MAX(COALESCE(listed_last, excluded.listed_last),
                          COALESCE(excluded.listed_last, listed_last));
END;

-- A key removed: uncounted; if it held a latest start, that is looked up again among
-- the keys left (one step back along the key's range).
CREATE TRIGGER linked_event_stats_delete AFTER DELETE ON event_keys WHEN old.kind IN (2, 3) BEGIN
    UPDATE linked_event_stats SET
        counted = counted - CASE WHEN old.status NOT IN ('draft', 'pending', 'trash') THEN 1 ELSE 0 END,
        public_last = CASE WHEN old.status = 'publish' AND old.hidden = 0 AND old.start_utc >= public_last
            THEN (SELECT MAX(k.start_utc) FROM event_keys k WHERE k.kind = old.kind AND k.value = old.value
                  AND k.status = 'publish' AND k.hidden = 0)
            ELSE public_last END,
        listed_last = CASE WHEN old.status <> 'trash' AND old.hidden = 0 AND old.start_utc >= listed_last
            THEN (SELECT MAX(k.start_utc) FROM event_keys k WHERE k.kind = old.kind AND k.value = old.value
                  AND k.status <> 'trash' AND k.hidden = 0)
            ELSE listed_last END
    WHERE kind = old.kind AND value = old.value;
END;

-- An update removes the old key and adds the new one. The removal's look-up already
-- sees the new row, and the addition only raises a start: in either order, the
-- result is the latest start of the keys as they now are.
CREATE TRIGGER linked_event_stats_update_old AFTER UPDATE ON event_keys WHEN old.kind IN (2, 3) BEGIN
    UPDATE linked_event_stats SET
        counted = counted - CASE WHEN old.status NOT IN ('draft', 'pending', 'trash') THEN 1 ELSE 0 END,
        public_last = CASE WHEN old.status = 'publish' AND old.hidden = 0 AND old.start_utc >= public_last
            THEN (SELECT MAX(k.start_utc) FROM event_keys k WHERE k.kind = old.kind AND k.value = old.value
                  AND k.status = 'publish' AND k.hidden = 0)
            ELSE public_last END,
        listed_last = CASE WHEN old.status <> 'trash' AND old.hidden = 0 AND old.start_utc >= listed_last
            THEN (SELECT MAX(k.start_utc) FROM event_keys k WHERE k.kind = old.kind AND k.value = old.value
                  AND k.status <> 'trash' AND k.hidden = 0)
            ELSE listed_last END
    WHERE kind = old.kind AND value = old.value;
END;

CREATE TRIGGER linked_event_stats_update_new AFTER UPDATE ON event_keys WHEN new.kind IN (2, 3) BEGIN
    INSERT INTO linked_event_stats (kind, value, counted, public_last, listed_last)
    VALUES (new.kind, new.value,
            CASE WHEN new.status NOT IN ('draft', 'pending', 'trash') THEN 1 ELSE 0 END,
            CASE WHEN new.status = 'publish' AND new.hidden = 0 THEN new.start_utc END,
            CASE WHEN new.status <> 'trash' AND new.hidden = 0 THEN new.start_utc END)
    ON CONFLICT (kind, value) DO UPDATE SET
        counted = counted + excluded.counted,
        public_last = MAX(COALESCE(public_last, excluded.public_last),
                          COALESCE(excluded.public_last, public_last)),
        listed_last = MAX(COALESCE(listed_last, excluded.listed_last),
                          COALESCE(excluded.listed_last, listed_last));
END;
