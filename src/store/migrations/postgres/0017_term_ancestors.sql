-- A category matches the events of its subcategories too (`include_children`), so
-- a term's key (kind 1 of `event_keys`) is now held by every event of the term or
-- of a term below it: a parent category is one range in list order, with its own
-- per-day counts, where it was the union of its children's ranges, which had to be
-- merged and counted apart (a category of 410,000 events with one child at a
-- million events: 0.5 s). Tags have no parents: their keys are unchanged.
--
-- Each term and the terms above it, itself included. Triggers keep it, and the
-- keys it decides, through every write of terms and term relationships.
CREATE TABLE term_ancestors (
    term_id     BIGINT NOT NULL,
    ancestor_id BIGINT NOT NULL,
    PRIMARY KEY (term_id, ancestor_id)
);
-- A term's subtree: the terms with it among their ancestors.
CREATE INDEX term_ancestors_below ON term_ancestors(ancestor_id, term_id);

-- term_ancestors: fill
DELETE FROM term_ancestors;
-- A UNION, not UNION ALL: a parent loop (which the server refuses to make) ends.
INSERT INTO term_ancestors (term_id, ancestor_id)
WITH RECURSIVE up(term_id, ancestor_id) AS (
    SELECT id, id FROM terms
    UNION
    SELECT up.term_id, t.parent FROM up
    JOIN terms t ON t.id = up.ancestor_id AND t.taxonomy = 'tribe_events_cat'
    JOIN terms p ON p.id = t.parent
)
SELECT term_id, ancestor_id FROM up;
INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
SELECT DISTINCT 1::bigint, c.ancestor_id, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0),
       e.status, e.password <> '', e.hide_from_listings, e.author
FROM term_relationships r
JOIN term_ancestors c ON c.term_id = r.term_id AND c.ancestor_id <> r.term_id
JOIN posts e ON e.id = r.post_id AND e.post_type = 'event'
ON CONFLICT DO NOTHING;
DELETE FROM event_key_days WHERE kind = 1;
INSERT INTO event_key_days (kind, value, status, protected, end_day, start_day, events)
SELECT kind, value, status, protected,
       (end_utc - ((end_utc % 86400) + 86400) % 86400) / 86400,
       (start_utc - ((start_utc % 86400) + 86400) % 86400) / 86400,
       COUNT(*)
FROM event_keys WHERE NOT hidden AND kind = 1
GROUP BY 1, 2, 3, 4, 5, 6;
ANALYZE term_ancestors;
-- term_ancestors: filled

-- The lock a category's move holds (`store::terms`, `hashtextextended('term-tree',
-- 0)`) and that a change of an event's terms shares: a move keys again the events
-- of its subtree as they are when it runs, and an event given a term of that
-- subtree meanwhile, by a transaction that read the ancestors as they were, would
-- keep the keys of its former place.
CREATE FUNCTION term_tree_shared() RETURNS void LANGUAGE sql AS $$
    SELECT pg_advisory_xact_lock_shared(hashtextextended('term-tree', 0));
$$;

CREATE FUNCTION term_ancestors_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO term_ancestors (term_id, ancestor_id) VALUES (NEW.id, NEW.id)
        ON CONFLICT DO NOTHING;
        IF NEW.taxonomy = 'tribe_events_cat' THEN
            INSERT INTO term_ancestors (term_id, ancestor_id)
            SELECT NEW.id, ancestor_id FROM term_ancestors WHERE term_id = NEW.parent
            ON CONFLICT DO NOTHING;
        END IF;
    ELSIF TG_OP = 'DELETE' THEN
        DELETE FROM term_ancestors WHERE term_id = OLD.id OR ancestor_id = OLD.id;
    ELSE
        -- A category moved: the events of its subtree lose the keys of the
        -- categories that were above it, but for those a term of theirs outside the
        -- subtree still gives them, and gain the keys of the new parent and the
        -- categories above it; the subtree's ancestors are rewritten in between.
        -- The server takes the lock before the update (one lock, then rows, as
        -- writers of events do); taken again here for any other writer.
        PERFORM pg_advisory_xact_lock(hashtextextended('term-tree', 0));
        DELETE FROM event_keys k
        WHERE k.kind = 1
          AND k.value IN (SELECT ancestor_id FROM term_ancestors
                          WHERE term_id = NEW.id AND ancestor_id <> NEW.id)
          AND k.event_id IN (SELECT r.post_id FROM term_ancestors s
                             JOIN term_relationships r ON r.term_id = s.term_id
                             WHERE s.ancestor_id = NEW.id)
          AND NOT EXISTS (SELECT 1 FROM term_relationships r
                          JOIN term_ancestors c ON c.term_id = r.term_id
                          WHERE r.post_id = k.event_id AND c.ancestor_id = k.value
                            AND r.term_id NOT IN (SELECT term_id FROM term_ancestors
                                                  WHERE ancestor_id = NEW.id));
        DELETE FROM term_ancestors
        WHERE term_id IN (SELECT term_id FROM term_ancestors WHERE ancestor_id = NEW.id)
          AND ancestor_id IN (SELECT ancestor_id FROM term_ancestors
                              WHERE term_id = NEW.id AND ancestor_id <> NEW.id);
        INSERT INTO term_ancestors (term_id, ancestor_id)
        SELECT below.term_id, above.ancestor_id
        FROM term_ancestors below, term_ancestors above
        WHERE below.ancestor_id = NEW.id AND above.term_id = NEW.parent
        ON CONFLICT DO NOTHING;
        INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
        SELECT DISTINCT 1::bigint, above.ancestor_id, COALESCE(e.start_utc, 0), e.id,
               COALESCE(e.end_utc, 0), e.status, e.password <> '', e.hide_from_listings, e.author
        FROM term_ancestors s
        JOIN term_relationships r ON r.term_id = s.term_id
        JOIN posts e ON e.id = r.post_id AND e.post_type = 'event'
        JOIN term_ancestors above ON above.term_id = NEW.parent
        WHERE s.ancestor_id = NEW.id
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER term_ancestors_insert AFTER INSERT ON terms FOR EACH ROW
EXECUTE FUNCTION term_ancestors_sync();
CREATE TRIGGER term_ancestors_delete AFTER DELETE ON terms FOR EACH ROW
EXECUTE FUNCTION term_ancestors_sync();
CREATE TRIGGER term_ancestors_move AFTER UPDATE OF parent ON terms FOR EACH ROW
WHEN (OLD.parent IS DISTINCT FROM NEW.parent AND NEW.taxonomy = 'tribe_events_cat')
EXECUTE FUNCTION term_ancestors_sync();

-- An event given a term holds the keys of the term and of every term above it;
-- those it holds already through another of its terms stay as they are. An event
-- losing a term keeps only the keys its other terms give it: every key of the event
-- is checked, not the ancestors of the term it lost, which a deleted term may have
-- lost before its relationships go.
CREATE FUNCTION event_keys_term_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM term_tree_shared();
    IF TG_OP = 'INSERT' THEN
        INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
        SELECT 1, c.ancestor_id, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
               e.password <> '', e.hide_from_listings, e.author
        FROM posts e JOIN term_ancestors c ON c.term_id = NEW.term_id
        WHERE e.id = NEW.post_id AND e.post_type = 'event'
        ON CONFLICT DO NOTHING;
    ELSE
        DELETE FROM event_keys k
        WHERE k.event_id = OLD.post_id AND k.kind = 1
          AND NOT EXISTS (SELECT 1 FROM term_relationships r
                          JOIN term_ancestors c ON c.term_id = r.term_id
                          WHERE r.post_id = OLD.post_id AND c.ancestor_id = k.value);
    END IF;
    RETURN NULL;
END
$$;

DROP TRIGGER event_keys_term_insert ON term_relationships;
DROP TRIGGER event_keys_term_delete ON term_relationships;
CREATE TRIGGER event_keys_term_insert AFTER INSERT ON term_relationships FOR EACH ROW
EXECUTE FUNCTION event_keys_term_sync();
CREATE TRIGGER event_keys_term_delete AFTER DELETE ON term_relationships FOR EACH ROW
EXECUTE FUNCTION event_keys_term_sync();
