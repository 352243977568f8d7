-- A category moved: its subtree's events lose only the keys of the categories that were
-- above it and are not above it now, and gain only those of the ones that are above it
-- now and were not (migration 17 takes away every former ancestor's key and gives back
-- those of the new ones: a move up one level rewrites each event's keys of every category
-- still above it, and probes each one's key of every category above it). A category set
-- aside for deletion (migration 43) keeps its keys when its subcategories move up:
-- nothing can name it any more, and the deletion removes them a batch at a time
-- (`store::term_deletion`) rather than in the deleting request's transaction, in
-- proportion to the subcategories' events.
DROP TRIGGER term_ancestors_move;
CREATE TRIGGER term_ancestors_move AFTER UPDATE OF parent ON terms
WHEN old.parent IS NOT new.parent AND new.taxonomy = 'tribe_events_cat' BEGIN
    DELETE FROM event_keys
    WHERE kind = 1
      AND value IN (SELECT ancestor_id FROM term_ancestors
                    WHERE term_id = new.id AND ancestor_id <> new.id
                      AND ancestor_id NOT IN (SELECT ancestor_id FROM term_ancestors
                                              WHERE term_id = new.parent)
                      AND ancestor_id NOT IN (SELECT id FROM terms WHERE taxonomy = 'deleted'))
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
      AND s.ancestor_id = new.id;
    DELETE FROM term_ancestors
    WHERE term_id IN (SELECT term_id FROM term_ancestors WHERE ancestor_id = new.id)
      AND ancestor_id IN (SELECT ancestor_id FROM term_ancestors
                          WHERE term_id = new.id AND ancestor_id <> new.id);
    INSERT OR IGNORE INTO term_ancestors (term_id, ancestor_id)
    SELECT below.term_id, above.ancestor_id
    FROM term_ancestors below, term_ancestors above
    WHERE below.ancestor_id = new.id AND above.term_id = new.parent;
END;
