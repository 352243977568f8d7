-- A category moved with many events below it: the tree changes in the request, the
-- subtree's events' category keys follow a batch per transaction
-- (`store::category_moves`). The server queues every category of the subtree before
-- it writes the new parent; the move trigger (migration 44's, otherwise unchanged)
-- leaves the keys of a queued category's subtree to the batches, which bring each
-- event's category keys in line with its categories and the tree as they are then.
-- `after_event`: the last event of the category the batches have brought in line.
CREATE TABLE category_rekeys (
    term_id     BIGINT PRIMARY KEY REFERENCES terms(id) ON DELETE CASCADE,
    after_event BIGINT NOT NULL DEFAULT 0
);
CREATE OR REPLACE FUNCTION term_ancestors_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    lost BIGINT[];
    gained BIGINT[];
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
        -- categories that were above it and are not above it now (a category set
        -- aside keeps them), but for those a term of theirs outside the subtree still
        -- gives them, and gain the keys of those above it now that were not; then the
        -- subtree's ancestors are rewritten.
        -- The server takes the lock before the update (one lock, then rows, as
        -- writers of events do); taken again here for any other writer.
        PERFORM pg_advisory_xact_lock(hashtextextended('term-tree', 0));
        SELECT COALESCE(array_agg(ancestor_id), '{}') INTO lost FROM term_ancestors
        WHERE term_id = NEW.id AND ancestor_id <> NEW.id
          AND ancestor_id NOT IN (SELECT ancestor_id FROM term_ancestors WHERE term_id = NEW.parent)
          AND ancestor_id NOT IN (SELECT id FROM terms WHERE taxonomy = 'deleted');
        SELECT COALESCE(array_agg(ancestor_id), '{}') INTO gained FROM term_ancestors
        WHERE term_id = NEW.parent
          AND ancestor_id NOT IN (SELECT ancestor_id FROM term_ancestors WHERE term_id = NEW.id);
        IF EXISTS (SELECT 1 FROM category_rekeys WHERE term_id = NEW.id) THEN
            lost := '{}';
            gained := '{}';
        END IF;
        IF cardinality(lost) > 0 THEN
            DELETE FROM event_keys k
            WHERE k.kind = 1
              AND k.value = ANY (lost)
              AND k.event_id IN (SELECT r.post_id FROM term_ancestors s
                                 JOIN term_relationships r ON r.term_id = s.term_id
                                 WHERE s.ancestor_id = NEW.id)
              AND NOT EXISTS (SELECT 1 FROM term_relationships r
                              JOIN term_ancestors c ON c.term_id = r.term_id
                              WHERE r.post_id = k.event_id AND c.ancestor_id = k.value
                                AND r.term_id NOT IN (SELECT term_id FROM term_ancestors
                                                      WHERE ancestor_id = NEW.id));
        END IF;
        IF cardinality(gained) > 0 THEN
            INSERT INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
            SELECT DISTINCT 1::bigint, a.ancestor_id, COALESCE(e.start_utc, 0), e.id,
                   COALESCE(e.end_utc, 0), e.status, e.password <> '', e.hide_from_listings, e.author
            FROM unnest(gained) AS a(ancestor_id)
            CROSS JOIN term_ancestors s
            JOIN term_relationships r ON r.term_id = s.term_id
            JOIN posts e ON e.id = r.post_id AND e.post_type = 'event'
            WHERE s.ancestor_id = NEW.id
            ON CONFLICT DO NOTHING;
        END IF;
        DELETE FROM term_ancestors
        WHERE term_id IN (SELECT term_id FROM term_ancestors WHERE ancestor_id = NEW.id)
          AND ancestor_id IN (SELECT ancestor_id FROM term_ancestors
                              WHERE term_id = NEW.id AND ancestor_id <> NEW.id);
        INSERT INTO term_ancestors (term_id, ancestor_id)
        SELECT below.term_id, above.ancestor_id
        FROM term_ancestors below, term_ancestors above
        WHERE below.ancestor_id = NEW.id AND above.term_id = NEW.parent
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;

