-- A category moved with many events below it: the tree changes in the request, the
-- subtree's events' category keys follow a batch per transaction
-- (`store::category_moves`). The server queues every category of the subtree before
-- it writes the new parent; the move trigger (migration 44's, otherwise unchanged)
-- leaves the keys of a queued category's subtree to the batches, which bring each
-- event's category keys in line with its categories and the tree as they are then.
-- The guard sits in the sets of categories each statement drives from, so a queued
-- category's move reads none of its events.
-- `after_event`: the last event of the category the batches have brought in line.
CREATE TABLE category_rekeys (
    term_id     INTEGER PRIMARY KEY REFERENCES terms(id) ON DELETE CASCADE,
    after_event INTEGER NOT NULL DEFAULT 0
);
DROP TRIGGER term_ancestors_move;
CREATE TRIGGER term_ancestors_move AFTER UPDATE OF parent ON terms
WHEN old.parent IS NOT new.parent AND new.taxonomy = 'tribe_events_cat' BEGIN
    DELETE FROM event_keys
    WHERE kind = 1
      AND value IN (SELECT ancestor_id FROM term_ancestors
                    WHERE term_id = new.id AND ancestor_id <> new.id
                      AND ancestor_id NOT IN (SELECT ancestor_id FROM term_ancestors
                                              WHERE term_id = new.parent)
                      AND ancestor_id NOT IN (SELECT id FROM terms WHERE taxonomy = 'deleted')
                      AND NOT EXISTS (SELECT 1 FROM category_rekeys WHERE term_id = new.id))
      AND event_id IN (SELECT r.post_id FROM term_ancestors s
                       JOIN term_relationships r ON r.term_id = s.term_id
                       WHERE s.ancestor_id = new.id)
      AND NOT EXISTS (SELECT 1 FROM term_relationships r
                      JOIN term_ancestors c ON c.term_id = r.term_id
                      WHERE r.post_id = event_keys.event_id AND c.ancestor_id = event_keys.value
                        AND r.term_id NOT IN (SELECT term_id FROM term_ancestors
                                              WHERE ancestor_id = new.id));
    -- The keys of the categories above it now that were not: each one's events in the
    -- outer loop, so a move up past its parent (nothing new above) reads no event.
    INSERT OR IGNORE INTO event_keys (kind, value, start_utc, event_id, end_utc, status, protected, hidden, author)
    SELECT 1, above.ancestor_id, COALESCE(e.start_utc, 0), e.id, COALESCE(e.end_utc, 0), e.status,
           e.password <> '', e.hide_from_listings, e.author
    FROM term_ancestors above
    CROSS JOIN term_ancestors s
    JOIN term_relationships r ON r.term_id = s.term_id
    JOIN posts e ON e.id = r.post_id AND e.post_type = 'event'
    WHERE above.term_id = new.parent
      AND above.ancestor_id NOT IN (SELECT ancestor_id FROM term_ancestors WHERE term_id = new.id)
      AND s.ancestor_id = new.id
      AND NOT EXISTS (SELECT 1 FROM category_rekeys WHERE term_id = new.id);
    DELETE FROM term_ancestors
    WHERE term_id IN (SELECT term_id FROM term_ancestors WHERE ancestor_id = new.id)
      AND ancestor_id IN (SELECT ancestor_id FROM term_ancestors
                          WHERE term_id = new.id AND ancestor_id <> new.id);
    INSERT OR IGNORE INTO term_ancestors (term_id, ancestor_id)
    SELECT below.term_id, above.ancestor_id
    FROM term_ancestors below, term_ancestors above
    WHERE below.ancestor_id = new.id AND above.term_id = new.parent;
END;
